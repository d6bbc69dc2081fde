/**
 * results.json: the single source of truth of a run, from which every report is made (docs/contract.md).
 * Statuses: passed, failed (the server did not do what the clause says), error (the check could not be
 * completed: transport fault, suite fault), skipped, flaky (passed, but only after a retried request or a
 * re-run of the check, RERUN_ERRORED), known
 * (failed, but a reviewed, unexpired entry of the target's known-failures file expects it: see expectations/),
 * blocked (a set-up step the check needed failed under its own clause, `blockedBy`: the check's clause could
 * not be judged; the step's failure is an entry of its own).
 */
import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AREAS, CLAUSES, type Area, type Level } from '../spec/clauses'

export type Status = 'passed' | 'failed' | 'error' | 'skipped' | 'flaky' | 'known' | 'blocked'
export const STATUSES: readonly Status[] = ['passed', 'failed', 'error', 'skipped', 'flaky', 'known', 'blocked']
export const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO']

export interface CheckResult {
  /** Stable across runs: clause id and title, no random parts. */
  id: string
  title: string
  clause: string
  section: string
  area: Area
  level: Level
  status: Status
  durationMs: number
  file: string
  /** Failure or error message, redacted. */
  message?: string
  /** INFO observations and passed-finding notes. */
  observation?: string
  /** Redacted exchanges, for failed and errored checks. */
  evidence?: string[]
  requests: number
  retries: number
  /** For a finding recorded inside another check: that check's id. */
  parent?: string
  /** For a `blocked` check: the clause of the set-up step that failed (an entry of its own, `parent` this check). */
  blockedBy?: string
  /** The known-failures entry that matched this check's clause, and what became of it in this run. */
  expectation?: ExpectationNote
  /** For entries that did not pass: a shell script of curl commands replaying the check's requests (credentials as variables). */
  reproducer?: string
  /**
   * For a check that ran (not a finding): when it started, in ms after the run's start, and how many ms its
   * requests took together (the rest of `durationMs` is its own waiting and work); npm run bench reads them.
   */
  timing?: { startMs: number; networkMs: number }
}

/** Latency of one endpoint template over the run, as the suite saw it (not a load test). */
export interface LatencyRow {
  /** `METHOD /template`, e.g. `POST /channels/{name}/items`. */
  endpoint: string
  count: number
  p50: number
  p95: number
  max: number
  /** Answers 500 or above. */
  errors: number
}

/** An entry of expectations/<target>.json (see expectations/README.md). */
export interface Expectation {
  clause: string
  reason: string
  link?: string
  /** YYYY-MM-DD, the last day the entry holds; after it the failure counts again. */
  expires: string
}

/**
 * known: the clause failed as expected (status `known`); now-passes: expected to fail but passed (remove the
 * entry); expired: the entry is past its date, the failure counts; not-run: no check of the clause ran.
 */
export type ExpectationOutcome = 'known' | 'now-passes' | 'expired' | 'not-run'

export interface ExpectationNote extends Expectation {
  outcome: ExpectationOutcome
}

/** known-failures-only: every MUST failure is a reviewed known failure (exit 0, but not conformant). */
export type Verdict = 'conformant' | 'conformant-with-warnings' | 'known-failures-only' | 'non-conformant' | 'incomplete' | 'could-not-run'

/** The run's target in results.json. */
export interface TargetInfo {
  /** As shown everywhere: origin, base path and API paths, never credentials. */
  display: string
  /** Origin and base path, no credentials (for the bundled server, the loopback address it had for the run). */
  url: string
  userApiPath: string
  messageApiPath: string
  /** The bundled reference server, started for this run: its verdict says nothing about any other server. */
  embedded: boolean
}

export const RESULTS_FORMAT = 'mcrs-conformance-results/2'

