/**
 * results.json (DESIGN §3): the single source of truth of a run, from which every report is made.
 * Statuses: passed, failed (the server did not do what the clause says), error (the check could not be
 * completed: transport fault, suite fault), skipped, flaky (passed, but only after a retried request).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { AREAS, CLAUSES, type Area, type Level } from './clauses'

export type Status = 'passed' | 'failed' | 'error' | 'skipped' | 'flaky'
export const STATUSES: readonly Status[] = ['passed', 'failed', 'error', 'skipped', 'flaky']
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
}

export type Verdict = 'conformant' | 'conformant-with-warnings' | 'non-conformant' | 'incomplete' | 'could-not-run'

export interface RunResults {
  format: 'mcrs-conformance-results/1'
  suite: { name: string; version: string }
  target: string
  runId: string
  seed: number
  startedAt: string
  endedAt: string
  durationMs: number
  strict: boolean
  filters: { areas: string[]; level: string | null }
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
}

export function suiteInfo(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'package.json'), 'utf8')) as { name: string; version: string }
  return { name: pkg.name, version: pkg.version }
}

function emptyCounts(): Record<Status, number> {
  return { passed: 0, failed: 0, error: 0, skipped: 0, flaky: 0 }
}

export function countChecks(checks: CheckResult[]): RunResults['counts'] {
  const counts = { MUST: emptyCounts(), SHOULD: emptyCounts(), INFO: emptyCounts(), total: emptyCounts() }
  for (const c of checks) {
    counts[c.level][c.status]++
    counts.total[c.status]++
  }
  return counts
}

export function judge(counts: RunResults['counts'], opts: { strict: boolean; interrupted: boolean; errors: number }): { verdict: Verdict; exitCode: 0 | 1 | 2 } {
  if (counts.MUST.failed > 0) return { verdict: 'non-conformant', exitCode: 1 }
  if (opts.interrupted || counts.total.error > 0 || opts.errors > 0) return { verdict: 'incomplete', exitCode: 2 }
  if (counts.total.passed + counts.total.flaky === 0) return { verdict: 'could-not-run', exitCode: 2 }
  if (counts.SHOULD.failed > 0) return { verdict: 'conformant-with-warnings', exitCode: opts.strict ? 1 : 0 }
  return { verdict: 'conformant', exitCode: 0 }
}

export function coverageOf(checks: CheckResult[]): RunResults['coverage'] {
  const checked = new Set(checks.filter((c) => c.status !== 'skipped').map((c) => c.clause))
  const notTestable = CLAUSES.filter((c) => c.notTestable).map((c) => ({ id: c.id, reason: c.notTestable! }))
  const withoutCheck = CLAUSES.filter((c) => !c.notTestable && !checked.has(c.id)).map((c) => c.id)
  return { clauses: CLAUSES.length, checked: checked.size, notTestable, withoutCheck }
}

export function writeResults(dir: string, results: RunResults): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'results.json')
  writeFileSync(path, `${JSON.stringify(results, null, 2)}\n`)
  return path
}

/** The console summary: per area, per level, passed / failed (and errors, flaky, skipped where any). */
export function formatSummary(r: RunResults): string {
  const lines: string[] = []
  const areas = Object.keys(AREAS) as Area[]
  const width = Math.max(...areas.map((a) => a.length))
  lines.push(`${''.padEnd(width)}  ${LEVELS.map((l) => l.padEnd(18)).join('')}`)
  for (const area of areas) {
    const inArea = r.checks.filter((c) => c.area === area)
    if (!inArea.length) continue
    const cells = LEVELS.map((level) => cell(countChecks(inArea.filter((c) => c.level === level))[level]).padEnd(18))
    lines.push(`${area.padEnd(width)}  ${cells.join('')}`)
  }
  lines.push(`${'total'.padEnd(width)}  ${LEVELS.map((l) => cell(r.counts[l]).padEnd(18)).join('')}`)
  return lines.join('\n')
}

function cell(c: Record<Status, number>): string {
  const total = STATUSES.reduce((n, s) => n + c[s], 0)
  if (!total) return '-'
  const parts = [`${c.passed + c.flaky}/${total - c.skipped} ok`]
  if (c.failed) parts.push(`${c.failed} failed`)
  if (c.error) parts.push(`${c.error} error`)
  return parts.join(', ')
}
