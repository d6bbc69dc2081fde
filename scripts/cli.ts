#!/usr/bin/env -S node --
/**
 * mcs-conformance: the suite as an installed tool (package.json `bin`, compiled to dist/ by `npm run build`).
 *
 *   mcs-conformance [run] …   the suite against BASE_URL, or the bundled reference server (helpers/runner/pipeline.ts)
 *   mcs-conformance sweep …   leftover channels of earlier runs (helpers/runner/sweep-run.ts)
 *   mcs-conformance explore … model-based sequences (scripts/explore.ts)
 *   mcs-conformance report diff|trend|acceptance|allure|merge|annotations …   (scripts/report-*.ts)
 *   mcs-conformance reproduce <check or clause> …   a failed entry's reproducer from a results.json (scripts/reproduce.ts)
 *   mcs-conformance serve …   the reference server alone (reference/main.ts)
 *
 * Every variable of the configuration table (helpers/config/table.ts) is also a flag; a value is taken from
 * the flag, else the environment, else the env file (--env-file, or `.env` in the working directory), else
 * the default. Node runs this file itself (no npm in between), so SIGINT and SIGTERM reach the run.
 * Exit codes as `npm run conformance`: 0, 1, 2; a bad command line is 2 with one sentence.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { parse as parseDotenv } from 'dotenv'
import { packageRoot } from '../helpers/config/package-root'
import { didYouMeanNote } from '../helpers/config/did-you-mean'
import { CONFIG_TABLE } from '../helpers/config/table'
import { BIN, startedAsInstalledCommand } from '../helpers/config/invocation'
import { AREAS } from '../helpers/spec/clauses'
import { argsRefusal, exitWhenFlushed } from './entry'
import { cliNaming } from './report-naming'

const COMMANDS = ['run', 'sweep', 'explore', 'report', 'reproduce', 'serve'] as const
const REPORTS = ['diff', 'trend', 'acceptance', 'allure', 'merge', 'annotations'] as const
type Command = (typeof COMMANDS)[number]
type Options = NonNullable<ParseArgsConfig['options']>

class UsageError extends Error {}

const ENV_FLAGS: Options = Object.fromEntries(CONFIG_TABLE.filter((r) => r.scope !== 'serve').map((r) => [r.flag.slice(2), { type: 'string' as const }]))
const COMMON: Options = { 'env-file': { type: 'string' }, help: { type: 'boolean', short: 'h' } }
const OWN: Record<Command, Options> = {
  run: {
    area: { type: 'string', multiple: true },
    level: { type: 'string' },
    clause: { type: 'string', multiple: true },
    check: { type: 'string', multiple: true },
    fault: { type: 'string', multiple: true },
  },
  sweep: { 'dry-run': { type: 'boolean' }, 'min-age': { type: 'string' } },
  explore: {
    runs: { type: 'string' },
    shard: { type: 'string' },
    replay: { type: 'string' },
    fault: { type: 'string', multiple: true },
    variant: { type: 'string', multiple: true },
    'max-commands': { type: 'string' },
    lanes: { type: 'string' },
  },
  report: {},
  reproduce: {},
  serve: { port: { type: 'string' }, host: { type: 'string' }, fault: { type: 'string', multiple: true }, variant: { type: 'string', multiple: true } },
}

function help(): string {
  const areas = Object.keys(AREAS)
    .filter((a) => a !== 'http')
    .join('|')
  const width = Math.max(...CONFIG_TABLE.map((r) => r.flag.length)) + 8
  const flags = CONFIG_TABLE.filter((r) => r.scope !== 'serve').map((r) => {
    const flag = `${r.flag} <${r.type}>`.padEnd(width)
    const dflt = r.default ? ` (default ${r.default})` : ''
    return `  ${flag} ${r.name}${dflt}${r.secret ? '; secret: prefer the environment or --env-file, a command line is visible to others' : ''}`
  })
  return `usage: ${BIN} [run] [--area <${areas}>]... [--level must|should|info] [--clause <id or glob>]... [--check <id>]... [--fault <name>]... [options]
       ${BIN} sweep [--dry-run] [--min-age <minutes>] [options]
       ${BIN} explore [--runs N] [--shard i/n] [--replay <seed>:<path>] [--fault <name>]... [--variant <name>]... [--max-commands N] [--lanes N] [options]
       ${BIN} report diff <older results.json> <newer results.json>   (or --report-dir <dir> <older> <newer>: run ids or dates of <dir>/history)
       ${BIN} report trend [<history dir>] [--target <slug>] [--report-dir <dir>]
       ${BIN} report acceptance [<results.json>] [--report-dir <dir>]
       ${BIN} report allure [--report-dir <dir>]
       ${BIN} report merge <dir or results.json>... --out <dir>
       ${BIN} report annotations [<junit.xml>] [--report-dir <dir>]
       ${BIN} reproduce <check id | clause id or glob> [<results.json>] [--report-dir <dir>] [--out <dir>] [--print]
       ${BIN} serve [--port N] [--host H] [--fault <name>]... [--variant <name>]... [--env-file <file>]
       ${BIN} --help | --version

  run       the conformance suite against BASE_URL; without one, against the bundled reference server
            (exit 0 conformant, 1 a MUST check failed, 2 no complete run); --clause and --check select
            what runs (repeatable; a clause glob such as 'channels.create.*'), and the verdict says the scope
  sweep     delete the disposable channels earlier runs left on BASE_URL (older than --min-age minutes)
  explore   model-based random sequences of operations, a failing one shrunk to a reproducer
  report    diff: what changed between two runs; trend: a target's history; acceptance: the vendor document;
            allure: the Allure report; merge: several runs as one; annotations: GitHub annotations from junit.xml
  reproduce write the sh+curl reproducers of a run's failed entries (exit 1 when the deviation shows, 0 not)
  serve     the bundled reference server alone (PORT, HOST; prints "listening <url>")

options (each sets the environment variable it names; a value comes from the flag, else the environment,
else the env file, else the default):
  ${'--env-file <file>'.padEnd(width)} variables to read under the environment (default: .env in this folder, if there)
${flags.join('\n')}
Relative paths (REPORT_DIR, CA_FILE, …) are relative to the working directory.`
}

function version(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version
}

/** One sentence for a command line parseArgs refused. */
function refusal(err: unknown, options: Options): string {
  const e = err as Error & { code?: string }
  const name = /'(-[^' ]+)/.exec(e.message)?.[1]
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `${argsRefusal(err, Object.keys(options))}; ${BIN} --help lists the options`
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `option ${name ?? e.message} wants a value; ${BIN} --help lists the options`
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument ${/'([^']+)'/.exec(e.message)?.[1] ?? ''}; ${BIN} --help lists the commands`
  return e.message
}

