/**
 * The explore run as a library call (scripts/explore.ts is its command line; the self-tests call it too).
 * It prepares the run exactly like the conformance run (configuration, the embedded reference server with
 * faults when BASE_URL is empty, preflight and sign-in of A, B, C, the ledger and the sweep), then draws
 * one command sequence per seed with fast-check and runs it against the model (fc.asyncModelRun), several
 * seeds at once in lanes (each sequence has its own channels; requests share the run's pace). A failing
 * sequence is shrunk by fast-check to a minimal one, alone, run once more to record it, printed as
 * numbered steps and written as a reproducer. Results go to REPORT_DIR/results.json (mode 'explore').
 *
 * Seeds: seed k of shard i/n is base + k·n + i, so shards never draw the same sequence and a seed always
 * draws the same one. Exit codes: 0 no MUST finding, 1 a MUST finding, 2 the run could not be made.
 */
import { commandFor } from '../config/invocation'
import fc from 'fast-check'
import { Api } from '../http/api'
import { HttpClient, type Exchange } from '../http/client'
import { Pacer } from '../http/pace'
import { clause, type ClauseId } from '../spec/clauses'
import { ACCOUNT_KEYS, ConfigError, loadConfig, type AccountKey, type Config } from '../config/config'
import { channelGone, deleteLedgered, refusedAsGone, RunLedger } from '../http/ledger'
import { PreflightError, prepareRun, type PreparedRun } from '../runner/prepare'
import { redact } from '../http/redact'
import { slugOfTarget } from '../reports/expectations'
import { buildResults, countChecks, judge, writeResults, type CheckResult, type RunResults } from '../reports/results'
import { storedCauses } from '../reports/causes'
import { describeReports, modelWithHistory, writeReports } from '../reports'
import { audit, commandArbitraries, SLOTS } from './commands'
import { numberedSteps, writeReproducer } from './reproducer'
import { CALLERS, Exec, Finding, Inconclusive, Learned, type Caller, type RunShared } from './state'

export interface ExploreOptions {
  /** Seconds of exploring (new seeds start until then); default EXPLORE_BUDGET_S or 60. */
  budgetS?: number
  /** Exactly this many seeds instead of a time budget. */
  runs?: number | null
  shard?: { index: number; count: number }
  /** `<seed>:<path>[:<replayPath>]` of an earlier finding: replays that one sequence. */
  replay?: string | null
  faults?: string[]
  /** Deployment variants (reference/variants/) to switch on in the embedded reference server. */
  variants?: string[]
  /** Most commands per sequence. */
  maxCommands?: number
  /**
   * Sequences run at once, each with its own channels (default: MAX_CONCURRENCY, at most 16; a replay runs one).
   * Requests stay within the run's MAX_CONCURRENCY and MAX_RPS whatever the lanes; shrinking runs alone.
   */
  lanes?: number
  log?: (line: string) => void
  /** Configuration (default: loadConfig() over the environment and .env). */
  config?: Config
  /** How long a read after a write is polled before a mismatch counts (default: 150 ms embedded without variants, else EXPLORE_POLL_MS or 5000). */
  pollMs?: number
}

export interface ExploreFinding {
  clause: string
  level: 'MUST' | 'SHOULD'
  message: string
  seed: number
  replay: string
  steps: string[]
  stepCount: number
  reproducer: string | null
  reproduced: boolean
}

export interface ExploreOutcome {
  exitCode: 0 | 1 | 2
  findings: ExploreFinding[]
  resultsPath: string | null
  seeds: number
  sequences: number
  steps: number
  requests: number
  opsPerSecond: number
  leftovers: string[]
  /** Lanes the run had, and the most sequences that ran at once. */
  lanes: number
  peakLanes: number
  error?: string
}

export const DEFAULT_BUDGET_S = 60
/** Most sequences at once by default (each mostly has one request in flight, a burst four). */
export const MAX_LANES = 16
/** How often a running explore prints its progress. */
const PROGRESS_MS = 5000 // at most 10 s between progress lines (issue 19)

