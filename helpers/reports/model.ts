/**
 * The report model: everything the outputs show, computed once from a results.json (and, for the trend and the
 * diff, the target's history). The console, summary.md, report.html, junit.xml, the Allure finishing pass and
 * the acceptance document render it; none of them recomputes a cause, a clause state, a problem line or a
 * count. Causes come from results.json `causes` (written by the run, helpers/reports/causes.ts), so every output
 * and dashboard shows the same grouping. The renderers import types from the computing modules, never their
 * functions (selftest/report-model.test.ts).
 */
import type { Level } from '../spec/clauses'
import { causesOf, fanOut, problemOf, quoteOf, type Cause } from './causes'
import type { RunDiff } from './diff'
import { blockedText, checkState, clauseMatrix, countStates, flakyClusterText, notable, verdictText, type AreaBlock, type ClauseState } from './matrix'
import type { CheckResult, LatencyRow, RunResults } from './results'
import type { Trend } from './trend'

/** A deviation as the outputs show it: the stored cause, with its fan-out and the spec's words. */
export interface CauseView extends Cause {
  /** "1 deviation → 7 failed checks, 2 blocked" */
  fanOut: string
  /** The words of its clause in the spec, when the registry has the clause. */
  quote?: string
}

/** What the outputs show of one entry of results.json. */
export interface EntryView {
  /** Its state as the failure lists show it (a SHOULD failure is a warning unless STRICT). */
  state: ClauseState
  /** The stable one-line statement of its (first) problem: endpoint, pointer, got and want, no run names; '' when none. */
  problem: string
  /** The deviations that explain it (failed or blocked), in the order of `causes`; empty when none. */
  causes: CauseView[]
}

/** A check that could not judge its clause: which clause's failure blocked it, and that failure's cause. */
export interface BlockedCheck {
  entry: CheckResult
  by: string
  cause?: CauseView
}

export interface ReportModel {
  results: RunResults
  verdict: ReturnType<typeof verdictText>
  /** The deviations, each once, MUST first. */
  causes: CauseView[]
  /**
   * Whether results.json stores its causes (a merged one does not): junit.xml and the Allure tags name only the
   * deviations results.json stores, as dashboards read them from there.
   */
  causesStored: boolean
  /** Every entry by id. */
  entries: ReadonlyMap<string, CheckResult>
  /** What the outputs show of each entry (by the entry itself). */
  views: ReadonlyMap<CheckResult, EntryView>
  /** The cause explaining each failed or blocked entry (by entry id): the first of its causes. */
  causeOfEntry: ReadonlyMap<string, CauseView>
  /** Clause matrix per area, and how many clauses are in each state. */
  matrix: AreaBlock[]
  states: Record<ClauseState, number>
  /** Failed, errored and blocked entries worth showing in full, in report order. */
  notable: CheckResult[]
  /** What was not judged, and why. */
  notJudged: {
    blocked: BlockedCheck[]
    skipped: CheckResult[]
    errors: CheckResult[]
    suiteErrors: string[]
    notTestable: RunResults['coverage']['notTestable']
    withoutCheck: string[]
  }
  /** One sentence each ('' when nothing to say). */
  blockedSentence: string
  flakyCluster: string
  /** Failed entries per level. */
  failedEntries: Record<Level, number>
  latency: LatencyRow[]
  trend: Trend | null
  diff: RunDiff | null
}

export function reportModel(r: RunResults, extra: { trend?: Trend | null; diff?: RunDiff | null } = {}): ReportModel {
  const causes: CauseView[] = causesOf(r).map((c) => {
    const quote = quoteOf(c.clause)
    return { ...c, fanOut: fanOut(c), ...(quote ? { quote } : {}) }
  })
  const entries = new Map(r.checks.map((c) => [c.id, c]))
  const causesOfEntry = new Map<string, CauseView[]>()
  for (const c of causes) for (const id of new Set([...c.entries, ...c.blocked])) causesOfEntry.set(id, [...(causesOfEntry.get(id) ?? []), c])
  const causeOfEntry = new Map([...causesOfEntry].map(([id, list]) => [id, list[0]!]))
  const views = new Map<CheckResult, EntryView>(r.checks.map((c) => [c, { state: checkState(c, r.strict), problem: problemOf(c), causes: causesOfEntry.get(c.id) ?? [] }]))
  const matrix = clauseMatrix(r)
  const failedEntries: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 }
  for (const c of r.checks) if (c.status === 'failed') failedEntries[c.level]++
  return {
    results: r,
    verdict: verdictText(r.verdict),
    causes,
    causesStored: !!r.causes,
    entries,
    views,
    causeOfEntry,
    matrix,
    states: countStates(matrix),
    notable: notable(r),
    notJudged: {
      blocked: r.checks.filter((c) => c.status === 'blocked').map((entry) => ({ entry, by: entry.blockedBy ?? '?', ...(causeOfEntry.get(entry.id) ? { cause: causeOfEntry.get(entry.id)! } : {}) })),
      skipped: r.checks.filter((c) => c.status === 'skipped'),
      errors: r.checks.filter((c) => c.status === 'error'),
      suiteErrors: r.errors,
      notTestable: r.coverage.notTestable,
      withoutCheck: r.coverage.withoutCheck,
    },
    blockedSentence: blockedText(r),
    flakyCluster: flakyClusterText(r),
    failedEntries,
    latency: r.latency ?? [],
    trend: extra.trend ?? null,
    diff: extra.diff ?? null,
  }
}

