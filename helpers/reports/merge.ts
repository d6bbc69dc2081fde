/**
 * Several results.json made into one: the shards of an explore run (`--shard i/n` on several CI jobs), or
 * conformance runs of disjoint areas (`--area` on several jobs). The merged run is judged again from its
 * merged checks, so its verdict and exit code mean what a single run's do. Inputs that cannot belong to one
 * run (another target, another format or mode, another suite version, conformance runs that share checks)
 * are refused with a MergeInputError whose message is one sentence.
 */
import { readFileSync } from 'node:fs'
import { slugOfTarget } from './expectations'
import { countChecks, coverageOf, currentResults, judge, ResultsFormatError, type CheckResult, type RunResults, type Status } from './results'

export class MergeInputError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'MergeInputError'
  }
}

/** One input: where it was read from, and its results. */
export interface MergeInput {
  path: string
  results: RunResults & { mode?: string; explore?: ExploreBlock }
}

interface ExploreBlock {
  seeds?: number
  sequences?: number
  inconclusive?: number
  steps?: number
  requests?: number
  seconds?: number
  opsPerSecond?: number
  shard?: { index: number; count: number }
  learned?: string[]
  findings?: unknown[]
  unconfirmed?: unknown[]
}

export type MergedResults = RunResults & { mode?: string; explore?: Record<string, unknown>; merged: { sources: { path: string; runId: string; verdict: string }[] } }

