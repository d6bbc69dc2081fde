/**
 * What changed between two runs, check by check (ids are stable across runs): new failures, fixed,
 * still failing, flaky, known failures. Used by `npm run report:diff` and by the summary and HTML report
 * (the previous run of the same target from the history).
 */
import type { Level } from '../spec/clauses'
import type { CheckResult, RunResults, Status } from './results'
import { slugOfResults } from './expectations'
import { FLAKY_ALTERNATIONS, isFlaky } from './trend'
import { causesOf, type Cause } from './causes'

export interface DiffEntry {
  id: string
  clause: string
  level: Level
  area: string
  title: string
  /** Status in the older run; undefined when the check was not in it. */
  before?: Status
  after?: Status
  note?: string
}

export interface RunRef {
  runId: string
  startedAt: string
  target: string
  slug: string
  verdict: string
}

export interface RunDiff {
  old: RunRef
  new: RunRef
  sameTarget: boolean
  newFailures: DiffEntry[]
  fixed: DiffEntry[]
  stillFailing: DiffEntry[]
  flaky: DiffEntry[]
  known: DiffEntry[]
  /** Failing before, absent or skipped now (the run was filtered, or the check is gone). */
  noLongerChecked: DiffEntry[]
  /** Blocked now (a set-up step failed under another clause): not judged, so neither fixed nor failing. */
  blocked: DiffEntry[]
  /** Deviations by the stored causes (results.json `causes`, by id): new in the newer run, and gone from it. */
  causes: { new: CauseRef[]; gone: CauseRef[] }
}

/** A cause as the diff names it. */
export interface CauseRef {
  id: string
  clause: string
  level: Level
  headline: string
}

export const FLAKY_FLIPS = FLAKY_ALTERNATIONS

const BAD: ReadonlySet<Status | undefined> = new Set<Status | undefined>(['failed', 'error'])
const OK: ReadonlySet<Status | undefined> = new Set<Status | undefined>(['passed', 'flaky'])

function ref(r: RunResults): RunRef {
  return { runId: r.runId, startedAt: r.startedAt, target: r.target.display, slug: slugOfResults(r), verdict: r.verdict }
}

function entry(c: CheckResult, before: Status | undefined, after: Status | undefined, note?: string): DiffEntry {
  return { id: c.id, clause: c.clause, level: c.level, area: c.area, title: c.title, before, after, ...(note ? { note } : {}) }
}

function byPlace(a: DiffEntry, b: DiffEntry): number {
  return a.area.localeCompare(b.area) || a.clause.localeCompare(b.clause) || a.id.localeCompare(b.id)
}

/**
 * The difference of two runs. `earlier` (optional, oldest first, `older` included or not) are runs of the
 * same target before `older`: a check whose outcome alternated between ok and failing run after run,
 * FLAKY_FLIPS times or more up to the newer run without a stable streak (pass, fail, pass, fail), is reported
 * as flaky, as is a check that passed only after a retried request. One failure and its fix is no
 * flakiness, and neither is a fault that recurs between passing streaks (failing on nights 3 and 6): that
 * is a new failure each time it comes back.
 */
