/**
 * The clause matrix shared by the HTML report and the Markdown summary: every clause of the registry (also
 * the not-testable ones and those without a check in this run), with the outcome of its checks in one word.
 */
import { AREAS, CLAUSES, type Area, type Clause, type Level } from '../spec/clauses'
import type { CheckResult, RunResults, Verdict } from './results'
import { NETWORK_RERUN } from './status'

export type ClauseState = 'pass' | 'fail' | 'warning' | 'error' | 'known' | 'blocked' | 'observed' | 'skipped' | 'not-testable' | 'not-checked'

export const STATE_LABEL: Record<ClauseState, string> = {
  pass: 'pass',
  fail: 'fail',
  warning: 'warning',
  error: 'error',
  known: 'known failure',
  blocked: 'blocked',
  observed: 'observed',
  skipped: 'skipped',
  'not-testable': 'not testable',
  'not-checked': 'no check in this run',
}

export const LEVEL_SUMMARY: Record<Level, string> = {
  MUST: 'stated by the spec; a failure makes the target non-conformant',
  SHOULD: 'HTTP convention where the spec is silent; a warning unless STRICT',
  INFO: 'left open by the spec; observed, never judged',
}

export interface ClauseRow {
  id: string
  area: string
  level: Level
  section: string
  title: string
  quote: string
  state: ClauseState
  /** Why: the not-testable reason, or a note on the state. */
  note?: string
  checks: CheckResult[]
}

export interface AreaBlock {
  area: string
  name: string
  rows: ClauseRow[]
}

export function stateOf(level: Level, checks: CheckResult[], strict: boolean): ClauseState {
  const ran = checks.filter((c) => c.status !== 'skipped')
  if (!ran.length) return checks.length ? 'skipped' : 'not-checked'
  if (ran.some((c) => c.status === 'failed')) return level === 'SHOULD' && !strict ? 'warning' : 'fail'
  if (ran.some((c) => c.status === 'error')) return 'error'
  if (ran.some((c) => c.status === 'known')) return 'known'
  // Some check of the clause could not be judged: not a pass, and not the clause's failure either.
  if (ran.some((c) => c.status === 'blocked')) return 'blocked'
  return level === 'INFO' ? 'observed' : 'pass'
}

/** The state of one result, as the failure lists show it. */
export function checkState(c: CheckResult, strict: boolean): ClauseState {
  if (c.status === 'failed') return c.level === 'SHOULD' && !strict ? 'warning' : 'fail'
  if (c.status === 'error') return 'error'
  if (c.status === 'known') return 'known'
  if (c.status === 'blocked') return 'blocked'
  if (c.status === 'skipped') return 'skipped'
  return c.level === 'INFO' ? 'observed' : 'pass'
}

/** Rows per spec area, in registry order; clauses of the results that the registry no longer has come last in their area. */
export function clauseMatrix(r: RunResults): AreaBlock[] {
  const byClause = new Map<string, CheckResult[]>()
  for (const c of r.checks) byClause.set(c.clause, [...(byClause.get(c.clause) ?? []), c])
  const notTestable = new Map(r.coverage?.notTestable?.map((n) => [n.id, n.reason]) ?? [])
  const rows: ClauseRow[] = CLAUSES.map((c: Clause) => rowOf(c.id, c.area, c.level, c.section, c.title, c.quote, byClause.get(c.id) ?? [], r.strict, c.notTestable ?? notTestable.get(c.id)))
  const known = new Set(CLAUSES.map((c) => c.id))
  for (const [id, checks] of byClause) {
    if (known.has(id)) continue
    const c = checks[0]!
    rows.push(rowOf(id, c.area, c.level, c.section, c.title, '', checks, r.strict, undefined))
  }
  const areas = [...new Set([...Object.keys(AREAS), ...rows.map((x) => x.area)])]
  return areas
    .map((area) => ({ area, name: (AREAS as Record<string, string>)[area] ?? area, rows: rows.filter((x) => x.area === area) }))
    .filter((b) => b.rows.length)
}

function rowOf(id: string, area: Area | string, level: Level, section: string, title: string, quote: string, checks: CheckResult[], strict: boolean, notTestable: string | undefined): ClauseRow {
  let state = stateOf(level, checks, strict)
  let note: string | undefined
  if (state === 'not-checked' && notTestable) {
    state = 'not-testable'
    note = notTestable
  } else if (state === 'not-checked') note = 'no check of this clause ran (filtered out, or the suite has none)'
  const flaky = checks.filter((c) => c.status === 'flaky').length
  if (state === 'pass' && flaky) note = `${flaky} check(s) passed only after a retried request`
  const blockers = [...new Set(checks.filter((c) => c.status === 'blocked' && c.blockedBy).map((c) => c.blockedBy!))]
  if (state === 'blocked') note = `blocked by ${blockers.join(', ')}: a set-up step failed, so this clause could not be judged`
  const exp = checks.find((c) => c.expectation)?.expectation
  if (exp && (state === 'known' || exp.outcome !== 'known')) note = `known-failure entry (${exp.outcome}): ${exp.reason}`
  return { id, area, level, section, title, quote, state, ...(note ? { note } : {}), checks }
}