/** Seed k of shard i/n (32-bit, as fast-check takes it). */
export const seedOf = (base: number, k: number, shard: { index: number; count: number }): number => (base + k * shard.count + shard.index) | 0

export function parseReplay(token: string): { seed: number; path: string; replayPath?: string } | null {
  const m = /^(-?\d+):([0-9:]+?)(?:@([^@]*))?$/.exec(token.trim())
  if (!m) return null
  return { seed: Number(m[1]), path: m[2]!, ...(m[3] ? { replayPath: m[3] } : {}) }
}

/** What one explore run counts as it goes, shared by its stages (the progress line reads it too). */
interface Tally {
  findings: ExploreFinding[]
  /** Findings seen once that no rerun of their shrunk sequence showed again: reported, not counted. */
  unconfirmed: { clause: string; seed: number; replay: string }[]
  mustFindings: Finding[]
  seeds: number
  sequences: number
  inconclusive: number
  /** Sequences running now, the most that ran at once, and whether a failing seed is being shrunk (alone). */
  running: number
  peakLanes: number
  shrinking: boolean
  /** SIGINT or SIGTERM came: no new sequence starts. */
  stop: boolean
}

/** An explore run once its target is prepared: what its stages share. */
interface Session {
  opts: ExploreOptions
  log: (line: string) => void
  config: Config
  prepared: PreparedRun
  ctx: PreparedRun['context']
  http: HttpClient
  shared: RunShared
  tally: Tally
  startedAt: Date
}

/** Which seeds a run draws, and how many at once. */
interface Plan {
  base: number
  shard: { index: number; count: number }
  budgetMs: number
  replay: { seed: number; path: string; replayPath?: string } | null
  lanes: number
}

function emptyOutcome(exitCode: 0 | 1 | 2, error: string): ExploreOutcome {
  return {
    exitCode,
    findings: [],
    resultsPath: null,
    seeds: 0,
    sequences: 0,
    steps: 0,
    requests: 0,
    opsPerSecond: 0,
    leftovers: [],
    lanes: 0,
    peakLanes: 0,
    error,
  }
}

/**
 * The stages of a run: open (configuration, prepared target, the shared HTTP client and model state), probe
 * the server's choices, draw the seeds (in lanes, or one replay), close (delete what the run made), then
 * record results.json and the reports and print the summary.
 */
