/**
 * npm run report:acceptance [-- [--pdf] <results.json>] [--report-dir <dir>]
 * mcs-conformance report acceptance [--pdf] [<results.json>] [--report-dir <dir>]
 *
 * Writes acceptance.html next to the results.json read: the vendor acceptance document, made for printing.
 * With --pdf, also acceptance.pdf, printed by a headless Chromium when one is installed (chromium,
 * chromium-browser or google-chrome on PATH); without one, the HTML alone, and it says so. Default input:
 * <report dir>/results.json (--report-dir, else REPORT_DIR, else reports). Exit 0; exit 2 with one message
 * when the results cannot be read, the arguments are wrong or Chromium failed to print.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { commandFor } from '../helpers/config/invocation'
import { buildAcceptance, findChromium, pdfPages, printToPdf } from '../helpers/reports/acceptance'
import { reportModel } from '../helpers/reports/model'
import { currentResults, type RunResults } from '../helpers/reports/results'
import { isEntry } from './entry'
import { npmNaming, refuse, reportArgs, reportDirOf, type ReportNaming } from './report-naming'

export function reportAcceptance(argv: string[], naming: ReportNaming = npmNaming('report:acceptance')): number {
  const usage = `usage: ${naming.command} [--pdf] [<results.json>] [--report-dir <dir>]`
  const parsed = reportArgs(argv, naming, usage, { pdf: { type: 'boolean' } })
  if (typeof parsed === 'number') return parsed
  if (parsed.positionals.length > 1) return refuse(naming, usage, 'want at most one results.json')
  const path = parsed.positionals[0] ?? join(reportDirOf(parsed.values['report-dir']), 'results.json')
  let r: RunResults
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { checks?: unknown; runId?: unknown }
    if (!data || !Array.isArray(data.checks) || typeof data.runId !== 'string') throw new Error('not a results.json of the suite')
    r = currentResults(data, path)
  } catch (err) {
    process.stderr.write(
      `${naming.name}: cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? `no such file (run ${commandFor('conformance')} first)` : (err as Error).message}\n`,
    )
    return 2
  }
  const out = join(dirname(path), 'acceptance.html')
  writeFileSync(out, buildAcceptance(reportModel(r)))
  process.stdout.write(`acceptance document: ${out}\n`)
  if (!parsed.values.pdf) return 0
  const browser = findChromium()
  if (!browser) {
    process.stdout.write('no PDF: no Chromium found (install chromium: apt-get install chromium); print the HTML from a browser instead\n')
    return 0
  }
  const pdf = join(dirname(path), 'acceptance.pdf')
  const problem = printToPdf(browser, out, pdf)
  if (problem) {
    process.stderr.write(`${naming.name}: could not print the PDF: ${problem}\n`)
    return 2
  }
  process.stdout.write(`acceptance PDF: ${pdf} (${pdfPages(readFileSync(pdf))} pages)\n`)
  return 0
}

if (isEntry(import.meta.url)) process.exitCode = reportAcceptance(process.argv.slice(2))
