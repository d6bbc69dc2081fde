/**
 * npm run sweep [-- --dry-run] [--min-age <minutes>]
 *
 * Deletes disposable channels that earlier runs left on BASE_URL (an interrupt, a crash, a cancelled CI
 * job): only channels named like the suite's (`ct-<run>-…`), created by one of the configured test
 * accounts (proven through get-by-name), and older than SWEEP_MIN_AGE_MINUTES (default 60), so a run still
 * going elsewhere keeps its channels. See helpers/runner/sweep.ts for the sources and the proof.
 * `--dry-run` lists what would be deleted and deletes nothing. The sweep itself: helpers/runner/sweep-run.ts.
 *
 * Exit codes: 0 done (or nothing to do); 1 some channel could not be deleted; 2 the sweep could not be made.
 */
import { parseArgs } from 'node:util'
import { redact } from '../helpers/http/redact'
import { runSweep } from '../helpers/runner/sweep-run'
import { argsRefusal, finish } from './entry'

const USAGE = `usage: npm run sweep -- [--dry-run] [--min-age <minutes>]
  --dry-run   list the leftover channels that would be deleted, delete nothing
  --min-age   only channels at least this many minutes old (default: SWEEP_MIN_AGE_MINUTES, else 60)
Configuration comes from the environment and .env (see .env.example).`

async function main(): Promise<number> {
  let args
  try {
    args = parseArgs({
      options: { 'dry-run': { type: 'boolean' }, 'min-age': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
    }).values
  } catch (err) {
    process.stderr.write(`sweep: ${argsRefusal(err, ['dry-run', 'min-age', 'help'])}\n${USAGE}\n`)
    return 2
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  return runSweep({ dryRun: args['dry-run'] === true, minAge: args['min-age'] })
}

finish('sweep', main(), redact)
