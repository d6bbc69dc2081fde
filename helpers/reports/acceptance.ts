/**
 * acceptance.html: a vendor acceptance document made for printing (A4), from results.json only: what was
 * assessed (target, suite version, date, scope), the verdict, the deviations (root causes when the run
 * grouped them, else each failing clause with its spec quote, the checks it explains and one representative
 * exchange), the reviewed known failures with their reasons and expiry, the clauses that are not testable
 * and why, and lines for a reviewer's decision. No script, nothing fetched, every string redacted and escaped.
 */
import { clause as clauseOf, isClauseId } from '../spec/clauses'
import { esc } from './html'
import type { CheckResult, RunResults } from './results'
import { clauseMatrix, countStates, verdictText } from './matrix'
import { fanOut, rootCauses } from './causes'

const CSS = `
@page{size:A4;margin:16mm 14mm 18mm}
*{box-sizing:border-box}
body{font:11pt/1.4 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;margin:0 auto;max-width:190mm;padding:12px}
h1{font-size:18pt;margin:0 0 2mm}h2{font-size:13pt;margin:7mm 0 2mm;border-bottom:1px solid #d0d7de;padding-bottom:1mm;break-after:avoid}
h3{font-size:11pt;margin:4mm 0 1mm;break-after:avoid}
table{border-collapse:collapse;width:100%;margin:2mm 0 3mm}th,td{border:1px solid #d0d7de;padding:1.2mm 2mm;text-align:left;vertical-align:top}th{background:#f6f8fa}
tr,blockquote{break-inside:avoid}
.facts th{width:42mm}
code,pre{font:9pt/1.35 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:2mm;white-space:pre-wrap;word-break:break-word;margin:1mm 0 3mm}
blockquote{margin:1mm 0 2mm;padding:1mm 3mm;border-left:3px solid #d0d7de;color:#424a53}
.verdict{border:2px solid;border-radius:2mm;padding:3mm 4mm;margin:4mm 0;font-size:14pt;font-weight:700}
.verdict.conformant{border-color:#1a7f37;color:#1a7f37}.verdict.non-conformant{border-color:#cf222e;color:#cf222e}.verdict.could-not-run{border-color:#57606a;color:#57606a}
.verdict p{font-size:10pt;font-weight:400;color:#1f2328;margin:1mm 0 0}
.deviation{border:1px solid #d0d7de;border-radius:2mm;padding:2mm 3mm;margin:3mm 0}
.muted{color:#57606a}.small{font-size:9pt}
.sign td{height:14mm}
`

/**
 * The exchange the failure message names (its request line), else the check's last one that is not the
 * cleanup's DELETE (the judged call comes after the set-up), else its first.
 */
function representative(c: CheckResult): string | undefined {
  const ev = c.evidence ?? []
  const line = /\] (\S+ \S+) →/.exec(c.message ?? '')?.[1]
  return (line ? ev.findLast((e) => e.startsWith(`${line} `)) : undefined) ?? ev.findLast((e) => !e.startsWith('DELETE ')) ?? ev[0]
}

export interface AcceptanceOptions {
  generatedAt?: Date
}

