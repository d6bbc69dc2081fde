/**
 * One conformance run as a library function: configuration, known failures, the report directory, the
 * preflight (or the embedded server), vitest over suites/, the ledger cleanup, results.json and the reports.
 * `npm run conformance` (scripts/conformance.ts) and the installed CLI (scripts/cli.ts) are thin wrappers
 * that turn a command line into these options and the outcome into an exit code; self-tests call it directly.
 *
 * Exit codes (docs/contract.md): 0 every MUST check passed; 1 a MUST check failed (or, with STRICT=true, a
 * SHOULD check); 2 the run could not be made or completed. SIGINT/SIGTERM (./interrupt.ts): no new checks
 * start, the running ones finish, every channel still in the run's ledger is deleted, and a partial
 * results.json says `interrupted: true` (exit 2).
 */
import { join, resolve } from 'node:path'
import { AREAS, CLAUSES } from '../spec/clauses'
import { loadCommandConfig, type Config } from '../config/config'
import { packageRoot } from '../config/package-root'
import { didYouMeanNote } from '../config/did-you-mean'
import { PREPARED_KEY } from './global-setup'
import { Interruption } from './interrupt'
import { MAX_RETRY_AFTER_MS, Pacer } from '../http/pace'
import { deleteLedgered } from '../http/ledger'
import { PreflightError, prepareRun, type PreparedRun } from './prepare'
import { redact, safeOrigin } from '../http/redact'
import { claimReportDir, ReportDirBusy } from './report-dir'
import { CollectingReporter } from './reporter'
import { applyExpectations, ExpectationsError, expectationsFor } from '../reports/expectations'
import { ALLURE_DIR, resetAllureResults } from '../reports/allure'
import { recordCouldNotRun } from '../reports/history'
import { buildResults, countChecks, judge, latencyRows, scopeText, specRevision, suiteInfo, writeResults, type RunResults } from '../reports/results'
import { storedCauses } from '../reports/causes'
import { productOf } from '../reports/reproducer'
import { tokenRenewals } from '../http/tokens'
import { UnknownFaultError } from '../../reference/faults/types'
import { checkClauses, filesFor, suiteFiles } from './suite-files'
import { readFileSync } from 'node:fs'
import { suiteTestConfig } from './suite-config'
import type { SuiteSession } from './session'
import { AllureResultsReporter } from './allure-reporter'

export interface ConformanceOptions {
  /** Only the checks of these spec areas (none: every area). */
  areas?: string[]
  /** Only the checks of one level: must, should or info. */
  level?: string | null
  /** Only the checks of these clauses: ids or globs (`*` any run of characters), as --clause gives them. */
  clauses?: string[]
  /** Only these checks: ids as results.json names them (`<clause>: <title>`), as --check gives them. */
  checks?: string[]
  /** Catalogued faults to switch on in the embedded reference server. */
  faults?: string[]
  /** Variants (reference/variants/) to switch on in the embedded reference server. */
  variants?: string[]
  /** The environment (default: process.env), read over the env file as readEnv() does. */
  env?: Record<string, string | undefined>
  /** The env file under the environment (default: `.env` in the working directory, if there). */
  envFile?: string
  /** Progress and outcome lines (default: stdout). */
  log?: (line: string) => void
  /** Lines that say why a run could not be made (default: stderr). */
  warn?: (line: string) => void
  /** Test files to run instead of `suites/` (globs from the project root): the runner's own self-tests. */
  suiteFiles?: string[]
  /**
   * Run the suite on this open session (./session.ts) instead of a vitest started for this run alone: the
   * self-proof's many whole runs in one process. The rest of the run (preparation, results.json, the exit code)
   * is the same. Whole runs only: no area or level filter, and the session's own suite files.
   */
  session?: SuiteSession
  /** false: results.json only, none of the reports made from it (HTML, JUnit, history, HAR…): the self-proof. */
  reports?: boolean
  /**
   * The embedded server answers the run's clients in this process, without a socket (helpers/http/in-process.ts):
   * the self-proof's runs on a session. Ignored for any other target.
   */
  inProcess?: boolean
}

export interface ConformanceOutcome {
  exitCode: number
  /** null when no run was made (bad configuration, busy report directory, failed preflight). */
  results: RunResults | null
  resultsPath: string | null
}