export async function explore(opts: ExploreOptions = {}): Promise<ExploreOutcome> {
  const log = opts.log ?? (() => {})
  const opened = await openSession(opts, log)
  if (!('shared' in opened)) return opened
  const s = opened
  const onSignal = () => {
    if (s.tally.stop) process.exit(2)
    s.tally.stop = true
    log('interrupted: no new sequence starts; the running ones finish and the run deletes what they created')
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const exploreStarted = Date.now()
  let lanes = 1
  let progress: NodeJS.Timeout | undefined
  try {
    await probeNameStyles(s.shared)
    await loadUserRecords(s.shared)
    const plan = planRun(s)
    lanes = plan.lanes
    log(
      `exploring${plan.replay ? ` the sequence of ${opts.replay}` : opts.runs ? ` ${opts.runs} seed(s)` : ` for ${plan.budgetMs / 1000} s`} from seed ${plan.base}${plan.shard.count > 1 ? `, shard ${plan.shard.index + 1}/${plan.shard.count}` : ''}${lanes > 1 ? `, ${lanes} sequences at once` : ''}; name characters beyond [a-z0-9] taken: ${JSON.stringify(s.shared.nameStyles)}`,
    )
    progress = startProgress(s, exploreStarted)
    await drawSeeds(s, plan, exploreStarted)
  } catch (err) {
    clearInterval(progress)
    await closeSession(s, { afterFailure: true })
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    return emptyOutcome(2, redact((err as Error).stack ?? String(err)))
  }
  clearInterval(progress)
  const elapsedS = (Date.now() - exploreStarted) / 1000
  const leftovers = await closeSession(s)
  process.off('SIGINT', onSignal)
  process.off('SIGTERM', onSignal)
  return recordRun(s, { elapsedS, leftovers, lanes })
}

/** Stage 1: the configuration, the prepared target (preflight, sign-in), one HTTP client at the run's pace, and the shared model state. */
async function openSession(opts: ExploreOptions, log: (line: string) => void): Promise<Session | ExploreOutcome> {
  let config: Config
  try {
    config = opts.config ?? loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) return emptyOutcome(2, err.message)
    throw err
  }
  const startedAt = new Date()
  let prepared: PreparedRun
  try {
    prepared = await prepareRun(config, { faults: opts.faults ?? [], variants: opts.variants ?? [], log })
  } catch (err) {
    if (err instanceof PreflightError) return emptyOutcome(2, `cannot run: ${err.message}`)
    if (err instanceof Error && /unknown (fault|variant)/i.test(err.message)) return emptyOutcome(2, redact(err.message))
    throw err
  }
  const ctx = prepared.context
  log(`target: ${prepared.displayTarget}`)
  // The run's pace (MAX_CONCURRENCY, MAX_RPS, slowed down by 429s) and network settings, shared by every lane.
  const http = new HttpClient({ baseUrl: ctx.target.baseUrl, timeoutMs: ctx.requestTimeoutMs, network: ctx.network, pacer: new Pacer(ctx.pace) })
  const apis = Object.fromEntries(CALLERS.map((c) => [c, new Api(http, ctx.target, c === 'anon' ? null : ctx.accounts[c].token)])) as Record<Caller, Api>
  const shared: RunShared = {
    run: ctx,
    apis,
    learned: new Learned(),
    ledger: new RunLedger(ctx.ledgerPath, ctx),
    // The embedded server alone is consistent; with a variant it may be a lagging deployment (lagging-reads, search-index-lag).
    pollMs: opts.pollMs ?? (ctx.target.embedded && !opts.variants?.length ? 150 : Number(process.env.EXPLORE_POLL_MS) || 5000),
    nameStyles: [],
    userRecords: {} as RunShared['userRecords'],
    warnings: new Map(),
    judged: new Map(),
    requests: 0,
    steps: 0,
    execs: 0,
  }
  const tally: Tally = {
    findings: [],
    unconfirmed: [],
    mustFindings: [],
    seeds: 0,
    sequences: 0,
    inconclusive: 0,
    running: 0,
    peakLanes: 0,
    shrinking: false,
    stop: false,
  }
  return { opts, log, config, prepared, ctx, http, shared, tally, startedAt }
}

/** Stage 2: the seeds to draw (base, shard, budget or replay) and the lanes to draw them in. */
function planRun(s: Session): Plan {
  const { opts, ctx } = s
  const replay = opts.replay ? parseReplay(opts.replay) : null
  if (opts.replay && !replay) throw new Error(`--replay wants <seed>:<path>, got '${opts.replay}'`)
  return {
    base: ctx.seed,
    shard: opts.shard ?? { index: 0, count: 1 },
    budgetMs: (opts.budgetS ?? DEFAULT_BUDGET_S) * 1000,
    replay,
    lanes: replay ? 1 : Math.max(1, Math.floor(opts.lanes ?? Math.min(ctx.limits.maxConcurrency, MAX_LANES))),
  }
}

/** Progress while the budget runs: a long run against a slow target is never silent for long. */
function startProgress(s: Session, exploreStarted: number): NodeJS.Timeout {
  const t = s.tally
  const progress = setInterval(() => {
    const secs = (Date.now() - exploreStarted) / 1000
    s.log(
      `… ${secs.toFixed(0)} s: ${t.seeds} seed(s), ${t.sequences} sequence(s), ${s.shared.steps} steps (${(s.shared.steps / Math.max(secs, 0.001)).toFixed(1)} steps/s), ${t.mustFindings.length} finding(s)${t.shrinking ? ', shrinking a failing sequence' : ''}`,
    )
  }, PROGRESS_MS)
  progress.unref()
  return progress
}

