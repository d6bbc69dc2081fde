/**
 * The name and usage line a report command prints, for the way it was started: `npm run report:trend -- …`
 * in a clone, `mcs-conformance report trend …` installed (scripts/cli.ts), and the `--report-dir` flag every
 * report command takes (REPORT_DIR otherwise, then `reports`).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { readEnv } from '../helpers/config/config'
import { BIN } from '../helpers/config/invocation'

export interface ReportNaming {
  /** Prefix of its messages: `report:trend`, or `mcs-conformance report trend`. */
  name: string
  /** The command line up to its own arguments: `npm run report:trend --`, or `mcs-conformance report trend`. */
  command: string
}

export function npmNaming(script: string): ReportNaming {
  return { name: script, command: `npm run ${script} --` }
}

export function cliNaming(report: string): ReportNaming {
  return { name: `${BIN} ${report}`, command: `${BIN} ${report}` }
}

/** The report directory: --report-dir, else REPORT_DIR (environment, then .env), else `reports`. */
export function reportDirOf(flag: unknown): string {
  if (typeof flag === 'string' && flag) return flag
  try {
    return readEnv().REPORT_DIR || 'reports'
  } catch {
    return process.env.REPORT_DIR || 'reports'
  }
}

type FlagTable = NonNullable<ParseArgsConfig['options']>

/**
 * A report command's arguments: its own flags, and `--report-dir` and `--help`, which every report command
 * takes. A bad flag prints one sentence and the usage, `--help` the usage: a number is then the exit code the
 * command returns (2 and 0).
 */
export function reportArgs<const F extends FlagTable>(argv: string[], naming: ReportNaming, usage: string, flags: F, positionals = true) {
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ...flags, 'report-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: positionals,
      strict: true,
    })
    if (!(parsed.values as { help?: boolean }).help) return parsed
    process.stdout.write(`${usage}\n`)
    return 0
  } catch (err) {
    return refuse(naming, usage, (err as Error).message)
  }
}

/** Prints why a report command cannot go on, with its usage; returns exit 2. */
export function refuse(naming: ReportNaming, usage: string, sentence: string): 2 {
  process.stderr.write(`${naming.name}: ${sentence}\n${usage}\n`)
  return 2
}
