/**
 * Evidence a vendor signs, on real runs against the reference server with several catalogue faults on at once:
 * - nine faults of a vendor-like build (renamed fields, a missing field, an extra field, wrong statuses) in nine
 *   areas give nine causes, and six faults in six other places give six: one cause per fault, each stated
 *   under a clause of its fault;
 * - results.json stores the causes, and the console, summary.md and report.html show those same ones;
 * - every cause shows the exchange its message names, never a cleanup request (selftest/evidence-rules.ts);
 * - the acceptance document lists the nine on its first page, which prints to one A4 page in headless Chromium
 *   (skipped when Chromium is not installed: apt-get install chromium).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { reportModel } from '../helpers/reports/model'
import { buildAcceptance, findChromium, pdfPages, printToPdf } from '../helpers/reports/acceptance'
import { storedCauses, type Cause } from '../helpers/reports/causes'
import { clausesOf, FAULTS } from '../reference/faults'
import { evidenceProblems } from './evidence-rules'
import { ROOT, runSuite, type SuiteRun } from '../testing/run-suite'

const VENDOR_NINE = [
  'channels-get-publish-permission', // a renamed field (get by name)
  'messages-sent-message-id-renamed', // a renamed field (send results)
  'subscriptions-sub-id-renamed', // a renamed field (subscribe)
  'push-sent-message-id', // a renamed field (push results)
  'users-list-no-email', // a missing field
  'signin-user-email', // an extra field
  'items-publish-200', // wrong statuses
  'tags-delete-all-204',
  'auth-missing-token-403',
]
const SIX = [
  'channels-date-no-offset',
  'tags-get-bare-array',
  'users-list-excludes-caller',
  'messages-unknown-ids-counted',
  'signin-expires-in-string',
  'items-owner-permission-ignored',
]

const args = (faults: readonly string[]) => faults.flatMap((f) => ['--fault', f])
const runs: Record<'nine' | 'six', SuiteRun> = {} as never

beforeAll(async () => {
  runs.nine = await runSuite(args(VENDOR_NINE), {}, 600_000)
  runs.six = await runSuite(args(SIX), {}, 600_000)
}, 1_300_000)

/** The clauses a fault may fail: its own and its declared consequences. */
function allowed(name: string): Set<string> {
  const f = FAULTS.find((x) => x.name === name)!
  return new Set([...clausesOf(f), ...(f.consequences ?? []).map((c) => c.clause)])
}

const listed = (causes: readonly Cause[]) =>
  causes.map((c) => `${c.level} ${c.clause}: ${c.headline} (${c.entries.length} failed, ${c.blocked.length} blocked)`).join('\n')

describe.each([
  ['nine', VENDOR_NINE],
  ['six', SIX],
] as const)('%s faults on together', (profile, faults) => {
  test('one cause per fault, each under a clause of its fault; results.json stores them', () => {
    const run = runs[profile]
    expect(run.code, run.stdout.slice(-2000) + run.stderr).toBe(1)
    const causes = run.results!.causes!
    expect(causes, 'results.json has causes').toBeDefined()
    expect(causes, listed(causes)).toHaveLength(faults.length)
    for (const name of faults)
      expect(
        causes.filter((c) => allowed(name).has(c.clause)).map((c) => c.headline),
        `${name}\n${listed(causes)}`,
      ).toHaveLength(1)
    // Stored once, the same as the grouping of its entries; verdict and counts stay per check.
    expect(causes).toEqual(storedCauses(run.results!.checks))
    expect(run.results!.counts.MUST.failed).toBeGreaterThan(faults.length)
  })

  test('every cause and failed entry shows the exchange its message names, never a cleanup request', () => {
    expect(evidenceProblems(runs[profile].results!)).toEqual([])
  })

  test('the console, summary.md and report.html show the stored causes', () => {
    const run = runs[profile]
    const causes = run.results!.causes!
    expect(run.stdout).toContain(`Root causes (${causes.length};`)
    const md = readFileSync(join(run.reportDir, 'summary.md'), 'utf8')
    expect(md).toContain(`### Root causes (${causes.length} deviation`)
    const html = readFileSync(join(run.reportDir, 'report.html'), 'utf8')
    for (const c of causes)
      expect(html).toContain(c.headline.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'))
  })
})

describe('the acceptance document of the vendor-like build', () => {
  const CHROMIUM = findChromium()

  test('its first page holds the deviations table, one row per cause, each with its section', () => {
    const r = runs.nine.results!
    const html = buildAcceptance(reportModel(r))
    const first = html.slice(html.indexOf('<section class="first-page"'), html.indexOf('</section>'))
    expect(first).toContain(r.target.display)
    expect(first).toContain(r.spec!.registry)
    expect(first).toContain('Verdict: Non-conformant')
    expect(first.match(/<tr><td><a href="#d-\d+">/g)).toHaveLength(VENDOR_NINE.length)
    for (let i = 1; i <= VENDOR_NINE.length; i++) expect(html).toContain(`<div class="deviation" id="d-${i}">`)
    expect(html).toContain('<h2 id="not-judged">')
    expect(html).not.toMatch(/<(script|link|img|iframe)\b/i)
  })

  test.skipIf(!CHROMIUM)(
    'prints with --pdf; its first page alone is one A4 page (skipped when Chromium is not installed)',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'ct-acceptance-'))
      const html = buildAcceptance(reportModel(runs.nine.results!))
      // The first page alone: everything after the first-page section cut off.
      writeFileSync(join(dir, 'first.html'), `${html.slice(0, html.indexOf('</section>') + '</section>'.length)}</body></html>`)
      expect(printToPdf(CHROMIUM!, join(dir, 'first.html'), join(dir, 'first.pdf'))).toBeUndefined()
      expect(pdfPages(readFileSync(join(dir, 'first.pdf')))).toBe(1)
      writeFileSync(join(dir, 'results.json'), JSON.stringify(runs.nine.results))
      const cli = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/report-acceptance.ts', '--pdf', join(dir, 'results.json')], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 180_000,
      })
      expect(cli.status, cli.stderr).toBe(0)
      const pages = Number(/\((\d+) pages\)/.exec(cli.stdout)?.[1])
      process.stdout.write(`acceptance document of the vendor-like build: ${pages} A4 pages, ${runs.nine.results!.causes!.length} deviations\n`)
      expect(pages).toBeGreaterThan(1)
    },
    300_000,
  )
})
