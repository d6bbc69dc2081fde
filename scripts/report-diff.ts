/**
 * npm run report:diff -- <older results.json> <newer results.json>
 * npm run report:diff -- <history dir> <older date or run id> <newer date or run id>
 * npm run report:diff -- --report-dir <dir> <older date or run id> <newer date or run id>   (its history/)
 *
 * Prints what changed between two runs, check by check: new failures, fixed, still failing, flaky, known
 * failures. In a history directory a run is named by its run id, or by a date (YYYY-MM-DD, or a longer
 * prefix of the start time): the last complete run of that day (not interrupted, filtered or incomplete),
 * else the last run of it; the newer run is looked for among the runs of the older one's target first.
 * Exit 0 whatever the difference; exit 2 with one message when a file or run is missing or is no results.json.
 */
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { diffRuns, formatDiff } from '../helpers/reports/diff'
import { slugOfResults } from '../helpers/reports/expectations'
import { readHistory } from '../helpers/reports/history'
import { currentResults, ResultsFormatError, type RunResults } from '../helpers/reports/results'
import { isEntry } from './entry'
import { kindOf } from '../helpers/reports/trend'

const USAGE =
  'usage: npm run report:diff -- <older results.json> <newer results.json>\n       npm run report:diff -- <history dir> <older date|run id> <newer date|run id>\n       npm run report:diff -- --report-dir <dir> <older date|run id> <newer date|run id>'

/** The installed CLI's `report diff` (scripts/cli.ts) says its own name and usage. */
export interface DiffNaming {
  name: string
  usage: string
}

class DiffInputError extends Error {}

function readRun(path: string): RunResults {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new DiffInputError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new DiffInputError(`${path} is not JSON: ${(err as Error).message}`)
  }
  const r = data as (Omit<Partial<RunResults>, 'target'> & { target?: unknown }) | null
  if (
    !r ||
    typeof r !== 'object' ||
    !Array.isArray(r.checks) ||
    typeof r.runId !== 'string' ||
    typeof r.startedAt !== 'string' ||
    !(typeof r.target === 'object' && r.target !== null)
  ) {
    throw new DiffInputError(`${path} is not a results.json of the suite (no runId, startedAt, target and checks)`)
  }
  try {
    return currentResults(r, path)
  } catch (err) {
    if (err instanceof ResultsFormatError) throw new DiffInputError(err.message)
    throw err
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** The two runs of a history directory named by run id or date; the newer preferably of the older's target. */
function pickRuns(dir: string, olderRef: string, newerRef: string): [RunResults, RunResults] {
  const runs = readHistory(dir).map((h) => h.results)
  if (!runs.length) throw new DiffInputError(`no run in ${dir}`)
  const older = pick(runs, olderRef, dir)
  const sameTarget = runs.filter((r) => slugOfResults(r) === slugOfResults(older))
  let newer: RunResults
  try {
    newer = pick(sameTarget, newerRef, dir)
  } catch {
    newer = pick(runs, newerRef, dir)
  }
  return [older, newer]
}

function pick(runs: RunResults[], ref: string, dir: string): RunResults {
  const byId = runs.filter((r) => r.runId === ref)
  if (byId.length) return byId.at(-1)!
  if (!/^\d{4}-\d{2}-\d{2}/.test(ref)) throw new DiffInputError(`no run with id ${ref} in ${dir} (name a run by its id or a date, YYYY-MM-DD)`)
  const ofDay = runs.filter((r) => r.startedAt.startsWith(ref)).sort((a, b) => a.startedAt.localeCompare(b.startedAt))
  const complete = ofDay.filter((r) => kindOf(r) === 'complete')
  const chosen = complete.at(-1) ?? ofDay.at(-1)
  if (!chosen) throw new DiffInputError(`no run started on ${ref} in ${dir}`)
  return chosen
}

export function reportDiff(argv: string[], naming: DiffNaming = { name: 'report:diff', usage: USAGE }): number {
  const { name, usage } = naming
  if (argv.includes('-h') || argv.includes('--help')) {
    process.stdout.write(`${usage}\n`)
    return 0
  }
  // --report-dir <dir>: the two runs are named (run id or date) in <dir>/history.
  const at = argv.indexOf('--report-dir')
  if (at >= 0) {
    const dir = argv[at + 1]
    if (!dir) {
      process.stderr.write(`${name}: --report-dir wants a directory\n${usage}\n`)
      return 2
    }
    argv = [join(dir, 'history'), ...argv.slice(0, at), ...argv.slice(at + 2)]
  }
  const fromHistory = argv.length === 3 && isDir(argv[0]!)
  if (argv.length !== 2 && !fromHistory) {
    process.stderr.write(`${name}: want two files, or a history directory and two dates or run ids; got ${argv.length} argument(s)\n${usage}\n`)
    return 2
  }
  try {
    const [older, newer] = fromHistory ? pickRuns(argv[0]!, argv[1]!, argv[2]!) : (argv.map(readRun) as [RunResults, RunResults])
    process.stdout.write(`${formatDiff(diffRuns(older, newer))}\n`)
    return 0
  } catch (err) {
    if (err instanceof DiffInputError) {
      process.stderr.write(`${name}: ${err.message}\n`)
      return 2
    }
    throw err
  }
}

if (isEntry(import.meta.url)) process.exitCode = reportDiff(process.argv.slice(2))
