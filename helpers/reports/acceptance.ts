/**
 * acceptance.html: the one document a vendor signs, made for printing (A4), a renderer of the report model
 * (helpers/reports/model.ts) alone. First page: what was assessed (target, suite and spec revision, date, scope),
 * the verdict and one table of the deviations (cause, clause, level, the spec's words, checks explained). Then
 * one section per deviation with the exchange that showed it and its reproducer; then what was not judged and
 * why (blocked, skipped, errors, not testable), the reviewed known failures, and lines for a decision. No
 * script, nothing fetched, every string redacted and escaped.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { clause as clauseOf, isClauseId } from '../spec/clauses'
import { esc } from './html'
import type { CauseView, ReportModel } from './model'
import { scopeText, type RunResults } from './results'

const CSS = `
@page{size:A4;margin:14mm 12mm 16mm}
*{box-sizing:border-box}
body{font:10pt/1.35 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2328;margin:0 auto;max-width:190mm;padding:10px}
h1{font-size:14pt;margin:0 0 1mm}h2{font-size:12.5pt;margin:6mm 0 2mm;border-bottom:1px solid #d0d7de;padding-bottom:1mm;break-after:avoid}
h3{font-size:10.5pt;margin:3mm 0 1mm;break-after:avoid}
table{border-collapse:collapse;width:100%;margin:1.5mm 0 2.5mm}th,td{border:1px solid #d0d7de;padding:.8mm 1.6mm;text-align:left;vertical-align:top}th{background:#f6f8fa}
tr,blockquote{break-inside:avoid}
.facts th{width:30mm}.facts td,.facts th{font-size:8.5pt;padding:.5mm 1.5mm}
table.deviations{table-layout:fixed}table.deviations td,table.deviations th{font-size:8pt;line-height:1.25;padding:.6mm 1.2mm;overflow-wrap:anywhere}table.deviations code{font-size:7.5pt}
code,pre{font:8pt/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:1.5mm;white-space:pre-wrap;word-break:break-word;margin:1mm 0 2mm}
pre.repro{font-size:7pt}
blockquote{margin:1mm 0 2mm;padding:1mm 3mm;border-left:3px solid #d0d7de;color:#424a53}
.verdict{border:2px solid;border-radius:2mm;padding:1.5mm 3mm;margin:2mm 0;font-size:12pt;font-weight:700}
.verdict.conformant{border-color:#1a7f37;color:#1a7f37}.verdict.non-conformant{border-color:#cf222e;color:#cf222e}.verdict.could-not-run{border-color:#57606a;color:#57606a}
.verdict p{font-size:8.5pt;font-weight:400;color:#1f2328;margin:.5mm 0 0}
.first-page{break-after:page}
.deviation{border-top:1px solid #d0d7de;padding:1mm 0;margin:3mm 0}
.muted{color:#57606a}.small{font-size:8.5pt}
.sign td{height:12mm}
`

/** The spec's words, cut for the first page's table (each deviation's section quotes them whole). */
function shortQuote(q: string | undefined, max = 150): string {
  if (!q) return ''
  return q.length <= max ? q : `${q.slice(0, max - 1).replace(/\s+\S*$/, '')} …`
}

export interface AcceptanceOptions {
  generatedAt?: Date
}

