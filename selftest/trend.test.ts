/**
 * The trend over a target's history (helpers/reports/trend.ts), the baseline of "changes since the previous
 * run", could-not-run nights, and `npm run report:trend` / `report:diff` on a history directory, on a
 * hand-made history of eight nights:
 *   1, 2 clean · 3 fault A starts, fault B · 4 interrupted · 5 filtered to channels and items ·
 *   6 A and B fail, C fails again · 7 could not run · 8 A fails, B passes.
 * C failed on nights 1 and 6 and passed on 2, 3 and 8 (4 and 5 did not judge it).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { CLAUSES } from '../helpers/spec/clauses'
import { diffRuns } from '../helpers/reports/diff'
import { readHistory, recordCouldNotRun } from '../helpers/reports/history'
import { modelWithHistory, writeReports } from '../helpers/reports'
import { writeResults, type RunResults } from '../helpers/reports/results'
import { baselineOf, buildTrend, formatTrend, isFlaky, kindOf, slowestEndpoints } from '../helpers/reports/trend'
import { fixtureRun, type Change } from './report-fixtures'
import { ROOT } from '../testing/run-suite'

const A = 'channels.create.default-max-items'
const B = 'items.publish.response'
const C = 'channels.search.size'

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `ct-${prefix}-`))
const at = (night: number) => `2025-11-${String(10 + night).padStart(2, '0')}T02:00:00.000Z`
const fail: Change = { status: 'failed' }
const notChannelsOrItems = CLAUSES.filter((c) => c.area !== 'channels' && c.area !== 'items').map((c) => c.id)
const secondHalf = CLAUSES.slice(Math.floor(CLAUSES.length / 2))
  .map((c) => c.id)
  .filter((id) => id !== A && id !== B)

function night(n: number): RunResults | null {
  const id = `n${n}`
  switch (n) {
    case 1:
      return fixtureRun({ runId: id, startedAt: at(n), changes: { [C]: fail } })
    case 2:
      return fixtureRun({ runId: id, startedAt: at(n) })
    case 3:
      return fixtureRun({ runId: id, startedAt: at(n), changes: { [A]: fail, [B]: fail } })
    case 4:
      return {
        ...fixtureRun({ runId: id, startedAt: at(n), changes: { [A]: fail }, omit: [...secondHalf, C] }),
        interrupted: true,
        verdict: 'incomplete',
        exitCode: 2,
      }
    case 5:
      return {
        ...fixtureRun({ runId: id, startedAt: at(n), changes: { [A]: fail }, omit: [...notChannelsOrItems, C] }),
        filters: { areas: ['channels', 'items'], level: null },
      }
    case 6:
      return fixtureRun({ runId: id, startedAt: at(n), changes: { [A]: fail, [B]: fail, [C]: fail } })
    case 7:
      return null
    default:
      return fixtureRun({ runId: id, startedAt: at(n), changes: { [A]: fail, [C]: { status: 'passed' } } })
  }
}

/** Nights 1..last as results; night 7 as the history records a run that could not run. */
function history(last: number): RunResults[] {
  const dir = tmp('nights')
  const out: RunResults[] = []
  for (let n = 1; n <= last; n++) {
    const r = night(n)
    if (r) out.push(r)
    else {
      recordCouldNotRun(dir, {
        target: out[0]!.target,
        targetSlug: 'staging.example.com',
        startedAt: new Date(at(n)),
        reason: 'cannot run: cannot reach https://staging.example.com: ECONNREFUSED',
      })
      out.push(readHistory(dir)[0]!.results)
    }
  }
  return out
}

