/**
 * npm run report:diff -- <older results.json> <newer results.json>
 *
 * Prints what changed between two runs, check by check: new failures, fixed, still failing, flaky, known
 * failures. Exit 0 whatever the difference; exit 2 with one message when a file is missing or is no results.json.
 */
import { readFileSync } from 'node:fs'
import { diffRuns, formatDiff } from '../helpers/reports/diff'
import { slugOfTarget } from '../helpers/reports/expectations'
import { upgradeResults, type RunResults } from '../helpers/reports/results'
import { isEntry } from './entry'

const USAGE = 'usage: npm run report:diff -- <older results.json> <newer results.json>'

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
    throw new DiffInputError(`cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : code ?? (err as Error).message}`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (err) {
    throw new DiffInputError(`${path} is not JSON: ${(err as Error).message}`)
  }
  const r = data as (Omit<Partial<RunResults>, 'target'> & { target?: unknown }) | null
  // target: a string in format 1, an object since format 2 (upgradeResults reads both).
  if (!r || typeof r !== 'object' || !Array.isArray(r.checks) || typeof r.runId !== 'string' || typeof r.startedAt !== 'string' || !(typeof r.target === 'string' || (typeof r.target === 'object' && r.target !== null))) {
    throw new DiffInputError(`${path} is not a results.json of the suite (no runId, startedAt, target and checks)`)
  }
  return upgradeResults(r, slugOfTarget)
}

export function reportDiff(argv: string[], naming: DiffNaming = { name: 'report:diff', usage: USAGE }): number {
  const { name, usage } = naming
  if (argv.includes('-h') || argv.includes('--help')) {
    process.stdout.write(`${usage}\n`)
    return 0
  }
  if (argv.length !== 2) {
    process.stderr.write(`${name}: want two files, got ${argv.length}\n${usage}\n`)
    return 2
  }
  try {
    const [older, newer] = argv.map(readRun) as [RunResults, RunResults]
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