export function buildAcceptance(m: ReportModel, opts: AcceptanceOptions = {}): string {
  const r = m.results
  const v = m.verdict
  const states = m.states
  const o: string[] = []
  const p = (s: string) => o.push(s)
  const scoped = scopeText(r.filters) !== null
  p('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">')
  p(`<title>${esc(`Acceptance: ${v.headline} — ${r.target.display}`)}</title><style>${CSS}</style></head><body>`)

  // ---- first page: what was assessed, the verdict, the deviations in one table
  p('<section class="first-page" id="first-page">')
  p('<h1>Conformance acceptance: Messaging and Channel REST Service</h1>')
  p('<table class="facts" id="assessed">')
  const fact = (k: string, val: string) => p(`<tr><th>${esc(k)}</th><td>${val}</td></tr>`)
  fact('Target', `${esc(r.target.display)}${r.target.embedded ? ' <strong>(the bundled reference server: this says nothing about any other server)</strong>' : ''}${r.product ? ` <span class="muted">(${esc(r.product)})</span>` : ''}`)
  fact('Suite, spec revision', `${esc(r.suite.name)} ${esc(r.suite.version)}; ${r.spec ? `clause registry <code>${esc(r.spec.registry)}</code> (${esc(r.spec.clauses)} clauses)` : '<span class="muted">spec revision not recorded by this run</span>'}`)
  fact('Date, scope', `${esc(r.startedAt)} to ${esc(r.endedAt)} (run ${esc(r.runId)}, seed ${esc(r.seed)}); ${scoped ? `${esc(scopeText(r.filters) ?? '')} <strong>(a partial run: not a basis for acceptance)</strong>` : 'the whole suite, every spec area and level'}`)
  fact('Clauses', esc(`${r.coverage.clauses}: ${states.pass} pass, ${states.fail} fail, ${states.warning} warning, ${states.blocked} blocked, ${states.error} error, ${states.known} known, ${states['not-testable']} not testable, ${states['not-checked'] + states.skipped} without a check in this run`))
  p('</table>')
  p(`<div class="verdict ${v.kind}" id="verdict">Verdict: ${esc(v.headline)}<p>${esc(v.explain)} (results.json verdict <code>${esc(r.verdict)}</code>, exit code ${esc(r.exitCode)}; ${esc(`${r.counts.MUST.failed} MUST and ${r.counts.SHOULD.failed} SHOULD entries failed, ${r.counts.total.blocked ?? 0} blocked`)})</p></div>`)
  const failed = r.checks.filter((c) => c.status === 'failed').length
  p(`<h2 id="deviations">Deviations from the spec: ${m.causes.length} (behind ${failed} failed entr${failed === 1 ? 'y' : 'ies'})</h2>`)
  if (!m.causes.length) p('<p>None: no check failed.</p>')
  else {
    p('<table class="deviations"><colgroup><col style="width:4%"><col style="width:37%"><col style="width:18%"><col style="width:7%"><col style="width:26%"><col style="width:8%"></colgroup>')
    p('<tr><th>#</th><th>deviation</th><th>clause</th><th>level</th><th>the spec says</th><th>checks</th></tr>')
    m.causes.forEach((c, i) => {
      p(
        `<tr><td><a href="#d-${i + 1}">${i + 1}</a></td><td>${esc(c.headline)}</td><td><code>${esc(c.clause)}</code></td><td>${esc(c.level)}</td><td>${esc(shortQuote(c.quote, 90))}</td><td>${c.entries.length} failed${c.blocked.length ? `, ${c.blocked.length} blocked` : ''}</td></tr>`,
      )
    })
    p('</table>')
  }
  p('</section>')

  // ---- one section per deviation
  m.causes.forEach((c, i) => p(deviationSection(m, c, i + 1)))

  // ---- what was not judged
  const nj = m.notJudged
  p('<h2 id="not-judged">What was not judged, and why</h2>')
  if (nj.blocked.length) {
    p(`<h3>Blocked (${nj.blocked.length}): a step the check needed failed under another clause</h3><table><tr><th>check</th><th>blocked by</th><th>deviation</th></tr>`)
    for (const b of nj.blocked) {
      const n = b.cause ? m.causes.indexOf(b.cause) + 1 : 0
      p(`<tr><td>${esc(b.entry.id)}</td><td><code>${esc(b.by)}</code></td><td>${n ? `<a href="#d-${n}">${n}</a>` : ''}</td></tr>`)
    }
    p('</table>')
  }
  if (nj.skipped.length) p(`<p class="small"><strong>Skipped (${nj.skipped.length}):</strong> ${esc(nj.skipped.map((c) => c.id).join('; '))}</p>`)
  if (nj.errors.length || nj.suiteErrors.length) {
    p(`<p class="small"><strong>Errors:</strong> ${esc(`${nj.errors.length} check(s) could not be completed (transport or suite errors)${nj.suiteErrors.length ? ` and ${nj.suiteErrors.length} suite error(s)` : ''}; they are no judgement of the server.`)}</p>`)
    for (const e of nj.errors.slice(0, 20)) p(`<div class="small">${esc(e.id)}: ${esc((e.message ?? '').split('\n')[0] ?? '')}</div>`)
  }
  if (!nj.blocked.length && !nj.skipped.length && !nj.errors.length && !nj.suiteErrors.length) p('<p>Every check that ran was judged.</p>')
  p('<h3 id="not-testable">Clauses not testable, and why</h3>')
  if (!nj.notTestable.length) p('<p>None.</p>')
  else {
    p('<table><tr><th>clause</th><th>statement</th><th>reason</th></tr>')
    for (const n of nj.notTestable) p(`<tr><td><code>${esc(n.id)}</code></td><td>${esc(isClauseId(n.id) ? clauseOf(n.id).title : '')}</td><td>${esc(n.reason)}</td></tr>`)
    p('</table>')
  }
  if (nj.withoutCheck.length) p(`<p class="small"><strong>Without a check in this run</strong> (${nj.withoutCheck.length}): ${esc(nj.withoutCheck.join(', '))}</p>`)

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

  p('<h2 id="decision">Decision</h2><table class="sign"><tr><th style="width:42mm">Accepted / rejected</th><td></td></tr><tr><th>Reviewer</th><td></td></tr><tr><th>Date</th><td></td></tr><tr><th>Signature</th><td></td></tr></table>')
  p(`<p class="muted small">Made from results.json of run ${esc(r.runId)} by ${esc(r.suite.name)} ${esc(r.suite.version)}, ${esc((opts.generatedAt ?? new Date()).toISOString())}. Requests and responses are redacted: passwords, client secrets and tokens are replaced by «redacted».</p>`)
  p('</body></html>')
  return `${o.join('\n')}\n`
}

