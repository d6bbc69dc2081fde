/**
 * The report builders (helpers/reports/) on hand-made RunResults: JUnit, HTML, Markdown, history, the diff of
 * two runs (and `npm run report:diff`), known failures; and report.html rendered by a real headless Chromium.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { CLAUSES } from '../helpers/spec/clauses'
import { registerSecret } from '../helpers/http/redact'
import { reportModel } from '../helpers/reports/model'
import { diffRuns, formatDiff } from '../helpers/reports/diff'
import {
  applyExpectations,
  ExpectationsError,
  isExpired,
  loadExpectations,
  parseExpectations,
  slugOfResults,
  slugOfTarget,
  targetSlug,
} from '../helpers/reports/expectations'
import { historyName, HISTORY_LIMIT, readHistory, saveToHistory } from '../helpers/reports/history'
import { buildHtml, esc } from '../helpers/reports/html'
import { describeReports, modelWithHistory, writeReports } from '../helpers/reports'
import { buildJunit } from '../helpers/reports/junit'
import { storedCauses } from '../helpers/reports/causes'
import { buildMarkdown } from '../helpers/reports/markdown'
import { countChecks, currentResults, judge, ResultsFormatError, writeResults, type RunResults } from '../helpers/reports/results'
import { blockedRun, fixtureRun, targetOf } from './report-fixtures'
import { ROOT } from '../testing/run-suite'

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `ct-${prefix}-`))

const MUST_FAIL = 'channels.create.default-max-items'
const MUST_FAIL_2 = 'items.publish.response'
const SHOULD_FAIL = 'http.json-content-type'

const clean = () => fixtureRun({ runId: 'aaa111', startedAt: '2025-11-20T02:00:00.000Z' })
const faulty = () =>
  fixtureRun({
    runId: 'bbb222',
    startedAt: '2025-11-21T02:00:00.000Z',
    changes: { [MUST_FAIL]: { status: 'failed' }, [MUST_FAIL_2]: { status: 'failed' }, [SHOULD_FAIL]: { status: 'failed' } },
  })

/** A small well-formedness check: every tag closes in order, no raw `<` or stray `&` in text or attributes. */
function wellFormedXml(text: string): string[] {
  const problems: string[] = []
  const body = text.replace(/^<\?xml[^>]*\?>\s*/, '')
  const stack: string[] = []
  const re = /<(\/?)([A-Za-z][\w.-]*)((?:\s+[\w.-]+="[^"<]*")*)\s*(\/?)>|<|&(?!(?:amp|lt|gt|quot|apos|#\d+);)/g
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (!m[2]) {
      problems.push(`stray ${m[0]} at ${m.index}: ${body.slice(m.index, m.index + 40)}`)
      continue
    }
    if (m[1]) {
      if (stack.pop() !== m[2]) problems.push(`</${m[2]}> does not close the open element at ${m.index}`)
    } else if (!m[4]) stack.push(m[2])
  }
  if (stack.length) problems.push(`unclosed: ${stack.join(', ')}`)
  return problems
}