/** The areas a filter may name: every area but `http`, whose conventions are judged inside the others. */
export const FILTER_AREAS = Object.keys(AREAS).filter((a) => a !== 'http')

/** The levels a filter may name (any case). */
const LEVELS = ['must', 'should', 'info']

/** Why an --area/--level filter is unusable, or null. */
export function filterProblem(areas: string[], level: string | null | undefined): string | null {
  for (const a of areas) if (!(a in AREAS)) return `unknown area '${a}'${didYouMeanNote(a, FILTER_AREAS)}; the areas are ${FILTER_AREAS.join(', ')}`
  // HTTP conventions are judged inside the checks of every area; no check belongs to 'http' alone.
  if (areas.includes('http')) return "area 'http' has no checks of its own: its conventions are judged inside every other area's checks"
  if (level && !LEVELS.includes(level.toLowerCase())) return `unknown level '${level}'${didYouMeanNote(level, LEVELS)}; the levels are ${LEVELS.join(', ')}`
  return null
}

/** A --clause glob as a RegExp over clause ids. */
function clauseGlob(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`)
}

/** Clauses with checks of their own (suites/): the others are judged inside other checks (http.*, findings). */
export function clausesWithChecks(root = packageRoot()): Set<string> {
  return new Set(suiteFiles(root).flatMap((f) => checkClauses(readFileSync(join(root, f), 'utf8'))))
}

/** The suite files holding a check of the --clause/--check selection (null: no selection). */
function filesForSelection(root: string, clauses: readonly string[], checks: readonly string[]): string[] | null {
  if (!clauses.length && !checks.length) return null
  const res = [...clauses.map(clauseGlob), ...checks.map((id) => new RegExp(`^${id.slice(0, id.indexOf(': ')).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))]
  return suiteFiles(root).filter((f) => checkClauses(readFileSync(join(root, f), 'utf8')).some((id) => res.some((re) => re.test(id))))
}

/** Why a --clause or --check selection is unusable (it names nothing there is), or null. */
export function selectionProblem(clauses: readonly string[], checks: readonly string[]): string | null {
  const own = clauses.length ? clausesWithChecks() : new Set<string>()
  for (const glob of clauses) {
    const re = clauseGlob(glob)
    if (!CLAUSES.some((c) => re.test(c.id)))
      return `--clause '${glob}' matches no clause of the spec; docs/clauses.md lists them (a glob: --clause 'channels.create.*')`
    if (![...own].some((id) => re.test(id)))
      return `--clause '${glob}' matches no clause with checks of its own: it is judged inside other checks, so run their area (--area) or the whole suite`
  }
  for (const id of checks) {
    const at = id.indexOf(': ')
    if (at <= 0 || !CLAUSES.some((c) => c.id === id.slice(0, at)))
      return `--check '${id}' is not a check id: it is '<clause>: <title>', as results.json and the console name it`
  }
  return null
}

/**
 * The vitest test-name pattern of a --clause/--check selection, or undefined for none. A check's test name ends
 * in `<title> [<clause>]` (helpers/spec/clauses.ts titleWithClause); its id in results.json is `<clause>: <title>`.
 */
export function selectionPattern(clauses: readonly string[], checks: readonly string[]): RegExp | undefined {
  const esc = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const alternatives = [
    ...clauses.map((g) => `\\[${clauseGlob(g).source.slice(1, -1).replace(/\.\*/g, '[^\\]]*')}\\]$`),
    ...checks.map((id) => {
      const main = id.split(' > ')[0]!
      const at = main.indexOf(': ')
      return `(?:^| )${esc(main.slice(at + 2))} \\[${esc(main.slice(0, at))}\\]$`
    }),
  ]
  return alternatives.length ? new RegExp(alternatives.map((a) => `(?:${a})`).join('|')) : undefined
}

/** A run that was not made: exit 2, no results (the reason went to `warn`). */
const NOT_RUN: ConformanceOutcome = { exitCode: 2, results: null, resultsPath: null }

/**
 * One conformance run, in stages: open it (configuration, known failures, the report directory), prepare the
 * target (embedded server, preflight, sign-in), run the checks (vitest, then the ledger cleanup), say what the
 * pace saw, judge, and write results.json and the reports.
 */
