/**
 * npm run sweep [-- --dry-run] [--min-age <minutes>]
 *
 * Deletes disposable channels that earlier runs left on BASE_URL (an interrupt, a crash, a cancelled CI
 * job): only channels named like the suite's (`ct-<run>-…`), created by one of the configured test
 * accounts (proven through get-by-name), and older than SWEEP_MIN_AGE_MINUTES (default 60), so a run still
 * going elsewhere keeps its channels. See helpers/runner/sweep.ts for the sources and the proof.
 * `--dry-run` lists what would be deleted and deletes nothing.
 *
 * Exit codes: 0 done (or nothing to do); 1 some channel could not be deleted; 2 the sweep could not be made.
 */
import { parseArgs } from 'node:util'
import { Api } from '../helpers/http/api'
import { HttpClient } from '../helpers/http/client'
import { ConfigError, loadConfig } from '../helpers/config/config'
import { PreflightError, prepareRun } from '../helpers/runner/prepare'
import { redact } from '../helpers/http/redact'
import { Pacer } from '../helpers/http/pace'
import { formatSweep, sweep } from '../helpers/runner/sweep'
import { TokenSessions } from '../helpers/http/tokens'

const USAGE = `usage: npm run sweep -- [--dry-run] [--min-age <minutes>]
  --dry-run   list the leftover channels that would be deleted, delete nothing
  --min-age   only channels at least this many minutes old (default: SWEEP_MIN_AGE_MINUTES, else 60)
Configuration comes from the environment and .env (see .env.example).`

async function main(): Promise<number> {
  let args
  try {
    args = parseArgs({ options: { 'dry-run': { type: 'boolean' }, 'min-age': { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: false }).values
  } catch (err) {
    process.stderr.write(`sweep: ${(err as Error).message}\n${USAGE}\n`)
    return 2
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`sweep: ${err.message}\n`)
      return 2
    }
    throw err
  }
  let minAge = config.sweepMinAgeMinutes
  if (args['min-age'] !== undefined) {
    minAge = Number(args['min-age'])
    if (!Number.isFinite(minAge) || minAge < 0) {
      process.stderr.write(`sweep: --min-age must be a number of minutes, 0 or more, got '${args['min-age']}'\n`)
      return 2
    }
  }
  if (!config.baseUrl) {
    process.stdout.write('sweep: BASE_URL is empty, so every run starts its own reference server, whose channels end with it: nothing to sweep\n')
    return 0
  }
  if (Object.keys(config.accounts).length === 0) {
    process.stderr.write('sweep: cannot run: set the test accounts (USER_A_…, USER_B_…, USER_C_…); channels of disposable users enrolled by earlier runs are out of reach (their passwords were never kept)\n')
    return 2
  }

  const dryRun = args['dry-run'] === true
  let prepared
  try {
    prepared = await prepareRun(config, { sweep: false })
  } catch (err) {
    if (err instanceof PreflightError) {
      process.stderr.write(`sweep: cannot run: ${err.message}\n`)
      return 2
    }
    throw err
  }
  const ctx = prepared.context
  // The run's pace and current tokens: the sweep slows down on 429s and renews tokens that expire on the way.
  const http = new HttpClient({ baseUrl: ctx.target.baseUrl, timeoutMs: ctx.requestTimeoutMs, network: ctx.network, pacer: new Pacer(ctx.pace) })
  const sessions = new TokenSessions({ buffer: ctx.tokens, accounts: ctx.accounts, clientId: ctx.clientId, anon: new Api(http, ctx.target, null) })
  try {
    process.stdout.write(`sweep: ${prepared.displayTarget}, channels older than ${minAge} min${dryRun ? ' (dry run)' : ''}\n`)
    const report = await sweep({ http, target: ctx.target, accounts: ctx.accounts, sessions, reportDir: config.reportDir, minAgeMinutes: minAge, dryRun, currentRunId: ctx.runId })
    for (const line of formatSweep(report, dryRun)) process.stdout.write(`${line}\n`)
    return report.problems.length ? 1 : 0
  } finally {
    await http.close()
    await prepared.close()
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`sweep: internal error: ${redact(err instanceof Error ? err.stack ?? err.message : String(err))}\n`)
    process.exit(2)
  },
)
