/**
 * The reports of real runs (`npm run conformance` as a child process) against the embedded reference server,
 * with known secret values in the configuration: a clean run, then (once the fault catalogue has two faults)
 * a run with two faults on, into the same report directory. Every file under the report directory and the
 * console output are searched for the secrets and for unredacted tokens; the faulty run's reports must name
 * the faults' clauses, and its diff against the clean run must list exactly the newly failing clauses.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { clause } from '../helpers/spec/clauses'
import { REDACTION_MASK } from '../helpers/http/redact'
import type { RunResults } from '../helpers/reports/results'
import { clausesOf, FAULTS, type Fault } from '../reference/faults'
import { ROOT, runSuite, type SuiteRun } from '../testing/run-suite'

const SECRETS = {
  CLIENT_ID: 'ct-secret-test-app',
  CLIENT_SECRET: 'cs-Zq81-never-print-me',
  USER_A_NAME: 'alice.secret',
  USER_A_PASSWORD: 'pwA-71x-never-print-me',
  USER_B_NAME: 'bob.secret',
  USER_B_PASSWORD: 'pwB-52y-never-print-me',
  USER_C_NAME: 'carol.secret',
  USER_C_PASSWORD: 'pwC-33z-never-print-me',
}
const SECRET_VALUES = [SECRETS.CLIENT_SECRET, SECRETS.USER_A_PASSWORD, SECRETS.USER_B_PASSWORD, SECRETS.USER_C_PASSWORD]
const BASIC = Buffer.from(`${SECRETS.CLIENT_ID}:${SECRETS.CLIENT_SECRET}`).toString('base64')

/** Two faults on different MUST clauses, so the faulty run has two distinct newly failing clauses. */
function twoFaults(): Fault[] {
  const picked: Fault[] = []
  for (const f of FAULTS) {
    const ids = clausesOf(f)
    if (!ids.every((id) => clause(id).level === 'MUST')) continue
    if (picked.some((p) => clausesOf(p).some((id) => ids.includes(id)))) continue
    picked.push(f)
    if (picked.length === 2) break
  }
  return picked
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

/** Every leak in a text: a secret value, the Basic credentials, a bearer token or a token field that is not masked. */
function leaks(text: string): string[] {
  const found: string[] = []
  for (const s of [...SECRET_VALUES, BASIC]) if (text.includes(s)) found.push(`secret ${s.slice(0, 6)}…`)
  // A reproducer names the token as a shell variable (${USER_A_TOKEN}): a placeholder, not a value.
  for (const m of text.matchAll(/\b(Bearer|Basic)\s+([^\s"'\\,;]+)/g))
    if (!m[2]!.startsWith(REDACTION_MASK) && !/^(<|&lt|\$\{[A-Z_]+\})/.test(m[2]!)) found.push(`unredacted ${m[1]} value ${m[2]!.slice(0, 8)}…`)
  for (const m of text.matchAll(/\\?"(access_token|token|client_secret|password)\\?"\s*:\s*\\?"([^"\\]*)/g)) {
    if (m[2] && m[2] !== REDACTION_MASK && !/^[*•x#]+$/i.test(m[2])) found.push(`unredacted ${m[1]} field ${m[2].slice(0, 8)}…`)
  }
  return found
}

const reportDir = mkdtempSync(join(tmpdir(), 'ct-reports-'))
/** The report directory as the clean run left it (the faulty run writes over the same directory). */
const cleanDir = mkdtempSync(join(tmpdir(), 'ct-reports-clean-'))
let knownDir: string | null = null
const faults = twoFaults()
let cleanRun: SuiteRun
let faultyRun: SuiteRun | null = null
const readResults = () => JSON.parse(readFileSync(join(reportDir, 'results.json'), 'utf8')) as RunResults
let cleanResults: RunResults
let faultyResults: RunResults | null = null
let cleanSummary: string
/** The two faults again, with every failing clause of the faulty run listed as a known failure. */
let knownRun: SuiteRun | null = null
let knownResults: RunResults | null = null

beforeAll(async () => {
  const env = { ...SECRETS, REPORT_DIR: reportDir }
  cleanRun = await runSuite([], env)
  cleanResults = readResults()
  cpSync(reportDir, cleanDir, { recursive: true })
  cleanSummary = readFileSync(join(cleanDir, 'summary.md'), 'utf8')
  if (faults.length === 2) {
    faultyRun = await runSuite(
      faults.flatMap((f) => ['--fault', f.name]),
      env,
    )
    faultyResults = readResults()
    const failing = [...new Set(faultyResults.checks.filter((c) => c.status === 'failed').map((c) => c.clause))]
    knownDir = mkdtempSync(join(tmpdir(), 'ct-known-'))
    const file = join(knownDir, 'expectations.json')
    writeFileSync(
      file,
      JSON.stringify({
        expectations: failing.map((id) => ({
          clause: id,
          reason: 'self-test: switched on as a fault',
          link: 'https://example.com/ticket/1',
          expires: '2099-12-31',
        })),
      }),
    )
    knownRun = await runSuite(
      faults.flatMap((f) => ['--fault', f.name]),
      { ...SECRETS, REPORT_DIR: knownDir, EXPECTATIONS_FILE: file },
    )
    knownResults = JSON.parse(readFileSync(join(knownDir, 'results.json'), 'utf8')) as RunResults
  }
}, 600_000)

describe('a clean run writes every report', () => {
  test('exits 0 and prints where the reports went', () => {
    expect(cleanRun.stderr).toBe('')
    expect(cleanRun.code, cleanRun.stdout).toBe(0)
    expect(cleanRun.stdout).toMatch(/^reports: .*report\.html, .*summary\.md, .*junit\.xml, .*allure-results\/.*; history: /m)
  })

  test('writes junit.xml, report.html, summary.md, allure-results and its history entry', () => {
    for (const f of ['results.json', 'junit.xml', 'report.html', 'summary.md']) expect(existsSync(join(cleanDir, f)), f).toBe(true)
    expect(cleanSummary.split('\n')[0]).toBe('## ✅ Conformance: Conformant')
    expect(readdirSync(join(cleanDir, 'history')).some((n) => n.endsWith(`-${cleanResults.runId}.json`))).toBe(true)
    expect(cleanResults.targetSlug).toBe('embedded')
    const junit = readFileSync(join(cleanDir, 'junit.xml'), 'utf8')
    // Findings that passed are told inside their check's case (no zero-time cases of their own).
    expect(junit.match(/<testcase /g)!.length).toBe(cleanResults.checks.filter((c) => !(c.parent && (c.status === 'passed' || c.status === 'flaky'))).length)
  })

  test('labels every check in allure-results: epic, feature, story, severity, and a step per exchange', () => {
    const dir = join(cleanDir, 'allure-results')
    const results = readdirSync(dir)
      .filter((n) => n.endsWith('-result.json'))
      .map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as { name: string; labels: { name: string; value: string }[]; steps: { name: string }[] })
    expect(results.length).toBe(cleanResults.checks.filter((c) => !c.parent).length)
    for (const r of results) {
      const label = (n: string) => r.labels.find((l) => l.name === n)?.value
      expect(label('epic'), r.name).toBeTruthy()
      expect(label('feature'), r.name).toBeTruthy()
      expect(label('story'), r.name).toMatch(/^[a-z0-9.-]+: /)
      expect(['critical', 'normal', 'minor'], r.name).toContain(label('severity'))
    }
    const withSteps = results.filter((r) => r.steps.some((s) => /^(GET|POST|PUT|DELETE) \/\S* → \d{3} \(\d+ ms/.test(s.name)))
    expect(withSteps.length).toBeGreaterThan(results.length / 2)
  })
})

describe.skipIf(faults.length < 2)(
  `a run with two faults on (${faults.map((f) => f.name).join(', ') || 'skipped: reference/faults has fewer than two MUST faults yet'})`,
  () => {
    test("exits 1 and names both faults' clauses in results, junit.xml, report.html and summary.md", () => {
      expect(faultyRun!.code, faultyRun!.stdout).toBe(1)
      const failed = new Set(faultyResults!.checks.filter((c) => c.status === 'failed').map((c) => c.clause))
      const junit = readFileSync(join(reportDir, 'junit.xml'), 'utf8')
      const html = readFileSync(join(reportDir, 'report.html'), 'utf8')
      const md = readFileSync(join(reportDir, 'summary.md'), 'utf8')
      expect(html).toContain('Verdict: Non-conformant<')
      expect(md.split('\n')[0]).toBe('## ❌ Conformance: Non-conformant')
      for (const f of faults) {
        // A fault may name several clauses; the suite must catch it on one of them, and every report names it.
        const id = clausesOf(f).find((c) => failed.has(c))
        expect(id, `${f.name} → ${clausesOf(f).join(' or ')}`).toBeDefined()
        expect(junit).toMatch(new RegExp(`<failure [^>]*type="MUST ${id!.replace(/\./g, '\\.')}"`))
        expect(html).toContain(`<code>${id}</code>`)
        expect(md).toContain(`| ❌ fail | MUST | \`${id}\` |`)
      }
    })

    test('the summary, the console and report:diff list exactly the newly failing clauses', () => {
      const failing = [...new Set(faultyResults!.checks.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => c.clause))].sort()
      expect(faultyRun!.stdout).toContain(`newly failing: ${failing.join(', ')}`)
      const md = readFileSync(join(reportDir, 'summary.md'), 'utf8')
      expect(md).toContain(`Compared with run ${cleanResults.runId}`)
      const history = join(reportDir, 'history')
      const [older, newer] = [cleanResults, faultyResults!].map((r) =>
        join(
          history,
          readdirSync(history).find((n) => n.endsWith(`-${r.runId}.json`))!,
        ),
      )
      const out = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/report-diff.ts', older!, newer!], {
        cwd: ROOT,
        encoding: 'utf8',
      })
      expect(out.status, out.stderr).toBe(0)
      expect(out.stdout).toContain(`newly failing clauses: ${failing.join(', ')}`)
    })

    test('attaches the redacted exchanges of each failed check in allure-results', () => {
      const dir = join(reportDir, 'allure-results')
      const failed = readdirSync(dir)
        .filter((n) => n.endsWith('-result.json'))
        .map(
          (n) =>
            JSON.parse(readFileSync(join(dir, n), 'utf8')) as {
              status: string
              attachments: { source: string }[]
              steps: { attachments: { source: string }[] }[]
            },
        )
        .filter((r) => r.status === 'failed')
      expect(failed.length).toBeGreaterThan(0)
      for (const r of failed) {
        const sources = [...r.attachments, ...r.steps.flatMap((s) => s.attachments)].map((a) => a.source)
        expect(sources.length).toBeGreaterThan(0)
        for (const s of sources) expect(existsSync(join(dir, s))).toBe(true)
      }
    })
  },
)

describe.skipIf(faults.length < 2)('the same faults listed as known failures', () => {
  test('exit 0, verdict known-failures-only, and the reports say known', () => {
    expect(knownRun!.code, knownRun!.stdout).toBe(0)
    expect(knownResults!.verdict).toBe('known-failures-only')
    expect(knownResults!.counts.MUST.failed).toBe(0)
    expect(knownResults!.counts.MUST.known).toBeGreaterThan(0)
    expect(knownResults!.expectations!.entries.every((e) => e.outcome === 'known')).toBe(true)
    expect(knownRun!.stdout).toMatch(/known failures file .*expectations\.json: \d+ known failure\(s\)/)
  })
})

describe('a bad known-failures file', () => {
  test('ends the run at once with exit 2 and one message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ct-badexp-'))
    writeFileSync(join(dir, 'exp.json'), JSON.stringify({ expectations: [{ clause: 'no.such.clause', reason: 'r', expires: '2099-01-01' }] }))
    const run = await runSuite([], { EXPECTATIONS_FILE: join(dir, 'exp.json') })
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/^conformance: .*exp\.json has 1 problem\(s\):\n  - entry 1 \(no\.such\.clause\): "clause" must be a clause id/)
  })
})

