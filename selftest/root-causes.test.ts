/**
 * Root causes, reproducers, latency and no masking, on real runs against the reference server:
 * - four catalogue faults of different areas switched on together: the root-cause section lists exactly one
 *   entry per fault, and the console, summary.md and report.html lead with it;
 * - each cause's reproducer, run with sh against that same server with .env.example's variables (it signs
 *   the accounts in itself), shows the deviation: exit 1;
 * - a renamed send-result field together with wrong `requested` counting: both reported, each its own cause.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { rootCauses, type RootCause } from '../helpers/reports/causes'
import { clausesOf, FAULTS } from '../reference/faults'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { runSuite, type SuiteRun } from '../testing/run-suite'

const FOUR = ['push-sent-message-id', 'items-publish-refused', 'channels-date-no-offset', 'tags-get-bare-array']

let ref: ReferenceTarget
let run: SuiteRun
let causes: RootCause[]
let masking: SuiteRun

beforeAll(async () => {
  ref = await startReference({ faults: FOUR })
  run = await runSuite([], ref.env)
  causes = run.results ? rootCauses(run.results) : []
  masking = await runSuite(['--fault', 'messages-sent-message-id-renamed', '--fault', 'messages-unknown-ids-counted'])
}, 300_000)
afterAll(async () => {
  await ref?.close()
})

/** The clauses a fault may fail: its own and its declared consequences. */
function allowed(name: string): Set<string> {
  const f = FAULTS.find((x) => x.name === name)!
  return new Set([...clausesOf(f), ...(f.consequences ?? []).map((c) => c.clause)])
}