export async function runConformance(options: ConformanceOptions = {}): Promise<ConformanceOutcome> {
  // The run's start, for results.json `timing` (time to the first check, from here and from the process's start).
  const runStart = Date.now()
  const opened = openRun(options)
  if (!opened) return NOT_RUN
  // vitest's modules load while the target is prepared (sign-ins wait on the network), not after.
  const vitestModule = import('vitest/node')
  vitestModule.catch(() => {})
  const startedAt = new Date()
  const interruption = new Interruption(opened.log)
  interruption.install()
  const prepared = await prepareTarget(opened, interruption, startedAt)
  if (!prepared) return NOT_RUN
  const ran = await runChecks(opened, prepared, interruption, runStart, vitestModule)
  reportPace(prepared, opened.log)
  const results = judgeRun(opened, prepared, ran, interruption, startedAt, runStart)
  return writeRun(opened, results, ran.reporter, interruption)
}

/** What a run knows once it is open: its options resolved, its configuration, known failures and report directory. */
interface OpenedRun {
  log: (line: string) => void
  warn: (line: string) => void
  areas: string[]
  level: string | null
  /** results.json `filters`: areas and level, and the --clause/--check selection when given. */
  filters: RunResults['filters']
  /** The vitest test-name pattern of the --clause/--check selection. */
  namePattern: RegExp | undefined
  clauses: string[]
  checks: string[]
  faults: string[]
  variants: string[]
  suiteFiles: string[] | undefined
  session: SuiteSession | undefined
  reports: boolean
  inProcess: boolean
  /** Where the suite is installed: vitest finds suites/ there, whatever the working directory. */
  root: string
  config: Config
  expectations: ReturnType<typeof expectationsFor>
  releaseReportDir: () => void
}

/** Stage 1: the configuration, the target's known failures and the report directory; null (said on `warn`) when the run cannot be made. */
function openRun(options: ConformanceOptions): OpenedRun | null {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`))
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`))
  if (options.session && (options.areas?.length || options.level || options.suiteFiles)) {
    warn('conformance: a suite session runs the whole suite it was opened with: no area, level or suite files per run')
    return null
  }
  const root = packageRoot()
  const loaded = loadCommandConfig('conformance', options, warn)
  if (!loaded) return null
  const { config, env } = loaded
  // The target's known failures (expectations/<target>.json or EXPECTATIONS_FILE): a bad file is a bad config.
  let expectations
  try {
    expectations = expectationsFor(config.baseUrl, env, config)
  } catch (err) {
    if (err instanceof ExpectationsError) {
      warn(`conformance: ${redact(err.message)}`)
      return null
    }
    throw err
  }
  // One run per REPORT_DIR at a time; the previous run's results.json goes, so it cannot pass for this one's.
  let releaseReportDir: () => void
  try {
    releaseReportDir = claimReportDir(resolve(config.reportDir), config.reportDir)
  } catch (err) {
    if (err instanceof ReportDirBusy) {
      warn(`conformance: ${redact(err.message)}`)
      return null
    }
    throw err
  }
  const areas = options.areas ?? []
  const level = options.level?.toLowerCase() ?? null
  const clauses = options.clauses ?? []
  const checks = options.checks ?? []
  return {
    log,
    warn,
    areas,
    level,
    filters: { areas, level, ...(clauses.length ? { clauses } : {}), ...(checks.length ? { checks } : {}) },
    namePattern: selectionPattern(clauses, checks),
    clauses,
    checks,
    faults: options.faults ?? [],
    variants: options.variants ?? [],
    suiteFiles: options.suiteFiles,
    session: options.session,
    reports: options.reports !== false,
    inProcess: options.inProcess === true,
    root,
    config,
    expectations,
    releaseReportDir,
  }
}

/**
 * Stage 2: the target, prepared (the embedded server started, preflight and sign-in done) and handed to vitest's
 * global set-up; null (said on `warn`, the report directory and signal handlers given back) when it cannot be.
 */
