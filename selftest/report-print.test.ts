/**
 * The acceptance document (report:acceptance) and the Allure 3 report (report:allure): content, no script or
 * tracker, redaction; acceptance.html printed to PDF by headless Chromium, and the Allure 3 report generated
 * twice (its history carried) and rendered by headless Chromium. The browser and Allure steps are skipped when
 * Chromium (apt-get install chromium) or the allure package (npm ci) is missing.
 */
import { reportModel } from '../helpers/reports/model'
import { storedCauses } from '../helpers/reports/causes'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { CLAUSES, clause } from '../helpers/spec/clauses'
import { registerSecret } from '../helpers/http/redact'
import { buildAcceptance } from '../helpers/reports/acceptance'
import { finishAllureResults } from '../helpers/reports/allure'
import { FORBIDDEN_IN_REPORT, findAllureCli, generateAllureReport, stripAnalytics } from '../helpers/reports/allure-report'
import { fixtureRun } from './report-fixtures'

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `ct-${prefix}-`))
const MUST_FAIL = 'channels.create.default-max-items'
const KNOWN = 'items.publish.response'
const SHOULD_FAIL = 'http.json-content-type'

const faulty = () =>
  fixtureRun({
    runId: 'acc111',
    startedAt: '2025-11-21T02:00:00.000Z',
    // Two deviations of their own (the fixture's default message is one problem, which would be one root cause).
    changes: {
      [MUST_FAIL]: { status: 'failed' },
      [KNOWN]: { status: 'failed' },
      [SHOULD_FAIL]: {
        status: 'failed',
        message: `[${SHOULD_FAIL} SHOULD] GET /message/api/v2/channels/ct-run-1 → 200\n  content-type: got text/plain, want application/json`,
      },
    },
    expectations: [{ clause: KNOWN, reason: 'vendor ticket 42: field renamed', expires: '2099-01-01', link: 'https://tracker.example.com/42' }],
  })

const CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome'].find((bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0)
const chromium = (dir: string, ...args: string[]) =>
  spawnSync(
    CHROMIUM!,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--user-data-dir=${join(dir, 'profile')}`,
      ...args,
    ],
    { encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * 1024 * 1024 },
  )

describe('acceptance.html', () => {
  test('states target, suite, date, scope and verdict; each deviation with its quote; known failures with reason and expiry; not-testable clauses with reasons', () => {
    const r = faulty()
    const html = buildAcceptance(reportModel(r))
    expect(html).toContain('staging.example.com')
    expect(html).toContain('messaging-channel-conformance 0.1.0')
    expect(html).toContain('2025-11-21T02:00:00.000Z')
    expect(html).toContain('the whole suite, every spec area and level')
    expect(html).toMatch(/<div class="verdict non-conformant" id="verdict">Verdict: Non-conformant/)
    expect(html).toContain(`<code>${MUST_FAIL}</code>`)
    expect(html).toContain(esc(clause(MUST_FAIL).quote))
    expect(html).toContain(`<code>${SHOULD_FAIL}</code>`)
    expect(html).toMatch(
      /<tr><td><code>items\.publish\.response<\/code><\/td><td>vendor ticket 42: field renamed.*<\/td><td>2099-01-01<\/td><td>failed as expected<\/td><\/tr>/,
    )
    for (const c of CLAUSES.filter((x) => x.notTestable)) expect(html).toContain(esc(c.notTestable!))
    // The known failure is no deviation of its own: listed under known failures only.
    expect(html).not.toMatch(/<h3>\d+\. MUST <code>items\.publish\.response<\/code>/)
    expect(html).not.toMatch(/<(script|link|img|iframe)\b/i)
    expect(html).not.toContain('<script>alert')
  })

  test('a filtered run says it is no basis for acceptance; a clean run lists no deviation', () => {
    expect(buildAcceptance(reportModel({ ...fixtureRun(), filters: { areas: ['channels'], level: null } }))).toContain(
      'a partial run: not a basis for acceptance',
    )
    expect(buildAcceptance(reportModel(fixtureRun()))).toContain('<p>None: no check failed.</p>')
  })

  test('never shows a registered secret', () => {
    const secret = 'Acc3ptance-Secret-Value-9'
    registerSecret(secret)
    const r = fixtureRun({
      changes: {
        [MUST_FAIL]: {
          status: 'failed',
          message: `[${MUST_FAIL} MUST] GET /x → 200\n token ${secret}`,
          evidence: [`GET /x → 200\n  authorization: Bearer ${secret}`],
        },
      },
    })
    expect(buildAcceptance(reportModel(r))).not.toContain(secret)
  })

  test.skipIf(!CHROMIUM)(
    'prints to PDF in headless Chromium (skipped when Chromium is not installed)',
    () => {
      const dir = tmp('acceptance-pdf')
      writeFileSync(join(dir, 'acceptance.html'), buildAcceptance(reportModel(faulty())))
      const run = chromium(dir, '--no-pdf-header-footer', `--print-to-pdf=${join(dir, 'a.pdf')}`, `file://${join(dir, 'acceptance.html')}`)
      expect(existsSync(join(dir, 'a.pdf')), `chromium exit ${run.status}: ${run.stderr.slice(-400)}`).toBe(true)
      const pdf = readFileSync(join(dir, 'a.pdf')).toString('latin1')
      expect(pdf.startsWith('%PDF-')).toBe(true)
      const pages = (pdf.match(/\/Type\s*\/Page\b/g) ?? []).length
      expect(pages).toBeGreaterThanOrEqual(2)
      expect(pages).toBeLessThanOrEqual(8)
    },
    150_000,
  )
})

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}

