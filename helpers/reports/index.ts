/**
 * Every report of a run, made from its results.json (the single source of truth, so no two reports can
 * disagree): junit.xml (CI), report.html and summary.md (vendor acceptance, issues and pull requests),
 * history/ and the change since the previous run of the same target (nightly regression), and the final
 * redaction pass over allure-results/ (written during the run by the allure-vitest reporter).
 */
import { commandFor } from '../config/invocation'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readEnv } from '../config/config'
import type { RunResults } from './results'
import { ALLURE_DIR, finishAllureResults } from './allure'
import { diffRuns, type RunDiff } from './diff'
import { loadExpectations, targetSlug, type ApiPaths, type LoadedExpectations } from './expectations'
import { readHistory, runsOfTarget, saveToHistory } from './history'
import { baselineOf, buildTrend, type Trend } from './trend'
import { buildHtml } from './html'
import { buildJunit } from './junit'
import { buildMarkdown } from './markdown'
import { reportModel, type ReportModel } from './model'
import { buildHar } from './reproducer'
import type { LoggedExchange } from '../http/recorder'

export { applyExpectations, ExpectationsError, expectationsFor, loadExpectations, targetSlug } from './expectations'
export { ALLURE_DIR, resetAllureResults } from './allure'
export { reportModel, type ReportModel } from './model'
export { outcomeLines } from './console'
export { recordCouldNotRun } from './history'

/** Runs of the same target, before the previous one, that the flaky detection looks at. */
const FLAKY_WINDOW = 10

export interface WrittenReports {
  junit: string
  html: string
  markdown: string
  /** This run's copy in the history. */
  history: string
  /** exchanges.har, when the run's exchanges were given. */
  har?: string
  /** The allure-results directory, when the run wrote one. */
  allure: string | null
  /** The change since the previous run of the same target, when there is one. */
  diff: RunDiff | null
  /** The target's runs in the history, this one last. */
  trend?: Trend | null
}

export interface ReportOptions {
  /** Where results.json was written; default `<reportDir>/results.json`. */
  resultsPath?: string
  generatedAt?: Date
  /** The run's recorded exchanges (redacted): written as exchanges.har. */
  exchanges?: readonly LoggedExchange[]
}

/**
 * The report model of a run with its target's history in `<reportDir>/history` (the run itself not saved there
 * yet): the change since the previous run of the same target, and the trend ending with this run.
 */
export function modelWithHistory(results: RunResults, reportDir: string): ReportModel {
  const earlier = runsOfTarget(readHistory(join(reportDir, 'history')), results)
  // The previous run is the last complete one: not interrupted, filtered, incomplete or concurrent.
  const previous = baselineOf(earlier, results)
  const diff = previous ? diffRuns(previous.results, results, earlier.filter((h) => h.results.startedAt <= previous.results.startedAt).slice(-FLAKY_WINDOW).map((h) => h.results)) : null
  const trend = buildTrend([...earlier.map((h) => h.results), results])
  return reportModel(results, { diff, trend })
}

/**
 * Every report of a run from its one model (modelWithHistory): causes, clause matrix, blocked, trend and latency
 * computed once there, and each output a renderer of it. The run joins the history here.
 */
export function writeReports(model: ReportModel, reportDir: string, opts: ReportOptions = {}): WrittenReports {
  const results = model.results
  mkdirSync(reportDir, { recursive: true })
  const resultsPath = opts.resultsPath ?? join(reportDir, 'results.json')
  const history = saveToHistory(join(reportDir, 'history'), resultsPath, results)
  const { diff, trend } = model

  const junit = join(reportDir, 'junit.xml')
  writeFileSync(junit, buildJunit(model))
  const markdown = join(reportDir, 'summary.md')
  writeFileSync(markdown, buildMarkdown(model))
  const html = join(reportDir, 'report.html')
  writeFileSync(html, buildHtml(model, { generatedAt: opts.generatedAt }))

  let har: string | undefined
  if (opts.exchanges) {
    har = join(reportDir, 'exchanges.har')
    writeFileSync(har, buildHar(opts.exchanges, new URL(results.target.url).origin, results.suite))
  }

  const allureDir = join(reportDir, ALLURE_DIR)
  const allure = existsSync(allureDir) ? allureDir : null
  if (allure) finishAllureResults(allure, model)
  return { junit, html, markdown, history, allure, diff, trend, ...(har ? { har } : {}) }
}

/** What the console says about the reports: where they are, what changed, what the known failures did. */
export function describeReports(w: WrittenReports, r: RunResults): string[] {
  const lines = [`reports: ${w.html}, ${w.markdown}, ${w.junit}${w.allure ? `, ${w.allure}/ (${commandFor('report:allure')})` : ''}; history: ${w.history}${w.har ? `; exchanges: ${w.har}` : ''}`]
  if (w.diff) {
    const d = w.diff
    const clauses = [...new Set(d.newFailures.map((e) => e.clause))]
    lines.push(
      `since run ${d.old.runId} (${d.old.startedAt}): ${d.newFailures.length} new failures, ${d.fixed.length} fixed, ${d.stillFailing.length} still failing, ${d.flaky.length} flaky${clauses.length ? `; newly failing: ${clauses.join(', ')}` : ''}; deviations: ${d.causes.new.length} new, ${d.causes.gone.length} gone`,
    )
  } else lines.push('no earlier run of this target in the history to compare with')
  const notes = r.expectations?.entries ?? []
  if (r.expectations?.file) {
    const by = (o: string) => notes.filter((n) => n.outcome === o).map((n) => n.clause)
    const parts = [`${by('known').length} known failure(s)`]
    if (by('now-passes').length) parts.push(`expected to fail but passing now (remove the entry): ${by('now-passes').join(', ')}`)
    if (by('expired').length) parts.push(`expired, counted as failures again: ${by('expired').join(', ')}`)
    lines.push(`known failures file ${r.expectations.file}: ${parts.join('; ')}`)
  }
  return lines
}