async function prepareTarget(run: OpenedRun, interruption: Interruption, startedAt: Date): Promise<PreparedRun | null> {
  const { config, log, warn } = run
  let prepared: PreparedRun
  try {
    prepared = await prepareRun(config, { faults: run.faults, variants: run.variants, inProcess: run.inProcess, log })
  } catch (err) {
    // A night that could not run leaves a record in the history (verdict and reason), so the trend shows the gap.
    if (err instanceof PreflightError) recordNight(config, run.expectations.slug, startedAt, `cannot run: ${err.message}`, run.filters, warn)
    // In a process that goes on (a self-test), the directory and the signal handlers are given back now.
    run.releaseReportDir()
    interruption.uninstall()
    if (err instanceof PreflightError) {
      warn(`conformance: cannot run: ${err.message}`)
      return null
    }
    // The variant catalogue is loaded with the embedded server only; its error is known by name.
    if (err instanceof UnknownFaultError || (err instanceof Error && err.name === 'UnknownVariantError')) {
      warn(`conformance: ${redact(err.message)}`)
      return null
    }
    throw err
  }
  const ctx = prepared.context
  log(`target: ${prepared.displayTarget}`)
  log(`run ${ctx.runId}, seed ${ctx.seed}${config.seed === null ? ' (random; set SEED to repeat)' : ''}`)
  // For the global set-up of a vitest started for this run (a session provides each run's context itself).
  if (!run.session) (globalThis as Record<string, unknown>)[PREPARED_KEY] = prepared
  return prepared
}

interface RanChecks {
  reporter: CollectingReporter
  vitestFailed: boolean
}

/**
 * Stage 3: the checks, through vitest: only the suite files a filter needs (helpers/runner/suite-files.ts), with
 * the suite's options handed over directly (no config file to bundle); then the ledger cleanup of whatever
 * the checks left, and the embedded server closed.
 */
async function runChecks(
  run: OpenedRun,
  prepared: PreparedRun,
  interruption: Interruption,
  runStart: number,
  vitestModule: Promise<typeof import('vitest/node')>,
): Promise<RanChecks> {
  const { root, config, log, areas, level } = run
  const ctx = prepared.context
  // A run without reports writes no exchanges.har: only the exchanges of a check that did not pass are handed over.
  ctx.keepExchanges = run.reports
  // The reports are written after the checks; their modules load while the checks run (the main thread mostly waits then).
  void import('../reports').catch(() => {})
  // What a reproducer replaces by the script's variables: the run id, the client id, the accounts' names and ids.
  const replay = {
    origin: new URL(prepared.target.url).origin,
    basePath: new URL(ctx.target.baseUrl).pathname.replace(/\/$/, ''),
    userApiPath: ctx.target.userApiPath,
    messageApiPath: ctx.target.messageApiPath,
    runId: ctx.runId,
    clientId: ctx.clientId,
    accounts: Object.fromEntries(Object.entries(ctx.accounts).map(([k, a]) => [k, { userName: a.userName, userId: a.userId }])),
  }
  const reporter = new CollectingReporter(log, root, replay, runStart)
  const tagsFilter = [...(areas.length ? [areas.join(' || ')] : []), ...(level ? [level] : [])]
  // A --clause/--check selection loads only the files holding its checks too (within those an area/level filter picks).
  const byArea = filesFor(root, areas, level)
  const bySelection = filesForSelection(root, run.clauses, run.checks)
  const include = run.suiteFiles ?? (byArea && bySelection ? byArea.filter((f) => bySelection.includes(f)) : (byArea ?? bySelection)) ?? undefined
  let vitestFailed = false
  // Allure results of this run only (written by the allure-vitest reporter, redacted again in writeReports).
  const allureDir = resolve(config.reportDir, ALLURE_DIR)
  resetAllureResults(allureDir)
  /** A vitest of this run's own, started and closed for it. */
  const runOwnVitest = async (): Promise<void> => {
    const { startVitest } = await vitestModule
    const vitest = await startVitest('test', [], {
      ...suiteTestConfig(include && !run.suiteFiles ? include.length : null, root),
      config: false,
      root,
      watch: false,
      reporters: [
        reporter,
        interruption.reporter,
        new AllureResultsReporter({
          resultsDir: allureDir,
          reportMatchers: false,
          environmentInfo: { target: prepared.displayTarget, suite: `${suiteInfo().name} ${suiteInfo().version}`, run: ctx.runId, seed: String(ctx.seed) },
        }),
      ],
      ...(tagsFilter.length ? { tagsFilter } : {}),
      ...(run.namePattern ? { testNamePattern: run.namePattern } : {}),
      ...(include ? { include } : {}),
      passWithNoTests: true,
    })
    await vitest.close()
  }
  try {
    // A session's vitest is shared by the runs of its process: a signal ends that process, it cancels no one run.
    if (run.session) await run.session.run({ ...ctx, allure: false }, [reporter, { onTestModuleQueued: interruption.reporter.onTestModuleQueued }])
    else await runOwnVitest()
  } catch (err) {
    vitestFailed = true
    reporter.errors.push(`the test runner failed: ${redact((err as Error).message)}`)
  } finally {
    // Whatever the fixtures could not delete (a check cut short, a cleanup that met a network fault).
    try {
      // The stop's progress, so a slow one shows where its time went (a CI runner kills the job 7.5 s after the signal).
      if (interruption.interrupted)
        log(`${interruption.signal}: the checks stopped ${interruption.sinceSignal()} after the signal; deleting what the run's ledger lists`)
      // After a cancel the checks leave their channels to this cleanup (helpers/kit/check.ts): wider, so it ends
      // within a CI runner's grace period even on a slow link.
      const left = await deleteLedgered(ctx, Math.min(ctx.requestTimeoutMs, 10_000), interruption.interrupted ? 24 : 8)
      if (left.deleted.length)
        log(
          `deleted ${left.deleted.length} channel(s) the checks had left${interruption.interrupted ? ` (${interruption.sinceSignal()} after the signal)` : ''}`,
        )
      // A check's own delete that the cancel cut is no problem: the ledger cleanup just did it (or says why not).
      if (interruption.interrupted) reporter.cleanup.splice(0, Infinity, ...reporter.cleanup.filter((p) => !p.includes('UND_ERR_DESTROYED')))
      reporter.cleanup.push(...left.problems)
    } finally {
      await prepared.close()
    }
  }
  return { reporter, vitestFailed }
}

