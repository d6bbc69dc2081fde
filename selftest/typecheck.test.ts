/**
 * `tsc --noEmit` over the whole project (tsconfig.json: helpers, suites, reference, selftest, scripts), so
 * `npm test` (and CI, which runs it) fails on a type error that vitest's transpile-only loading would let by.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { expect, test } from 'vitest'
import { ROOT } from '../testing/run-suite'

const require = createRequire(import.meta.url)

test('the project type-checks (tsc --noEmit)', () => {
  const tsc = require.resolve('typescript/bin/tsc')
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '-p', ROOT], { cwd: ROOT, encoding: 'utf8', timeout: 170_000 })
  expect(run.error, String(run.error)).toBeUndefined()
  expect(`${run.stdout}${run.stderr}`.trim(), 'tsc reported errors').toBe('')
  expect(run.status).toBe(0)
}, 180_000)
