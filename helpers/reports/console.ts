/**
 * The console's account of a run, a renderer of the report model (helpers/reports/model.ts) alone: the root
 * causes first, the MUST failures and errors in full, the SHOULD warnings in a line each, the per-area summary,
 * the latency table and the verdict line.
 */
import type { CauseView, ReportModel } from './model'
import { formatLatency, formatSummary, scopeText, type RunResults } from './results'

/** The console's lead: each root cause with its clause, quote, fan-out and a representative failure. */
export function formatRootCauses(causes: readonly CauseView[], max = 20): string {
  const lines = [`Root causes (${causes.length}; the failures below group into these):`]
  causes.slice(0, max).forEach((c, i) => {
    lines.push(`  ${i + 1}. ${c.level} ${c.clause}: ${c.headline}  [${c.fanOut}]`)
    if (c.quote) lines.push(`     spec: "${c.quote}"`)
    lines.push(`     e.g. ${c.representative.entry}`)
  })
  if (causes.length > max) lines.push(`  … and ${causes.length - max} more in report.html`)
  return lines.join('\n')
}

/** The lines the console shows once a run is judged; `path` is where its results.json was written. */
export function outcomeLines(m: ReportModel, path: string): string[] {
  const r = m.results
  const lines: string[] = []
  const log = (line: string) => lines.push(line)
  // Root causes first: one deviation of the server often fails many checks.
  if (m.causes.length) {
    log('')
    log(formatRootCauses(m.causes))
  }
  const notPassed = r.checks.filter((c) => c.status === 'failed' || c.status === 'error')
  const shown = notPassed.filter((c) => c.level === 'MUST' || c.status === 'error')
  if (shown.length) {
    log('')
    for (const c of shown) log(`${c.status === 'error' ? 'ERROR' : 'FAIL'} ${c.level} ${c.id}\n${indent(c.message ?? '')}\n`)
  }
  const warnings = notPassed.filter((c) => c.level === 'SHOULD' && c.status === 'failed')
  if (warnings.length) {
    log(`SHOULD warnings (${warnings.length}):`)
    for (const w of warnings.slice(0, 20)) log(`  - ${w.clause}: ${w.title}: ${(w.message ?? '').split('\n')[0]}`)
    if (warnings.length > 20) log(`  … and ${warnings.length - 20} more in ${path}`)
  }
  for (const e of r.errors) log(`suite error: ${e}`)
  for (const c of r.cleanup) log(`cleanup problem: ${c}`)
  log('')
  log(formatSummary(r))
  log('')
  if (r.latency) {
    log(formatLatency(r.latency))
    log('')
  }
  if (r.target.embedded)
    log('target: the bundled reference server (BASE_URL empty or embedded), started for this run: this verdict says nothing about any other server')
  const t = r.counts.total
  if (r.interrupted) log('interrupted: only the checks that ran are judged; run again for a verdict')
  if (m.blockedSentence) log(m.blockedSentence)
  const cluster = m.flakyCluster
  log(
    `verdict: ${r.verdict} — ${r.counts.MUST.failed} MUST failed, ${r.counts.SHOULD.failed} SHOULD failed, ${t.error} errors, ${t.blocked ?? 0} blocked, ${t.flaky} flaky${cluster ? ' (a cluster of MUST checks: see above)' : ''}; ${countsText(r)} in ${(r.durationMs / 1000).toFixed(1)} s; scope: ${scopeText(r.filters) ?? 'the whole suite'}`,
  )
  if (cluster) log(`flaky cluster: ${cluster}`)
  log(`results: ${path}`)
  return lines
}

/**
 * The run's entries in words: results.json has one entry per check and one per other clause a check judged on the
 * way (a SHOULD status, an INFO observation, a set-up step), so "results" outnumber "checks"; the counts of the
 * verdict line are over all entries (the same as results.json `counts.total`, summary.md and report.html).
 */
export function countsText(r: RunResults): string {
  const checks = r.checks.filter((c) => !c.parent).length
  const skipped = r.counts.total.skipped
  return `${r.checks.length} results (${checks} checks, ${r.checks.length - checks} findings of theirs under other clauses${skipped ? `; ${skipped} not run, each with its reason` : ''})`
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')
}
