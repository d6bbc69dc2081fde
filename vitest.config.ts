/**
 * The conformance suite (suites/), run by `npm run conformance`. Checks are independent (each makes its own
 * channels), so files run in parallel and tests within a file run concurrently.
 */
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'
import { AREAS } from './helpers/spec/clauses.ts'

const require = createRequire(import.meta.url)

export default defineConfig({
  test: {
    include: ['suites/**/*.test.ts'],
    globalSetup: ['helpers/runner/global-setup.ts'],
    // Allure's runtime in every worker, so check() can label and step; the CLI adds the allure-vitest reporter
    // that writes REPORT_DIR/allure-results. Resolved to the path the reporter uses, so it is not added twice.
    setupFiles: [require.resolve('allure-vitest/setup')],
    // Speed on a slow server (npm run bench): the checks wait on the network, so at least two files run at once
    // even on a 2-core machine (vitest's default there is one), each with up to 24 checks in flight. More
    // threads than cores only cost CPU: every thread imports vitest, Ajv, faker and the helpers once. Files
    // share their thread's modules (isolate: false), which halves the CPU of a run; the helpers keep no state
    // a file could leak to another (only caches and a name counter).
    // Threads, not forks: the prepared run carries SharedArrayBuffers (the run's pace and current tokens,
    // helpers/http/run-context.ts), which threads share and a process pool cannot clone.
    pool: 'threads',
    maxWorkers: Math.max(2, Math.min(4, availableParallelism())),
    isolate: false,
    fileParallelism: true,
    sequence: { concurrent: true },
    maxConcurrency: 24,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 60_000,
    tags: [
      { name: 'must', description: 'MUST: stated or unambiguously implied by the spec' },
      { name: 'should', description: 'SHOULD: HTTP conventions where the spec is silent' },
      { name: 'info', description: 'INFO: observations of what the spec leaves open' },
      ...Object.entries(AREAS).map(([name, description]) => ({ name, description })),
    ],
  },
})