/** What a run was asked to run: every field empty or null is the whole suite. */
export interface RunFilters {
  areas: string[]
  level: string | null
  /** --clause: clause ids or globs (`channels.create.*`); a check runs when its clause matches one. */
  clauses?: string[]
  /** --check: check ids (`<clause>: <title>`), as results.json names them. */
  checks?: string[]
  /** Set by explore: its results are findings of model-based sequences, not the suite's checks. */
  explore?: string
}

/** The scope of a run in words, or null for the whole suite (the verdict line and every report say it). */
export function scopeText(f: RunFilters | undefined): string | null {
  if (!f) return null
  if (f.explore) return f.explore
  const parts: string[] = []
  if (f.areas.length) parts.push(`areas ${f.areas.join(', ')}`)
  if (f.level) parts.push(`level ${f.level}`)
  if (f.clauses?.length) parts.push(`clauses ${f.clauses.join(', ')}`)
  if (f.checks?.length) parts.push(`checks ${f.checks.join('; ')}`)
  return parts.length ? parts.join('; ') : null
}

export interface RunResults {
  format: typeof RESULTS_FORMAT
  suite: { name: string; version: string }
  target: TargetInfo
  runId: string
  seed: number
  startedAt: string
  endedAt: string
  durationMs: number
  strict: boolean
  filters: RunFilters
  interrupted: boolean
  verdict: Verdict
  exitCode: 0 | 1 | 2
  counts: Record<Level | 'total', Record<Status, number>>
  http: { requests: number; retries: number }
  checks: CheckResult[]
  /** Channels the run could not delete, and why. */
  cleanup: string[]
  /** Suite-level errors that belong to no check (a file that failed to load, an unhandled error). */
  errors: string[]
  coverage: { clauses: number; checked: number; notTestable: { id: string; reason: string }[]; withoutCheck: string[] }
  /** Slug of the target (origin, base path, non-default API paths; `embedded` for the bundled server): runs of one target are compared. */
  targetSlug?: string
  /** The known-failures file applied to this run (null: none), and the outcome of each of its entries. */
  expectations?: { file: string | null; entries: ExpectationNote[] }
  /** Per endpoint template: count, p50, p95, max (ms) and errors, over every recorded exchange of the run. */
  latency?: LatencyRow[]
  /** What the target says it is (a `Server` or `X-Powered-By` header of its answers), when it says. */
  product?: string
  /** The spec revision judged against: a digest of the clause registry (ids, levels, quotes) and its size. */
  spec?: { registry: string; clauses: number }
  /**
   * Where the run's time went (ms): from the process's start and from the run's start to the first check's
   * start, and from the first check's start to the last one's end; null where no check ran.
   */
  timing?: { firstCheckSinceProcessMs: number | null; firstCheckSinceRunMs: number | null; checksMs: number | null }
  /**
   * The deviations behind the failed entries, each once (helpers/reports/causes.ts): what every report and the
   * diff read. Verdict and counts stay per check.
   */
  causes?: StoredCause[]
}

/** A cause as stored in results.json (helpers/reports/causes.ts `Cause`). */
export interface StoredCause {
  id: string
  headline: string
  clause: string
  level: Level
  entries: string[]
  blocked: string[]
  representative: { entry: string; message: string; evidence?: string }
}

/** The registry's digest: changes whenever a clause, its level or its quoted words change. */
export function specRevision(): { registry: string; clauses: number } {
  const text = JSON.stringify(CLAUSES.map((c) => [c.id, c.level, c.section, c.quote]))
  return { registry: createHash('sha256').update(text).digest('hex').slice(0, 12), clauses: CLAUSES.length }
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}

/** Latency rows from the durations per endpoint, slowest p95 first. */
export function latencyRows(samples: Record<string, { ms: number[]; errors: number }>): LatencyRow[] {
  return Object.entries(samples)
    .map(([endpoint, { ms, errors }]) => {
      const sorted = [...ms].sort((a, b) => a - b)
      return { endpoint, count: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? 0, errors }
    })
    .sort((a, b) => b.p95 - a.p95 || a.endpoint.localeCompare(b.endpoint))
}

