/**
 * npm run report:annotations [-- <junit.xml>] [--report-dir <dir>]
 * mcs-conformance report annotations [<junit.xml>] [--report-dir <dir>]
 *
 * Prints GitHub Actions annotations (::error / ::warning) for the failures and SHOULD warnings of a junit.xml
 * of this suite, one per distinct problem. Default input: <report dir>/junit.xml (--report-dir, else
 * REPORT_DIR, else reports). Exits 0, also when the file is missing (the run may not have got that far; the
 * step before says why); 2 for a bad command line.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { annotationsOf } from '../helpers/reports/junit'
import { isEntry } from './entry'
import { npmNaming, refuse, reportArgs, reportDirOf, type ReportNaming } from './report-naming'

export function reportAnnotations(argv: string[], naming: ReportNaming = npmNaming('report:annotations')): number {
  const usage = `usage: ${naming.command} [<junit.xml>] [--report-dir <dir>]`
  const parsed = reportArgs(argv, naming, usage, {})
  if (typeof parsed === 'number') return parsed
  if (parsed.positionals.length > 1) return refuse(naming, usage, 'want at most one junit.xml')
  const path = parsed.positionals[0] ?? join(reportDirOf(parsed.values['report-dir']), 'junit.xml')
  if (!existsSync(path)) process.stdout.write(`junit-annotations: ${path} does not exist\n`)
  else for (const line of annotationsOf(readFileSync(path, 'utf8'))) process.stdout.write(`${line}\n`)
  return 0
}

if (isEntry(import.meta.url)) process.exitCode = reportAnnotations(process.argv.slice(2))