/** Stage 4: what the shared pace and token store saw over the whole run (workers included), said once, plainly. */
function reportPace(prepared: PreparedRun, log: (line: string) => void): void {
  const ctx = prepared.context
  const pace = new Pacer(ctx.pace).state()
  if (pace.limited)
    log(
      `the target answered 429 (too many requests) ${pace.limited} time(s); the run slowed down to ${pace.rps ? `${pace.rps.toFixed(1)} requests/s` : 'its own pace'} (MAX_RPS, MAX_CONCURRENCY)`,
    )
  if (pace.overloaded)
    log(
      `the target answered 502/503/504 with a Retry-After ${pace.overloaded} time(s) (overloaded or in maintenance); the run waited as asked (at most ${MAX_RETRY_AFTER_MS / 1000} s each) and repeated those calls`,
    )
  const renewals = tokenRenewals(ctx.tokens)
  if (renewals) log(`signed the run's accounts in again ${renewals} time(s): their tokens expired or were refused during the run`)
}

/** Stage 5: the checks judged into results.json's content: cut checks skipped, known failures applied, verdict and exit code. */
function judgeRun(run: OpenedRun, prepared: PreparedRun, ran: RanChecks, interruption: Interruption, startedAt: Date, runStart: number): RunResults {
  const { reporter, vitestFailed } = ran
  const ctx = prepared.context
  const endedAt = new Date()
  const checks = reporter.checks.sort((x, y) => x.area.localeCompare(y.area) || x.id.localeCompare(y.id))
  // Checks whose connections the cancel cut (helpers/kit/check.ts) were not judged: skipped, not errors.
  if (interruption.interrupted) {
    for (const c of checks) {
      if (c.status !== 'error' || !/UND_ERR_DESTROYED|TestRunAbortError|aborted by the user/.test(c.message ?? '')) continue
      c.status = 'skipped'
      c.message = `cut short by ${interruption.signal}: not judged`
      delete c.evidence
    }
  }
  // Every skip says why: outside the run's scope, cut by an interrupt, or skipped by the runner itself.
  const scope = scopeText(run.filters)
  const namePatternOf = (c: (typeof checks)[number]) => `${c.title} [${c.clause}]`
  for (const c of checks) {
    if (c.status !== 'skipped' || c.message) continue
    const selected =
      (!run.areas.length || run.areas.includes(c.area)) &&
      (!run.level || c.level.toLowerCase() === run.level) &&
      (!run.namePattern || run.namePattern.test(namePatternOf(c)))
    c.message = !selected
      ? `not run: outside this run's scope (${scope})`
      : interruption.interrupted
        ? `not run: the run was interrupted (${interruption.signal}) before it started`
        : 'not run: the test runner skipped it without a reason'
  }
  const expectationNotes = applyExpectations(checks, run.expectations.entries, startedAt)
  const counts = countChecks(checks)
  const { verdict, exitCode } = judge(counts, {
    strict: run.config.strict,
    interrupted: interruption.interrupted,
    errors: reporter.errors.length + (vitestFailed ? 1 : 0),
  })
  const first = reporter.firstCheckAt
  return {
    ...buildResults({
      target: prepared.target,
      targetSlug: run.expectations.slug,
      runId: ctx.runId,
      seed: ctx.seed,
      startedAt,
      endedAt,
      strict: run.config.strict,
      filters: run.filters,
      interrupted: interruption.interrupted,
      verdict,
      exitCode,
      http: { requests: checks.reduce((n, c) => n + c.requests, 0), retries: checks.reduce((n, c) => n + c.retries, 0) },
      checks,
      cleanup: reporter.cleanup,
      errors: reporter.errors,
    }),
    expectations: { file: run.expectations.file, entries: expectationNotes },
    latency: latencyRows(reporter.latency),
    spec: specRevision(),
    timing: {
      firstCheckSinceProcessMs: first === null ? null : Math.round(first - performance.timeOrigin),
      firstCheckSinceRunMs: first === null ? null : Math.round(first - runStart),
      checksMs: first === null || reporter.lastCheckEndAt === null ? null : Math.round(reporter.lastCheckEndAt - first),
    },
    // The deviations behind the failed entries, grouped once here for every report and dashboard.
    causes: storedCauses(checks),
    ...(productOf(reporter.exchanges) ? { product: productOf(reporter.exchanges) } : {}),
  }
}