describe('no secret in any output', () => {
  test('the scanner finds each kind of leak (negative control)', () => {
    expect(leaks(`x ${SECRETS.USER_B_PASSWORD} y`)).toHaveLength(1)
    expect(leaks(`authorization: Basic ${BASIC}`).length).toBeGreaterThan(0)
    expect(leaks('Authorization: Bearer 9f8e7d6c5b4a')).toEqual(['unredacted Bearer value 9f8e7d6c…'])
    expect(leaks('{\\"access_token\\":\\"9f8e7d6c5b4a\\"}')).toEqual(['unredacted access_token field 9f8e7d6c…'])
    expect(leaks(`Bearer ${REDACTION_MASK} "access_token":"${REDACTION_MASK}" "password":"********" Bearer &lt;ACCESS_TOKEN&gt;`)).toEqual([])
  })

  test('the secrets were in use (the embedded server was seeded with them)', () => {
    expect(cleanResults.verdict).toBe('conformant')
  })

  test('no file under the report directories contains a secret or an unredacted token', () => {
    const files = [reportDir, cleanDir, knownDir].filter((d): d is string => d !== null).flatMap(filesUnder)
    expect(files.some((f) => f.includes('allure-results'))).toBe(true)
    expect(files.some((f) => f.includes('history'))).toBe(true)
    for (const f of ['results.json', 'junit.xml', 'report.html', 'summary.md', 'exchanges.har'])
      expect(
        files.some((x) => x.endsWith(`/${f}`)),
        f,
      ).toBe(true)
    const found = files.flatMap((f) => leaks(readFileSync(f, 'utf8')).map((l) => `${f}: ${l}`))
    expect(found).toEqual([])
  })

  test('the reproducers of the faulty run exist and name credentials only as variables', () => {
    if (!faultyResults) return
    const scripts = faultyResults.checks.filter((c) => c.status === 'failed').map((c) => c.reproducer)
    expect(scripts.length).toBeGreaterThan(0)
    for (const s of scripts) {
      expect(s).toMatch(/^#!\/bin\/sh\n/)
      expect(leaks(s!)).toEqual([])
      for (const v of Object.values(SECRETS).filter((x) => x.includes('never'))) expect(s).not.toContain(v)
    }
    expect(leaks('curl -H "authorization: Bearer ${USER_A_TOKEN}"')).toEqual([])
  })

  test('the console output of the runs contains none either', () => {
    for (const run of [cleanRun, faultyRun, knownRun].filter((r): r is SuiteRun => r !== null)) expect(leaks(run.stdout + run.stderr)).toEqual([])
  })
})
