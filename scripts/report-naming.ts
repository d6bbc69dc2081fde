/**
 * The name and usage line a report command prints, for the way it was started: `npm run report:trend -- …`
 * in a clone, `mcs-conformance report trend …` installed (scripts/cli.ts), and the `--report-dir` flag every
 * report command takes (REPORT_DIR otherwise, then `reports`).
 */
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
