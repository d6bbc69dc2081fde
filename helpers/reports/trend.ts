/**
 * The trend of one target over its history (nightly regression): one row per run, which runs may serve as
 * the baseline of a comparison, and for each clause failing now since when it fails and whether that is a
 * regression (a streak of failures, or failures between stable passing streaks) or a flake (an outcome that
 * alternates run after run without settling).
 */
import type { Level } from '../spec/clauses'
import { scopeText, type RunResults } from './results'
import { slugOfResults } from './expectations'

/** What a run can tell: a complete run is a baseline; the others are rows of the trend but no baseline. */
export type RunKind = 'complete' | 'interrupted' | 'filtered' | 'incomplete' | 'could-not-run'

export interface EndpointP95 {
  endpoint: string
  p95: number
}

export interface TrendRow {
  runId: string
  startedAt: string
  verdict: string
  exitCode: number
  kind: RunKind
  must: { passed: number; failed: number }
  should: { passed: number; failed: number }
  errors: number
  durationMs: number
  /** p95 of the slowest endpoints, when the run recorded latency. */
  slowest: EndpointP95[]
  /** Why a run could not run, was interrupted or was filtered. */
  note?: string
}

/** regression: it passed before; flaky: it alternates; failing since the first run: never seen passing in the trend's runs. */
export type ClauseLabel = 'regression' | 'flaky' | 'failing since the first run'

export interface ClauseTrend {
  clause: string
  level: Level
  label: ClauseLabel
  /** The first run of the current streak of failures. */
  failingSince: { runId: string; startedAt: string }
  /** Consecutive runs (that judged the clause) failing, up to the latest. */
  streak: number
  /** Runs that judged the clause, oldest first: `x` failed, `.` passed. */
  outcomes: string
  /** Earlier runs (before the current streak) in which the clause failed too. */
  earlierFailures: string[]
}

export interface Trend {
  slug: string
  target: string
  rows: TrendRow[]
  clauses: ClauseTrend[]
  /** The run a diff of the latest one compares with (the last complete run before it), if any. */
  baseline: string | null
}

/** Outcome changes in a row, each after a single run, that make a clause flaky (pass, fail, pass, fail). */
export const FLAKY_ALTERNATIONS = 3

/** Runs of the trend (and the flaky window). */
export const TREND_RUNS = 30

/** Why a run cannot serve as the baseline of a comparison (null: it can). */
export function kindOf(r: RunResults): RunKind {
  if (r.verdict === 'could-not-run' && r.checks.length === 0) return 'could-not-run'
  if (r.interrupted) return 'interrupted'
  // An explore run's scope is its own kind of run, not a filter of the suite: its runs compare with one another.
  if (!r.filters.explore && scopeText(r.filters)) return 'filtered'
  if (r.verdict === 'incomplete' || r.verdict === 'could-not-run') return 'incomplete'
  return 'complete'
}

/**
 * The baseline for `current` among earlier runs (any order): the last complete run of the same target that
 * ended before `current` started (a run still going when this one started was concurrent, not earlier).
 */
export function baselineOf<T extends { results: RunResults }>(earlier: T[], current: RunResults): T | undefined {
  const slug = slugOfResults(current)
  return earlier
    .filter((h) => h.results.runId !== current.runId && slugOfResults(h.results) === slug && kindOf(h.results) === 'complete' && (h.results.endedAt ?? h.results.startedAt) <= current.startedAt)
    .sort((a, b) => a.results.startedAt.localeCompare(b.results.startedAt))
    .at(-1)
}

/**
 * The slowest endpoints by p95 from a run's optional `latency` field (recorded by newer suites): an array of
 * `{ endpoint | template, p95 }` or an object keyed by endpoint. Anything else reads as no latency.
 */
export function slowestEndpoints(r: RunResults, n = 3): EndpointP95[] {
  const raw = (r as unknown as { latency?: unknown }).latency
  const list: EndpointP95[] = []
  const take = (endpoint: unknown, v: unknown) => {
    const p95 = (v as { p95?: unknown } | null)?.p95
    if (typeof endpoint === 'string' && typeof p95 === 'number' && Number.isFinite(p95)) list.push({ endpoint, p95 })
  }
  const rows = Array.isArray(raw) ? raw : Array.isArray((raw as { endpoints?: unknown } | null)?.endpoints) ? (raw as { endpoints: unknown[] }).endpoints : null
  if (rows) for (const e of rows) take((e as { endpoint?: unknown; template?: unknown } | null)?.endpoint ?? (e as { template?: unknown } | null)?.template, e)
  else if (raw && typeof raw === 'object') for (const [k, v] of Object.entries(raw)) take(k, v)
  return list.sort((a, b) => b.p95 - a.p95).slice(0, n)
}

