/**
 * npm run report:merge -- <dir or results.json>... --out <dir>
 * mcs-conformance report merge <dir or results.json>... --out <dir>   (--report-dir is a name for --out)
 *
 * Merges the results.json of several runs into one results.json and every report made from it, in --out:
 * the shards of one explore run (`npm run explore -- --shard i/n` on n CI jobs), or conformance runs of
 * disjoint areas. Exit codes: those of a single run, judged from the merged checks (0, 1, 2); 2 with one
 * sentence when an input is missing or unreadable, or the inputs cannot be one run (another target, format
 * or suite version, conformance runs that share checks).
 */
import { resolve } from 'node:path'
import { describeReports, modelWithHistory, writeReports } from '../helpers/reports'
import { MergeInputError, mergeResults, readMergeInput } from '../helpers/reports/merge'
import { formatSummary, writeResults } from '../helpers/reports/results'
import { isEntry } from './entry'
import { npmNaming, refuse, reportArgs, type ReportNaming } from './report-naming'

export function reportMerge(argv: string[], naming: ReportNaming = npmNaming('report:merge')): number {
  const USAGE = `usage: ${naming.command} <dir or results.json>... --out <dir>
  each input is a report directory holding a results.json, or a results.json itself; --out (or --report-dir)
  gets the merged results.json and its reports (junit.xml, report.html, summary.md, history/)`
  const parsed = reportArgs(argv, naming, USAGE, { out: { type: 'string' } })
  if (typeof parsed === 'number') return parsed
  const out = parsed.values.out ?? parsed.values['report-dir']
  if (!out) return refuse(naming, USAGE, '--out <dir> is required')
  let merged
  try {
    const inputs = parsed.positionals.map(readMergeInput)
    // Writing over one of the inputs would lose it if the merge were run again.
    const clash = inputs.find((i) => resolve(i.path) === resolve(out, 'results.json'))
    if (clash) throw new MergeInputError(`--out ${out} holds the input ${clash.path}: merge into another directory`)
    merged = mergeResults(inputs)
  } catch (err) {
    if (err instanceof MergeInputError) {
      process.stderr.write(`${naming.name}: ${err.message}\n`)
      return 2
    }
    throw err
  }
  const path = writeResults(out, merged)
  const log = (line: string) => process.stdout.write(`${line}\n`)
  log(`merged ${merged.merged.sources.length} run(s) of ${merged.target.display}${merged.explore ? ' (explore shards)' : ''}`)
  log(formatSummary(merged))
  for (const line of describeReports(writeReports(modelWithHistory(merged, out), out, { resultsPath: path }), merged)) log(line)
  log(
    `verdict: ${merged.verdict} — ${merged.counts.MUST.failed} MUST failed, ${merged.counts.SHOULD.failed} SHOULD failed, ${merged.counts.total.error} errors; results: ${path}`,
  )
  return merged.exitCode
}

if (isEntry(import.meta.url)) process.exitCode = reportMerge(process.argv.slice(2))
