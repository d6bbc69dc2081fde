/**
 * report.html for vendor acceptance: one self-contained file (inline CSS, no script, no external asset) that a
 * buyer can open offline or attach to a contract. Target, suite version, date, verdict, the matrix of every
 * clause, and for each failure the clause's words, what was expected, what came back and the redacted
 * exchanges, in <details>. Every string from the run passes through redact() and is HTML-escaped.
 */
import { clause as clauseOf, isClauseId } from '../spec/clauses'
import { redact } from '../http/redact'
import { LEVELS, scopeText, STATUSES, type CheckResult, type RunResults } from './results'
import { DIFF_SECTIONS, statusChange } from './diff'
import { day, p95Text, sinceText, trendSvg, type Trend } from './trend'
import { LEVEL_SUMMARY, STATE_LABEL, type ClauseState } from './matrix'
import type { EntryView, ReportModel } from './model'

/** HTML-escapes text after redaction: safe in element content and in quoted attributes. */
export function esc(text: unknown): string {
  return redact(String(text ?? '')).replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!)
}

/** Anchor ids from clause ids and counters only: never from free text. */
function anchor(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_.-]/g, '_')}`
}

const CSS = `
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa;--known:#8250df}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;margin:0 auto;max-width:1200px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}th{background:var(--bg)}
td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--bg);border:1px solid var(--line);padding:8px;white-space:pre-wrap;word-break:break-word;margin:4px 0 10px}
.verdict{border-radius:6px;padding:14px 18px;margin:16px 0;color:#fff}
.verdict .headline{font-size:24px;font-weight:700}.verdict p{margin:4px 0 0}
.verdict.conformant{background:var(--ok)}.verdict.known-only{background:var(--known)}.verdict.non-conformant{background:var(--bad)}.verdict.could-not-run{background:var(--muted)}
.facts th{width:180px}
.st{display:inline-block;min-width:84px;text-align:center;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff}
.st-pass,.st-observed{background:var(--ok)}.st-fail{background:var(--bad)}.st-warning{background:var(--warn)}.st-error{background:#6e7781}
.st-known{background:var(--known)}.st-blocked{background:#bc4c00}.st-skipped,.st-not-checked{background:#afb8c1;color:#1f2328}.st-not-testable{background:#eaeef2;color:#1f2328;border:1px solid var(--line)}
details{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:0 10px}
details>summary{cursor:pointer;padding:8px 0;font-weight:600}
details[open]>summary{border-bottom:1px solid var(--line);margin-bottom:8px}
blockquote{margin:4px 0 10px;padding:4px 12px;border-left:4px solid var(--line);color:#424a53}
.muted{color:var(--muted)}.small{font-size:12px}
ul.changes{margin:4px 0 12px;padding-left:20px}
@media print{body{padding:0}.verdict{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
button.copy{float:right;font-size:12px;margin:4px 0}
.cause{border-left:4px solid var(--bad);padding:2px 12px;margin:10px 0}.cause.SHOULD{border-color:var(--warn)}
@media print{details::details-content{content-visibility:visible;display:block}details>*{display:block}button.copy{display:none}.cause,details{break-inside:avoid-page}pre{white-space:pre-wrap}}
`

function stateBadge(state: ClauseState): string {
  return `<span class="st st-${state}">${esc(STATE_LABEL[state])}</span>`
}

export interface HtmlOptions {
  /** When the report was made; defaults to now. */
  generatedAt?: Date
}

export function buildHtml(m: ReportModel, opts: HtmlOptions = {}): string {
  const r = m.results
  const v = m.verdict
  const blocks = m.matrix
  const states = m.states
  const failures = m.notable
  const failureAnchor = new Map<string, string>()
  failures.forEach((c, i) => failureAnchor.set(c.id, `f-${i + 1}`))
  const firstFailureOf = new Map<string, string>()
  for (const c of failures) if (!firstFailureOf.has(c.clause)) firstFailureOf.set(c.clause, failureAnchor.get(c.id)!)
  const out: string[] = []
  const p = (s: string) => out.push(s)

  p('<!DOCTYPE html>')
  p('<html lang="en"><head><meta charset="utf-8">')
  p('<meta name="viewport" content="width=device-width, initial-scale=1">')
  p(`<title>${esc(`Conformance report: ${v.headline} — ${r.target.display}`)}</title>`)
  // Printing opens every <details> (the CSS does it where the browser supports it; this attribute elsewhere).
  p(`<style>${CSS}</style></head><body onbeforeprint="document.querySelectorAll('details').forEach(function(d){d.open=true})">`)
  p('<h1>Conformance report: Messaging and Channel REST Service</h1>')
  p(`<div class="muted">${esc(r.suite.name)} ${esc(r.suite.version)} · run ${esc(r.runId)} · ${esc(r.startedAt)}</div>`)

  // Known failures only: reviewed and accepted for now, exit 0; not the red of a failing run.
  p(`<div class="verdict ${r.verdict === 'known-failures-only' ? 'known-only' : v.kind}" id="verdict"><div class="headline">Verdict: ${esc(v.headline)}</div><p>${esc(v.explain)}</p>`)
  p(`<p class="small">results.json verdict <code>${esc(r.verdict)}</code>, exit code ${esc(r.exitCode)}</p></div>`)

  p('<table class="facts">')
  const fact = (k: string, val: string) => p(`<tr><th>${esc(k)}</th><td>${val}</td></tr>`)
  fact('Target', `${esc(r.target.display)}${r.target.embedded ? ' <strong>— the bundled reference server, started for this run: this verdict says nothing about any other server</strong>' : ''}`)
  fact('Suite', `${esc(r.suite.name)} ${esc(r.suite.version)}`)
  fact('Date', `${esc(r.startedAt)} to ${esc(r.endedAt)} (${esc((r.durationMs / 1000).toFixed(1))} s)`)
  fact('Run', `id ${esc(r.runId)}, seed ${esc(r.seed)} (set SEED=${esc(r.seed)} to repeat the generated data)`)
  fact('Scope', scopeText(r.filters) ? esc(scopeText(r.filters)!) : 'the whole suite')
  fact('Strict', r.strict ? 'yes: SHOULD failures fail the run' : 'no: SHOULD failures are warnings')
  fact('Known failures file', r.expectations?.file ? `<code>${esc(r.expectations.file)}</code>` : 'none')
  fact('HTTP', `${esc(r.http.requests)} requests, ${esc(r.http.retries)} retries`)
  exploreFacts(r, fact)
  assessedFacts(r, fact)
  fact('Clauses', esc(`${r.coverage.clauses} in the registry: ${states.pass} pass, ${states.fail} fail, ${states.warning} warning, ${states.error} error, ${states.known} known, ${states.blocked} blocked, ${states.observed} observed, ${states['not-testable']} not testable, ${states['not-checked'] + states.skipped} without a check in this run`))
  p('</table>')

  p('<h2 id="counts">Results per level</h2><table><tr><th>level</th>')
  for (const s of STATUSES) p(`<th>${esc(s)}</th>`)
  p('</tr>')
  for (const l of LEVELS) {
    p(`<tr><td>${esc(l)} <span class="muted small">${esc(LEVEL_SUMMARY[l])}</span></td>`)
    for (const s of STATUSES) p(`<td class="n">${esc(r.counts[l][s] ?? 0)}</td>`)
    p('</tr>')
  }
  p('</table>')
  const blocked = m.blockedSentence
  if (blocked) p(`<p id="blocked">${esc(blocked)}.</p>`)
  const cluster = m.flakyCluster
  if (cluster) p(`<p id="flaky-cluster"><strong>Flaky cluster:</strong> ${esc(cluster)}.</p>`)

  p(rootCauseSection(m))

  p('<h2 id="changes">Changes since the previous run</h2>')
  if (!m.diff) p('<p class="muted">No earlier run of this target in the history.</p>')
  else {
    const d = m.diff
    p(`<p>Compared with run <code>${esc(d.old.runId)}</code> of ${esc(d.old.startedAt)} (verdict <code>${esc(d.old.verdict)}</code>).</p>`)
    for (const [key, label] of DIFF_SECTIONS) {
      const list = d[key]
      p(`<h3>${esc(label)} (${list.length})</h3>`)
      if (!list.length) continue
      p('<ul class="changes">')
      for (const e of list) p(`<li><code>${esc(e.level)}</code> <a href="#${anchor('c', e.clause)}"><code>${esc(e.clause)}</code></a> ${esc(e.title)} <span class="muted">[${esc(statusChange(e))}]${e.note ? ` ${esc(e.note)}` : ''}</span></li>`)
      p('</ul>')
    }
  }

  if (m.trend) p(trendSection(m.trend))

  p(`<h2 id="failures">Failures, errors, warnings, known failures and blocked checks (${failures.length})</h2>`)
  if (!failures.length) p('<p>None: every check passed.</p>')
  for (const c of failures) p(failureDetails(c, m.views.get(c)!, failureAnchor.get(c.id)!))

  p(latencySection(r))

  p('<h2 id="matrix">Clauses of the spec</h2>')
  p('<p class="muted">Every clause of the suite\'s registry, per spec area, with the outcome of its checks. Levels: MUST (stated by the spec; a failure makes the target non-conformant), SHOULD (HTTP conventions where the spec is silent; a warning), INFO (the spec leaves it open; observed, never judged).</p>')
  for (const b of blocks) {
    p(`<h3 id="${anchor('a', b.area)}">${esc(b.name)}</h3>`)
    p('<table><tr><th>clause</th><th>section</th><th>level</th><th>statement</th><th>checks</th><th>result</th></tr>')
    for (const row of b.rows) {
      const ran = row.checks.filter((c) => c.status !== 'skipped').length
      const link = firstFailureOf.get(row.id)
      const result = `${stateBadge(row.state)}${link ? ` <a href="#${link}" class="small">details</a>` : ''}${row.note ? `<div class="small muted">${esc(row.note)}</div>` : ''}`
      p(`<tr id="${anchor('c', row.id)}"><td><code>${esc(row.id)}</code></td><td>${esc(row.section)}</td><td>${esc(row.level)}</td><td>${esc(row.title)}</td><td class="n">${ran}</td><td>${result}</td></tr>`)
    }
    p('</table>')
  }

  const observed = blocks.flatMap((b) => b.rows).filter((row) => row.level === 'INFO' && row.checks.some((c) => c.observation))
  if (observed.length) {
    p('<h2 id="observations">Observations (INFO)</h2>')
    p('<details><summary>What the server does where the spec is silent</summary><table><tr><th>clause</th><th>observed</th></tr>')
    for (const row of observed) {
      const seen = [...new Set(row.checks.map((c) => c.observation).filter((o): o is string => !!o))]
      p(`<tr><td><code>${esc(row.id)}</code><div class="small muted">${esc(row.title)}</div></td><td><pre>${esc(seen.slice(0, 8).join('\n'))}${seen.length > 8 ? esc(`\n… and ${seen.length - 8} more`) : ''}</pre></td></tr>`)
    }
    p('</table></details>')
  }

  if (r.expectations?.entries.length) {
    p('<h2 id="expectations">Known-failure entries</h2>')
    p('<table><tr><th>clause</th><th>reason</th><th>link</th><th>expires</th><th>this run</th></tr>')
    const outcome = { known: 'failed as expected (known)', 'now-passes': 'passes now: remove the entry', expired: 'expired: counts as a failure again', 'not-run': 'not run' } as const
    for (const e of r.expectations.entries) {
      p(`<tr><td><code>${esc(e.clause)}</code></td><td>${esc(e.reason)}</td><td>${e.link ? `<a href="${esc(e.link)}">${esc(e.link)}</a>` : ''}</td><td>${esc(e.expires)}</td><td>${esc(outcome[e.outcome])}</td></tr>`)
    }
    p('</table>')
  }

  if (r.errors.length || r.cleanup.length) {
    p('<h2 id="run-problems">Problems of the run</h2>')
    if (r.errors.length) p(`<h3>Suite errors (not judgements of the server)</h3><pre>${esc(r.errors.join('\n'))}</pre>`)
    if (r.cleanup.length) p(`<h3>Cleanup problems (channels the run could not delete)</h3><pre>${esc(r.cleanup.join('\n'))}</pre>`)
  }

  p(`<p class="muted small">Generated ${esc((opts.generatedAt ?? new Date()).toISOString())} from results.json by ${esc(r.suite.name)} ${esc(r.suite.version)}. Requests and responses are shown redacted: passwords, client secrets and tokens are replaced by «redacted».</p>`)
  p('</body></html>')
  return `${out.join('\n')}\n`
}

/** The trend over the history of this target: a chart, a row per run, and since when each clause fails. */
export function trendSection(t: Trend): string {
  const o: string[] = []
  o.push(`<h2 id="trend">Trend over the last ${t.rows.length} run(s) of this target</h2>`)
  o.push(`<figure class="trend-chart" style="margin:0">${trendSvg(t)}</figure>`)
  o.push('<table class="trend"><tr><th>started</th><th>run</th><th>verdict</th><th>MUST passed / failed</th><th>SHOULD passed / failed</th><th>errors</th><th>duration</th><th>slowest p95</th></tr>')
  for (const r of [...t.rows].reverse()) {
    const none = r.kind === 'could-not-run'
    o.push(
      `<tr class="run-${esc(r.kind)}"><td>${esc(day(r.startedAt))}</td><td><code>${esc(r.runId)}</code>${t.baseline === r.runId ? ' <span class="small muted">(baseline)</span>' : ''}</td><td><code>${esc(r.verdict)}</code>${r.note ? `<div class="small muted">${esc(r.note)}</div>` : ''}</td>` +
        `<td class="n">${none ? '–' : esc(`${r.must.passed} / ${r.must.failed}`)}</td><td class="n">${none ? '–' : esc(`${r.should.passed} / ${r.should.failed}`)}</td><td class="n">${esc(r.errors)}</td><td class="n">${esc((r.durationMs / 1000).toFixed(1))} s</td><td class="small">${esc(p95Text(r) || '–')}</td></tr>`,
    )
  }
  o.push('</table>')
  o.push('<p class="muted small">Runs that were interrupted, filtered (--area, --level) or incomplete are shown but never serve as the baseline of "changes since the previous run"; a run that could not run at all is shown with its reason.</p>')
  if (t.clauses.length) {
    o.push(`<h3>Failing clauses, and since when (${t.clauses.length})</h3>`)
    o.push('<table class="trend-clauses"><tr><th>clause</th><th>level</th><th>kind</th><th>since</th><th>outcomes, oldest first</th></tr>')
    for (const c of t.clauses) {
      o.push(`<tr><td><a href="#${anchor('c', c.clause)}"><code>${esc(c.clause)}</code></a></td><td>${esc(c.level)}</td><td>${esc(c.label)}</td><td>${esc(sinceText(c))}</td><td><code>${esc(c.outcomes)}</code></td></tr>`)
    }
    o.push('</table><p class="muted small">outcomes: x failed, . passed, one mark per run that judged the clause. A flake alternates run after run; a streak of failures, or failures between stable passing streaks, is a regression.</p>')
  }
  return o.join('\n')
}

function failureDetails(c: CheckResult, view: EntryView, id: string): string {
  const state = view.state
  const def = isClauseId(c.clause) ? clauseOf(c.clause) : undefined
  const parts: string[] = []
  parts.push(`<details id="${id}" class="failure"><summary>${stateBadge(state)} <code>${esc(c.level)}</code> <code>${esc(c.clause)}</code> — ${esc(c.title)}</summary>`)
  parts.push(`<div><strong>Clause</strong> ${esc(c.section)}${def ? ` — ${esc(def.title)}` : ''}</div>`)
  if (def?.quote) parts.push(`<blockquote>${esc(def.quote)}</blockquote>`)
  parts.push(`<div class="small muted">check: ${esc(c.parent ? `${c.parent} (a finding of this check)` : c.id)} · ${esc(c.file)}</div>`)
  if (c.expectation) {
    const e = c.expectation
    parts.push(`<p><strong>Known failure</strong> (${esc(e.outcome)}): ${esc(e.reason)}${e.link ? ` — <a href="${esc(e.link)}">${esc(e.link)}</a>` : ''}; until ${esc(e.expires)}</p>`)
  }
  if (c.status === 'blocked') parts.push(`<p><strong>Blocked by</strong> <a href="#${anchor('c', c.blockedBy ?? '')}"><code>${esc(c.blockedBy)}</code></a>: a set-up step failed under that clause, so this one could not be judged.</p>`)
  parts.push(`<div><strong>${c.status === 'error' ? 'What went wrong' : c.status === 'blocked' ? 'The set-up step, and what came back' : 'Expected, and what came back'}</strong></div>`)
  parts.push(`<pre>${esc(c.message ?? '(no message)')}</pre>`)
  if (c.evidence?.length) {
    parts.push(`<div><strong>Requests and responses</strong> <span class="muted small">(redacted, the check's last ${c.evidence.length}, newest last)</span></div>`)
    for (const ex of c.evidence) parts.push(`<pre>${esc(ex)}</pre>`)
  }
  if (c.reproducer) parts.push(reproducerBlock(c.reproducer))
  parts.push('</details>')
  return parts.join('\n')
}

/** An explore run's statistics (results.json `explore`): what it ran, how fast, and what it found. */
function exploreFacts(r: RunResults, fact: (k: string, val: string) => void): void {
  const x = (r as { explore?: Record<string, unknown> }).explore
  if (!x) return
  const n = (k: string) => (typeof x[k] === 'number' ? (x[k] as number) : 0)
  const seeds = Array.isArray(x.seeds) ? x.seeds.length : n('seeds')
  fact(
    'Explore',
    esc(
      `${seeds} seed(s), ${n('sequences')} sequence(s) (shrinks included, ${n('inconclusive')} inconclusive), ${n('steps')} steps, ${n('requests')} requests in ${n('seconds')} s: ` +
        `${n('opsPerSecond')} steps/s, ${n('lanes')} lane(s), at most ${n('peakLanes')} sequence(s) at once; ` +
        `${Array.isArray(x.findings) ? x.findings.length : 0} finding(s), ${Array.isArray(x.unconfirmed) ? x.unconfirmed.length : 0} not confirmed`,
    ),
  )
  if (Array.isArray(x.learned) && x.learned.length) fact("Server's choices", x.learned.map((l) => esc(String(l))).join('<br>'))
}

/** A reproducer (sh, curl) with a copy button: one inline handler, nothing fetched. */
function reproducerBlock(script: string): string {
  return `<div><strong>Reproducer</strong> <span class="muted small">(sh and curl; with the variables of .env: set -a; . ./.env; set +a; sh file — exit 1 while the deviation shows, 0 once it is gone)</span></div><button type="button" class="copy" onclick="navigator.clipboard.writeText(this.nextElementSibling.textContent)">Copy</button><pre class="repro">${esc(script)}</pre>`
}

/** What was assessed: spec revision (clause registry digest) and the target's own product string, when it gives one. */
function assessedFacts(r: RunResults, fact: (k: string, v: string) => void): void {
  if (r.spec) fact('Spec revision', `clause registry <code>${esc(r.spec.registry)}</code> (${esc(r.spec.clauses)} clauses)`)
  fact('Target product', r.product ? esc(r.product) : '<span class="muted">not stated by the server (no Server or X-Powered-By header)</span>')
}

/** Root causes, before the per-check detail: each deviation once, its clause and words, one exchange, what it explains. */
function rootCauseSection(m: ReportModel): string {
  const r = m.results
  const causes = m.causes
  if (!causes.length) return ''
  const failed = r.checks.filter((c) => c.status === 'failed').length
  const out = [`<h2 id="root-causes">Root causes: ${causes.length} deviation${causes.length === 1 ? '' : 's'} → ${failed} failed entries</h2>`]
  out.push('<p class="muted">Failures that share one cause (the same schema problem at the same place, the same status on one endpoint, the same wrong value) are grouped here. The verdict and the counts stay per check.</p>')
  causes.forEach((c, i) => {
    const q = c.quote
    out.push(`<div class="cause ${esc(c.level)}" id="rc-${i + 1}"><h3>${i + 1}. <code>${esc(c.level)}</code> <a href="#${anchor('c', c.clause)}"><code>${esc(c.clause)}</code></a> — ${esc(c.headline)}</h3>`)
    out.push(`<p><strong>${esc(c.fanOut)}</strong></p>`)
    if (q) out.push(`<blockquote>${esc(q)}</blockquote>`)
    out.push(`<div><strong>Representative failure</strong> <span class="small muted">${esc(c.representative.entry)}</span></div><pre>${esc(c.representative.message)}</pre>`)
    if (c.representative.evidence) out.push(`<details><summary>The exchange that showed it (redacted)</summary><pre>${esc(c.representative.evidence)}</pre></details>`)
    const reproducer = m.entries.get(c.representative.entry)?.reproducer
    if (reproducer) out.push(`<details><summary>Reproducer (curl)</summary>${reproducerBlock(reproducer)}</details>`)
    out.push(`<details><summary>The ${c.entries.length + c.blocked.length} check(s) it explains</summary><ul class="changes">`)
    for (const id of c.entries) out.push(`<li>failed: ${esc(id)}</li>`)
    for (const id of c.blocked) out.push(`<li>blocked: ${esc(id)}</li>`)
    out.push('</ul></details></div>')
  })
  return out.join('\n')
}

/** Latency per endpoint template, as the suite saw it: a regression signal, not a load test. */
function latencySection(r: RunResults): string {
  if (!r.latency?.length) return ''
  const out = ['<h2 id="latency">Latency per endpoint</h2>', '<p class="muted">As the suite saw it, in milliseconds, over every recorded exchange (cleanup included); errors are answers 500 or above.</p>']
  out.push('<table><tr><th>endpoint</th><th>count</th><th>p50</th><th>p95</th><th>max</th><th>errors</th></tr>')
  for (const row of r.latency) out.push(`<tr><td><code>${esc(row.endpoint)}</code></td><td class="n">${row.count}</td><td class="n">${row.p50}</td><td class="n">${row.p95}</td><td class="n">${row.max}</td><td class="n">${row.errors}</td></tr>`)
  out.push('</table>')
  return out.join('\n')
}