function rowOf(r: RunResults): TrendRow {
  const kind = kindOf(r)
  const count = (lv: 'MUST' | 'SHOULD') => ({ passed: (r.counts?.[lv]?.passed ?? 0) + (r.counts?.[lv]?.flaky ?? 0), failed: r.counts?.[lv]?.failed ?? 0 })
  const note =
    kind === 'could-not-run'
      ? r.errors[0] ?? 'could not run'
      : kind === 'interrupted'
        ? 'interrupted'
        : kind === 'filtered'
          ? `filtered: ${scopeText(r.filters)}`
          : kind === 'incomplete'
            ? 'incomplete: checks could not be completed'
            : undefined
  return {
    runId: r.runId,
    startedAt: r.startedAt,
    verdict: r.verdict,
    exitCode: r.exitCode,
    kind,
    must: count('MUST'),
    should: count('SHOULD'),
    errors: (r.counts?.total?.error ?? 0) + r.errors.length * (kind === 'could-not-run' ? 0 : 1),
    durationMs: r.durationMs ?? 0,
    slowest: slowestEndpoints(r),
    ...(note ? { note } : {}),
  }
}

/** A clause's outcome in a run: failed when a check of it failed, passed when its checks passed, else not judged. */
function clauseOutcomes(r: RunResults): Map<string, { bad: boolean; level: Level }> {
  const out = new Map<string, { bad: boolean; level: Level }>()
  for (const c of r.checks) {
    const bad = c.status === 'failed'
    const ok = c.status === 'passed' || c.status === 'flaky'
    if (!bad && !ok) continue
    const was = out.get(c.clause)
    out.set(c.clause, { bad: (was?.bad ?? false) || bad, level: c.level })
  }
  return out
}

/**
 * Whether a sequence of outcomes (oldest first, true = failed) alternates without settling at its end: the
 * trailing runs each differ from the one before, at least FLAKY_ALTERNATIONS times. A streak of two equal
 * outcomes is stable, so failures between passing streaks (nights 3 and 6) are a recurring regression.
 */
export function isFlaky(outcomes: readonly boolean[]): boolean {
  let changes = 0
  for (let i = outcomes.length - 1; i > 0; i--) {
    if (outcomes[i] === outcomes[i - 1]) break
    changes++
  }
  return changes >= FLAKY_ALTERNATIONS
}

/**
 * The trend of the target of `runs` (the latest run's target; runs of other targets are left out), oldest
 * first, the last TREND_RUNS runs.
 */
export function buildTrend(runs: RunResults[], limit = TREND_RUNS): Trend | null {
  const sorted = [...runs].sort((a, b) => a.startedAt.localeCompare(b.startedAt))
  const latest = sorted.at(-1)
  if (!latest) return null
  const slug = slugOfResults(latest)
  const mine = sorted.filter((r) => slugOfResults(r) === slug).slice(-limit)
  const rows = mine.map(rowOf)
  const perRun = mine.map((r) => ({ r, o: clauseOutcomes(r) }))
  // Clauses failing in the latest run that judged them, provided that run is the latest judging run overall.
  const clauses: ClauseTrend[] = []
  const lastJudged = [...perRun].reverse().find((p) => kindOf(p.r) !== 'could-not-run')
  for (const [clause, now] of lastJudged?.o ?? []) {
    if (!now.bad) continue
    const seq = perRun.filter((p) => p.o.has(clause)).map((p) => ({ r: p.r, bad: p.o.get(clause)!.bad }))
    let start = seq.length - 1
    while (start > 0 && seq[start - 1]!.bad) start--
    const first = seq[start]!.r
    clauses.push({
      clause,
      level: now.level,
      // Failing in every run that judged it: never seen passing, so nothing regressed.
      label: isFlaky(seq.map((s) => s.bad)) ? 'flaky' : start === 0 ? 'failing since the first run' : 'regression',
      failingSince: { runId: first.runId, startedAt: first.startedAt },
      streak: seq.length - start,
      outcomes: seq.map((s) => (s.bad ? 'x' : '.')).join(''),
      earlierFailures: seq.slice(0, start).filter((s) => s.bad).map((s) => s.r.startedAt),
    })
  }
  clauses.sort((a, b) => (a.level === b.level ? 0 : a.level === 'MUST' ? -1 : b.level === 'MUST' ? 1 : 0) || a.clause.localeCompare(b.clause))
  const base = baselineOf(mine.slice(0, -1).map((results) => ({ results })), latest)
  return { slug, target: latest.target.display, rows, clauses, baseline: base?.results.runId ?? null }
}

