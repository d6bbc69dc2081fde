/**
 * npm run conformance [-- --area <area>]… [--level must|should|info] [--fault <name>]…
 *
 * Runs the suite against BASE_URL (or the embedded reference server), writes REPORT_DIR/results.json and
 * prints a summary per spec area. Exit codes (docs/contract.md): 0 every MUST check passed; 1 a MUST check
 * failed (or, with STRICT=true, a SHOULD check); 2 the run could not be made or completed.
 *
 * SIGINT/SIGTERM (helpers/runner/interrupt.ts): no new checks start, the running ones finish, every channel still in
 * the run's ledger is deleted, and a partial results.json says `interrupted: true` (incomplete, exit 2: the
 * run was not completed; not 130, so callers read one set of codes).
 */
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startVitest } from 'vitest/node'
import { AREAS } from '../helpers/spec/clauses'
import { ConfigError, loadConfig } from '../helpers/config/config'
import { PREPARED_KEY } from '../helpers/runner/global-setup'
import { Interruption } from '../helpers/runner/interrupt'
import { Pacer } from '../helpers/http/pace'
import { deleteLedgered } from '../helpers/http/ledger'
import { PreflightError, prepareRun, type PreparedRun } from '../helpers/runner/prepare'
import { redact, safeOrigin } from '../helpers/http/redact'
import { claimReportDir, ReportDirBusy } from '../helpers/runner/report-dir'
import { CollectingReporter } from '../helpers/runner/reporter'
import { applyExpectations, ALLURE_DIR, describeReports, ExpectationsError, expectationsFor, recordCouldNotRun, resetAllureResults, writeReports } from '../helpers/reports'
import { countChecks, coverageOf, formatSummary, judge, RESULTS_FORMAT, suiteInfo, writeResults, type RunResults } from '../helpers/reports/results'
import { tokenRenewals } from '../helpers/http/tokens'
import { blockedText } from '../helpers/reports/matrix'
import { UnknownFaultError } from '../reference/faults/types'

const USAGE = `usage: npm run conformance -- [--area <${Object.keys(AREAS).filter((a) => a !== 'http').join('|')}>]... [--level must|should|info] [--fault <name>]...
  --area    run only the checks of these spec areas (repeatable)
  --level   run only the checks of one requirement level
  --fault   switch a catalogued fault on in the embedded reference server (self-tests; BASE_URL empty or embedded)
Configuration comes from the environment and .env (see .env.example).`

function usageError(message: string): never {
  process.stderr.write(`conformance: ${message}\n${USAGE}\n`)
  process.exit(2)
}