describe('trend rows and labels', () => {
  test('a row per run with verdict, counts, errors and duration; interrupted, filtered and could-not-run runs are marked', () => {
    const t = buildTrend(history(8))!
    expect(t.rows.map((r) => (r.runId.startsWith('n') ? r.runId : 'cnr'))).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'cnr', 'n8'])
    expect(t.rows.map((r) => r.kind)).toEqual(['complete', 'complete', 'complete', 'interrupted', 'filtered', 'complete', 'could-not-run', 'complete'])
    expect(t.rows.map((r) => r.verdict)).toEqual([
      'non-conformant',
      'conformant',
      'non-conformant',
      'incomplete',
      'non-conformant',
      'non-conformant',
      'could-not-run',
      'non-conformant',
    ])
    const mustTotal = CLAUSES.filter((c) => !c.notTestable && c.level === 'MUST').length
    expect(t.rows[1]!.must).toEqual({ passed: mustTotal, failed: 0 })
    expect(t.rows[2]!.must).toEqual({ passed: mustTotal - 2, failed: 2 })
    expect(t.rows[6]!.note).toMatch(/^cannot run: cannot reach/)
    expect(t.rows[6]!.errors).toBe(0)
    expect(t.rows[1]!.durationMs).toBe(9_000)
    expect(t.baseline).toBe('n6')
  })

  test('failing since: a fault from night 3 on is one regression streak; the could-not-run night is a gap, not a pass', () => {
    const t = buildTrend(history(8))!
    expect(t.clauses.map((c) => c.clause)).toEqual([A])
    const a = t.clauses[0]!
    expect(a.label).toBe('regression')
    expect(a.failingSince.runId).toBe('n3')
    // Nights 3, 4, 5, 6 and 8 judged A and it failed in each; night 7 judged nothing.
    expect(a.streak).toBe(5)
    expect(a.outcomes).toBe('..xxxxx')
    expect(a.earlierFailures).toEqual([])
  })

  test('a fault on nights 3 and 6 is a recurring regression, not a flake; a clause alternating run after run is flaky', () => {
    const t = buildTrend(history(6))!
    const b = t.clauses.find((c) => c.clause === B)!
    expect(b.label).toBe('regression')
    expect(b.failingSince.runId).toBe('n6')
    expect(b.streak).toBe(1)
    // Passed on nights 1, 2, 4 (interrupted, B among the checks it ran) and 5 (filtered, B's area included).
    expect(b.outcomes).toBe('..x..x')
    expect(b.earlierFailures).toEqual([at(3)])
    const c = t.clauses.find((x) => x.clause === C)!
    // C: failed, passed, passed, failed on the runs that judged it: it settled on night 2 and 3, so a regression too.
    expect(c.outcomes).toBe('x..x')
    expect(c.label).toBe('regression')
    expect(isFlaky([true, false, true, false])).toBe(true)
    expect(isFlaky([false, false, true, false, false, true])).toBe(false)
    expect(isFlaky([false, false, true, true, true, true])).toBe(false)
    expect(isFlaky([false, true, false])).toBe(false)
  })

  test('a clause failing in every run that judged it is failing since the first run, not a regression', () => {
    // Nights 3 to 6: A fails in each, from the first run shown on; B fails on 3 and passes on 4 and 5, fails on 6.
    const t = buildTrend(history(6).slice(2))!
    const a = t.clauses.find((c) => c.clause === A)!
    expect(a.outcomes).toBe('xxxx')
    expect(a.label).toBe('failing since the first run')
    expect(formatTrend(t)).toMatch(new RegExp(`${A.replace(/\./g, '\\.')} +failing since the first run +failing since`))
    expect(t.clauses.find((c) => c.clause === B)!.label).toBe('regression')
  })

  test('alternating without a streak over four runs is labelled flaky in the trend and in the diff', () => {
    // f1 x, f2 ., f3 x, f4 ., f5 x
    const runs = [1, 2, 3, 4, 5].map((n) => fixtureRun({ runId: `f${n}`, startedAt: at(n), changes: n % 2 ? { [C]: fail } : {} }))
    const t = buildTrend(runs)!
    expect(t.clauses.find((c) => c.clause === C)!.label).toBe('flaky')
    const d = diffRuns(runs[3]!, runs[4]!, runs.slice(0, 3))
    expect(d.flaky.map((e) => e.clause)).toContain(C)
  })

  test('the diff of six complete nights lists a fault on nights 3 and 6 as new, not flaky', () => {
    const runs = [1, 2, 3, 4, 5, 6].map((n) => fixtureRun({ runId: `c${n}`, startedAt: at(n), changes: n === 3 || n === 6 ? { [B]: fail } : {} }))
    const d = diffRuns(runs[4]!, runs[5]!, runs.slice(0, 4))
    expect(d.newFailures.map((e) => e.clause)).toEqual([B])
    expect(d.flaky).toEqual([])
  })

  test('p95 of the slowest endpoints is read from an optional latency field, in either shape', () => {
    const base = fixtureRun()
    expect(slowestEndpoints(base)).toEqual([])
    const asList = {
      ...base,
      latency: [
        { endpoint: 'GET /channels', count: 3, p50: 5, p95: 40, max: 41, errors: 0 },
        { endpoint: 'POST /channels/{name}/items', p95: 90 },
      ],
    } as RunResults
    expect(slowestEndpoints(asList).map((e) => e.endpoint)).toEqual(['POST /channels/{name}/items', 'GET /channels'])
    const asMap = { ...base, latency: { 'GET /users': { p95: 7 } } } as unknown as RunResults
    expect(slowestEndpoints(asMap)).toEqual([{ endpoint: 'GET /users', p95: 7 }])
    const t = buildTrend([asList])!
    expect(formatTrend(t)).toContain('POST /channels/{name}/items 90 ms')
  })
})

