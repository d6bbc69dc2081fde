/**
 * The conformance suite (suites/), run by `npm run conformance`. Checks are independent (each makes its own
 * channels), so files run in parallel and tests within a file run concurrently.
 */
import { defineConfig } from 'vitest/config'
import { AREAS } from './helpers/clauses.ts'

export default defineConfig({
  test: {
    include: ['suites/**/*.test.ts'],
    globalSetup: ['helpers/global-setup.ts'],
    pool: 'threads',
    fileParallelism: true,
    sequence: { concurrent: true },
    maxConcurrency: 10,
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