async function main(): Promise<number> {
  let args
  try {
    args = parseArgs({
      options: {
        area: { type: 'string', multiple: true, default: [] },
        level: { type: 'string' },
        fault: { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values
  } catch (err) {
    usageError((err as Error).message)
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const areas = args.area ?? []
  for (const a of areas) if (!(a in AREAS)) usageError(`unknown area '${a}'`)
  // HTTP conventions are judged inside the checks of every area; no check belongs to 'http' alone.
  if (areas.includes('http')) usageError("area 'http' has no checks of its own: its conventions are judged inside every other area's checks")
  const level = args.level?.toLowerCase() ?? null
  if (level && !['must', 'should', 'info'].includes(level)) usageError(`unknown level '${args.level}'`)

  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`conformance: ${err.message}\n`)
      return 2
    }
    throw err
  }
  // The target's known failures (expectations/<target>.json or EXPECTATIONS_FILE): a bad file is a bad config.
  let expectations
  try {
    expectations = expectationsFor(config.baseUrl, undefined, config)
  } catch (err) {
    if (err instanceof ExpectationsError) {
      process.stderr.write(`conformance: ${redact(err.message)}\n`)
      return 2
    }
    throw err
  }

  // One run per REPORT_DIR at a time; the previous run's results.json goes, so it cannot pass for this one's.
  let releaseReportDir: () => void
  try {
    releaseReportDir = claimReportDir(resolve(config.reportDir), config.reportDir)
  } catch (err) {
    if (err instanceof ReportDirBusy) {
      process.stderr.write(`conformance: ${redact(err.message)}\n`)
      return 2
    }
    throw err
  }

  const startedAt = new Date()
  const log = (line: string) => process.stdout.write(`${line}\n`)
  const interruption = new Interruption(log)
  interruption.install()
  let prepared: PreparedRun
  try {
    prepared = await prepareRun(config, { faults: args.fault ?? [], log })
  } catch (err) {
    if (err instanceof PreflightError) {
      process.stderr.write(`conformance: cannot run: ${err.message}\n`)
      recordNight(config, expectations.slug, startedAt, `cannot run: ${err.message}`, { areas, level })
      releaseReportDir()
      return 2
    }
    if (err instanceof UnknownFaultError) {
      process.stderr.write(`conformance: ${redact(err.message)}\n`)
      return 2
    }
    throw err
  }
  const ctx = prepared.context
  log(`target: ${prepared.displayTarget}`)
  log(`run ${ctx.runId}, seed ${ctx.seed}${config.seed === null ? ' (random; set SEED to repeat)' : ''}`)
  ;(globalThis as Record<string, unknown>)[PREPARED_KEY] = prepared

  const reporter = new CollectingReporter(log)
  const tagsFilter = [...(areas.length ? [areas.join(' || ')] : []), ...(level ? [level] : [])]
  let vitestFailed = false
  // Allure results of this run only (written by the allure-vitest reporter, redacted again in writeReports).
  const allureDir = resolve(config.reportDir, ALLURE_DIR)
  resetAllureResults(allureDir)
  try {
    const vitest = await startVitest('test', [], {
      config: resolve('vitest.config.ts'),
      watch: false,
      reporters: [reporter, interruption.reporter, ['allure-vitest/reporter', { resultsDir: allureDir, reportMatchers: false, environmentInfo: { target: prepared.displayTarget, suite: `${suiteInfo().name} ${suiteInfo().version}`, run: ctx.runId, seed: String(ctx.seed) } }]],
      ...(tagsFilter.length ? { tagsFilter } : {}),
      passWithNoTests: true,
    })
    await vitest.close()
  } catch (err) {
    vitestFailed = true
    reporter.errors.push(`the test runner failed: ${redact((err as Error).message)}`)
  } finally {
    // Whatever the fixtures could not delete (a check cut short, a cleanup that met a network fault).
    try {
      // After a cancel the checks leave their channels to this cleanup (helpers/kit/check.ts): wider, so it ends
      // within a CI runner's grace period even on a slow link.
      const left = await deleteLedgered(ctx, Math.min(ctx.requestTimeoutMs, 10_000), interruption.interrupted ? 24 : 8)
      if (left.deleted.length) log(`deleted ${left.deleted.length} channel(s) the checks had left`)
      // A check's own delete that the cancel cut is no problem: the ledger cleanup just did it (or says why not).
      if (interruption.interrupted) reporter.cleanup.splice(0, Infinity, ...reporter.cleanup.filter((p) => !p.includes('UND_ERR_DESTROYED')))
      reporter.cleanup.push(...left.problems)
    } finally {
      await prepared.close()
    }
  }

  // What the shared pace and token store saw over the whole run (workers included): said once, plainly.
  const pace = new Pacer(ctx.pace).state()
  if (pace.limited) log(`the target answered 429 (too many requests) ${pace.limited} time(s); the run slowed down to ${pace.rps ? `${pace.rps.toFixed(1)} requests/s` : 'its own pace'} (MAX_RPS, MAX_CONCURRENCY)`)
  const renewals = tokenRenewals(ctx.tokens)
  if (renewals) log(`signed the run's accounts in again ${renewals} time(s): their tokens expired or were refused during the run`)

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
  const expectationNotes = applyExpectations(checks, expectations.entries, startedAt)
  const counts = countChecks(checks)
  const { verdict, exitCode } = judge(counts, { strict: config.strict, interrupted: interruption.interrupted, errors: reporter.errors.length + (vitestFailed ? 1 : 0) })
  const results: RunResults = {
    format: RESULTS_FORMAT,
    suite: suiteInfo(),
    target: prepared.target,
    runId: ctx.runId,
    seed: ctx.seed,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    strict: config.strict,
    filters: { areas, level },
    interrupted: interruption.interrupted,
    verdict,
    exitCode,
    counts,
    http: { requests: checks.reduce((n, c) => n + c.requests, 0), retries: checks.reduce((n, c) => n + c.retries, 0) },
    checks,
    cleanup: reporter.cleanup,
    errors: reporter.errors,
    coverage: coverageOf(checks),
    targetSlug: expectations.slug,
    expectations: { file: expectations.file, entries: expectationNotes },
  }
  const path = writeResults(config.reportDir, results)
  printOutcome(results, path, log)
  try {
    for (const line of describeReports(writeReports(results, config.reportDir, { resultsPath: path }), results)) log(line)
  } catch (err) {
    process.stderr.write(`conformance: could not write the reports: ${redact((err as Error).message)}\n`)
    return 2
  } finally {
    releaseReportDir()
  }
  return exitCode
}

/** A night that could not run leaves a record in the history (verdict and reason), so the trend shows the gap. */
function recordNight(config: ReturnType<typeof loadConfig>, slug: string, startedAt: Date, reason: string, filters: RunResults['filters']): void {
  const url = config.baseUrl ? safeOrigin(config.baseUrl) : 'embedded'
  const target = { display: `${url} (user API ${config.userApiPath}, message API ${config.messageApiPath})`, url, userApiPath: config.userApiPath, messageApiPath: config.messageApiPath, embedded: !config.baseUrl }
  try {
    recordCouldNotRun(join(config.reportDir, 'history'), { target, targetSlug: slug, startedAt, reason, strict: config.strict, filters })
  } catch (err) {
    process.stderr.write(`conformance: could not record the failed run in the history: ${redact((err as Error).message)}\n`)
  }
}

function printOutcome(r: RunResults, path: string, log: (l: string) => void): void {
  const notPassed = r.checks.filter((c) => c.status === 'failed' || c.status === 'error')
  const shown = notPassed.filter((c) => c.level === 'MUST' || c.status === 'error')
  if (shown.length) {
    log('')
    for (const c of shown) log(`${c.status === 'error' ? 'ERROR' : 'FAIL'} ${c.level} ${c.id}\n${indent(c.message ?? '')}\n`)
  }
  const warnings = notPassed.filter((c) => c.level === 'SHOULD' && c.status === 'failed')
  if (warnings.length) {
    log(`SHOULD warnings (${warnings.length}):`)
    for (const w of warnings.slice(0, 20)) log(`  - ${w.clause}: ${w.title}: ${(w.message ?? '').split('\n')[0]}`)
    if (warnings.length > 20) log(`  … and ${warnings.length - 20} more in ${path}`)
  }
  for (const e of r.errors) log(`suite error: ${e}`)
  for (const c of r.cleanup) log(`cleanup problem: ${c}`)
  log('')
  log(formatSummary(r))
  log('')
  if (r.target.embedded) log('target: the bundled reference server (BASE_URL empty or embedded), started for this run: this verdict says nothing about any other server')
  const t = r.counts.total
  if (r.interrupted) log('interrupted: only the checks that ran are judged; run again for a verdict')
  const blocked = blockedText(r)
  if (blocked) log(blocked)
  log(`verdict: ${r.verdict} — ${r.counts.MUST.failed} MUST failed, ${r.counts.SHOULD.failed} SHOULD failed, ${t.error} errors, ${t.blocked ?? 0} blocked, ${t.flaky} flaky; ${r.checks.length} results in ${(r.durationMs / 1000).toFixed(1)} s`)
  log(`results: ${path}`)
}

function indent(text: string): string {
  return text.split('\n').map((l) => `    ${l}`).join('\n')
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`conformance: internal error: ${redact(err instanceof Error ? err.stack ?? err.message : String(err))}\n`)
    process.exit(2)
  },
)
