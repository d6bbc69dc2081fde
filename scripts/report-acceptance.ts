/**
 * npm run report:acceptance [-- <results.json>]
 *
 * Writes REPORT_DIR/acceptance.html (next to the results.json read): the vendor acceptance document, made
 * for printing. Default input: REPORT_DIR/results.json (reports/). Exit 0; exit 2 with one message when the
 * results cannot be read.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { readEnv } from '../helpers/config/config'
import { buildAcceptance } from '../helpers/reports/acceptance'
import { slugOfTarget } from '../helpers/reports/expectations'
import { upgradeResults, type RunResults } from '../helpers/reports/results'

function main(argv: string[]): number {
  if (argv.length > 1) {
    process.stderr.write('report:acceptance: want at most one results.json\nusage: npm run report:acceptance -- [<results.json>]\n')
    return 2
  }
  const path = argv[0] ?? join(readEnv().REPORT_DIR || 'reports', 'results.json')
  let r: RunResults
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { checks?: unknown; runId?: unknown }
    if (!data || !Array.isArray(data.checks) || typeof data.runId !== 'string') throw new Error('not a results.json of the suite')
    r = upgradeResults(data, slugOfTarget)
  } catch (err) {
    process.stderr.write(
      `report:acceptance: cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (run npm run conformance first)' : (err as Error).message}\n`,
    )
    return 2
  }
  const out = join(dirname(path), 'acceptance.html')
  writeFileSync(out, buildAcceptance(r))
  process.stdout.write(`acceptance document: ${out}\n`)
  return 0
}

process.exitCode = main(process.argv.slice(2))