export function diffRuns(older: RunResults, newer: RunResults, earlier: RunResults[] = []): RunDiff {
  const oldById = new Map(older.checks.map((c) => [c.id, c]))
  const newById = new Map(newer.checks.map((c) => [c.id, c]))
  const d: RunDiff = {
    old: ref(older),
    new: ref(newer),
    sameTarget: slugOfResults(older) === slugOfResults(newer),
    newFailures: [],
    fixed: [],
    stillFailing: [],
    flaky: [],
    known: [],
    noLongerChecked: [],
    blocked: [],
    causes: causeChanges(older, newer),
  }
  const window = [...earlier.filter((r) => r.runId !== older.runId && r.runId !== newer.runId), older, newer].map(
    (r) => new Map(r.checks.map((c) => [c.id, c.status] as const)),
  )
  for (const c of newer.checks) {
    const before = oldById.get(c.id)?.status
    const after = c.status
    if (BAD.has(after)) {
      if (BAD.has(before)) d.stillFailing.push(entry(c, before, after))
      else d.newFailures.push(entry(c, before, after, before === undefined ? 'not in the older run' : before === 'known' ? 'was a known failure' : undefined))
    } else if (OK.has(after) && (BAD.has(before) || before === 'known')) {
      d.fixed.push(entry(c, before, after, before === 'known' ? 'was a known failure: its expectation can go' : undefined))
    }
    if (after === 'blocked') d.blocked.push(entry(c, before, after, `blocked by ${c.blockedBy ?? 'a failed set-up step'}`))
    if (after === 'known') d.known.push(entry(c, before, after, c.expectation ? `${c.expectation.reason} (until ${c.expectation.expires})` : undefined))
    if (after === 'flaky') d.flaky.push(entry(c, before, after, 'passed only after a retried request'))
    else {
      const n = alternations(window, c.id)
      if (n >= FLAKY_FLIPS) d.flaky.push(entry(c, before, after, `outcome alternated ${n} times in a row up to this run`))
    }
  }
  for (const c of older.checks) {
    const now = newById.get(c.id)
    if (BAD.has(c.status) && (!now || now.status === 'skipped')) d.noLongerChecked.push(entry(c, c.status, now?.status, now ? 'skipped now' : 'not in the newer run'))
  }
  for (const list of [d.newFailures, d.fixed, d.stillFailing, d.flaky, d.known, d.noLongerChecked, d.blocked]) list.sort(byPlace)
  return d
}

/** Causes new in `newer` and gone from it, by their stable id (results.json `causes`, never regrouped here). */
function causeChanges(older: RunResults, newer: RunResults): RunDiff['causes'] {
  const [was, now] = [causesOf(older), causesOf(newer)]
  const cut = (c: Cause): CauseRef => ({ id: c.id, clause: c.clause, level: c.level, headline: c.headline })
  return { new: now.filter((c) => !was.some((w) => w.id === c.id)).map(cut), gone: was.filter((w) => !now.some((c) => c.id === w.id)).map(cut) }
}

/**
 * How many times in a row, up to the newest run, a check's outcome changed between ok and failing (absent
 * or skipped runs are left out); 0 unless it alternates enough to count as flaky (trend.ts isFlaky).
 */
function alternations(runs: Map<string, Status>[], id: string): number {
  const seq = runs.map((r) => r.get(id)).filter((s) => BAD.has(s) || OK.has(s)).map((s) => BAD.has(s))
  if (!isFlaky(seq)) return 0
  let n = 0
  for (let i = seq.length - 1; i > 0 && seq[i] !== seq[i - 1]; i--) n++
  return n
}

export const DIFF_SECTIONS = [
  ['newFailures', 'new failures'],
  ['fixed', 'fixed'],
  ['stillFailing', 'still failing'],
  ['flaky', 'flaky'],
  ['known', 'known failures'],
  ['noLongerChecked', 'failing before, not checked now'],
  ['blocked', 'blocked: could not be judged because a set-up step failed'],
] as const

function describeRun(r: RunRef): string {
  return `run ${r.runId} of ${r.startedAt}, ${r.target}: ${r.verdict}`
}

export function statusChange(e: DiffEntry): string {
  return `${e.before ?? 'absent'} → ${e.after ?? 'absent'}`
}

/** The diff as plain text, for the console (`npm run report:diff`). */
export function formatDiff(d: RunDiff): string {
  const lines = [`older: ${describeRun(d.old)}`, `newer: ${describeRun(d.new)}`]
  if (!d.sameTarget) lines.push(`note: the runs are of different targets (${d.old.slug}, ${d.new.slug})`)
  for (const [key, label] of DIFF_SECTIONS) {
    const list = d[key]
    lines.push('', `${label} (${list.length})${list.length ? ':' : ''}`)
    for (const e of list) lines.push(`  ${e.level.padEnd(6)} ${e.clause}  ${e.title}  [${statusChange(e)}]${e.note ? `  — ${e.note}` : ''}`)
  }
  const clauses = [...new Set(d.newFailures.map((e) => e.clause))]
  lines.push('', clauses.length ? `newly failing clauses: ${clauses.join(', ')}` : 'no newly failing clause')
  return lines.join('\n')
}