describe('baseline of "changes since the previous run"', () => {
  test('skips interrupted, filtered, incomplete, could-not-run and concurrent runs, and other targets', () => {
    const runs = history(8).map((results) => ({ results }))
    const n8 = runs.at(-1)!.results
    expect(baselineOf(runs.slice(0, -1), n8)!.results.runId).toBe('n6')
    const n6 = runs[5]!.results
    expect(baselineOf(runs.slice(0, 5), n6)!.results.runId).toBe('n3')
    expect(kindOf(runs[3]!.results)).toBe('interrupted')
    expect(kindOf(runs[4]!.results)).toBe('filtered')
    const incomplete = { ...fixtureRun({ runId: 'inc', startedAt: at(7) }), verdict: 'incomplete' as const, exitCode: 2 as const }
    expect(kindOf(incomplete)).toBe('incomplete')
    // A run that started before n8 but was still going when n8 started was concurrent.
    const concurrent = { ...fixtureRun({ runId: 'conc', startedAt: '2025-11-18T01:59:00.000Z' }), endedAt: '2025-11-18T02:05:00.000Z' }
    expect(baselineOf([...runs.slice(0, -1), { results: concurrent }, { results: incomplete }], n8)!.results.runId).toBe('n6')
    const other = fixtureRun({ runId: 'oth', startedAt: at(7), target: 'https://other.example.com (user API /u, message API /m)' })
    expect(baselineOf([...runs.slice(0, -1), { results: other }], n8)!.results.runId).toBe('n6')
  })

  test('writeReports compares with the last complete run and puts the trend into summary.md and report.html', () => {
    const dir = tmp('trend-reports')
    let last
    for (const r of history(8)) {
      if (r.verdict === 'could-not-run') {
        recordCouldNotRun(join(dir, 'history'), { target: r.target, targetSlug: 'staging.example.com', startedAt: new Date(r.startedAt), reason: r.errors[0]! })
        continue
      }
      last = writeReports(modelWithHistory(r, dir), dir, { resultsPath: writeResults(dir, r) })
      if (r.runId === 'n6') expect(last.diff!.old.runId).toBe('n3')
    }
    expect(last!.diff!.old.runId).toBe('n6')
    expect(last!.trend!.rows).toHaveLength(8)
    const md = readFileSync(join(dir, 'summary.md'), 'utf8')
    expect(md).toContain('### Trend over the last 8 run(s)')
    expect(md).toMatch(/\| n6 \(baseline\) \|/)
    expect(md).toMatch(/`could-not-run` cannot run: cannot reach/)
    expect(md).toMatch(new RegExp(`\\| \`${A.replace(/\./g, '\\.')}\` \\| MUST \\| regression \\| failing since 2025-11-13 02:00Z \\(run n3\\), 5 runs`))
    const html = readFileSync(join(dir, 'report.html'), 'utf8')
    expect(html).toContain('<h2 id="trend">Trend over the last 8 run(s) of this target</h2>')
    expect(html).toMatch(/<svg [^>]*role="img"/)
    expect(html).not.toMatch(/<(script|link|img)\b/)
  })
})

describe('npm run report:trend and report:diff on a history directory', () => {
  const cli = (script: string, ...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), script, ...args], { cwd: ROOT, encoding: 'utf8' })
  const dirWithNights = () => {
    const dir = tmp('trend-cli')
    for (const r of history(8)) writeFileSync(join(dir, `${r.startedAt.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${r.runId}.json`), JSON.stringify(r))
    return dir
  }

  test('report:trend prints a row per run and the failing clauses with their label', () => {
    const out = cli('scripts/report-trend.ts', dirWithNights())
    expect(out.stderr).toBe('')
    expect(out.status).toBe(0)
    expect(out.stdout).toMatch(/8 run\(s\); baseline of the latest: run n6/)
    expect(out.stdout).toMatch(/n4 +incomplete \(interrupted\)/)
    expect(out.stdout).toMatch(/could-not-run \(cannot run: cannot reach/)
    expect(out.stdout).toMatch(new RegExp(`MUST +${A.replace(/\./g, '\\.')} +regression +failing since 2025-11-13 02:00Z \\(run n3\\), 5 runs`))
    expect(cli('scripts/report-trend.ts', tmp('empty')).status).toBe(2)
  })

  test('report:diff takes a history directory and two dates or run ids', () => {
    const dir = dirWithNights()
    const byDate = cli('scripts/report-diff.ts', dir, '2025-11-12', '2025-11-16')
    expect(byDate.stderr).toBe('')
    expect(byDate.status).toBe(0)
    expect(byDate.stdout).toMatch(/older: run n2 /)
    expect(byDate.stdout).toMatch(/newer: run n6 /)
    expect(byDate.stdout).toContain(`newly failing clauses: ${[A, C, B].sort((a, b) => a.localeCompare(b)).join(', ')}`)
    const byId = cli('scripts/report-diff.ts', dir, 'n3', 'n8')
    expect(byId.status).toBe(0)
    expect(byId.stdout).toMatch(/older: run n3 [\s\S]*newer: run n8 /)
    const missing = cli('scripts/report-diff.ts', dir, 'n3', 'nope')
    expect(missing.status).toBe(2)
    expect(missing.stderr.trim()).toMatch(/^report:diff: no run with id nope in /)
    const noDay = cli('scripts/report-diff.ts', dir, '2025-11-12', '2024-01-01')
    expect(noDay.stderr.trim()).toMatch(/^report:diff: no run started on 2024-01-01 in /)
  })
})
