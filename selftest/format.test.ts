/**
 * The formatter's check (`npm run format:check`): every TypeScript and JavaScript file of the project is as
 * Prettier writes it with .prettierrc.json, so a diff shows what changed, not how someone likes to wrap lines.
 * `npm run format` rewrites the files that are not.
 */
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { expect, test } from 'vitest'
import { ROOT } from '../testing/run-suite'

const require = createRequire(import.meta.url)

test('every .ts, .mts, .mjs and .js file is formatted (npm run format:check)', () => {
  const prettier = require.resolve('prettier/bin/prettier.cjs')
  const run = spawnSync(process.execPath, [prettier, '--check', '--log-level', 'warn', '**/*.{ts,mts,mjs,js}'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 110_000,
  })
  expect(run.error, String(run.error)).toBeUndefined()
  // Prettier names each file it would change; the list is the failure message.
  expect(`${run.stdout}${run.stderr}`.trim(), 'files not formatted: run npm run format').toBe('')
  expect(run.status).toBe(0)
}, 120_000)
