/**
 * npm run explore [-- --runs N] [--shard i/n] [--replay <seed>:<path>] [--fault <name>]... [--variant <name>]... [--max-commands N] [--lanes N]
 *
 * Model-based exploration (helpers/explore/): random sequences of operations by A, B, C and an anonymous
 * caller, each answer judged against a model of the spec, a failing sequence shrunk and written as a
 * reproducer. Budget: EXPLORE_BUDGET_S (default 60) seconds, or --runs seeds. Exit codes: 0 no finding,
 * 1 a MUST finding, 2 the run could not be made.
 */
import { parseArgs } from 'node:util'
import { DEFAULT_BUDGET_S, explore, parseReplay } from '../helpers/explore/run'
import { redact } from '../helpers/http/redact'
import type { Config } from '../helpers/config/config'
import { argsRefusal, finish, isEntry } from './entry'

const USAGE = usageOf('npm run explore --')

/** The usage text under the command that runs it (`npm run explore --`, or the installed CLI's `explore`). */
export function usageOf(command: string): string {
  return `usage: ${command} [--runs N] [--shard i/n] [--replay <seed>:<path>] [--fault <name>]... [--variant <name>]... [--max-commands N] [--lanes N]
  --runs          explore exactly N seeds (default: EXPLORE_BUDGET_S seconds, ${DEFAULT_BUDGET_S} when unset)
  --shard i/n     this job's share of the seeds (1 ≤ i ≤ n), for several CI jobs on one base SEED
  --replay s:p    replay the shrunk sequence of an earlier finding (printed with it)
  --fault         switch a catalogued fault on in the embedded reference server (BASE_URL must be empty)
  --variant       switch a deployment variant on in the embedded reference server (reference/variants/: a correct
                  server that reads the spec differently; BASE_URL must be empty)
  --max-commands  most operations per sequence (default 30)
  --lanes         sequences run at once, each with its own channels (default MAX_CONCURRENCY, at most 16);
                  requests stay within MAX_CONCURRENCY and MAX_RPS, shrinking runs alone
Configuration comes from the environment and .env (see .env.example); SEED sets the base seed.`
}

/** How the installed CLI runs it: its usage text, and the configuration it read from flags and env file. */
export interface ExploreCommand {
  usage: string
  config?: Config
  /** EXPLORE_BUDGET_S as the CLI read it (default: the process environment). */
  budget?: string
}

export async function exploreMain(argv: string[], command: ExploreCommand = { usage: USAGE }): Promise<number> {
  function usageError(message: string): never {
    process.stderr.write(`explore: ${message}\n${command.usage}\n`)
    process.exit(2)
  }
  let args
  try {
    args = parseArgs({
      args: argv,
      options: {
        runs: { type: 'string' },
        shard: { type: 'string' },
        replay: { type: 'string' },
        fault: { type: 'string', multiple: true, default: [] },
        variant: { type: 'string', multiple: true, default: [] },
        'max-commands': { type: 'string' },
        lanes: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values
  } catch (err) {
    usageError(argsRefusal(err, ['runs', 'shard', 'replay', 'fault', 'variant', 'max-commands', 'lanes', 'help']))
  }
  if (args.help) {
    process.stdout.write(`${command.usage}\n`)
    return 0
  }
  const runs = args.runs === undefined ? null : Number(args.runs)
  if (runs !== null && (!Number.isInteger(runs) || runs < 1)) usageError(`--runs wants a positive integer, got '${args.runs}'`)
  let shard = { index: 0, count: 1 }
  if (args.shard !== undefined) {
    const m = /^(\d+)\/(\d+)$/.exec(args.shard)
    if (!m || Number(m[1]) < 1 || Number(m[1]) > Number(m[2])) usageError(`--shard wants i/n with 1 ≤ i ≤ n, got '${args.shard}'`)
    shard = { index: Number(m[1]) - 1, count: Number(m[2]) }
  }
  if (args.replay !== undefined && !parseReplay(args.replay)) usageError(`--replay wants <seed>:<path> as printed with a finding, got '${args.replay}'`)
  const budgetRaw = command.budget ?? process.env.EXPLORE_BUDGET_S
  const budgetS = budgetRaw ? Number(budgetRaw) : DEFAULT_BUDGET_S
  if (!Number.isFinite(budgetS) || budgetS <= 0) usageError(`EXPLORE_BUDGET_S wants a number of seconds, got '${budgetRaw}'`)
  const maxCommands = args['max-commands'] === undefined ? undefined : Number(args['max-commands'])
  if (maxCommands !== undefined && (!Number.isInteger(maxCommands) || maxCommands < 1))
    usageError(`--max-commands wants a positive integer, got '${args['max-commands']}'`)

  const lanes = args.lanes === undefined ? undefined : Number(args.lanes)
  if (lanes !== undefined && (!Number.isInteger(lanes) || lanes < 1 || lanes > 256)) usageError(`--lanes wants an integer from 1 to 256, got '${args.lanes}'`)

  const outcome = await explore({
    budgetS,
    runs,
    shard,
    replay: args.replay ?? null,
    faults: args.fault ?? [],
    variants: args.variant ?? [],
    ...(maxCommands ? { maxCommands } : {}),
    ...(lanes ? { lanes } : {}),
    ...(command.config ? { config: command.config } : {}),
    log: (line) => process.stdout.write(`${line}\n`),
  })
  if (outcome.error) process.stderr.write(`explore: ${outcome.error}\n`)
  return outcome.exitCode
}

if (isEntry(import.meta.url)) finish('explore', exploreMain(process.argv.slice(2)), redact)