export function buildAcceptance(r: RunResults, opts: AcceptanceOptions = {}): string {
  const v = verdictText(r.verdict)
  const states = countStates(clauseMatrix(r))
  const o: string[] = []
  const p = (s: string) => o.push(s)
  p('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">')
  p(`<title>${esc(`Acceptance: ${v.headline} — ${r.target.display}`)}</title><style>${CSS}</style></head><body>`)
  p('<h1>Conformance acceptance: Messaging and Channel REST Service</h1>')
  p(`<div class="muted small">Made from results.json of run ${esc(r.runId)} by ${esc(r.suite.name)} ${esc(r.suite.version)}</div>`)

  p('<h2 id="assessed">What was assessed</h2><table class="facts">')
  const fact = (k: string, val: string) => p(`<tr><th>${esc(k)}</th><td>${val}</td></tr>`)
  fact('Target', `${esc(r.target.display)}${r.target.embedded ? ' <strong>(the bundled reference server: this says nothing about any other server)</strong>' : ''}`)
  fact('Suite', `${esc(r.suite.name)} ${esc(r.suite.version)}`)
  fact('Date', `${esc(r.startedAt)} to ${esc(r.endedAt)}`)
  fact('Scope', r.filters.areas.length || r.filters.level ? `${esc(`areas: ${r.filters.areas.join(', ') || 'all'}; level: ${r.filters.level ?? 'all'}`)} <strong>(a partial run: not a basis for acceptance)</strong>` : 'the whole suite, every spec area and level')
  fact('Strictness', r.strict ? 'SHOULD failures fail the run' : 'SHOULD failures are warnings')
  fact('Clauses', esc(`${r.coverage.clauses} in the registry: ${states.pass} pass, ${states.fail} fail, ${states.warning} warning, ${states.error} error, ${states.known} known, ${states.blocked} blocked, ${states.observed} observed, ${states['not-testable']} not testable, ${states['not-checked'] + states.skipped} without a check in this run`))
  fact('Run', `id ${esc(r.runId)}, seed ${esc(r.seed)}, ${esc(r.http.requests)} requests`)
  p('</table>')
  p(`<div class="verdict ${v.kind}" id="verdict">Verdict: ${esc(v.headline)}<p>${esc(v.explain)} (results.json verdict <code>${esc(r.verdict)}</code>, exit code ${esc(r.exitCode)})</p></div>`)
  p('<table><tr><th>level</th><th>passed</th><th>failed</th><th>error</th><th>known</th><th>blocked</th></tr>')
  for (const l of ['MUST', 'SHOULD'] as const) {
    const c = r.counts[l]
    p(`<tr><td>${l}</td><td>${c.passed + c.flaky}</td><td>${c.failed}</td><td>${c.error}</td><td>${c.known ?? 0}</td><td>${c.blocked ?? 0}</td></tr>`)
  }
  p('</table>')

  // The run's root causes (helpers/reports/causes.ts): one entry per deviation, however many checks it failed.
  const causes = rootCauses(r)
  const byId = new Map(r.checks.map((c) => [c.id, c]))
  p(`<h2 id="deviations">Deviations from the spec (${causes.length} root cause${causes.length === 1 ? '' : 's'} behind ${r.checks.filter((c) => c.status === 'failed').length} failed check(s))</h2>`)
  if (!causes.length) p('<p>None: no check failed.</p>')
  causes.forEach((rc, i) => {
    const def = isClauseId(rc.clause) ? clauseOf(rc.clause) : undefined
    p(`<div class="deviation"><h3>${i + 1}. ${esc(rc.level)} <code>${esc(rc.clause)}</code>${def ? ` — ${esc(def.title)}` : ''}</h3>`)
    if (def) p(`<div class="small">${esc(def.section)}</div><blockquote>${esc(def.quote)}</blockquote>`)
    p(`<p><strong>What is wrong:</strong> ${esc(rc.problem)} <span class="small muted">(${esc(fanOut(rc))})</span></p>`)
    const example = byId.get(rc.example.id)
    p(`<div><strong>Expected, and what came back</strong> <span class="small muted">(${esc(example?.title ?? rc.example.id)})</span></div><pre>${esc(rc.example.message || '(no message)')}</pre>`)
    const ex = rc.example.evidence ?? (example ? representative(example) : undefined)
    if (ex) p(`<div class="small"><strong>Representative exchange</strong> (redacted)</div><pre>${esc(ex)}</pre>`)
    if (rc.example.reproducer) p(`<div class="small"><strong>Reproducer</strong> (secrets come from the environment)</div><pre>${esc(rc.example.reproducer)}</pre>`)
    const titles = rc.checks.map((id) => byId.get(id)?.title ?? id)
    p(`<div class="small">${titles.length} failing check(s): ${esc(titles.join('; '))}${rc.blocked.length ? `; ${rc.blocked.length} more could not be judged because of it (blocked)` : ''}</div></div>`)
  })
  const errors = r.checks.filter((c) => c.status === 'error')
  if (errors.length || r.errors.length) {
    p(`<p class="small"><strong>Not judged:</strong> ${esc(`${errors.length} check(s) could not be completed (transport or suite errors)${r.errors.length ? ` and ${r.errors.length} suite error(s)` : ''}; they are no judgement of the server.`)}</p>`)
  }

  p('<h2 id="known">Known failures (reviewed, with expiry)</h2>')
  const entries = r.expectations?.entries ?? []
  if (!entries.length) p(`<p>${r.expectations?.file ? 'The known-failures file has no entries.' : 'No known-failures file was applied.'}</p>`)
  else {
    const outcome = { known: 'failed as expected', 'now-passes': 'passes now: the entry can go', expired: 'expired: counted as a failure', 'not-run': 'not run' } as const
    p(`<p class="small">From <code>${esc(r.expectations!.file)}</code>.</p>`)
    p('<table><tr><th>clause</th><th>reviewed reason</th><th>expires</th><th>in this run</th></tr>')
    for (const e of entries) p(`<tr><td><code>${esc(e.clause)}</code></td><td>${esc(e.reason)}${e.link ? `<div class="small">${esc(e.link)}</div>` : ''}</td><td>${esc(e.expires)}</td><td>${esc(outcome[e.outcome])}</td></tr>`)
    p('</table>')
  }

  p('<h2 id="not-testable">Clauses not testable, and why</h2>')
  if (!r.coverage.notTestable.length) p('<p>None.</p>')
  else {
    p('<table><tr><th>clause</th><th>statement</th><th>reason</th></tr>')
    for (const n of r.coverage.notTestable) p(`<tr><td><code>${esc(n.id)}</code></td><td>${esc(isClauseId(n.id) ? clauseOf(n.id).title : '')}</td><td>${esc(n.reason)}</td></tr>`)
    p('</table>')
  }
  if (r.coverage.withoutCheck.length) p(`<p class="small"><strong>Without a check in this run</strong> (${r.coverage.withoutCheck.length}): ${esc(r.coverage.withoutCheck.join(', '))}</p>`)

  p('<h2 id="decision">Decision</h2><table class="sign"><tr><th style="width:42mm">Accepted / rejected</th><td></td></tr><tr><th>Reviewer</th><td></td></tr><tr><th>Date</th><td></td></tr><tr><th>Signature</th><td></td></tr></table>')
  p(`<p class="muted small">Generated ${esc((opts.generatedAt ?? new Date()).toISOString())}. Requests and responses are redacted: passwords, client secrets and tokens are replaced by «redacted».</p>`)
  p('</body></html>')
  return `${o.join('\n')}\n`
}
