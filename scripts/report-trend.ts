/**
 * npm run report:trend [-- <history dir>] [--target <slug>] [--report-dir <dir>]
 * mcs-conformance report trend [<history dir>] [--target <slug>] [--report-dir <dir>]
 *
 * Prints the trend of one target over its history: a row per run (verdict, MUST and SHOULD passed/failed,
 * errors, duration, slowest p95 when recorded), and for each clause failing in the latest run since when
 * and whether it is a regression, a flake, or failing since the first run shown. Default directory:
 * <report dir>/history (--report-dir, else REPORT_DIR, else reports); default target: the latest run's.
 * Exit 0; exit 2 with one message when there is no run to show.
 */
import { join } from 'node:path'
import { slugOfResults } from '../helpers/reports/expectations'
import { readHistory } from '../helpers/reports/history'
import { buildTrend, formatTrend } from '../helpers/reports/trend'
import { isEntry } from './entry'
import { npmNaming, refuse, reportArgs, reportDirOf, type ReportNaming } from './report-naming'

export function reportTrend(argv: string[], naming: ReportNaming = npmNaming('report:trend')): number {
  const usage = `usage: ${naming.command} [<history dir>] [--target <slug>] [--report-dir <dir>]`
  const parsed = reportArgs(argv, naming, usage, { target: { type: 'string' } })
  if (typeof parsed === 'number') return parsed
  if (parsed.positionals.length > 1) return refuse(naming, usage, `want at most one directory, got ${parsed.positionals.length}`)
  const dir = parsed.positionals[0] ?? join(reportDirOf(parsed.values['report-dir']), 'history')
  let runs = readHistory(dir).map((h) => h.results)
  if (parsed.values.target) runs = runs.filter((r) => slugOfResults(r) === parsed.values.target)
  const trend = buildTrend(runs)
  if (!trend) {
    process.stderr.write(`${naming.name}: no run${parsed.values.target ? ` of ${parsed.values.target}` : ''} in ${dir}\n`)
    return 2
  }
  const others = [...new Set(readHistory(dir).map((h) => slugOfResults(h.results)))].filter((s) => s !== trend.slug)
  process.stdout.write(`${formatTrend(trend)}\n${others.length ? `\nother targets in this history (--target): ${others.join(', ')}\n` : ''}`)
  return 0
}

if (isEntry(import.meta.url)) process.exitCode = reportTrend(process.argv.slice(2))