function parse(argv: string[], options: Options, positionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: positionals, strict: true })
  } catch (err) {
    throw new UsageError(refusal(err, options))
  }
}

/** The process environment with the flags of the configuration table over it. */
function environment(values: Record<string, unknown>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const row of CONFIG_TABLE) {
    const value = values[row.flag.slice(2)]
    if (typeof value === 'string') env[row.name] = value
  }
  return env
}

async function main(argv: string[]): Promise<number> {
  // What the console tells the user to run next is named as this command's subcommands (helpers/config/invocation.ts).
  startedAsInstalledCommand()
  if (argv[0] === '--version' || argv[0] === '-v') {
    process.stdout.write(`${version()}\n`)
    return 0
  }
  const command: Command = (COMMANDS as readonly string[]).includes(argv[0] ?? '') ? (argv[0] as Command) : 'run'
  const rest = command === 'run' && argv[0] !== 'run' ? argv : argv.slice(1)
  if (argv[0] && !argv[0].startsWith('-') && command === 'run' && argv[0] !== 'run')
    throw new UsageError(`unknown command '${argv[0]}'${didYouMeanNote(argv[0], COMMANDS)}; the commands are ${COMMANDS.join(', ')}`)

  if (command === 'report') {
    if (rest[0] === '--help' || rest[0] === '-h' || rest.length === 0) {
      process.stdout.write(`${help()}\n`)
      return rest.length === 0 ? 2 : 0
    }
    const report = rest[0] as (typeof REPORTS)[number]
    if (!(REPORTS as readonly string[]).includes(report)) throw new UsageError(`unknown report '${rest[0]}'; the reports are ${REPORTS.join(', ')}`)
    const args = rest.slice(1)
    const naming = cliNaming(`report ${report}`)
    switch (report) {
      case 'diff': {
        const { reportDiff } = await import('./report-diff')
        return reportDiff(args, {
          name: naming.name,
          usage: `usage: ${BIN} report diff <older results.json> <newer results.json>\n       ${BIN} report diff --report-dir <dir> <older date|run id> <newer date|run id>`,
        })
      }
      case 'trend':
        return (await import('./report-trend')).reportTrend(args, naming)
      case 'acceptance':
        return (await import('./report-acceptance')).reportAcceptance(args, naming)
      case 'allure':
        return (await import('./report-allure')).reportAllure(args, naming)
      case 'merge':
        return (await import('./report-merge')).reportMerge(args, naming)
      case 'annotations':
        return (await import('./junit-annotations')).reportAnnotations(args, naming)
    }
  }

  if (command === 'reproduce') return (await import('./reproduce')).reproduce(rest, cliNaming('reproduce'))

  if (command === 'serve') {
    const { values } = parse(rest, { ...OWN.serve, ...COMMON })
    if (values.help) {
      process.stdout.write(`${help()}\n`)
      return 0
    }
    const fileEnv = envFileValues(values['env-file'] as string | undefined)
    const port = (values.port as string | undefined) ?? process.env.PORT ?? fileEnv.PORT
    const host = (values.host as string | undefined) ?? process.env.HOST ?? fileEnv.HOST
    const args = [...(port ? ['--port', port] : []), ...(host ? ['--host', host] : [])]
    for (const f of (values.fault as string[] | undefined) ?? []) args.push('--fault', f)
    for (const v of (values.variant as string[] | undefined) ?? []) args.push('--variant', v)
    const { serve } = await import('../reference/main')
    serve(args, `usage: ${BIN} serve [--port N] [--host H] [--fault NAME]... [--variant NAME]...`)
    // The server keeps the process alive and ends it itself (SIGINT/SIGTERM, or exit 2 when it cannot start).
    return -1
  }

  const { values } = parse(rest, { ...OWN[command], ...ENV_FLAGS, ...COMMON })
  if (values.help) {
    process.stdout.write(`${help()}\n`)
    return 0
  }
  const env = environment(values)
  const envFile = values['env-file'] as string | undefined
  if (envFile !== undefined && !existsSync(resolve(envFile))) throw new UsageError(envFileMissing(envFile))

  if (command === 'run') {
    const { filterProblem, runConformance } = await import('../helpers/runner/pipeline')
    const { selectionProblem } = await import('../helpers/runner/pipeline')
    const areas = (values.area as string[] | undefined) ?? []
    const level = (values.level as string | undefined) ?? null
    const clauses = (values.clause as string[] | undefined) ?? []
    const checks = (values.check as string[] | undefined) ?? []
    const problem = filterProblem(areas, level) ?? selectionProblem(clauses, checks)
    if (problem) throw new UsageError(problem)
    return (await runConformance({ areas, level, clauses, checks, faults: (values.fault as string[] | undefined) ?? [], env, envFile })).exitCode
  }

  if (command === 'sweep') {
    const { runSweep } = await import('../helpers/runner/sweep-run')
    return runSweep({ dryRun: values['dry-run'] === true, minAge: values['min-age'] as string | undefined, env, envFile })
  }

  // explore: its own command line parsing (scripts/explore.ts), with the configuration read here.
  const { ConfigError, loadConfig, readEnv } = await import('../helpers/config/config')
  let config
  let merged
  try {
    merged = readEnv(process.cwd(), env, envFile)
    config = loadConfig(merged)
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`explore: ${err.message}\n`)
      return 2
    }
    throw err
  }
  // The explorer reads its poll time from the process environment.
  if (merged.EXPLORE_POLL_MS !== undefined) process.env.EXPLORE_POLL_MS = merged.EXPLORE_POLL_MS
  const { exploreMain, usageOf } = await import('./explore')
  // explore's own options, given back to its parser as they were typed (the configuration flags are read above).
  const own: string[] = []
  for (const key of ['runs', 'shard', 'replay', 'max-commands', 'lanes']) if (typeof values[key] === 'string') own.push(`--${key}`, values[key] as string)
  for (const f of (values.fault as string[] | undefined) ?? []) own.push('--fault', f)
  for (const v of (values.variant as string[] | undefined) ?? []) own.push('--variant', v)
  return exploreMain(own, { usage: usageOf(`${BIN} explore`), config, ...(merged.EXPLORE_BUDGET_S !== undefined ? { budget: merged.EXPLORE_BUDGET_S } : {}) })
}