describe('judge with known failures', () => {
  test('a known MUST failure does not fail the run, and the verdict says so', () => {
    const r = fixtureRun({
      changes: { [MUST_FAIL]: { status: 'failed' } },
      expectations: [{ clause: MUST_FAIL, reason: 'vendor ticket 12', expires: '2099-12-31' }],
    })
    expect(r.counts.MUST.known).toBe(1)
    expect(r.counts.MUST.failed).toBe(0)
    expect(r.verdict).toBe('known-failures-only')
    expect(r.exitCode).toBe(0)
  })
  test('a MUST failure next to a known one still fails the run', () => {
    const r = fixtureRun({
      changes: { [MUST_FAIL]: { status: 'failed' }, [MUST_FAIL_2]: { status: 'failed' } },
      expectations: [{ clause: MUST_FAIL, reason: 'r', expires: '2099-12-31' }],
    })
    expect(r.verdict).toBe('non-conformant')
    expect(r.exitCode).toBe(1)
  })
  test('STRICT still fails the run on a SHOULD failure next to known failures', () => {
    const counts = countChecks([
      { ...clean().checks[0]!, level: 'MUST', status: 'known' },
      { ...clean().checks[1]!, level: 'SHOULD', status: 'failed' },
    ])
    expect(judge(counts, { strict: true, interrupted: false, errors: 0 })).toEqual({ verdict: 'known-failures-only', exitCode: 1 })
    expect(judge(counts, { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'known-failures-only', exitCode: 0 })
  })
  test('counts of a results.json written before `known` existed are still judged', () => {
    const counts = countChecks(clean().checks) as unknown as Record<string, Record<string, number>>
    for (const level of Object.values(counts)) delete level.known
    expect(judge(counts as unknown as RunResults['counts'], { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'conformant', exitCode: 0 })
  })
})

describe('blocked checks', () => {
  test("a blocked MUST check is counted on its own and does not decide the verdict; its step's failure does", () => {
    const r = blockedRun()
    expect(r.counts.MUST.blocked).toBe(1)
    expect(r.counts.MUST.failed).toBe(1)
    expect(r.verdict).toBe('non-conformant')
    const onlyBlocked = countChecks(r.checks.filter((c) => !c.parent))
    expect(judge(onlyBlocked, { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'conformant', exitCode: 0 })
  })

  test('counts of a results.json written before `blocked` existed are still judged', () => {
    const counts = countChecks(clean().checks) as unknown as Record<string, Record<string, number>>
    for (const level of Object.values(counts)) delete level.blocked
    expect(judge(counts as unknown as RunResults['counts'], { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'conformant', exitCode: 0 })
  })

  test('junit names the deviation (results.json causes) on the case it failed and on the case it blocked', () => {
    const r = blockedRun()
    r.causes = storedCauses(r.checks)
    const cause = r.causes.find((c) => c.clause === 'items.publish.response')!
    expect(cause.blocked.length).toBe(1)
    const junit = buildJunit(reportModel(r))
    const property = `<property name="cause" value="${cause.id}: `
    expect(junit.split(property).length - 1).toBe(cause.entries.length + cause.blocked.length)
    delete r.causes
    expect(buildJunit(reportModel(r))).not.toContain('<property name="cause"')
  })

  test("junit skips it naming the step, report.html and summary.md say blocked by the step's clause", () => {
    const r = blockedRun()
    const junit = buildJunit(reportModel(r))
    expect(junit).toMatch(/<skipped message="blocked by items\.publish\.response: a set-up step failed/)
    expect(junit).toContain('<property name="blockedBy" value="items.publish.response"/>')
    const html = buildHtml(reportModel(r))
    expect(html).toContain('st-blocked')
    expect(html).toMatch(/blocked by items\.publish\.response: a set-up step failed, so this clause could not be judged/)
    expect(html).toContain('1 check(s) could not be judged because a set-up step they need failed: items.publish.response (1)')
    const summary = buildMarkdown(reportModel(r))
    expect(summary).toContain('| blocked |')
    expect(summary).toContain('🚧 blocked')
  })

  test('the diff lists a blocked check as blocked, neither fixed nor failing', () => {
    const d = diffRuns(clean(), blockedRun())
    expect(d.blocked.map((e) => e.clause)).toEqual(['items.get.shape'])
    expect(d.fixed).toEqual([])
    expect(d.newFailures.map((e) => e.clause)).toEqual(['items.publish.response'])
    expect(formatDiff(d)).toContain('blocked: could not be judged because a set-up step failed (1)')
  })
})

describe('known-failures files (expectations/)', () => {
  test('slugs name the target origin, base path and non-default API paths; the embedded server is `embedded`', () => {
    expect(targetSlug(null)).toBe('embedded')
    expect(targetSlug('https://Staging.Example.com')).toBe('staging.example.com')
    expect(targetSlug('http://10.0.0.5:8443')).toBe('10.0.0.5-8443')
    // Two APIs behind one gateway host are two targets.
    expect(targetSlug('https://Gw.Example.com/base/path')).toBe('gw.example.com--base-path')
    expect(targetSlug('https://gw.example.com/svc-b', { userApiPath: '/mobile/api/com.vendor.server', messageApiPath: '/message/api/v3' })).toBe(
      'gw.example.com--svc-b--m-message-api-v3',
    )
    expect(targetSlug('https://gw.example.com', { userApiPath: '/u/', messageApiPath: '/message/api/v2' })).toBe('gw.example.com--u-u')
    expect(slugOfResults({ target: targetOf('https://staging.example.com/svc (user API /u, message API /m)') })).toBe('staging.example.com--svc--u-u--m-m')
    expect(slugOfResults({ target: targetOf('http://127.0.0.1:4000 (user API /u, message API /m)', true) })).toBe('embedded')
  })

  test('a results.json of another format is refused with one sentence naming both formats', () => {
    const old = { format: 'mcrs-conformance-results/1', target: 'https://gw.example.com (user API /u, message API /m)', checks: [] }
    expect(() => currentResults(old, 'old/results.json')).toThrow(ResultsFormatError)
    expect(() => currentResults(old, 'old/results.json')).toThrow(
      'old/results.json is of results format mcrs-conformance-results/1, and this version reads mcrs-conformance-results/2 only: make the run again with this version',
    )
    expect(() => currentResults({ checks: [] }, 'x.json')).toThrow(/x\.json is of results format \(none\)/)
    const current = fixtureRun({})
    expect(currentResults(JSON.parse(JSON.stringify(current)), 'results.json')).toEqual(JSON.parse(JSON.stringify(current)))
  })

  test('a known-failures file is found by the slug of the target alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ct-slug-'))
    mkdirSync(join(dir, 'expectations'))
    writeFileSync(join(dir, 'expectations', 'gw.example.com.json'), JSON.stringify([{ clause: MUST_FAIL, reason: 'r', expires: '2099-01-01' }]))
    expect(loadExpectations({ slug: 'gw.example.com--svc-a', cwd: dir }).file).toBeNull()
    writeFileSync(join(dir, 'expectations', 'gw.example.com--svc-a.json'), '[]')
    expect(loadExpectations({ slug: 'gw.example.com--svc-a', cwd: dir }).file).toBe(join('expectations', 'gw.example.com--svc-a.json'))
  })

  test('an entry turns a failure into known; a passing clause is reported; an expired entry counts again', () => {
    const r = fixtureRun({
      startedAt: '2025-11-21T02:00:00.000Z',
      changes: { [MUST_FAIL]: { status: 'failed' }, [MUST_FAIL_2]: { status: 'failed' } },
      expectations: [
        { clause: MUST_FAIL, reason: 'ticket 1', link: 'https://tracker.example.com/1', expires: '2025-11-21' },
        { clause: MUST_FAIL_2, reason: 'ticket 2', expires: '2025-11-20' },
        { clause: 'channels.search.size', reason: 'ticket 3', expires: '2099-01-01' },
      ],
    })
    const outcome = Object.fromEntries(r.expectations!.entries.map((e) => [e.clause, e.outcome]))
    expect(outcome).toEqual({ [MUST_FAIL]: 'known', [MUST_FAIL_2]: 'expired', 'channels.search.size': 'now-passes' })
    expect(r.checks.find((c) => c.clause === MUST_FAIL)!.status).toBe('known')
    expect(r.checks.find((c) => c.clause === MUST_FAIL_2)!.status).toBe('failed')
    expect(r.verdict).toBe('non-conformant')
    expect(buildHtml(reportModel(r))).toContain('passes now: remove the entry')
    expect(describeReports({ junit: 'j', html: 'h', markdown: 'm', history: 'x', allure: null, diff: null }, r).join('\n')).toMatch(
      /now \(remove the entry\): channels\.search\.size.*expired, counted as failures again: items\.publish\.response/s,
    )
  })

  test('errors stay errors under an entry', () => {
    const checks = fixtureRun({ changes: { [MUST_FAIL]: { status: 'error' } } }).checks
    const [note] = applyExpectations(checks, [{ clause: MUST_FAIL, reason: 'r', expires: '2099-01-01' }], new Date())
    expect(checks.find((c) => c.clause === MUST_FAIL)!.status).toBe('error')
    expect(note!.outcome).toBe('not-run')
  })

  test('an entry holds through its expiry day', () => {
    const e = { clause: MUST_FAIL, reason: 'r', expires: '2025-11-21' }
    expect(isExpired(e, new Date('2025-11-21T23:59:59Z'))).toBe(false)
    expect(isExpired(e, new Date('2025-11-22T00:00:00Z'))).toBe(true)
  })

  test('an invalid file lists every problem', () => {
    expect(() =>
      parseExpectations(
        {
          expectations: [
            { clause: 'no.such.clause', expires: 'soon' },
            { clause: MUST_FAIL, reason: 'r', expires: '2099-01-01', link: 'tracker 12' },
          ],
        },
        'x.json',
      ),
    ).toThrow(/x\.json has 4 problem\(s\):[\s\S]*clause id[\s\S]*"reason" is required[\s\S]*YYYY-MM-DD[\s\S]*http\(s\) URL/)
    expect(() => parseExpectations({ nope: 1 })).toThrow(ExpectationsError)
  })

  test('the file is found by slug, or named by EXPECTATIONS_FILE (which must exist)', () => {
    const dir = tmp('exp')
    mkdirSync(join(dir, 'expectations'))
    writeFileSync(
      join(dir, 'expectations', 'staging.example.com.json'),
      JSON.stringify({ expectations: [{ clause: MUST_FAIL, reason: 'r', expires: '2099-01-01' }] }),
    )
    expect(loadExpectations({ slug: 'staging.example.com', cwd: dir })).toEqual({
      file: join('expectations', 'staging.example.com.json'),
      entries: [{ clause: MUST_FAIL, reason: 'r', expires: '2099-01-01' }],
    })
    expect(loadExpectations({ slug: 'other', cwd: dir })).toEqual({ file: null, entries: [] })
    expect(() => loadExpectations({ slug: 'other', cwd: dir, explicitFile: 'missing.json' })).toThrow(/EXPECTATIONS_FILE missing\.json does not exist/)
    writeFileSync(join(dir, 'bad.json'), '{ not json')
    expect(() => loadExpectations({ slug: 'x', cwd: dir, explicitFile: 'bad.json' })).toThrow(/bad\.json is not valid JSON/)
  })
})

describe('junit.xml', () => {
  test('has one well-formed test case per result, with clause and level properties', () => {
    const r = faulty()
    const xml = buildJunit(reportModel(r))
    expect(wellFormedXml(xml)).toEqual([])
    expect(xml.match(/<testcase /g)!.length).toBe(r.checks.length)
    expect(xml).toContain(`<property name="clause" value="${MUST_FAIL}"/>`)
    expect(xml).toContain('<property name="level" value="MUST"/>')
    expect(xml).not.toContain('<script>')
  })

  test('MUST failures are <failure> with the message and the exchanges; SHOULD failures only under STRICT', () => {
    const xml = buildJunit(reportModel(faulty()))
    const failures = xml.match(/<failure [^>]*>/g) ?? []
    expect(failures).toHaveLength(2)
    expect(failures.join('\n')).toContain(`MUST ${MUST_FAIL}`)
    expect(xml).toContain('POST /message/api/v2/channels → 201')
    expect(xml).toMatch(/WARNING \(SHOULD/)
    const strict = buildJunit(reportModel({ ...faulty(), strict: true }))
    expect(strict.match(/<failure /g)).toHaveLength(3)
    expect(strict).toMatch(/<testsuites [^>]*failures="3"/)
  })

  test('known failures are skipped cases naming their entry; errors are <error>', () => {
    const r = fixtureRun({
      changes: { [MUST_FAIL]: { status: 'failed' }, [MUST_FAIL_2]: { status: 'error', message: 'TransportError: no answer' } },
      expectations: [{ clause: MUST_FAIL, reason: 'vendor ticket 12', link: 'https://tracker.example.com/12', expires: '2099-01-01' }],
    })
    const xml = buildJunit(reportModel(r))
    expect(xml).toContain('<skipped message="known failure: vendor ticket 12 (https://tracker.example.com/12), until 2099-01-01"/>')
    expect(xml).toContain('<error message="TransportError: no answer"')
    expect(xml).toMatch(/<testsuites [^>]*failures="0" errors="1"/)
  })

  test('every suite names the target and says whether it was the bundled reference server', () => {
    expect(buildJunit(reportModel(fixtureRun()))).toContain('<property name="target.embedded" value="false"/>')
    const embedded = { ...fixtureRun(), target: targetOf('http://127.0.0.1:4000 (user API /u, message API /m)', true) }
    expect(buildJunit(reportModel(embedded))).toContain('<property name="target.embedded" value="true"/>')
    expect(buildMarkdown(reportModel(embedded))).toContain('**the bundled reference server**')
    expect(buildHtml(reportModel(embedded))).toContain('the bundled reference server, started for this run')
  })
})

describe('report.html', () => {
  test('states target, suite version, date and verdict', () => {
    const html = buildHtml(reportModel(faulty()))
    expect(html).toMatch(/<div class="verdict non-conformant" id="verdict"><div class="headline">Verdict: Non-conformant</)
    expect(html).toContain('https://staging.example.com')
    expect(html).toContain('messaging-channel-conformance 0.1.0')
    expect(html).toContain('2025-11-21T02:00:00.000Z')
    expect(buildHtml(reportModel(clean()))).toContain('Verdict: Conformant<')
    expect(buildHtml(reportModel({ ...clean(), verdict: 'could-not-run' }))).toContain('Verdict: Could not run<')
  })

  test('has a row for every clause of the registry, not-testable ones with their reason, unchecked ones marked', () => {
    const html = buildHtml(reportModel(fixtureRun({ omit: ['channels.search.total'] })))
    for (const c of CLAUSES) expect(html, c.id).toContain(`<tr id="c-${c.id}">`)
    for (const c of CLAUSES.filter((x) => x.notTestable)) {
      const row = html.slice(html.indexOf(`<tr id="c-${c.id}">`)).split('</tr>')[0]!
      expect(row).toContain('not testable')
      expect(row).toContain(esc(c.notTestable))
    }
    const unchecked = html.slice(html.indexOf('<tr id="c-channels.search.total">')).split('</tr>')[0]!
    expect(unchecked).toContain('no check in this run')
  })

  test('details each failure: clause quoted, expected and got, the redacted exchanges, all escaped', () => {
    const html = buildHtml(reportModel(faulty()))
    const details = html.slice(html.indexOf('<details id="f-1"')).split('</details>')[0]!
    expect(details).toContain(MUST_FAIL)
    expect(details).toContain(`<blockquote>${esc(CLAUSES.find((c) => c.id === MUST_FAIL)!.quote)}</blockquote>`)
    expect(details).toContain('/maxItems: got 10 (number), want -1')
    expect(details).toContain('POST /message/api/v2/channels → 201')
    expect(details).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;')
    expect(html).not.toContain('<script')
    expect(html).not.toMatch(/<link|<img|<iframe|@import|url\(|src=/i)
  })

  test('never shows a registered secret', () => {
    registerSecret('s3cr3t-in-a-message')
    const r = fixtureRun({
      changes: {
        [MUST_FAIL]: {
          status: 'failed',
          message: 'got s3cr3t-in-a-message',
          evidence: ['POST /x → 200\n  response: {"access_token":"tok-abc-123"} Bearer abc.def.ghi'],
        },
      },
    })
    for (const text of [buildHtml(reportModel(r)), buildMarkdown(reportModel(r)), buildJunit(reportModel(r))]) {
      expect(text).not.toContain('s3cr3t-in-a-message')
      expect(text).not.toContain('tok-abc-123')
      expect(text).not.toContain('abc.def.ghi')
    }
  })
})

describe('summary.md', () => {
  test('has the verdict, the failures and a matrix row for every clause, with metacharacters neutralised', () => {
    const md = buildMarkdown(reportModel(faulty()))
    expect(md.split('\n')[0]).toBe('## ❌ Conformance: Non-conformant')
    for (const c of CLAUSES) expect(md, c.id).toContain(`| \`${c.id}\` |`)
    expect(md).toContain(`| ❌ fail | MUST | \`${MUST_FAIL}\` |`)
    expect(md).toContain(`| ⚠️ warning | SHOULD | \`${SHOULD_FAIL}\` |`)
    expect(md).not.toContain('<script>')
    const tableRows = md.split('\n').filter((l) => l.startsWith('| ❌ fail'))
    // Five cells: a pipe in a message must not open a sixth.
    for (const row of tableRows) expect(row.replace(/\\\|/g, '').split('|').length).toBe(7)
  })
})

describe('history and the diff of two runs', () => {
  test('history files are named by start time and run id, and the last 30 are kept', () => {
    const dir = tmp('hist')
    const src = join(dir, 'results.json')
    expect(historyName({ startedAt: '2025-11-21T02:03:04.567Z', runId: 'abc123' })).toBe('20251121T020304Z-abc123.json')
    for (let i = 0; i < HISTORY_LIMIT + 3; i++) {
      const r = fixtureRun({ runId: `r${String(i).padStart(3, '0')}`, startedAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString() })
      writeFileSync(src, JSON.stringify(r))
      saveToHistory(join(dir, 'history'), src, r)
    }
    const names = readdirSync(join(dir, 'history')).sort()
    expect(names).toHaveLength(HISTORY_LIMIT)
    expect(names[0]).toBe('20250101T000300Z-r003.json')
    expect(readHistory(join(dir, 'history'))).toHaveLength(HISTORY_LIMIT)
  })

  test('the diff of a clean and a faulty run lists exactly the newly failing clauses', () => {
    const d = diffRuns(clean(), faulty())
    expect([...new Set(d.newFailures.map((e) => e.clause))].sort()).toEqual([MUST_FAIL, SHOULD_FAIL, MUST_FAIL_2].sort())
    expect(d.fixed).toEqual([])
    expect(d.stillFailing).toEqual([])
    const back = diffRuns(faulty(), clean())
    expect(back.fixed.map((e) => e.clause).sort()).toEqual([MUST_FAIL, SHOULD_FAIL, MUST_FAIL_2].sort())
    expect(back.newFailures).toEqual([])
    expect(formatDiff(d)).toMatch(/new failures \(3\):[\s\S]*newly failing clauses: /)
  })

  test('still failing, known, and flaky across the history are told apart', () => {
    const third = fixtureRun({
      runId: 'ccc333',
      startedAt: '2025-11-22T02:00:00.000Z',
      changes: { [MUST_FAIL]: { status: 'failed' }, 'channels.search.size': { status: 'flaky' }, [MUST_FAIL_2]: { status: 'failed' } },
      expectations: [{ clause: MUST_FAIL_2, reason: 'ticket', expires: '2099-01-01' }],
    })
    const d = diffRuns(faulty(), third, [clean(), faulty()])
    expect(d.stillFailing.map((e) => e.clause)).toEqual([MUST_FAIL])
    expect(d.known.map((e) => e.clause)).toEqual([MUST_FAIL_2])
    expect(d.fixed.map((e) => e.clause)).toEqual([SHOULD_FAIL])
    expect(d.flaky.map((e) => e.clause)).toEqual(['channels.search.size'])
    // passed → failed → passed → failed over four runs: flaky by its history (one failure and a fix is not).
    const older = { ...clean(), runId: 'x', startedAt: '2025-11-21T12:00:00.000Z' }
    const fourth = { ...faulty(), runId: 'ddd444', startedAt: '2025-11-23T02:00:00.000Z' }
    const flip = diffRuns(older, fourth, [clean(), faulty()])
    expect(flip.flaky.map((e) => e.clause)).toContain(MUST_FAIL)
  })

  test('writeReports compares with the previous run of the same target only', () => {
    const dir = tmp('reports')
    const write = (r: RunResults) => writeReports(modelWithHistory(r, dir), dir, { resultsPath: writeResults(dir, r) })
    expect(write(clean()).diff).toBeNull()
    const other = fixtureRun({
      runId: 'zzz999',
      startedAt: '2025-11-20T12:00:00.000Z',
      target: 'https://other.example.com (user API /u, message API /m)',
      changes: { [MUST_FAIL]: { status: 'failed' } },
    })
    write(other)
    const w = write(faulty())
    expect(w.diff!.old.runId).toBe('aaa111')
    for (const f of ['junit.xml', 'report.html', 'summary.md']) expect(existsSync(join(dir, f)), f).toBe(true)
    expect(readdirSync(join(dir, 'history'))).toHaveLength(3)
    const md = readFileSync(join(dir, 'summary.md'), 'utf8')
    expect(md).toMatch(/Compared with run aaa111/)
    expect(md).toMatch(/\*\*new failures\*\* \(3\)/)
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/<h3>new failures \(3\)<\/h3>/)
  })
})

describe('npm run report:diff', () => {
  const diffCli = (...args: string[]) =>
    spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/report-diff.ts', ...args], { cwd: ROOT, encoding: 'utf8' })

  test('prints the difference of two runs and exits 0', () => {
    const dir = tmp('diff')
    writeFileSync(join(dir, 'old.json'), JSON.stringify(clean()))
    writeFileSync(join(dir, 'new.json'), JSON.stringify(faulty()))
    const out = diffCli(join(dir, 'old.json'), join(dir, 'new.json'))
    expect(out.stderr).toBe('')
    expect(out.status).toBe(0)
    expect(out.stdout).toContain('new failures (3):')
    expect(out.stdout).toContain(`newly failing clauses: ${[MUST_FAIL, MUST_FAIL_2, SHOULD_FAIL].sort((a, b) => a.localeCompare(b)).join(', ')}`)
  })

  test('exits 2 with one message on a missing or invalid file', () => {
    const dir = tmp('diff-bad')
    writeFileSync(join(dir, 'ok.json'), JSON.stringify(clean()))
    writeFileSync(join(dir, 'bad.json'), '{"hello": 1}')
    const missing = diffCli(join(dir, 'nope.json'), join(dir, 'ok.json'))
    expect(missing.status).toBe(2)
    expect(missing.stderr.trim()).toBe(`report:diff: cannot read ${join(dir, 'nope.json')}: no such file`)
    const invalid = diffCli(join(dir, 'ok.json'), join(dir, 'bad.json'))
    expect(invalid.status).toBe(2)
    expect(invalid.stderr.trim().split('\n')).toHaveLength(1)
    expect(invalid.stderr).toMatch(/is not a results\.json of the suite/)
    expect(diffCli(join(dir, 'ok.json')).status).toBe(2)
  })
})

const CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome'].find((bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status === 0)

describe('report.html in a headless browser', () => {
  // The test opens every <details> with a script added to a copy of the report (the report itself has none),
  // then reads back what the browser laid out.
  const PROBE = `<script>
for (const d of document.querySelectorAll('details')) d.open = true
const shown = [...document.querySelectorAll('details')].filter((d) => [...d.children].some((c) => c.tagName !== 'SUMMARY' && c.getBoundingClientRect().height > 0))
const out = { verdict: document.getElementById('verdict').innerText, details: document.querySelectorAll('details').length, failures: document.querySelectorAll('details.failure').length, shown: shown.length,
  resources: performance.getEntriesByType('resource').length, text: document.body.innerText }
const pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre)
</script>`

  test.skipIf(!CHROMIUM)(
    'renders, shows the verdict, and opens the failure details (skipped when Chromium is not installed: apt-get install chromium)',
    () => {
      const dir = tmp('chromium')
      const html = buildHtml(reportModel(faulty(), { diff: diffRuns(clean(), faulty()) }))
      writeFileSync(join(dir, 'probe.html'), html.replace('</body>', `${PROBE}</body>`))
      const run = spawnSync(
        CHROMIUM!,
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          `--user-data-dir=${join(dir, 'profile')}`,
          '--dump-dom',
          `file://${join(dir, 'probe.html')}`,
        ],
        { encoding: 'utf8', timeout: 90_000 },
      )
      const m = /<pre id="probe">([^<]*)<\/pre>/.exec(run.stdout)
      expect(m, `no probe output; chromium exit ${run.status}, stderr: ${run.stderr.slice(-500)}`).not.toBeNull()
      const probe = JSON.parse(
        m![1]!
          .replace(/&quot;/g, '"')
          .replace(/&lt;/g, '<')
          .replace(/&gt;/g, '>')
          .replace(/&amp;/g, '&'),
      ) as { verdict: string; details: number; failures: number; shown: number; resources: number; text: string }
      expect(probe.verdict).toMatch(/^Verdict: Non-conformant/)
      expect(probe.failures).toBe(faulty().checks.filter((c) => c.status === 'failed' || c.status === 'error').length)
      expect(probe.shown).toBe(probe.details)
      expect(probe.resources).toBe(0)
      expect(probe.text).toContain('/maxItems: got 10 (number), want -1 <script>alert("x")</script>')
      expect(probe.text).toContain('Expected, and what came back')
      expect(probe.text).toContain('POST /message/api/v2/channels → 201')
    },
    120_000,
  )

  if (!CHROMIUM) test('Chromium is not installed: the browser check above was skipped (apt-get install chromium)', () => {})
})
