/**
 * junit.xml for CI: one <testsuite> per spec area, one <testcase> per result of results.json, with the clause
 * id, level, section and status as properties. A failure carries the redacted message and exchanges.
 * Mapping: MUST failed → <failure>; SHOULD failed → <failure> under STRICT, else a passing case with the
 * warning in <system-out> (it does not fail the run, so it must not turn CI red); error → <error>;
 * skipped → <skipped>; known → <skipped> naming the known-failure entry; INFO → passing, observation in <system-out>.
 * CI viewers (GitHub annotations, test-reporter actions, Jenkins) show the failure's `message` attribute only:
 * it states the problem (endpoint, pointer, got, want) with run-specific names normalised, so it is the same
 * from run to run; the real values stay in the body. A SHOULD warning carries a `warning` property and a
 * <system-err> line as well. Findings that passed are listed in their check's <system-out>, not as cases of
 * their own (hundreds of zero-time cases would skew duration charts); findings that did not pass stay cases,
 * without a time of their own.
 */
import { AREAS } from '../spec/clauses'
import { redact } from '../http/redact'
import type { EntryView, ReportModel } from './model'
import type { CheckResult, StoredCause } from './results'

/** XML-escapes redacted text and drops characters XML 1.0 cannot carry. */
export function xml(text: unknown): string {
  return redact(String(text ?? ''))
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[ch]!)
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3)
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').find((l) => l.trim()) ?? ''
}

/** The failure's message attribute: clause, level and the stable problem statement (the model's `problem` of the entry). */
export function stableMessage(c: CheckResult, view: Pick<EntryView, 'problem'>): string {
  return view.problem ? `[${c.clause} ${c.level}] ${view.problem}` : firstLine(c.message)
}

function body(c: CheckResult): string {
  const parts = [c.message ?? '']
  if (c.evidence?.length) parts.push('', 'Requests and responses (redacted, newest last):', ...c.evidence.map((e) => `- ${e}`))
  if (c.reproducer) parts.push('', 'Reproducer (sh and curl, with the variables of .env; exit 1 while the deviation shows):', c.reproducer)
  return parts.join('\n')
}

/** A finding that passed: told inside its check's case. */
function folded(c: CheckResult): boolean {
  return !!c.parent && (c.status === 'passed' || c.status === 'flaky')
}

type Kind = 'failure' | 'error' | 'skipped' | 'warning' | 'ok'

function kindOf(c: CheckResult, strict: boolean): Kind {
  if (c.status === 'failed') return c.level === 'SHOULD' && !strict ? 'warning' : 'failure'
  if (c.status === 'error') return 'error'
  if (c.status === 'skipped' || c.status === 'known' || c.status === 'blocked') return 'skipped'
  return 'ok'
}

function testcase(c: CheckResult, view: EntryView, strict: boolean, children: CheckResult[] = [], cause?: StoredCause): string {
  const kind = kindOf(c, strict)
  const props: [string, string][] = [
    ['clause', c.clause],
    ['level', c.level],
    ['section', c.section],
    ['status', c.status],
    ['file', c.file],
    ...(c.parent ? ([['parent', c.parent]] as [string, string][]) : []),
    ...(c.blockedBy ? ([['blockedBy', c.blockedBy]] as [string, string][]) : []),
    ...(c.expectation ? ([['expectation', `${c.expectation.outcome}: ${c.expectation.reason}${c.expectation.link ? ` ${c.expectation.link}` : ''} (until ${c.expectation.expires})`]] as [string, string][]) : []),
    ...(kind === 'warning' ? ([['warning', stableMessage(c, view)]] as [string, string][]) : []),
    // The deviation this entry belongs to (results.json `causes`): one id for every case one deviation failed or blocked.
    ...(cause ? ([['cause', `${cause.id}: ${cause.headline}`]] as [string, string][]) : []),
  ]
  // A finding's time is its check's: none of its own.
  const time = c.parent ? '' : ` time="${seconds(c.durationMs)}"`
  const lines = [`    <testcase classname="${xml(c.clause)}" name="${xml(c.id)}"${time} file="${xml(c.file)}">`]
  lines.push('      <properties>')
  for (const [name, value] of props) lines.push(`        <property name="${xml(name)}" value="${xml(value)}"/>`)
  lines.push('      </properties>')
  if (kind === 'failure') lines.push(`      <failure message="${xml(stableMessage(c, view))}" type="${xml(`${c.level} ${c.clause}`)}">${xml(body(c))}</failure>`)
  else if (kind === 'error') lines.push(`      <error message="${xml(firstLine(c.message))}" type="error">${xml(body(c))}</error>`)
  else if (kind === 'skipped') {
    const why = c.status === 'known' && c.expectation
      ? `known failure: ${c.expectation.reason}${c.expectation.link ? ` (${c.expectation.link})` : ''}, until ${c.expectation.expires}`
      : c.status === 'blocked' ? `blocked by ${c.blockedBy ?? 'a failed set-up step'}: a set-up step failed, so this clause could not be judged` : 'skipped'
    lines.push(`      <skipped message="${xml(why)}"/>`)
    if (c.status === 'known' || c.status === 'blocked') lines.push(`      <system-out>${xml(body(c))}</system-out>`)
  } else if (kind === 'warning') {
    lines.push(`      <system-out>${xml(`WARNING (SHOULD, not failing the run without STRICT=true)\n${body(c)}`)}</system-out>`)
    lines.push(`      <system-err>${xml(`WARNING ${stableMessage(c, view)}`)}</system-err>`)
  } else {
    const notes = [c.observation, ...children.map((f) => `${f.level} ${f.clause}: ${f.observation ?? f.status}`)].filter(Boolean)
    if (notes.length) lines.push(`      <system-out>${xml(notes.join('\n'))}</system-out>`)
  }
  lines.push('    </testcase>')
  return lines.join('\n')
}

