/**
 * Run history for the nightly regression report: every run's results.json is kept as
 * `<report dir>/history/<start time>-<run id>.json` (the last HISTORY_LIMIT runs, whatever the target), so a
 * run can be compared with the previous run of the same target.
 */
import { randomBytes } from 'node:crypto'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { redact } from '../http/redact'
import { buildResults, currentResults, type RunResults, type TargetInfo } from './results'
import { slugOfResults } from './expectations'

export const HISTORY_LIMIT = 30

/** `2025-11-21T23:58:00.123Z` + `a1b2c3` → `20251121T235800Z-a1b2c3.json`: sorts by start time. */
export function historyName(r: Pick<RunResults, 'startedAt' | 'runId'>): string {
  const stamp = r.startedAt.replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '')
  return `${stamp}-${r.runId.replace(/[^A-Za-z0-9]/g, '')}.json`
}

export interface HistoryEntry {
  name: string
  path: string
  results: RunResults
}

/** The readable runs of the history, oldest first; unreadable files are passed over. */
export function readHistory(dir: string): HistoryEntry[] {
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  } catch {
    return []
  }
  const out: HistoryEntry[] = []
  for (const name of names) {
    try {
      const results = currentResults(JSON.parse(readFileSync(join(dir, name), 'utf8')), name)
      if (Array.isArray(results.checks) && typeof results.startedAt === 'string' && results.target) out.push({ name, path: join(dir, name), results })
    } catch {
      // A half-written or foreign file, or one of another results format, is no run to compare with.
    }
  }
  return out
}

/** Runs of the same target as `current` that started before it, oldest first. */
export function runsOfTarget(history: HistoryEntry[], current: RunResults): HistoryEntry[] {
  const slug = slugOfResults(current)
  return history.filter((h) => h.results.runId !== current.runId && h.results.startedAt < current.startedAt && slugOfResults(h.results) === slug)
}

/** Copies the run's results.json into the history and drops the oldest files beyond the limit; returns the new path. */
export function saveToHistory(dir: string, resultsPath: string, r: RunResults, limit = HISTORY_LIMIT): string {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, historyName(r))
  copyFileSync(resultsPath, path)
  const names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  for (const old of names.slice(0, Math.max(0, names.length - limit))) rmSync(join(dir, old), { force: true })
  return path
}

/**
 * Records a run that could not run at all (exit 2 before any check: unreachable target, sign-in impossible)
 * in the history, so the night shows as a gap with its reason in the trend. It is a results.json with no
 * checks and verdict `could-not-run`; never a baseline. Returns the path written.
 */
export function recordCouldNotRun(dir: string, run: { target: TargetInfo; targetSlug: string; startedAt: Date; endedAt?: Date; reason: string; strict?: boolean; filters?: RunResults['filters'] }, limit = HISTORY_LIMIT): string {
  const endedAt = run.endedAt ?? new Date()
  const r = buildResults({
    target: run.target,
    targetSlug: run.targetSlug,
    runId: randomBytes(3).toString('hex'),
    seed: 0,
    startedAt: run.startedAt,
    endedAt,
    strict: run.strict ?? false,
    filters: run.filters ?? { areas: [], level: null },
    interrupted: false,
    verdict: 'could-not-run',
    exitCode: 2,
    http: { requests: 0, retries: 0 },
    checks: [],
    cleanup: [],
    errors: [redact(run.reason)],
  })
  mkdirSync(dir, { recursive: true })
  const path = join(dir, historyName(r))
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(r, null, 2)}\n`)
  renameSync(tmp, path)
  const names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  for (const old of names.slice(0, Math.max(0, names.length - limit))) rmSync(join(dir, old), { force: true })
  return path
}
