/** The project's own tests (`npm test`): helpers' unit tests, the reference server, and the suite proving itself. */
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['selftest/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // The JSON report is what .ci/run counts; the default reporter is for people.
    reporters: ['default', ['json', { outputFile: 'reports/selftest.json' }]],
  },
})
