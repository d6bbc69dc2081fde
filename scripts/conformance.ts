/**
 * npm run conformance [-- --area <area>]… [--level must|should|info] [--fault <name>]…
 *
 * Runs the suite against BASE_URL (or the embedded reference server), writes REPORT_DIR/results.json and
 * prints a summary per spec area. Exit codes (DESIGN §3): 0 every MUST check passed; 1 a MUST check failed
 * (or, with STRICT=true, a SHOULD check); 2 the run could not be made or completed.
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { startVitest } from 'vitest/node'
import { AREAS } from '../helpers/clauses'
import { ConfigError, loadConfig } from '../helpers/config'
import { PREPARED_KEY } from '../helpers/global-setup'
import { PreflightError, prepareRun, type PreparedRun } from '../helpers/prepare'
import { redact } from '../helpers/redact'
import { CollectingReporter } from '../helpers/reporter'
import { countChecks, coverageOf, formatSummary, judge, suiteInfo, writeResults, type RunResults } from '../helpers/results'

const USAGE = `usage: npm run conformance -- [--area <${Object.keys(AREAS).join('|')}>]... [--level must|should|info] [--fault <name>]...
  --area    run only the checks of these spec areas (repeatable)
  --level   run only the checks of one requirement level
  --fault   switch a catalogued fault on in the embedded reference server (self-tests; BASE_URL must be empty)
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

  const startedAt = new Date()
  const log = (line: string) => process.stdout.write(`${line}\n`)
  let prepared: PreparedRun
  try {
    prepared = await prepareRun(config, { faults: args.fault ?? [], log })
  } catch (err) {
    if (err instanceof PreflightError) {
      process.stderr.write(`conformance: cannot run: ${err.message}\n`)
      return 2
    }
    if (err instanceof Error && /unknown fault/i.test(err.message)) {
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
  try {
    const vitest = await startVitest('test', [], {
      config: resolve('vitest.config.ts'),
      watch: false,
      reporters: [reporter],
      ...(tagsFilter.length ? { tagsFilter } : {}),
      passWithNoTests: true,
    })
    await vitest.close()
  } catch (err) {
    vitestFailed = true
    reporter.errors.push(`the test runner failed: ${redact((err as Error).message)}`)
  } finally {
    await prepared.close()
  }

  const endedAt = new Date()
  const checks = reporter.checks.sort((x, y) => x.area.localeCompare(y.area) || x.id.localeCompare(y.id))
  const counts = countChecks(checks)
  const { verdict, exitCode } = judge(counts, { strict: config.strict, interrupted: false, errors: reporter.errors.length + (vitestFailed ? 1 : 0) })
  const results: RunResults = {
    format: 'mcrs-conformance-results/1',
    suite: suiteInfo(),
    target: prepared.displayTarget,
    runId: ctx.runId,
    seed: ctx.seed,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    strict: config.strict,
    filters: { areas, level },
    interrupted: false,
    verdict,
    exitCode,
    counts,
    http: { requests: checks.reduce((n, c) => n + c.requests, 0), retries: checks.reduce((n, c) => n + c.retries, 0) },
    checks,
    cleanup: reporter.cleanup,
    errors: reporter.errors,
    coverage: coverageOf(checks),
  }
  const path = writeResults(config.reportDir, results)
  printOutcome(results, path, log)
  return exitCode
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
  const t = r.counts.total
  log(`verdict: ${r.verdict} — ${r.counts.MUST.failed} MUST failed, ${r.counts.SHOULD.failed} SHOULD failed, ${t.error} errors, ${t.flaky} flaky; ${r.checks.length} results in ${(r.durationMs / 1000).toFixed(1)} s`)
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
