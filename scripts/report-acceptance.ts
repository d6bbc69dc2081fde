/**
 * npm run report:acceptance [-- [--pdf] <results.json>]
 *
 * Writes REPORT_DIR/acceptance.html (next to the results.json read): the vendor acceptance document, made
 * for printing. With --pdf, also acceptance.pdf, printed by a headless Chromium when one is installed
 * (chromium, chromium-browser or google-chrome on PATH); without one, the HTML alone, and it says
 * so. Default input: REPORT_DIR/results.json (reports/). Exit 0; exit 2 with one message when the results
 * cannot be read, the arguments are wrong or Chromium failed to print.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parseArgs } from 'node:util'
import { readEnv } from '../helpers/config/config'
import { buildAcceptance, findChromium, pdfPages, printToPdf } from '../helpers/reports/acceptance'
import { currentResults, type RunResults } from '../helpers/reports/results'

const USAGE = 'usage: npm run report:acceptance -- [--pdf] [<results.json>]'

function main(argv: string[]): number {
  let args: { values: { pdf?: boolean }; positionals: string[] }
  try {
    args = parseArgs({ args: argv, options: { pdf: { type: 'boolean' } }, allowPositionals: true, strict: true })
  } catch (err) {
    process.stderr.write(`report:acceptance: ${(err as Error).message}\n${USAGE}\n`)
    return 2
  }
  if (args.positionals.length > 1) {
    process.stderr.write(`report:acceptance: want at most one results.json\n${USAGE}\n`)
    return 2
  }
  const path = args.positionals[0] ?? join(readEnv().REPORT_DIR || 'reports', 'results.json')
  let r: RunResults
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { checks?: unknown; runId?: unknown }
    if (!data || !Array.isArray(data.checks) || typeof data.runId !== 'string') throw new Error('not a results.json of the suite')
    r = currentResults(data, path)
  } catch (err) {
    process.stderr.write(
      `report:acceptance: cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file (run npm run conformance first)' : (err as Error).message}\n`,
    )
    return 2
  }
  const out = join(dirname(path), 'acceptance.html')
  writeFileSync(out, buildAcceptance(r))
  process.stdout.write(`acceptance document: ${out}\n`)
  if (!args.values.pdf) return 0
  const browser = findChromium()
  if (!browser) {
    process.stdout.write('no PDF: no Chromium found (install chromium: apt-get install chromium); print the HTML from a browser instead\n')
    return 0
  }
  const pdf = join(dirname(path), 'acceptance.pdf')
  const problem = printToPdf(browser, out, pdf)
  if (problem) {
    process.stderr.write(`report:acceptance: could not print the PDF: ${problem}\n`)
    return 2
  }
  process.stdout.write(`acceptance PDF: ${pdf} (${pdfPages(readFileSync(pdf))} pages)\n`)
  return 0
}

process.exitCode = main(process.argv.slice(2))
