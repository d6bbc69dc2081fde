/**
 * The project's own tests (`npm test`), in three projects:
 * - unit: in-process tests of the library, the reference server and the static gates (types, layers), in
 *   seconds each (`npm run test:unit`, the loop while editing);
 * - e2e: whole runs of the suite, explore and the scripts against reference servers, proxies and faults, which
 *   take most of the time (`npm run test:e2e`), and e2e-timed, those of them that judge time (below).
 * A new self-test file is a unit test unless it is listed under E2E.
 */
import { defineConfig } from 'vitest/config'
import { LongestFirst } from './selftest/sequencer'

/**
 * End-to-end files whose assertions are about time (a graceful stop within its bound, a refusal that does not
 * wait for a timeout, checks that time out behind a proxy that never answers): they run after the others, one
 * at a time, on a machine no other file loads.
 */
const TIMED = ['selftest/chaos.test.ts', 'selftest/deployment.test.ts', 'selftest/enrol.test.ts', 'selftest/preflight.test.ts']

const E2E = [
  'selftest/clean-run.test.ts',
  'selftest/evidence.test.ts',
  'selftest/explore.test.ts',
  'selftest/faults.test.ts',
  'selftest/leak.test.ts',
  'selftest/openapi.test.ts',
  'selftest/package.test.ts',
  'selftest/pipeline.test.ts',
  'selftest/report-run.test.ts',
  'selftest/reports.test.ts',
  'selftest/reproducers.test.ts',
  'selftest/report-print.test.ts',
  'selftest/root-causes.test.ts',
  'selftest/staging-conditions.test.ts',
  'selftest/sweep.test.ts',
  'selftest/variants.test.ts',
]

export default defineConfig({
  test: {
    pool: 'forks',
    // Files side by side, more than the cores: most of the long files wait (on proxies that pace, limit or
    // delay, on child processes, on a browser), and the two that do not (faults, variants) size their own
    // parallel runs. Vitest's default on a 2-core machine is one file at a time, which made npm test the sum of
    // every file's wall time, the waits included. `npm test -- --maxWorkers=1` runs them one after another.
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    testTimeout: 120_000,
    // A long set-up (a queue of whole runs) shares the machine with the other files: the bound is generous.
    hookTimeout: 1_200_000,
    // The JSON report is what .ci/run counts; the default reporter is for people.
    reporters: ['default', ['json', { outputFile: 'reports/selftest.json' }]],
    projects: [
      { extends: true, test: { name: 'unit', include: ['selftest/**/*.test.ts'], exclude: [...E2E, ...TIMED] } },
      { extends: true, test: { name: 'e2e', include: E2E } },
      { extends: true, test: { name: 'e2e-timed', include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
})