export function day(iso: string): string {
  return iso.replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, 'Z')
}

export function p95Text(row: TrendRow): string {
  return row.slowest.map((s) => `${s.endpoint} ${Math.round(s.p95)} ms`).join('; ')
}

export function sinceText(c: ClauseTrend): string {
  const runs = `${c.streak} run${c.streak === 1 ? '' : 's'}`
  const also = c.earlierFailures.length ? `; failed before too (${c.earlierFailures.map(day).join(', ')}): recurring` : ''
  return `failing since ${day(c.failingSince.startedAt)} (run ${c.failingSince.runId}), ${runs}${also}`
}

/** The trend as plain text (`npm run report:trend`). */
export function formatTrend(t: Trend): string {
  const lines = [`target: ${t.target} (${t.slug}), ${t.rows.length} run(s)${t.baseline ? `; baseline of the latest: run ${t.baseline}` : ''}`, '']
  const head = ['started', 'run', 'verdict', 'MUST ok/failed', 'SHOULD ok/failed', 'errors', 'duration', 'slowest p95']
  const table = t.rows.map((r) => [
    day(r.startedAt),
    r.runId,
    `${r.verdict}${r.kind !== 'complete' ? ` (${r.kind === 'could-not-run' ? r.note ?? r.kind : r.kind})` : ''}`,
    r.kind === 'could-not-run' ? '-' : `${r.must.passed}/${r.must.failed}`,
    r.kind === 'could-not-run' ? '-' : `${r.should.passed}/${r.should.failed}`,
    String(r.errors),
    `${(r.durationMs / 1000).toFixed(1)} s`,
    p95Text(r) || '-',
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)))
  for (const row of [head, ...table]) lines.push(row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd())
  lines.push('', t.clauses.length ? `failing clauses (${t.clauses.length}):` : 'no clause failing in the latest run')
  for (const c of t.clauses) lines.push(`  ${c.level.padEnd(6)} ${c.clause}  ${c.label}  ${sinceText(c)}  [${c.outcomes}]`)
  return lines.join('\n')
}

/** A small inline SVG of the runs: MUST failures (red) and SHOULD failures (amber) per run, runs that could not run grey. */
export function trendSvg(t: Trend): string {
  const w = 640
  const h = 140
  const pad = 24
  const n = Math.max(1, t.rows.length)
  const step = (w - 2 * pad) / n
  const max = Math.max(1, ...t.rows.map((r) => r.must.failed + r.should.failed))
  const scale = (h - 2 * pad) / max
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="failures per run"><rect width="${w}" height="${h}" fill="#fff"/>`]
  parts.push(`<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" stroke="#d0d7de"/><text x="${pad}" y="14" font-size="11" fill="#57606a">failures per run (max ${max}): MUST red, SHOULD amber, could not run grey</text>`)
  t.rows.forEach((r, i) => {
    const x = pad + i * step + step * 0.15
    const bw = Math.max(2, step * 0.7)
    if (r.kind === 'could-not-run') {
      parts.push(`<rect x="${x.toFixed(1)}" y="${pad}" width="${bw.toFixed(1)}" height="${h - 2 * pad}" fill="#eaeef2" stroke="#afb8c1"><title>${xml(`${r.startedAt}: could not run`)}</title></rect>`)
    } else {
      const mh = r.must.failed * scale
      const sh = r.should.failed * scale
      parts.push(`<rect x="${x.toFixed(1)}" y="${(h - pad - mh).toFixed(1)}" width="${bw.toFixed(1)}" height="${mh.toFixed(1)}" fill="#cf222e"><title>${xml(`${r.startedAt}: ${r.must.failed} MUST failed`)}</title></rect>`)
      parts.push(`<rect x="${x.toFixed(1)}" y="${(h - pad - mh - sh).toFixed(1)}" width="${bw.toFixed(1)}" height="${sh.toFixed(1)}" fill="#d4a72c"><title>${xml(`${r.startedAt}: ${r.should.failed} SHOULD failed`)}</title></rect>`)
      if (!r.must.failed && !r.should.failed) parts.push(`<circle cx="${(x + bw / 2).toFixed(1)}" cy="${h - pad - 4}" r="3" fill="#1a7f37"/>`)
    }
    parts.push(`<text x="${(x + bw / 2).toFixed(1)}" y="${h - 8}" font-size="9" text-anchor="middle" fill="#57606a">${xml(r.startedAt.slice(5, 10))}</text>`)
  })
  parts.push('</svg>')
  return parts.join('')
}

function xml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}
