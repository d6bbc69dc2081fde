/**
 * npm run report:allure
 *
 * Renders REPORT_DIR/allure-results (written by npm run conformance) with Allure Report 3 from npm, no Java:
 * one self-contained REPORT_DIR/allure-report/index.html, grouped spec area → endpoint → clause, with
 * Allure's history kept in REPORT_DIR/allure-history.jsonl between runs and no analytics tag. ALLURE_CLI
 * may name another cli.js of the `allure` 3 package. Exit 0; exit 2 with one message when it cannot.
 */
import { readEnv } from '../helpers/config/config'
import { AllureReportError, findAllureCli, generateAllureReport } from '../helpers/reports/allure-report'

function main(): number {
  const env = readEnv()
  const cli = findAllureCli(env)
  if (!cli) {
    process.stderr.write(
      `report:allure: Allure Report 3 is not installed${env.ALLURE_CLI ? ` at ALLURE_CLI=${env.ALLURE_CLI}` : ''}: run npm ci (the allure package is a devDependency)\n`,
    )
    return 2
  }
  try {
    const index = generateAllureReport(env.REPORT_DIR || 'reports', cli)
    process.stdout.write(`allure report: ${index}\n`)
    return 0
  } catch (err) {
    if (err instanceof AllureReportError) {
      process.stderr.write(`report:allure: ${err.message}\n`)
      return 2
    }
    throw err
  }
}

process.exitCode = main()
