/**
 * The suite against the clean reference server: it must pass with zero MUST failures and zero errors, and
 * the suite must be well-formed (the house lint: every check names a registered clause with a level,
 * titles are unique, every MUST clause has a check or is registered as not testable).
 */
import { beforeAll, describe, expect, test } from 'vitest'
import { CLAUSES } from '../helpers/spec/clauses'
import { runSuite, type SuiteRun } from '../testing/run-suite'

let run: SuiteRun

beforeAll(async () => {
  run = await runSuite()
})

describe('the suite against the clean reference server', () => {
  test('exits 0 with the verdict conformant', () => {
    expect(run.stderr).toBe('')
    expect(run.results, run.stdout).not.toBeNull()
    expect(run.results!.verdict, run.stdout).toBe('conformant')
    expect(run.code).toBe(0)
  })

  test('has no failed or errored check at any level', () => {
    const bad = run.results!.checks.filter((c) => c.status === 'failed' || c.status === 'error')
    expect(bad.map((c) => `${c.level} ${c.id}: ${c.message}`)).toEqual([])
    expect(run.results!.errors).toEqual([])
  })

  test('leaves no channel behind and reports no cleanup problem', () => {
    expect(run.results!.cleanup).toEqual([])
  })

  test('prints a summary per area and the results path', () => {
    expect(run.stdout).toMatch(/verdict: conformant/)
    expect(run.stdout).toMatch(/^channels\s/m)
    expect(run.stdout).toContain('results.json')
  })
})

describe('lint of the suite', () => {
  test('gives every check a unique id and title', () => {
    const own = run.results!.checks.filter((c) => !c.parent)
    const ids = own.map((c) => c.id)
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([])
    const titles = own.map((c) => `${c.file}: ${c.title}`)
    expect(titles.filter((t, i) => titles.indexOf(t) !== i)).toEqual([])
  })

  test('covers every MUST clause with a check, or registers why it cannot', () => {
    const checked = new Set(run.results!.checks.filter((c) => !c.parent).map((c) => c.clause))
    const missing = CLAUSES.filter((c) => c.level === 'MUST' && !c.notTestable && !checked.has(c.id)).map((c) => c.id)
    expect(missing).toEqual([])
  })

  test('gives every not-testable clause a reason', () => {
    for (const c of CLAUSES.filter((x) => x.notTestable !== undefined)) expect(c.notTestable!.length, c.id).toBeGreaterThan(20)
  })

  test('uses clause ids of the form area.slug with a known level', () => {
    for (const c of CLAUSES) {
      expect(c.id).toMatch(/^[a-z]+(\.[a-z0-9-]+)+$/)
      expect(['MUST', 'SHOULD', 'INFO']).toContain(c.level)
      expect(c.section).toMatch(/^§/)
    }
  })
})