/** One deviation: the spec's words, what is wrong, the failing exchange, the reproducer and the checks it explains. */
function deviationSection(m: ReportModel, c: CauseView, n: number): string {
  const out: string[] = []
  const def = isClauseId(c.clause) ? clauseOf(c.clause) : undefined
  const rep = m.entries.get(c.representative.entry)
  out.push(`<div class="deviation" id="d-${n}"><h3>${n}. ${esc(c.level)} <code>${esc(c.clause)}</code>${def ? ` — ${esc(def.title)}` : ''}</h3>`)
  if (def) out.push(`<div class="small">${esc(def.section)}</div><blockquote>${esc(def.quote)}</blockquote>`)
  out.push(`<p><strong>What is wrong:</strong> ${esc(c.headline)} <span class="small muted">(${esc(c.fanOut)}; cause ${esc(c.id)})</span></p>`)
  out.push(`<div><strong>Expected, and what came back</strong> <span class="small muted">(${esc(rep?.title ?? c.representative.entry)})</span></div><pre>${esc(c.representative.message || '(no message)')}</pre>`)
  if (c.representative.evidence) out.push(`<div class="small"><strong>The failing exchange</strong> (redacted)</div><pre>${esc(c.representative.evidence)}</pre>`)
  if (rep?.reproducer) out.push(`<div class="small"><strong>Reproducer</strong> (sh and curl; accounts and secrets come from the variables of .env; exit 1 while the deviation shows, 0 once it is gone)</div><pre class="repro">${esc(rep.reproducer)}</pre>`)
  const titles = [...c.entries, ...c.blocked].map((id) => m.entries.get(id)?.id ?? id)
  out.push(`<div class="small"><strong>Checks it explains</strong> (${c.entries.length} failed${c.blocked.length ? `, ${c.blocked.length} blocked` : ''}): ${esc(titles.join('; '))}</div></div>`)
  return out.join('\n')
}


/** The first Chromium on PATH (chromium, chromium-browser, google-chrome), or undefined. */
export function findChromium(): string | undefined {
  return ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'].find((bin) => spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 }).status === 0)
}

/**
 * Prints an HTML file to PDF with headless Chromium (no header or footer line, a profile of its own next to
 * the output). Returns why not, when it could not.
 */
export function printToPdf(browser: string, htmlPath: string, pdfPath: string): string | undefined {
  const profile = mkdtempSync(join(tmpdir(), 'ct-chromium-'))
  try {
    const run = spawnSync(
      browser,
      ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--no-pdf-header-footer', `--print-to-pdf=${pdfPath}`, pathToFileURL(htmlPath).href],
      { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
    )
    if (!existsSync(pdfPath)) return `${browser} wrote no PDF (exit ${run.status ?? run.signal}): ${(run.stderr ?? '').trim().split('\n').at(-1) ?? ''}`
    return undefined
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

/** Pages of a PDF that Chromium wrote (its page objects). */
export function pdfPages(pdf: Buffer): number {
  return (pdf.toString('latin1').match(/\/Type\s*\/Page\b/g) ?? []).length
}