/** One sequence per run of the property: drawn by fast-check, run against the model, audited, cleaned up. */
function sequenceProperty(s: Session, replayPath?: string) {
  const t = s.tally
  return fc.asyncProperty(
    fc.nat({ max: 59 }),
    fc.commands(commandArbitraries(), { maxCommands: s.opts.maxCommands ?? 30, size: 'max', ...(replayPath ? { replayPath } : {}) }),
    async (style, cmds) => {
      const x = new Exec(s.shared, SLOTS, style)
      t.sequences++
      t.running++
      t.peakLanes = Math.max(t.peakLanes, t.running)
      try {
        await fc.asyncModelRun(() => ({ model: x, real: x }), cmds)
        await audit(x)
      } catch (err) {
        if (err instanceof Inconclusive) {
          x.inconclusive = err.message
          t.inconclusive++
          return
        }
        throw err
      } finally {
        t.running--
        await cleanUp(x)
      }
    },
  )
}

/** Stage 3: the replay's one sequence, or seeds in lanes with the failing ones shrunk afterwards, alone. */
async function drawSeeds(s: Session, plan: Plan, exploreStarted: number): Promise<void> {
  const t = s.tally
  if (plan.replay) {
    t.seeds++
    await hunt(s, plan, plan.replay.seed, plan.replay.path, plan.replay.replayPath)
    return
  }
  // Lanes: each takes the next seed index and runs its sequence without shrinking (each sequence has its own
  // channels; the accounts are shared). A failing seed stops the lanes from taking later indexes; once the
  // lanes are idle, the failing seeds are shrunk one at a time, lowest index first, with nothing else running,
  // and the first confirmed one ends the run (one finding is enough to fail it; the next seeds would spend the
  // budget on the same fault). Which seeds fail does not depend on timing, so neither does the finding.
  const { base, shard, budgetMs } = plan
  const runs = s.opts.runs
  let next = 0
  let lowestFailed = Infinity
  const failed: { k: number; clause: string }[] = []
  const more = () => !t.stop && next <= lowestFailed && (runs ? next < runs : Date.now() - exploreStarted < budgetMs)
  const lane = async (): Promise<void> => {
    while (more()) {
      const k = next++
      t.seeds++
      const details = await fc.check(sequenceProperty(s), { seed: seedOf(base, k, shard), numRuns: 1, endOnFailure: true })
      if (details.failed) {
        const err = details.errorInstance
        failed.push({ k, clause: err instanceof Finding ? err.clause : String(err) })
        lowestFailed = Math.min(lowestFailed, k)
      }
    }
  }
  for (let found = false; !found;) {
    await Promise.all(Array.from({ length: plan.lanes }, lane))
    // Interrupted: the run ends now (the failing seeds are listed, not shrunk).
    if (t.stop) for (const f of failed) s.log(`not shrunk (interrupted): [${f.clause}] with seed ${seedOf(base, f.k, shard)}`)
    if (!failed.length || t.stop) break
    t.shrinking = true
    for (const f of failed.sort((a, b) => a.k - b.k)) if ((found = await hunt(s, plan, seedOf(base, f.k, shard), undefined, undefined, f.clause))) break
    t.shrinking = false
    failed.length = 0
    lowestFailed = Infinity
  }
}

/**
 * One seed, alone: its sequence, shrunk by fast-check on failure, then rerun (up to three times) to confirm.
 * true when a confirmed finding was recorded.
 */