/**
 * The sentence for an --env-file that is not there. Node 20 reads a script's `--env-file` as its own and
 * exits 9 when the file is missing; the bin's `#!/usr/bin/env -S node --` ends Node's options before the
 * script, so the flag reaches this tool, which says this instead.
 */
function envFileMissing(envFile: string): string {
  return `the env file ${envFile} does not exist (relative to ${process.cwd()}); give --env-file the path of an existing file, or leave it out to read .env here`
}

/** The variables of the env file alone (--env-file, else `.env` here if there). */
function envFileValues(envFile: string | undefined): Record<string, string | undefined> {
  const path = resolve(envFile ?? '.env')
  if (!existsSync(path)) {
    if (envFile !== undefined) throw new UsageError(envFileMissing(envFile))
    return {}
  }
  return parseDotenv(readFileSync(path))
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) exitWhenFlushed(code)
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${BIN}: ${err.message}\n`)
      exitWhenFlushed(2)
      return
    }
    const { message, stack } = err instanceof Error ? err : { message: String(err), stack: undefined }
    // Redaction lives with the HTTP layer; loaded only on this rare path so --version stays fast.
    import('../helpers/http/redact').then(
      ({ redact }) => {
        process.stderr.write(`${BIN}: internal error: ${redact(stack ?? message)}\n`)
        exitWhenFlushed(2)
      },
      () => exitWhenFlushed(2),
    )
  },
)
