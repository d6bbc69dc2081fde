/**
 * Allure Report 3 configuration for `npm run report:allure` (scripts/report-allure.ts sets REPORT_DIR, and
 * the output directory on the command line). Tree: spec area (epic) → endpoint (feature) → clause (story).
 * Categories from the labels that helpers/reports/allure.ts puts on every result: `outcome` is the check's
 * status in results.json, `level` its requirement level.
 */
import { join } from 'node:path'

const reportDir = process.env.REPORT_DIR || 'reports'

export default {
  name: 'Messaging and Channel REST Service: conformance',
  // Allure's own history (one line per generated report), so its trend widgets have earlier runs.
  historyPath: join(reportDir, 'allure-history.jsonl'),
  historyLimit: 30,
  plugins: {
    awesome: {
      options: {
        reportName: 'Messaging and Channel REST Service: conformance',
        singleFile: true,
        reportLanguage: 'en',
        groupBy: ['epic', 'feature', 'story'],
      },
    },
  },
  categories: [
    // First match wins: a known failure is a failed result too, so it comes before the failures.
    { id: 'known', name: 'Known failures (reviewed, unexpired entries of the known-failures file)', matchers: { labels: { outcome: 'known' } } },
    { id: 'non-conformant', name: 'Non-conformant: MUST failures', matchers: { statuses: ['failed'], labels: { outcome: 'failed', level: 'MUST' } } },
    {
      id: 'should-warnings',
      name: 'Warnings: SHOULD failures (HTTP conventions, undocumented fields)',
      matchers: { statuses: ['failed'], labels: { outcome: 'failed', level: 'SHOULD' } },
    },
    { id: 'error-transport', name: 'Errors: the check could not be completed (transport, suite)', matchers: { statuses: ['broken'] } },
    { id: 'blocked', name: 'Blocked: a set-up step failed under another clause', matchers: { labels: { outcome: 'blocked' } } },
  ],
}