async function hunt(s: Session, plan: Plan, seed: number, path?: string, replayPath?: string, seen?: string): Promise<boolean> {
  const { log, shared, tally: t, ctx } = s
  const details = await fc.check(sequenceProperty(s, replayPath), {
    seed,
    numRuns: 1,
    ...(path ? { path } : {}),
    interruptAfterTimeLimit: Math.max(plan.budgetMs * 3, 180_000),
  })
  if (!details.failed || !details.counterexample) {
    if (seen) {
      t.unconfirmed.push({ clause: seen, seed, replay: `${seed}:0` })
      log(
        `not counted: [${seen}] seen once with seed ${seed}, but its sequence run again alone did not show it (replay: ${commandFor('explore', `--replay ${seed}:0`)})`,
      )
    }
    return false
  }
  const err = details.errorInstance
  if (!(err instanceof Finding)) throw err instanceof Error ? err : new Error(String(err))
  const [style, cmds] = details.counterexample
  const shrunkReplayPath = /replayPath="([^"]+)"/.exec(String(cmds))?.[1]
  const token = `${seed}:${details.counterexamplePath}${shrunkReplayPath ? `@${shrunkReplayPath}` : ''}`
  // Again, recorded, for the numbered steps and the reproducer (the shrink's last run may have passed). A
  // finding that no rerun of its shrunk sequence shows is not counted: a lagging read or a gateway's hiccup
  // can look like a deviation once, and a false finding is worse than a missed one.
  let rerun = new Exec(shared, SLOTS, style)
  let again: Finding | null = null
  for (let attempt = 0; attempt < 3 && !again; attempt++) {
    rerun = new Exec(shared, SLOTS, style)
    try {
      await fc.asyncModelRun(() => ({ model: rerun, real: rerun }), cmds)
      await audit(rerun)
    } catch (e) {
      if (e instanceof Finding) again = e
      else if (!(e instanceof Inconclusive)) throw e
    } finally {
      await cleanUp(rerun)
    }
  }
  if (!again) {
    t.unconfirmed.push({ clause: err.clause, seed, replay: token })
    log(
      `not counted: [${err.clause}] seen once with seed ${seed}, but three reruns of its shrunk sequence did not show it (replay: ${commandFor('explore', `--replay ${token}`)})`,
    )
    return false
  }
  const finding = again
  const steps = numberedSteps(rerun, rerun.step)
  let reproducer: string | null = null
  try {
    reproducer = writeReproducer(s.config.reportDir, `explore-repro-${seed}.sh`, rerun, {
      finding,
      replay: token,
      basePath: new URL(ctx.target.baseUrl).pathname.replace(/\/+$/, ''),
      userApiPath: ctx.target.userApiPath,
      messageApiPath: ctx.target.messageApiPath,
    })
  } catch (e) {
    log(`could not write the reproducer: ${redact((e as Error).message)}`)
  }
  t.findings.push({
    clause: finding.clause,
    level: finding.level === 'MUST' ? 'MUST' : 'SHOULD',
    message: redact(finding.problem),
    seed,
    replay: token,
    steps: steps.lines,
    stepCount: steps.count,
    reproducer,
    reproduced: true,
  })
  t.mustFindings.push(finding)
  log('')
  log(`FINDING [${finding.clause} ${finding.level}] after ${details.numShrinks} shrink(s), ${steps.count} step(s):`)
  for (const l of redact(finding.problem).split('\n')) log(`  ${l}`)
  for (const l of steps.lines) log(redact(l))
  log(`replay: ${commandFor('explore', `--replay ${token}`)}`)
  if (reproducer) log(`reproducer: ${reproducer}`)
  return true
}

/** Stage 4: deletes what the run left in its ledger, closes the client and the prepared target; returns the cleanup problems. */
async function closeSession(s: Session, how: { afterFailure?: boolean } = {}): Promise<string[]> {
  const timeout = Math.min(s.ctx.requestTimeoutMs, 10_000)
  // After a run that failed, a cleanup that fails too is not what the run reports.
  const cleanup = how.afterFailure ? await deleteLedgered(s.ctx, timeout).catch(() => ({ problems: [] as string[] })) : await deleteLedgered(s.ctx, timeout)
  await s.http.close()
  await s.prepared.close()
  return cleanup.problems
}

