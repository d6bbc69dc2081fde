/**
 * The vitest options of the conformance suite (suites/): vitest.config.ts for a bare `npx vitest --config
 * vitest.config.ts`, and handed to vitest directly by the pipeline (helpers/runner/pipeline.ts), which then
 * skips loading a config file (vite bundles it first: a few hundred ms of every run's start).
 */
import { accessSync, constants, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import type { InlineConfig } from 'vitest/node'
import { AREAS } from '../spec/clauses'

const require = createRequire(import.meta.url)

/** The most threads a run uses, and how many it uses for `files` suite files (null: every file of the suite). */
export function suiteWorkers(files: number | null = null): number {
  const most = Math.max(2, Math.min(4, availableParallelism()))
  // A thread for a file or two costs more (each imports vitest, Ajv, faker and the helpers) than it saves.
  return files === null ? most : Math.max(1, Math.min(most, Math.ceil(files / 4)))
}

/**
 * Where vitest may keep the suite files it compiled, between runs (vitest's fsModuleCache; a file compiled again
 * when its text changed): the suite's own node_modules/.cache, when that can be written (a clone; an installed
 * copy may be read-only, and then every run compiles them as before). null: no such place.
 */
export function moduleCacheDir(root: string): string | null {
  const dir = join(root, 'node_modules', '.cache', 'mcs-conformance-vitest')
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    return dir
  } catch {
    return null
  }
}

/** The suite's options; `root` (the suite's folder) lets vitest keep what it compiled between runs (moduleCacheDir). */
export function suiteTestConfig(files: number | null = null, root?: string): InlineConfig {
  const cache = root ? moduleCacheDir(root) : null
  return {
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
    ...(cache ? { experimental: { fsModuleCache: true, fsModuleCachePath: cache } } : {}),
    maxWorkers: suiteWorkers(files),
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
  }
}