/** Stage 6: results.json, the outcome on the console and the reports; the report directory and signal handlers given back. */
async function writeRun(run: OpenedRun, results: RunResults, reporter: CollectingReporter, interruption: Interruption): Promise<ConformanceOutcome> {
  const { config, log, warn } = run
  const path = writeResults(config.reportDir, results)
  try {
    const { describeReports, modelWithHistory, outcomeLines, reportModel, writeReports } = await import('../reports')
    // One model of the run for the console and every report (helpers/reports/model.ts).
    const model = run.reports ? modelWithHistory(results, config.reportDir) : reportModel(results)
    for (const line of outcomeLines(model, path)) log(line)
    if (run.reports)
      for (const line of describeReports(writeReports(model, config.reportDir, { resultsPath: path, exchanges: reporter.exchanges }), results)) log(line)
  } catch (err) {
    warn(`conformance: could not write the reports: ${redact((err as Error).message)}`)
    return { exitCode: 2, results, resultsPath: path }
  } finally {
    run.releaseReportDir()
    interruption.uninstall()
    delete (globalThis as Record<string, unknown>)[PREPARED_KEY]
  }
  return { exitCode: results.exitCode, results, resultsPath: path }
}

/** Writes the could-not-run record of a run that stopped before any check. */
function recordNight(config: Config, slug: string, startedAt: Date, reason: string, filters: RunResults['filters'], warn: (line: string) => void): void {
  const url = config.baseUrl ? safeOrigin(config.baseUrl) : 'embedded'
  const target = {
    display: `${url} (user API ${config.userApiPath}, message API ${config.messageApiPath})`,
    url,
    userApiPath: config.userApiPath,
    messageApiPath: config.messageApiPath,
    embedded: !config.baseUrl,
  }
  try {
    recordCouldNotRun(join(config.reportDir, 'history'), { target, targetSlug: slug, startedAt, reason, strict: config.strict, filters })
  } catch (err) {
    warn(`conformance: could not record the failed run in the history: ${redact((err as Error).message)}`)
  }
}