/** Reads one results.json (a file, or a directory holding one), or throws a MergeInputError. */
export function readMergeInput(path: string): MergeInput {
  const file = /\.json$/i.test(path) ? path : `${path.replace(/\/+$/, '')}/results.json`
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new MergeInputError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : code ?? (err as Error).message}`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new MergeInputError(`${file} is not JSON: ${(err as Error).message}`)
  }
  const r = data as Record<string, unknown> | null
  if (!r || typeof r !== 'object' || !Array.isArray(r.checks) || typeof r.runId !== 'string' || typeof r.startedAt !== 'string' || !r.target) {
    throw new MergeInputError(`${file} is not a results.json of the suite (no runId, startedAt, target and checks)`)
  }
  try {
    return { path: file, results: currentResults(r, file) as MergeInput['results'] }
  } catch (err) {
    if (err instanceof ResultsFormatError) throw new MergeInputError(err.message)
    throw err
  }
}

const formatOf = (r: MergeInput['results']): string => `${r.format}, mode ${r.mode ?? 'conformance'}`
const slugOf = (r: RunResults): string => r.targetSlug ?? slugOfTarget(r.target)

/** Of two results of one check, the one that says more: a failure outweighs a pass, a pass a skip. */
const WEIGHT: Record<Status, number> = { failed: 6, error: 5, known: 4, flaky: 3, blocked: 2, passed: 1, skipped: 0 }

export function mergeResults(inputs: MergeInput[]): MergedResults {
  if (inputs.length === 0) throw new MergeInputError('no results to merge: name at least one directory or results.json')
  const first = inputs[0]!
  for (const other of inputs.slice(1)) {
    if (formatOf(other.results) !== formatOf(first.results)) throw new MergeInputError(`different formats: ${first.path} is ${formatOf(first.results)}, ${other.path} is ${formatOf(other.results)}`)
    if (slugOf(other.results) !== slugOf(first.results)) throw new MergeInputError(`different targets: ${first.path} ran against ${first.results.target.display}, ${other.path} against ${other.results.target.display}`)
    const [v1, v2] = [first.results.suite?.version, other.results.suite?.version]
    if (v1 !== v2) throw new MergeInputError(`different suite versions: ${first.path} was made by ${v1}, ${other.path} by ${v2}`)
  }
  const explore = first.results.mode === 'explore'

  // Explore shards judge the same clauses, so their entries share ids: one entry per id, the weightiest.
  // Conformance runs to merge must be of disjoint areas: a check in two of them is refused.
  const byId = new Map<string, { check: CheckResult; from: string }>()
  for (const input of inputs) {
    for (const check of input.results.checks) {
      const had = byId.get(check.id)
      if (!had) {
        byId.set(check.id, { check, from: input.path })
        continue
      }
      if (!explore) throw new MergeInputError(`the runs overlap: check '${check.id}' is in both ${had.from} and ${input.path} (merge runs of disjoint areas)`)
      if (WEIGHT[check.status] > WEIGHT[had.check.status]) byId.set(check.id, { check, from: input.path })
    }
  }
  let checks = [...byId.values()].map((e) => e.check)
  if (explore) {
    // As in one explore run: a clause a shard found failing has no "agree" entry from the others.
    const failing = new Set(checks.filter((c) => c.status === 'failed' && c.level === 'MUST').map((c) => c.clause))
    checks = checks.filter((c) => !(c.status === 'passed' && failing.has(c.clause)))
  }
  checks.sort((x, y) => x.area.localeCompare(y.area) || x.id.localeCompare(y.id))

  const all = inputs.map((i) => i.results)
  const startedAt = all.map((r) => r.startedAt).sort()[0]!
  const endedAt = all.map((r) => r.endedAt).sort().at(-1)!
  const counts = countChecks(checks)
  const errors = all.flatMap((r) => r.errors ?? [])
  const cleanup = all.flatMap((r) => r.cleanup ?? [])
  // An input that could not be judged whole (incomplete, could not run) leaves the merged run incomplete too.
  const unjudged = all.filter((r) => r.exitCode === 2 && r.verdict !== 'non-conformant').length
  const { verdict, exitCode } = judge(counts, {
    strict: all.some((r) => r.strict),
    interrupted: all.some((r) => r.interrupted),
    errors: errors.length + unjudged + (explore ? cleanup.length : 0),
  })
  const areas = all.some((r) => !r.filters?.areas?.length) ? [] : [...new Set(all.flatMap((r) => r.filters.areas))].sort()
  const levels = new Set(all.map((r) => r.filters?.level ?? null))
  const merged: MergedResults = {
    ...(explore ? { mode: 'explore' } : {}),
    format: first.results.format,
    suite: first.results.suite,
    target: first.results.target,
    targetSlug: slugOf(first.results),
    runId: all.map((r) => r.runId).join('+'),
    seed: first.results.seed,
    startedAt,
    endedAt,
    durationMs: Date.parse(endedAt) - Date.parse(startedAt),
    strict: all.some((r) => r.strict),
    filters: { areas, level: levels.size === 1 ? [...levels][0]! : null },
    interrupted: all.some((r) => r.interrupted),
    verdict,
    exitCode,
    counts,
    http: { requests: all.reduce((n, r) => n + (r.http?.requests ?? 0), 0), retries: all.reduce((n, r) => n + (r.http?.retries ?? 0), 0) },
    checks,
    cleanup,
    errors,
    coverage: coverageOf(checks),
    merged: { sources: inputs.map((i) => ({ path: i.path, runId: i.results.runId, verdict: i.results.verdict })) },
  }
  const notes = all.flatMap((r) => r.expectations?.entries ?? [])
  if (all.some((r) => r.expectations)) {
    merged.expectations = { file: all.find((r) => r.expectations?.file)?.expectations?.file ?? null, entries: notes.filter((n, i) => notes.findIndex((m) => m.clause === n.clause && m.outcome === n.outcome) === i) }
  }
  if (explore) {
    const blocks = inputs.map((i) => i.results.explore ?? {})
    const sum = (k: keyof ExploreBlock) => blocks.reduce((n, b) => n + (Number(b[k]) || 0), 0)
    merged.explore = {
      seeds: sum('seeds'), sequences: sum('sequences'), inconclusive: sum('inconclusive'), steps: sum('steps'), requests: sum('requests'),
      // Shards run side by side: the merged run lasts as long as its longest shard, and their rates add up.
      seconds: Math.max(0, ...blocks.map((b) => Number(b.seconds) || 0)),
      opsPerSecond: Math.round(sum('opsPerSecond') * 10) / 10,
      shards: blocks.map((b) => b.shard ?? null),
      learned: [...new Set(blocks.flatMap((b) => b.learned ?? []))],
      findings: blocks.flatMap((b) => b.findings ?? []),
      unconfirmed: blocks.flatMap((b) => b.unconfirmed ?? []),
    }
  }
  return merged
}
