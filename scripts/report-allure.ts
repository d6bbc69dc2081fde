/**
 * npm run report:allure [-- --report-dir <dir>]
 * mcs-conformance report allure [--report-dir <dir>]
 *
 * Renders <report dir>/allure-results (written by a conformance run) with Allure Report 3 from npm, no Java:
 * one self-contained <report dir>/allure-report/index.html, grouped spec area → endpoint → clause, with
 * Allure's history kept in <report dir>/allure-history.jsonl between runs and no analytics tag. ALLURE_CLI
 * may name another cli.js of the `allure` 3 package. Exit 0; exit 2 with one message when it cannot.
 */
import { readEnv } from '../helpers/config/config'
import { AllureReportError, findAllureCli, generateAllureReport } from '../helpers/reports/allure-report'
import { isEntry } from './entry'
import { npmNaming, reportArgs, reportDirOf, type ReportNaming } from './report-naming'

export function reportAllure(argv: string[], naming: ReportNaming = npmNaming('report:allure')): number {
  const usage = `usage: ${naming.command} [--report-dir <dir>]`
  const parsed = reportArgs(argv, naming, usage, {}, false)
  if (typeof parsed === 'number') return parsed
  const env = readEnv()
  const cli = findAllureCli(env)
  if (!cli) {
    process.stderr.write(
      `${naming.name}: Allure Report 3 is not installed${env.ALLURE_CLI ? ` at ALLURE_CLI=${env.ALLURE_CLI}` : ''}: install the allure package (npm ci in a clone; npm install allure@3 next to the installed tool) or set ALLURE_CLI\n`,
    )
    return 2
  }
  try {
    const index = generateAllureReport(reportDirOf(parsed.values['report-dir']), cli)
    process.stdout.write(`allure report: ${index}\n`)
    return 0
  } catch (err) {
    if (err instanceof AllureReportError) {
      process.stderr.write(`${naming.name}: ${err.message}\n`)
      return 2
    }
    throw err
  }
}

if (isEntry(import.meta.url)) process.exitCode = reportAllure(process.argv.slice(2))