/** allure-results as allure-vitest writes them, for three checks of the fixture run, and its environment file. */
function allureResults(dir: string): string {
  const results = join(dir, 'allure-results')
  mkdirSync(results, { recursive: true })
  const r = faulty()
  const pick = [MUST_FAIL, KNOWN, SHOULD_FAIL, 'channels.create.status']
  pick.forEach((id, i) => {
    const c = r.checks.find((x) => x.clause === id)!
    const def = clause(id)
    writeFileSync(
      join(results, `0000000${i}-aaaa-bbbb-cccc-00000000000${i}-result.json`),
      JSON.stringify({
        uuid: `0000000${i}-aaaa-bbbb-cccc-00000000000${i}`,
        name: `${c.title} [${id}]`,
        fullName: `suites/${def.area}.test.ts#${c.title} [${id}]`,
        historyId: `h${i}`,
        status: c.status === 'passed' ? 'passed' : 'failed',
        statusDetails: c.message ? { message: c.message } : {},
        stage: 'finished',
        steps: [],
        attachments: [],
        parameters: [],
        links: [],
        start: 1_700_000_000_000 + i * 1000,
        stop: 1_700_000_000_500 + i * 1000,
        labels: [
          { name: 'epic', value: def.area },
          { name: 'feature', value: 'POST /channels' },
          { name: 'story', value: `${id}: ${def.title}` },
          { name: 'clause', value: id },
          { name: 'level', value: def.level },
        ],
      }),
    )
  })
  writeFileSync(join(results, 'environment.properties'), 'target=https://staging.example.com\nsuite=messaging-channel-conformance 0.1.0')
  r.causes = storedCauses(r.checks)
  finishAllureResults(results, reportModel(r))
  return results
}

describe('Allure 3 report', () => {
  test("the analytics tag of Allure's template is taken out, and nothing of it is left", () => {
    const page = `<html><body><div id="app"></div>
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag(){dataLayer.push(arguments);}
        gtag('js', new Date());
    </script>
    <script>window.allure = {}</script></body></html>`
    const clean = stripAnalytics(page)
    expect(FORBIDDEN_IN_REPORT.filter((re) => re.test(clean))).toEqual([])
    expect(clean).toContain('<script>window.allure = {}</script>')
  })

  test('results carry their outcome label, and the environment widget the verdict', () => {
    const dir = allureResults(tmp('allure-labels'))
    const env = readFileSync(join(dir, 'environment.properties'), 'utf8')
    expect(env).toMatch(/^verdict=non-conformant$/m)
    expect(env).toMatch(/^exitCode=1$/m)
    expect(env).toMatch(/^target=https:\/\/staging\.example\.com$/m)
    const known = JSON.parse(readFileSync(join(dir, '00000001-aaaa-bbbb-cccc-000000000001-result.json'), 'utf8')) as {
      labels: { name: string; value: string }[]
      statusDetails: { known?: boolean }
    }
    expect(known.labels).toContainEqual({ name: 'outcome', value: 'known' })
    expect(known.statusDetails.known).toBe(true)
  })

  test('a failed result carries a tag naming its deviation (results.json causes), a passed one none', () => {
    const dir = allureResults(tmp('allure-causes'))
    const tagsOf = (i: number) =>
      (
        JSON.parse(readFileSync(join(dir, `0000000${i}-aaaa-bbbb-cccc-00000000000${i}-result.json`), 'utf8')) as { labels: { name: string; value: string }[] }
      ).labels
        .filter((l) => l.name === 'tag' && l.value.startsWith('cause '))
        .map((l) => l.value)
    const cause = storedCauses(faulty().checks).find((c) => c.clause === MUST_FAIL)!
    expect(tagsOf(0)).toEqual([`cause ${cause.id}: ${cause.headline}`])
    expect(tagsOf(3)).toEqual([])
  })

  const CLI = findAllureCli()
  test.skipIf(!CLI)(
    'report:allure renders a single file with its history carried between runs, and no tracker (skipped without the allure package: npm ci)',
    () => {
      const dir = tmp('allure3')
      allureResults(dir)
      const index = generateAllureReport(dir, CLI!)
      generateAllureReport(dir, CLI!)
      const html = readFileSync(index, 'utf8')
      expect(FORBIDDEN_IN_REPORT.filter((re) => re.test(html))).toEqual([])
      expect(readFileSync(join(dir, 'allure-history.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2)
      if (!CHROMIUM) return
      // The single file carries its data inline: the dumped DOM is several megabytes (maxBuffer above).
      const run = chromium(dir, '--virtual-time-budget=30000', '--dump-dom', `file://${index}`)
      expect(run.stdout, `chromium exit ${run.status}: ${run.stderr.slice(-400)}`).toContain(`[${MUST_FAIL}]`)
      expect(run.stdout).toContain('non-conformant')
    },
    240_000,
  )

  if (!CLI) test('the allure package is not installed: the Allure 3 rendering check above was skipped (npm ci)', () => {})
})
