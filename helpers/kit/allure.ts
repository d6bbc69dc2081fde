/**
 * Allure labels and steps of one check, written in the test worker (allure-vitest 3): labels on every check
 * (epic = spec area, feature = endpoint, i.e. the enclosing describe, story = clause, severity from the
 * level), one step per HTTP exchange and per finding, the redacted exchanges attached when the check failed.
 * They go through the synchronous allure-js-commons API and carry only redacted text; the main process then
 * finishes the results directory from results.json (helpers/reports/allure.ts).
 */
import * as allure from 'allure-js-commons/sync'
import { AREAS, clause as clauseOf, isClauseId, type Level } from '../spec/clauses'
import type { Exchange } from '../http/client'
import type { Finding } from '../http/recorder'
import { redact } from '../http/redact'

const SEVERITY: Record<Level, string> = { MUST: 'critical', SHOULD: 'normal', INFO: 'minor' }

/** Labels of one check; `feature` is the name of the enclosing describe (the endpoint). */
export function labelCheck(clauseId: string | undefined, feature: string | undefined): void {
  if (!clauseId || !isClauseId(clauseId)) return
  const c = clauseOf(clauseId)
  allure.epic(AREAS[c.area])
  allure.feature(redact(feature || c.area))
  allure.story(`${c.id}: ${c.title}`)
  allure.severity(SEVERITY[c.level])
  allure.label('clause', c.id)
  allure.label('level', c.level)
  allure.label('section', c.section)
}

/** One step per HTTP exchange, named by its redacted request line and status. */
export function exchangeStep(ex: Exchange): void {
  const retried = ex.attempts > 1 ? `, ${ex.attempts} attempts` : ''
  allure.logStep(redact(`${ex.request.method} ${ex.request.url} → ${ex.status} (${ex.durationMs} ms${retried})`), allure.Status.PASSED)
}

/** What a check found at other levels on the way (a SHOULD on a status, an INFO observation), as steps. */
export function findingSteps(findings: readonly Finding[]): void {
  for (const f of findings) {
    allure.logStep(redact(`${f.level} ${f.clause}: ${f.message}`).slice(0, 500), f.status === 'failed' ? allure.Status.FAILED : allure.Status.PASSED)
  }
}

/** The redacted exchanges of a failed check, newest last, as one text attachment. */
export function attachEvidence(exchanges: readonly string[], message?: string): void {
  if (!exchanges.length && !message) return
  const text = [message ? `${message}\n` : '', ...exchanges.map((e, i) => `── exchange ${i + 1} of ${exchanges.length}\n${e}\n`)].join('\n')
  allure.attachment('redacted requests and responses', redact(text), { contentType: 'text/plain', fileExtension: 'txt' })
}
