/** The conformance pipeline called in-process (helpers/runner/pipeline.ts), as a library user would. */
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { filterProblem, runConformance } from '../helpers/runner/pipeline'

describe('runConformance in-process', () => {
  test('a bad configuration: exit 2, one message, no results', async () => {
    const lines: string[] = []
    const out = await runConformance({ env: { BASE_URL: 'ftp://x' }, warn: (l) => lines.push(l), log: (l) => lines.push(l) })
    expect(out).toEqual({ exitCode: 2, results: null, resultsPath: null })
    expect(lines.join('\n')).toMatch(/^conformance: configuration is not usable:\n {2}- BASE_URL must be http:\/\/ or https:\/\/, got 'ftp:'/)
  })

  test('filters are checked before a run', () => {
    expect(filterProblem(['signin'], 'MUST')).toBeNull()
    expect(filterProblem(['nope'], null)).toMatch(/^unknown area 'nope'; the areas are signin, /)
    expect(filterProblem(['http'], null)).toMatch(/no checks of its own/)
    expect(filterProblem([], 'sometimes')).toBe("unknown level 'sometimes'; the levels are must, should, info")
  })

  test('one area against the embedded server: conformant, results returned and written', async () => {
    const reportDir = mkdtempSync(join(tmpdir(), 'ct-pipeline-'))
    const lines: string[] = []
    const out = await runConformance({
      areas: ['signin'],
      env: { BASE_URL: 'embedded', REPORT_DIR: reportDir, STRICT: 'false' },
      log: (l) => lines.push(l),
      warn: (l) => lines.push(l),
    })
    expect(out.exitCode, lines.join('\n')).toBe(0)
    expect(out.results?.verdict).toBe('conformant')
    expect(out.results?.filters).toEqual({ areas: ['signin'], level: null })
    expect(out.results?.checks.length).toBeGreaterThan(3)
    expect(out.results?.checks.some((c) => c.area === 'signin')).toBe(true)
    expect(out.resultsPath).toBe(join(reportDir, 'results.json'))
    expect(existsSync(join(reportDir, 'results.json'))).toBe(true)
    expect(lines.some((l) => l.startsWith('verdict: conformant'))).toBe(true)
  })
})