/** The latency table for the console. */
export function formatLatency(rows: readonly LatencyRow[]): string {
  if (!rows.length) return 'latency: no exchanges recorded'
  const w = Math.max(8, ...rows.map((r) => r.endpoint.length))
  const head = `${'endpoint'.padEnd(w)}  ${['count', 'p50 ms', 'p95 ms', 'max ms', 'errors'].map((h) => h.padStart(7)).join('')}`
  return ['latency per endpoint (as the suite saw it):', head, ...rows.map((r) => `${r.endpoint.padEnd(w)}  ${[r.count, r.p50, r.p95, r.max, r.errors].map((n) => String(n).padStart(7)).join('')}`)].join('\n')
}

export function suiteInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'package.json'), 'utf8')) as { name: string; version: string }
  return { name: pkg.name, version: pkg.version }
}

function emptyCounts(): Record<Status, number> {
  return { passed: 0, failed: 0, error: 0, skipped: 0, flaky: 0, known: 0, blocked: 0 }
}

export function countChecks(checks: CheckResult[]): RunResults['counts'] {
  const counts = { MUST: emptyCounts(), SHOULD: emptyCounts(), INFO: emptyCounts(), total: emptyCounts() }
  for (const c of checks) {
    counts[c.level][c.status] = (counts[c.level][c.status] ?? 0) + 1
    counts.total[c.status] = (counts.total[c.status] ?? 0) + 1
  }
  return counts
}

/**
 * Verdict and exit code from the counts. A `known` result (an expected, reviewed failure) never counts as a
 * failure for the exit code; when MUST failures are all known the verdict says so (known-failures-only).
 * A `blocked` check counts for nothing here: the failure of the step that blocked it is an entry of its own
 * and decides. Counts of results.json files written before `known` or `blocked` existed have no such bucket:
 * read as 0.
 */
export function judge(counts: RunResults['counts'], opts: { strict: boolean; interrupted: boolean; errors: number }): { verdict: Verdict; exitCode: 0 | 1 | 2 } {
  // An interrupted run judged only part of the suite: incomplete, whatever it saw before the stop.
  if (opts.interrupted) return { verdict: 'incomplete', exitCode: 2 }
  if (counts.MUST.failed > 0) return { verdict: 'non-conformant', exitCode: 1 }
  if (counts.total.error > 0 || opts.errors > 0) return { verdict: 'incomplete', exitCode: 2 }
  if (counts.total.passed + counts.total.flaky + (counts.total.known ?? 0) === 0) return { verdict: 'could-not-run', exitCode: 2 }
  const shouldExit = counts.SHOULD.failed > 0 && opts.strict ? 1 : 0
  if ((counts.MUST.known ?? 0) > 0) return { verdict: 'known-failures-only', exitCode: shouldExit }
  if (counts.SHOULD.failed > 0) return { verdict: 'conformant-with-warnings', exitCode: shouldExit }
  return { verdict: 'conformant', exitCode: 0 }
}

export function coverageOf(checks: CheckResult[]): RunResults['coverage'] {
  const checked = new Set(checks.filter((c) => c.status !== 'skipped').map((c) => c.clause))
  const notTestable = CLAUSES.filter((c) => c.notTestable).map((c) => ({ id: c.id, reason: c.notTestable! }))
  const withoutCheck = CLAUSES.filter((c) => !c.notTestable && !checked.has(c.id)).map((c) => c.id)
  return { clauses: CLAUSES.length, checked: checked.size, notTestable, withoutCheck }
}

/** What a run knows of itself when it ends; `buildResults` adds what follows from it (counts, coverage, duration). */
export interface RunFacts {
  target: TargetInfo
  targetSlug: string
  runId: string
  seed: number
  startedAt: Date
  endedAt: Date
  strict: boolean
  filters: RunResults['filters']
  interrupted: boolean
  verdict: Verdict
  exitCode: 0 | 1 | 2
  http: RunResults['http']
  checks: CheckResult[]
  cleanup: string[]
  errors: string[]
}