describe('several faults on together', () => {
  test('the run fails, and lists exactly one root cause per fault', () => {
    expect(run.code, run.stdout + run.stderr).toBe(1)
    const summary = causes.map((c) => `${c.level} ${c.clause}: ${c.problem} (${c.checks.length} checks, ${c.blocked.length} blocked)`).join('\n')
    expect(causes, summary).toHaveLength(FOUR.length)
    for (const name of FOUR) {
      const mine = causes.filter((c) => allowed(name).has(c.clause))
      expect(
        mine.map((c) => c.problem),
        `${name}\n${summary}`,
      ).toHaveLength(1)
    }
    // Verdict and counts stay per check: the causes only group them.
    expect(run.results!.counts.MUST.failed).toBeGreaterThan(FOUR.length)
  })

  test('console, summary.md and report.html lead with the root causes, each with its spec quote', () => {
    const out = run.stdout
    expect(out).toContain(`Root causes (${FOUR.length};`)
    expect(out.indexOf('Root causes (')).toBeLessThan(out.indexOf('\nFAIL '))
    const md = readFileSync(join(run.reportDir, 'summary.md'), 'utf8')
    expect(md).toContain(`### Root causes (${FOUR.length} deviations`)
    expect(md.indexOf('### Root causes')).toBeLessThan(md.indexOf('### Failures'))
    expect(md).toMatch(/1 deviation → \d+ failed checks?/)
    const html = readFileSync(join(run.reportDir, 'report.html'), 'utf8')
    expect(html.indexOf('id="root-causes"')).toBeGreaterThan(0)
    expect(html.indexOf('id="root-causes"')).toBeLessThan(html.indexOf('id="failures"'))
    expect(html.match(/<div class="cause /g)).toHaveLength(FOUR.length)
    expect(html).toContain('<button type="button" class="copy"')
    expect(html).not.toContain('<script')
  })

  test('summary.md shows the schema error itself, and junit.xml states the problem without run-specific names', () => {
    const md = readFileSync(join(run.reportDir, 'summary.md'), 'utf8')
    expect(md).not.toMatch(/\| body does not match schema '[\w-]+':? \|/)
    expect(md).toMatch(/required property 'pushId' is missing/)
    const junit = readFileSync(join(run.reportDir, 'junit.xml'), 'utf8')
    const messages = [...junit.matchAll(/<failure message="([^"]*)"/g)].map((m) => m[1]!)
    expect(messages.length).toBeGreaterThan(0)
    for (const m of messages) {
      expect(m).toMatch(/^\[[\w.-]+ MUST\] /)
      expect(m, m).not.toMatch(/\bct[0-9a-f]{6}|[0-9a-f]{32}/)
    }
    expect(messages.some((m) => m.includes('POST /channels/{name}/items: status: got 403'))).toBe(true)
    // Passing findings are told inside their check's case, not as zero-time cases of their own.
    expect(junit.match(/<testcase /g)!.length).toBeLessThan(run.results!.checks.length)
  })

  test('results.json has latency per endpoint template, and exchanges.har the redacted exchanges', () => {
    const rows = run.results!.latency!
    const publish = rows.find((r) => r.endpoint === 'POST /channels/{name}/items')!
    expect(publish.count).toBeGreaterThan(0)
    for (const r of rows) {
      expect(r.endpoint).toMatch(/^(GET|POST|PUT|DELETE) \/[\w/{}]*$/)
      expect(r.p50).toBeLessThanOrEqual(r.p95)
      expect(r.p95).toBeLessThanOrEqual(r.max)
    }
    expect(run.stdout).toContain('latency per endpoint')
    const har = JSON.parse(readFileSync(join(run.reportDir, 'exchanges.har'), 'utf8')) as {
      log: { entries: { request: { headers: { name: string; value: string }[] } }[] }
    }
    expect(har.log.entries.length).toBeGreaterThan(100)
    const auth = har.log.entries.flatMap((e) => e.request.headers).filter((h) => h.name === 'authorization')
    expect(auth.length).toBeGreaterThan(0)
    for (const h of auth) expect(h.value).toMatch(/^(\S+ )?«redacted»$/)
  })

  test("each cause's reproducer, run with sh against the faulty server and .env.example's variables, shows the deviation (exit 1)", async () => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...ref.env }
    for (const c of causes) {
      const script = c.example.reproducer
      expect(script, c.problem).toBeTruthy()
      expect(script).toMatch(/signin "\$USER_[ABC]_NAME" "\$USER_[ABC]_PASSWORD"/)
      // Asynchronously: the server answering it runs in this process.
      const out = await promisify(execFile)('sh', ['-c', script!], { env, encoding: 'utf8', timeout: 30_000 }).then(
        (r) => ({ code: 0, text: r.stdout + r.stderr }),
        (err: { code?: number; stdout?: string; stderr?: string }) => ({ code: err.code ?? -1, text: `${err.stdout ?? ''}${err.stderr ?? ''}` }),
      )
      expect(out.code, `${c.problem}\n${out.text.slice(-1500)}`).toBe(1)
      expect(out.text).toContain('DEVIATION SHOWS')
    }
    expect(
      ref.channelNames().filter((n) => /^ct/i.test(n)),
      'the reproducers deleted what they made',
    ).toEqual([])
  })
})

describe('one deviation never hides another', () => {
  test('a renamed send-result field and wrong requested counting are two root causes', () => {
    expect(masking.code, masking.stdout + masking.stderr).toBe(1)
    const found = rootCauses(masking.results!)
    const shape = found.filter((c) => /schema 'send-result' .*'messageId' is missing/.test(c.problem))
    const counting = found.filter((c) => /\/count\/requested/.test(c.problem))
    expect(shape, found.map((c) => c.problem).join('\n')).toHaveLength(1)
    expect(counting, found.map((c) => c.problem).join('\n')).toHaveLength(1)
    // The check that meets both reports both: the shape failure did not stop its behaviour check.
    const both = masking.results!.checks.find((c) => c.id.startsWith('messages.send.unknown-not-matched:') && !c.parent)!
    expect(both.status).toBe('failed')
    expect(both.message).toMatch(/'messageId' is missing/)
    expect(both.message).toMatch(/\/count\/requested: got 2/)
    expect(existsSync(join(masking.reportDir, 'exchanges.har'))).toBe(true)
  })
})