/** The results.json entries of a run: each confirmed finding failed, each clause judged without one passed, each SHOULD warning. */
function exploreChecks(s: Session): CheckResult[] {
  const { shared, tally: t } = s
  const checks: CheckResult[] = []
  const entry = (id: ClauseId, title: string, status: CheckResult['status'], level = clause(id).level, message?: string, evidence?: Exchange): CheckResult => ({
    id: `${id}: explore: ${title}`,
    title: `explore: ${title}`,
    clause: id,
    section: clause(id).section,
    area: clause(id).area,
    level,
    status,
    durationMs: 0,
    file: 'helpers/explore',
    ...(message ? { message: redact(message) } : {}),
    ...(evidence ? { evidence: [redact(`${evidence.request.method} ${evidence.request.url} → ${evidence.status}`)] } : {}),
    requests: 0,
    retries: 0,
  })
  const failedClauses = new Set(t.mustFindings.map((f) => f.clause))
  for (const f of t.mustFindings) {
    const rep = t.findings.find((r) => r.clause === f.clause)
    checks.push(
      entry(
        f.clause,
        'a generated sequence agrees with the model',
        'failed',
        f.level,
        `[${f.clause} ${f.level}] ${f.problem}\nreplay: ${commandFor('explore', `--replay ${rep?.replay}`)}\n${rep?.steps.join('\n') ?? ''}${rep?.reproducer ? `\nreproducer: ${rep.reproducer}` : ''}`,
        f.exchange,
      ),
    )
  }
  for (const [id] of shared.judged)
    if (!failedClauses.has(id) && clause(id).level !== 'INFO') checks.push(entry(id, 'generated sequences agree with the model', 'passed'))
  for (const w of shared.warnings.values())
    checks.push(
      entry(
        w.clause,
        `warning: ${w.problem
          .split('\n')[0]!
          .replace(/ct[0-9a-f]{6}x[\w.-]+/g, '<channel>')
          .slice(0, 120)}`,
        'failed',
        'SHOULD',
        w.problem,
        w.exchange,
      ),
    )
  return checks
}

/** Stage 5: results.json (mode 'explore') and the reports, the summary lines, and the outcome. */
function recordRun(s: Session, run: { elapsedS: number; leftovers: string[]; lanes: number }): ExploreOutcome {
  const { log, config, prepared, ctx, http, shared, tally: t, opts } = s
  const { elapsedS, leftovers, lanes } = run
  const opsPerSecond = shared.steps / Math.max(elapsedS, 0.001)
  const endedAt = new Date()
  const checks = exploreChecks(s)
  const counts = countChecks(checks)
  let { verdict, exitCode } = judge(counts, { strict: config.strict, interrupted: t.stop && t.mustFindings.length === 0, errors: leftovers.length })
  if (t.sequences > 0 && t.sequences === t.inconclusive) ({ verdict, exitCode } = { verdict: 'incomplete', exitCode: 2 })
  const results: RunResults & { mode: 'explore'; explore: Record<string, unknown> } = {
    mode: 'explore',
    ...buildResults({
      target: prepared.target,
      // Its own slug: an explore run is never the baseline of a conformance run's diff, nor the other way round.
      targetSlug: `${slugOfTarget(prepared.target)}--explore`,
      runId: ctx.runId,
      seed: ctx.seed,
      startedAt: s.startedAt,
      endedAt,
      strict: config.strict,
      // Not the suite's checks: the clauses its model judges, over the sequences it drew (report.html says so).
      filters: {
        areas: [],
        level: null,
        explore: `explore: ${t.sequences} model-based sequence(s) of ${t.seeds} seed(s) over ${elapsedS.toFixed(0)} s, judged against the model's clauses only (not the suite's checks)`,
      },
      interrupted: t.stop,
      verdict,
      exitCode,
      http: { requests: shared.requests, retries: http.retries },
      checks,
      cleanup: leftovers,
      errors: [],
    }),
    causes: storedCauses(checks),
    explore: {
      seeds: t.seeds,
      sequences: t.sequences,
      inconclusive: t.inconclusive,
      steps: shared.steps,
      requests: shared.requests,
      seconds: Math.round(elapsedS * 10) / 10,
      opsPerSecond: Math.round(opsPerSecond * 10) / 10,
      lanes,
      peakLanes: t.peakLanes,
      shard: opts.shard ?? { index: 0, count: 1 },
      learned: shared.learned.notes,
      findings: t.findings.map((f) => ({ ...f, steps: f.steps.map(redact) })),
      unconfirmed: t.unconfirmed,
    },
  }
  const resultsPath = writeResults(config.reportDir, results)
  try {
    for (const line of describeReports(writeReports(modelWithHistory(results, config.reportDir), config.reportDir, { resultsPath }), results)) log(line)
  } catch (err) {
    log(`could not write the reports: ${redact((err as Error).message)}`)
  }
  log('')
  log(
    `explore: ${t.seeds} seed(s), ${t.sequences} sequence(s) run (shrinks included, ${t.inconclusive} inconclusive), ${shared.steps} steps, ${shared.requests} requests in ${elapsedS.toFixed(1)} s (${opsPerSecond.toFixed(1)} steps/s; ${lanes} lane(s), at most ${t.peakLanes} sequence(s) at once)`,
  )
  for (const n of shared.learned.notes) log(`  server's choice: ${n}`)
  for (const w of shared.warnings.values()) log(`  warning (SHOULD) [${w.clause}]: ${redact(w.problem.split('\n')[0]!)}`)
  for (const l of leftovers) log(`  cleanup problem: ${l}`)
  log(`verdict: ${verdict} — ${t.mustFindings.length} finding(s); results: ${resultsPath}`)
  return {
    exitCode,
    findings: t.findings,
    resultsPath,
    seeds: t.seeds,
    sequences: t.sequences,
    steps: shared.steps,
    requests: shared.requests,
    opsPerSecond,
    leftovers,
    lanes,
    peakLanes: t.peakLanes,
  }
}