export function buildJunit(m: ReportModel): string {
  const r = m.results
  const areas = [...new Set([...Object.keys(AREAS), ...r.checks.map((c) => c.area)])]
  const suites: string[] = []
  const childrenOf = new Map<string, CheckResult[]>()
  for (const c of r.checks) if (c.parent && folded(c)) childrenOf.set(c.parent, [...(childrenOf.get(c.parent) ?? []), c])
  // The deviation named on a case: the last of its entry's causes, when results.json stores them.
  const causeOf = (c: CheckResult): StoredCause | undefined => (m.causesStored ? m.views.get(c)!.causes.at(-1) : undefined)
  const total = { tests: 0, failures: 0, errors: 0, skipped: 0 }
  for (const area of areas) {
    const checks = r.checks.filter((c) => c.area === area && !folded(c))
    if (!checks.length) continue
    const kinds = checks.map((c) => kindOf(c, r.strict))
    const n = { tests: checks.length, failures: kinds.filter((k) => k === 'failure').length, errors: kinds.filter((k) => k === 'error').length, skipped: kinds.filter((k) => k === 'skipped').length }
    total.tests += n.tests
    total.failures += n.failures
    total.errors += n.errors
    total.skipped += n.skipped
    const time = checks.reduce((ms, c) => ms + c.durationMs, 0)
    suites.push(
      `  <testsuite name="${xml(`${area}: ${(AREAS as Record<string, string>)[area] ?? area}`)}" tests="${n.tests}" failures="${n.failures}" errors="${n.errors}" skipped="${n.skipped}" time="${seconds(time)}" timestamp="${xml(r.startedAt.replace(/\.\d+Z$/, ''))}">`,
      // Which server was judged, on every suite: a CI view of one suite must not hide that it was the bundled one.
      '    <properties>',
      `      <property name="target" value="${xml(r.target.display)}"/>`,
      `      <property name="target.embedded" value="${r.target.embedded}"/>`,
      '    </properties>',
      ...checks.map((c) => testcase(c, m.views.get(c)!, r.strict, c.parent ? [] : (childrenOf.get(c.id) ?? []), causeOf(c))),
      '  </testsuite>',
    )
  }
  // Problems of the run that belong to no check still have to reach CI: one errored case each.
  if (r.errors.length || r.cleanup.length) {
    const problems = [...r.errors.map((e) => ['suite error', e]), ...r.cleanup.map((e) => ['cleanup problem', e])]
    total.tests += problems.length
    total.errors += problems.length
    suites.push(`  <testsuite name="run" tests="${problems.length}" failures="0" errors="${problems.length}" skipped="0" time="0.000">`)
    problems.forEach(([kind, text], i) => {
      suites.push(`    <testcase classname="run" name="${xml(`${kind} ${i + 1}`)}" time="0.000">`, `      <error message="${xml(firstLine(text))}" type="${xml(kind!)}">${xml(text)}</error>`, '    </testcase>')
    })
    suites.push('  </testsuite>')
  }
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(`${r.suite.name} ${r.suite.version} against ${r.target.display}: ${r.verdict}`)}" tests="${total.tests}" failures="${total.failures}" errors="${total.errors}" skipped="${total.skipped}" time="${seconds(r.durationMs)}" timestamp="${xml(r.startedAt.replace(/\.\d+Z$/, ''))}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n')
}

/** Workflow-command escaping of GitHub Actions: data, and property values (title). */
function ghData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')
}
function ghProperty(text: string): string {
  return ghData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
function unxml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&')
}

/**
 * GitHub Actions annotations from a junit.xml of this suite: an error per distinct failure message, a warning
 * per distinct SHOULD warning. The messages are stable statements of the problem, so one deviation that fails
 * many checks gives one annotation (with how many checks it fails).
 */
export function annotationsOf(junitXml: string): string[] {
  const seen = new Map<string, { kind: 'error' | 'warning'; title: string; count: number }>()
  const add = (kind: 'error' | 'warning', message: string, title: string) => {
    const key = `${kind} ${message}`
    const e = seen.get(key)
    if (e) e.count++
    else seen.set(key, { kind, title, count: 1 })
  }
  for (const m of junitXml.matchAll(/<(failure|error) message="([^"]*)" type="([^"]*)"/g)) add('error', unxml(m[2]!), unxml(m[1] === 'error' ? 'error: the check could not be completed' : m[3]!))
  for (const m of junitXml.matchAll(/<property name="warning" value="([^"]*)"\/>/g)) add('warning', unxml(m[1]!), 'SHOULD warning')
  return [...seen].map(([key, e]) => {
    const message = key.slice(e.kind.length + 1)
    return `::${e.kind} title=${ghProperty(`${e.title}${e.count > 1 ? ` (${e.count} checks)` : ''}`)}::${ghData(message)}`
  })
}