export function countStates(blocks: AreaBlock[]): Record<ClauseState, number> {
  const out = Object.fromEntries(Object.keys(STATE_LABEL).map((k) => [k, 0])) as Record<ClauseState, number>
  for (const b of blocks) for (const row of b.rows) out[row.state]++
  return out
}

/**
 * Checks that could not be judged because a set-up step failed, in one sentence ('' when none): how many,
 * and which clauses' failures blocked them. They count for nothing in the verdict; the steps' failures do.
 */
export function blockedText(r: Pick<RunResults, 'checks'>): string {
  const blocked = r.checks.filter((c) => c.status === 'blocked')
  if (!blocked.length) return ''
  const by = new Map<string, number>()
  for (const c of blocked) by.set(c.blockedBy ?? '?', (by.get(c.blockedBy ?? '?') ?? 0) + 1)
  const list = [...by].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).map(([id, n]) => `${id} (${n})`).join(', ')
  return `${blocked.length} check(s) could not be judged because a set-up step they need failed: ${list}`
}

/** MUST checks that passed only when the whole check ran again, from this many on, are a cluster worth a word. */
export const FLAKY_CLUSTER = 3

/**
 * Network noise makes a check flaky now and then (and is left out: such a check's entry says so, NETWORK_RERUN); a
 * deterministic deviation does not make several MUST checks
 * pass on their second attempt in one run. When it happens, the reader is told, since a server whose state
 * leaks between checks (ids that collide across channels, a cache keyed by too little) looks exactly so.
 */
export function flakyClusterText(r: Pick<RunResults, 'checks'>): string {
  // A check whose attempts before ended on the network (a 502/503/504, a lost connection) says nothing of the server.
  const rerun = r.checks.filter((c) => c.level === 'MUST' && c.status === 'flaky' && c.retries === 0 && !c.parent && !c.message?.startsWith(NETWORK_RERUN))
  if (rerun.length < FLAKY_CLUSTER) return ''
  const list = rerun.map((c) => c.clause)
  return `${rerun.length} MUST checks passed only when run a second time (${[...new Set(list)].slice(0, 8).join(', ')}${list.length > 8 ? ', …' : ''}): a cluster of flaky checks points at the server (state shared between checks or channels), not at the network; run again with RERUN_ERRORED=false to see them judged once`
}

/** The three verdicts a reader needs (conformant, non-conformant, could not run), with the precise one of results.json underneath. */
export function verdictText(v: Verdict): { kind: 'conformant' | 'non-conformant' | 'could-not-run'; headline: string; explain: string } {
  switch (v) {
    case 'conformant':
      return { kind: 'conformant', headline: 'Conformant', explain: 'Every MUST check passed; no SHOULD warning.' }
    case 'conformant-with-warnings':
      return { kind: 'conformant', headline: 'Conformant, with warnings', explain: 'Every MUST check passed; some SHOULD checks (HTTP conventions) did not.' }
    case 'known-failures-only':
      return { kind: 'non-conformant', headline: 'Non-conformant: known failures only', explain: 'MUST checks failed, but each failure is listed as a reviewed known failure of this target; the run does not fail on them.' }
    case 'non-conformant':
      return { kind: 'non-conformant', headline: 'Non-conformant', explain: 'At least one MUST check failed: the server does not do what the spec states.' }
    case 'incomplete':
      return { kind: 'could-not-run', headline: 'Could not run: incomplete', explain: 'Some checks could not be completed (transport or suite errors); this is no judgement of the server.' }
    default:
      return { kind: 'could-not-run', headline: 'Could not run', explain: 'The run could not be made; no check was judged.' }
  }
}

/**
 * Results that need a reader's attention, in report order: MUST failures, errors, SHOULD warnings, known
 * failures, blocked checks (last: their set-up step's failure is listed above them).
 */
export function notable(r: RunResults): CheckResult[] {
  const rank = (c: CheckResult): number =>
    c.status === 'failed' && c.level === 'MUST' ? 0 : c.status === 'error' ? 1 : c.status === 'failed' ? 2 : c.status === 'known' ? 3 : c.status === 'blocked' ? 4 : 9
  return r.checks
    .filter((c) => rank(c) < 9)
    .sort((a, b) => rank(a) - rank(b) || a.area.localeCompare(b.area) || a.clause.localeCompare(b.clause) || a.id.localeCompare(b.id))
}