/** Deletes what a sequence made, each channel by its owner (every account where the model lost track). */
async function cleanUp(x: Exec): Promise<void> {
  for (const slot of x.slots) {
    const owners: (AccountKey | null)[] = slot.channel && !slot.tainted ? [slot.channel.owner] : [...slot.owners]
    if (!owners.length) continue
    const keys = owners.includes(null) ? [...ACCOUNT_KEYS] : (owners as AccountKey[])
    for (const key of keys) {
      for (const personal of slot.channel && !slot.tainted ? [slot.channel.private] : [false, true]) {
        try {
          const api = x.shared.apis[key]
          const ex = await api.deleteChannel(slot.name, personal || undefined, { retry: true })
          // A channel already gone may be answered 400, 410 or another refusal (§7 states no failure codes): the owner's read tells.
          if (ex.status < 300 || ex.status === 404 || (refusedAsGone(ex.status) && (await channelGone(api, slot.name))))
            x.shared.ledger.deleted(slot.name, owners.includes(null) ? null : key, personal)
        } catch {
          // Left in the ledger: the run's final cleanup (and the next sweep) tries again.
        }
      }
    }
    slot.channel = null
  }
}

/** Which characters beyond lowercase letters and digits the server takes in a channel name ('-', '.', '_', upper case), probed once. */
async function probeNameStyles(shared: RunShared): Promise<void> {
  const { run, apis, ledger } = shared
  for (const [ch, part] of [
    ['-', 'p-h'],
    ['.', 'p.d'],
    ['_', 'p_u'],
    ['A', 'pMx'],
  ] as const) {
    const name = `${run.namePrefix}${run.runId}x${part}`
    ledger.created(name, 'A', false)
    const ex = await apis.A.createChannel({ channelName: name, subscribeOnCreate: false }).catch(() => null)
    if (ex && ex.status < 300) {
      shared.nameStyles.push(ch)
      shared.learned.hold(`channel names with ${ch === 'A' ? 'upper case' : `'${ch}'`}`, 'accepted')
    } else if (ex) shared.learned.hold(`channel names with ${ch === 'A' ? 'upper case' : `'${ch}'`}`, `refused (${ex.status})`)
    const del = await apis.A.deleteChannel(name, undefined, { retry: true }).catch(() => null)
    if (!ex || ex.status >= 300 || (del && (del.status < 300 || del.status === 404))) ledger.deleted(name, 'A', false)
  }
}

async function loadUserRecords(shared: RunShared): Promise<void> {
  const ex = await shared.apis.A.listUsers()
  const list = Array.isArray(ex.json) ? (ex.json as Record<string, unknown>[]) : []
  for (const key of ACCOUNT_KEYS) {
    shared.userRecords[key] = list.find((u) => u?.userIdentifier === shared.run.accounts[key].userId) ?? {
      userName: shared.run.accounts[key].userName,
      userIdentifier: shared.run.accounts[key].userId,
    }
  }
}
