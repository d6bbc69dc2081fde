/**
 * A failure is a judgement and is never re-run; only a check that could not be judged runs again
 * (RERUN_ERRORED). Counted through the real pipeline, as `npm run conformance` and the installed command run it.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { flakyClusterText } from '../helpers/reports/matrix'
import type { CheckResult } from '../helpers/reports/results'
import { runConformance } from '../helpers/runner/pipeline'

async function probe(env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), 'ct-rerun-'))
  const file = join(dir, 'attempts.txt')
  process.env.RERUN_PROBE_FILE = file
  const lines: string[] = []
  try {
    const out = await runConformance({
      env: { BASE_URL: 'embedded', REPORT_DIR: join(dir, 'reports'), STRICT: 'false', ...env },
      suiteFiles: ['selftest/fixtures/rerun.check.ts'],
      log: (l) => lines.push(l),
      warn: (l) => lines.push(l),
    })
    const attempts = readFileSync(file, 'utf8').split('\n').filter(Boolean)
    const count = (name: string) => attempts.filter((a) => a === name).length
    const status = (title: string) => out.results?.checks.find((c) => c.title.startsWith(title))?.status
    return { out, lines, count, status }
  } finally {
    delete process.env.RERUN_PROBE_FILE
  }
}

describe('re-runs (RERUN_ERRORED)', () => {
  test('a failing check runs once, an erroring one up to three times, one meeting 502s up to five, a passing one once', async () => {
    const { out, lines, count, status } = await probe({})
    expect(count('failing'), lines.join('\n')).toBe(1)
    expect(count('erroring')).toBe(2)
    expect(count('always-erroring')).toBe(3)
    expect(count('unavailable')).toBe(5)
    expect(count('judged-after-502')).toBe(2)
    expect(count('passing')).toBe(1)
    expect(status('rerun probe: a failure')).toBe('failed')
    expect(status('rerun probe: an error on the first')).toBe('flaky')
    expect(status('rerun probe: an error on every')).toBe('error')
    expect(status('rerun probe: a 502 on')).toBe('flaky')
    expect(status('rerun probe: judged after a 502')).toBe('flaky')
    expect(status('rerun probe: a pass')).toBe('passed')
    expect(out.exitCode).toBe(1)
  })

  test('with RERUN_ERRORED=false nothing runs twice', async () => {
    const { count, status } = await probe({ RERUN_ERRORED: 'false' })
    expect([count('failing'), count('erroring'), count('always-erroring'), count('unavailable'), count('judged-after-502'), count('passing')]).toEqual([
      1, 1, 1, 1, 1, 1,
    ])
    expect(status('rerun probe: an error on the first')).toBe('error')
    expect(status('rerun probe: a 502 on')).toBe('error')
  })
})

describe('a cluster of flaky MUST checks', () => {
  const entry = (clause: string, over: Partial<CheckResult>) => ({ clause, level: 'MUST', status: 'flaky', retries: 0, ...over }) as CheckResult

  test('is named when three MUST checks passed only on a re-run', () => {
    const checks = ['items.get.by-id', 'items.fetch.range', 'items.delete.by-id'].map((c) => entry(c, {}))
    expect(flakyClusterText({ checks })).toMatch(
      /^3 MUST checks passed only when run a second time \(items\.get\.by-id, items\.fetch\.range, items\.delete\.by-id\)/,
    )
  })

  test('is not named for two, for retried requests, nor for SHOULD checks', () => {
    expect(flakyClusterText({ checks: [entry('a', {}), entry('b', {})] })).toBe('')
    expect(flakyClusterText({ checks: [entry('a', { retries: 1 }), entry('b', { retries: 2 }), entry('c', { retries: 1 })] })).toBe('')
    expect(flakyClusterText({ checks: [entry('a', { level: 'SHOULD' }), entry('b', { level: 'SHOULD' }), entry('c', { level: 'SHOULD' })] })).toBe('')
  })
})
