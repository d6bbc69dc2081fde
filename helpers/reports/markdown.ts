/**
 * summary.md: the verdict, the changes since the previous run, the failures and the clause matrix, for
 * pasting into an issue or a pull request (GitHub-flavoured Markdown). Every string is redacted and escaped.
 */
import { redact } from '../http/redact'
import { LEVELS, scopeText, type RunResults } from './results'
import { DIFF_SECTIONS, statusChange } from './diff'
import { p95Text, sinceText, type Trend } from './trend'
import type { ClauseState } from './matrix'
import type { ReportModel } from './model'

/** One table cell or inline text: redacted, on one line, with Markdown and HTML metacharacters neutralised. */
export function md(text: unknown, max = 300): string {
  let s = redact(String(text ?? '')).replace(/\s*\n\s*/g, ' ').trim()
  if (s.length > max) s = `${s.slice(0, max)}…`
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/([\\`*_|[\]])/g, '\\$1')
}

const ICON: Record<ClauseState, string> = {
  pass: '✅ pass',
  observed: 'ℹ️ observed',
  fail: '❌ fail',
  warning: '⚠️ warning',
  error: '💥 error',
  known: '🟣 known failure',
  blocked: '🚧 blocked',
  skipped: '⏭️ skipped',
  'not-testable': '➖ not testable',
  'not-checked': '▫️ no check in this run',
}

const VERDICT_ICON = { conformant: '✅', 'non-conformant': '❌', 'could-not-run': '⛔' } as const

export function buildMarkdown(m: ReportModel): string {
  const r = m.results
  const v = m.verdict
  const blocks = m.matrix
  const states = m.states
  const lines: string[] = []
  const l = (s = '') => lines.push(s)

  l(`## ${r.verdict === 'known-failures-only' ? '🟣' : VERDICT_ICON[v.kind]} Conformance: ${md(v.headline)}`)
  l()
  l(md(v.explain))
  l()
  l(`- **Target:** ${md(r.target.display)}${r.target.embedded ? ' — **the bundled reference server**, started for this run: this verdict says nothing about any other server' : ''}`)
  l(`- **Suite:** ${md(`${r.suite.name} ${r.suite.version}`)}`)
  l(`- **Date:** ${md(r.startedAt)} (${(r.durationMs / 1000).toFixed(1)} s), run ${md(r.runId)}, seed ${md(r.seed)}`)
  l(`- **Verdict:** \`${md(r.verdict)}\`, exit code ${r.exitCode}${r.strict ? ' (STRICT)' : ''}${scopeText(r.filters) ? `, scope: ${md(scopeText(r.filters)!)}` : ''}`)
  for (const line of assessedLines(r)) l(line)
  if (r.expectations?.file) l(`- **Known failures file:** ${md(r.expectations.file)}`)
  l(`- **Clauses:** ${r.coverage.clauses}: ${states.pass} pass, ${states.fail} fail, ${states.warning} warning, ${states.error} error, ${states.known} known, ${states.blocked} blocked, ${states.observed} observed, ${states['not-testable']} not testable, ${states['not-checked'] + states.skipped} without a check in this run`)
  l()
  l('| level | passed | failed | error | known | blocked | skipped | flaky |')
  l('|---|--:|--:|--:|--:|--:|--:|--:|')
  for (const lv of LEVELS) {
    const c = r.counts[lv]
    l(`| ${lv} | ${c.passed} | ${c.failed} | ${c.error} | ${c.known ?? 0} | ${c.blocked ?? 0} | ${c.skipped} | ${c.flaky} |`)
  }
  l()
  const blocked = m.blockedSentence
  if (blocked) {
    l(`${md(blocked, 600)}.`)
    l()
  }
  const cluster = m.flakyCluster
  if (cluster) {
    l(`**Flaky cluster:** ${md(cluster, 600)}.`)
    l()
  }

  for (const line of rootCauseSection(m)) l(line)

  l('### Changes since the previous run')
  l()
  if (!m.diff) l('No earlier run of this target in the history.')
  else {
    const d = m.diff
    l(`Compared with run ${md(d.old.runId)} of ${md(d.old.startedAt)} (\`${md(d.old.verdict)}\`).`)
    l()
    for (const [key, label] of DIFF_SECTIONS) {
      const list = d[key]
      l(`- **${label}** (${list.length})${list.length ? ':' : ''}`)
      for (const e of list.slice(0, 50)) l(`  - ${e.level} \`${md(e.clause)}\` ${md(e.title, 160)} (${md(statusChange(e))})${e.note ? ` — ${md(e.note, 160)}` : ''}`)
      if (list.length > 50) l(`  - … and ${list.length - 50} more (report.html)`)
    }
  }
  l()

  if (m.trend) lines.push(...trendLines(m.trend))

  const failures = m.notable
  l(`### Failures, errors, warnings, known failures and blocked checks (${failures.length})`)
  l()
  if (!failures.length) l('None: every check passed.')
  else {
    l('| result | level | clause | check | problem |')
    l('|---|---|---|---|---|')
    for (const c of failures.slice(0, 100)) {
      // The problem itself (the schema error, got and want), not the line that only announces it.
      const view = m.views.get(c)!
      const first = view.problem || (c.message ?? '')
      l(`| ${ICON[view.state]} | ${c.level} | \`${md(c.clause)}\` | ${md(c.title, 160)} | ${md(first, 200)} |`)
    }
    if (failures.length > 100) l(`\n… and ${failures.length - 100} more in report.html`)
    l()
    l('Full messages and the redacted requests and responses are in report.html.')
  }
  l()

  for (const line of latencySection(r)) l(line)

  l('### Clauses of the spec')
  l()
  l(`<details><summary>All ${blocks.reduce((n, b) => n + b.rows.length, 0)} clauses, per spec area</summary>`)
  l()
  for (const b of blocks) {
    l(`#### ${md(b.name)}`)
    l()
    l('| clause | section | level | result | note |')
    l('|---|---|---|---|---|')
    for (const row of b.rows) l(`| \`${md(row.id)}\` | ${md(row.section)} | ${row.level} | ${ICON[row.state]} | ${md(row.note ?? '', 160)} |`)
    l()
  }
  l('</details>')
  l()
  if (r.errors.length) {
    l(`### Suite errors (${r.errors.length})`)
    l()
    for (const e of r.errors.slice(0, 20)) l(`- ${md(e)}`)
    l()
  }
  if (r.cleanup.length) {
    l(`### Cleanup problems (${r.cleanup.length})`)
    l()
    for (const e of r.cleanup.slice(0, 20)) l(`- ${md(e)}`)
    l()
  }
  return `${lines.join('\n')}\n`
}

/** What was assessed: the spec revision (registry digest) and the target's own name for itself, when it gives one. */
function assessedLines(r: RunResults): string[] {
  const lines: string[] = []
  if (r.spec) lines.push(`- **Spec revision:** clause registry ${md(r.spec.registry)} (${r.spec.clauses} clauses)`)
  lines.push(`- **Target product:** ${r.product ? md(r.product) : 'not stated by the server (no Server or X-Powered-By header)'}`)
  return lines
}

/** Root causes first: each deviation once, with its clause, the spec's words, an example and what it explains. */
function rootCauseSection(m: ReportModel): string[] {
  const r = m.results
  const causes = m.causes
  if (!causes.length) return []
  const failed = r.checks.filter((c) => c.status === 'failed').length
  const lines = [`### Root causes (${causes.length} deviation${causes.length === 1 ? '' : 's'} → ${failed} failed entries)`, '']
  causes.slice(0, 30).forEach((c, i) => {
    const q = c.quote
    lines.push(`${i + 1}. **${c.level} \`${md(c.clause)}\`** — ${md(c.headline, 240)} (${md(c.fanOut)})`)
    if (q) lines.push(`   > ${md(q, 400)}`)
    lines.push(`   - example: ${md(c.representative.entry, 200)}`)
    const also = c.entries.filter((id) => id !== c.representative.entry)
    if (also.length) lines.push(`   - also explains: ${also.slice(0, 8).map((id) => md(id, 120)).join('; ')}${also.length > 8 ? `; … ${also.length - 8} more` : ''}`)
  })
  if (causes.length > 30) lines.push('', `… and ${causes.length - 30} more in report.html`)
  lines.push('', 'The verdict and the counts are per check; report.html has each cause\'s exchange and a curl reproducer.', '')
  return lines
}

/** Latency per endpoint template, as the suite saw it (a regression signal, not a load test). */
function latencySection(r: RunResults): string[] {
  if (!r.latency?.length) return []
  const lines = ['### Latency per endpoint', '', '<details><summary>As the suite saw it (ms; a regression signal, not a load test)</summary>', '', '| endpoint | count | p50 | p95 | max | errors (5xx) |', '|---|--:|--:|--:|--:|--:|']
  for (const row of r.latency) lines.push(`| \`${md(row.endpoint)}\` | ${row.count} | ${row.p50} | ${row.p95} | ${row.max} | ${row.errors} |`)
  lines.push('', '</details>', '')
  return lines
}

/** The trend over the history of this target: a row per run (newest first) and since when each clause fails. */
export function trendLines(t: Trend): string[] {
  const out = [`### Trend over the last ${t.rows.length} run(s)`, '']
  out.push('| started | run | verdict | MUST passed/failed | SHOULD passed/failed | errors | duration | slowest p95 |')
  out.push('|---|---|---|--:|--:|--:|--:|---|')
  for (const r of [...t.rows].reverse()) {
    const none = r.kind === 'could-not-run'
    out.push(`| ${md(r.startedAt)} | ${md(r.runId)}${t.baseline === r.runId ? ' (baseline)' : ''} | \`${md(r.verdict)}\`${r.note ? ` ${md(r.note, 160)}` : ''} | ${none ? '–' : `${r.must.passed}/${r.must.failed}`} | ${none ? '–' : `${r.should.passed}/${r.should.failed}`} | ${r.errors} | ${(r.durationMs / 1000).toFixed(1)} s | ${md(p95Text(r) || '–', 200)} |`)
  }
  out.push('')
  if (t.clauses.length) {
    out.push('| clause | level | kind | since | outcomes, oldest first |', '|---|---|---|---|---|')
    for (const c of t.clauses) out.push(`| \`${md(c.clause)}\` | ${c.level} | ${c.label} | ${md(sinceText(c), 300)} | \`${c.outcomes}\` |`)
    out.push('')
  }
  return out
}