/** The one way a results.json is made, for every kind of run (conformance, explore, one that could not run). */
export function buildResults(f: RunFacts): RunResults {
  return {
    format: RESULTS_FORMAT,
    suite: suiteInfo(),
    target: f.target,
    targetSlug: f.targetSlug,
    runId: f.runId,
    seed: f.seed,
    startedAt: f.startedAt.toISOString(),
    endedAt: f.endedAt.toISOString(),
    durationMs: f.endedAt.getTime() - f.startedAt.getTime(),
    strict: f.strict,
    filters: f.filters,
    interrupted: f.interrupted,
    verdict: f.verdict,
    exitCode: f.exitCode,
    counts: countChecks(f.checks),
    http: f.http,
    checks: f.checks,
    cleanup: f.cleanup,
    errors: f.errors,
    coverage: coverageOf(f.checks),
  }
}

/**
 * Writes results.json atomically (a temporary file renamed over it), so a reader never sees half a file and
 * a run that dies while writing leaves no results.json at all rather than a torn one.
 */
export function writeResults(dir: string, results: RunResults): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'results.json')
  const tmp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, `${JSON.stringify(results, null, 2)}\n`)
    renameSync(tmp, path)
  } finally {
    rmSync(tmp, { force: true })
  }
  return path
}

/** A results.json of another format than this version writes (the format is in its `format` field). */
export class ResultsFormatError extends Error {}

/**
 * A results.json as read from disk, refused with one sentence unless it has the format this version writes
 * (a file of an earlier unreleased format is read by the version that wrote it, or its run made again).
 */
export function currentResults(data: unknown, source: string): RunResults {
  const format = (data as { format?: unknown } | null)?.format
  if (format !== RESULTS_FORMAT)
    throw new ResultsFormatError(`${source} is of results format ${typeof format === 'string' ? format : '(none)'}, and this version reads ${RESULTS_FORMAT} only: make the run again with this version`)
  return data as RunResults
}

/** The console summary: per area, per level, passed / failed (and errors, flaky, skipped where any). */
export function formatSummary(r: RunResults): string {
  const areas = (Object.keys(AREAS) as Area[]).filter((area) => r.checks.some((c) => c.area === area))
  const width = Math.max(5, ...areas.map((a) => a.length))
  const rows: [string, string[]][] = areas.map((area) => {
    const inArea = r.checks.filter((c) => c.area === area)
    return [area, LEVELS.map((level) => cell(countChecks(inArea.filter((c) => c.level === level))[level]))]
  })
  rows.push(['total', LEVELS.map((l) => cell(r.counts[l]))])
  // Columns as wide as their widest cell ("11/12 ok, 1 failed" must not run into the next column).
  const col = Math.max(18, ...rows.flatMap(([, cells]) => cells.map((c) => c.length + 2)))
  const lines = [`${''.padEnd(width)}  ${LEVELS.map((l) => l.padEnd(col)).join('').trimEnd()}`]
  for (const [name, cells] of rows) lines.push(`${name.padEnd(width)}  ${cells.map((c) => c.padEnd(col)).join('').trimEnd()}`)
  return lines.join('\n')
}

function cell(c: Record<Status, number>): string {
  const total = STATUSES.reduce((n, s) => n + (c[s] ?? 0), 0)
  if (!total) return '-'
  // Blocked checks were not judged: out of the "ok" ratio, counted on their own.
  const parts = [`${c.passed + c.flaky}/${total - c.skipped - (c.blocked ?? 0)} ok`]
  if (c.failed) parts.push(`${c.failed} failed`)
  if (c.error) parts.push(`${c.error} error`)
  if (c.known) parts.push(`${c.known} known`)
  if (c.blocked) parts.push(`${c.blocked} blocked`)
  return parts.join(', ')
}
