/**
 * `npm run sweep` as a library function (scripts/sweep.ts and the CLI's `sweep` are thin wrappers): deletes
 * the disposable channels earlier runs left on BASE_URL, through ./sweep.ts. Returns the exit code: 0 done
 * (or nothing to do), 1 some channel could not be deleted, 2 the sweep could not be made.
 */
import { Api } from '../http/api'
import { HttpClient } from '../http/client'
import { loadCommandConfig } from '../config/config'
import { PreflightError, prepareRun } from './prepare'
import { Pacer } from '../http/pace'
import { formatSweep, sweep } from './sweep'
import { TokenSessions } from '../http/tokens'

export interface SweepOptions {
  dryRun?: boolean
  /** --min-age as typed (minutes); undefined: SWEEP_MIN_AGE_MINUTES. */
  minAge?: string
  /** The environment (default: process.env), read over the env file as readEnv() does. */
  env?: Record<string, string | undefined>
  /** The env file under the environment (default: `.env` in the working directory, if there). */
  envFile?: string
  log?: (line: string) => void
  warn?: (line: string) => void
}

export async function runSweep(options: SweepOptions = {}): Promise<number> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`))
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`))
  const loaded = loadCommandConfig('sweep', options, warn)
  if (!loaded) return 2
  const { config, env } = loaded
  let minAge = config.sweepMinAgeMinutes
  if (options.minAge !== undefined) {
    minAge = Number(options.minAge)
    if (!Number.isFinite(minAge) || minAge < 0) {
      warn(`sweep: --min-age must be a number of minutes, 0 or more, got '${options.minAge}'`)
      return 2
    }
  }
  if (!config.baseUrl) {
    log('sweep: BASE_URL is empty, so every run starts its own reference server, whose channels end with it: nothing to sweep')
    return 0
  }
  if (Object.keys(config.accounts).length === 0) {
    warn(
      'sweep: cannot run: set the test accounts (USER_A_…, USER_B_…, USER_C_…); channels of disposable users enrolled by earlier runs are out of reach (their passwords were never kept)',
    )
    return 2
  }

  const dryRun = options.dryRun === true
  let prepared
  try {
    prepared = await prepareRun(config, { sweep: false })
  } catch (err) {
    if (err instanceof PreflightError) {
      warn(`sweep: cannot run: ${err.message}`)
      return 2
    }
    throw err
  }
  const ctx = prepared.context
  // The run's pace and current tokens: the sweep slows down on 429s and renews tokens that expire on the way.
  const http = new HttpClient({ baseUrl: ctx.target.baseUrl, timeoutMs: ctx.requestTimeoutMs, network: ctx.network, pacer: new Pacer(ctx.pace) })
  const sessions = new TokenSessions({ buffer: ctx.tokens, accounts: ctx.accounts, clientId: ctx.clientId, anon: new Api(http, ctx.target, null) })
  try {
    log(`sweep: ${prepared.displayTarget}, channels older than ${minAge} min${dryRun ? ' (dry run)' : ''}`)
    const report = await sweep({
      http,
      target: ctx.target,
      accounts: ctx.accounts,
      sessions,
      reportDir: config.reportDir,
      minAgeMinutes: minAge,
      dryRun,
      currentRunId: ctx.runId,
    })
    for (const line of formatSweep(report, dryRun)) log(line)
    return report.problems.length ? 1 : 0
  } finally {
    await http.close()
    await prepared.close()
  }
}
