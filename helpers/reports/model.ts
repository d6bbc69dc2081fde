/**
 * The report model: everything the outputs show, computed once from a results.json (and, for the trend and the
 * diff, the target's history). The console, summary.md, report.html and the acceptance document render it;
 * none of them recomputes a cause, a clause state or a count. Causes come from results.json `causes` (written
 * by the run, helpers/reports/causes.ts), so every output and dashboard shows the same grouping.
 */
import type { Level } from '../spec/clauses'
import { causesOf, type Cause } from './causes'
import type { RunDiff } from './diff'
import { blockedText, clauseMatrix, countStates, flakyClusterText, notable, verdictText, type AreaBlock, type ClauseState } from './matrix'
import type { CheckResult, LatencyRow, RunResults } from './results'
import type { Trend } from './trend'

/** A check that could not judge its clause: which clause's failure blocked it, and that failure's cause. */
export interface BlockedCheck {
  entry: CheckResult
  by: string
  cause?: Cause
}

export interface ReportModel {
  results: RunResults
  verdict: ReturnType<typeof verdictText>
  /** The deviations, each once, MUST first. */
  causes: Cause[]
  /** Every entry by id. */
  entries: ReadonlyMap<string, CheckResult>
  /** The cause explaining each failed or blocked entry (by entry id). */
  causeOfEntry: ReadonlyMap<string, Cause>
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
  /** Failed entries per level, and the failed entries no cause explains (0 when every failure is grouped). */
  failedEntries: Record<Level, number>
  latency: LatencyRow[]
  trend: Trend | null
  diff: RunDiff | null
}

export function reportModel(r: RunResults, extra: { trend?: Trend | null; diff?: RunDiff | null } = {}): ReportModel {
  const causes = causesOf(r)
  const entries = new Map(r.checks.map((c) => [c.id, c]))
  const causeOfEntry = new Map<string, Cause>()
  for (const c of causes) for (const id of [...c.entries, ...c.blocked]) if (!causeOfEntry.has(id)) causeOfEntry.set(id, c)
  const matrix = clauseMatrix(r)
  const failedEntries: Record<Level, number> = { MUST: 0, SHOULD: 0, INFO: 0 }
  for (const c of r.checks) if (c.status === 'failed') failedEntries[c.level]++
  return {
    results: r,
    verdict: verdictText(r.verdict),
    causes,
    entries,
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
