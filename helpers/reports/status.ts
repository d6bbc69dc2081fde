/**
 * The status of a check's main entry, decided from what the check ended with: a pure function of the check's
 * clause and level, how its test ended, the failures it raised (each naming its clause) and whether any of its
 * requests met a 502/503/504. The reporter (helpers/runner/reporter.ts) applies it; selftest/status.test.ts
 * states its rules one by one.
 *
 * - passed / flaky: the test passed (flaky when only after a retried request or a re-run; a re-run's entry says
 *   what ended the attempts before);
 * - failed: a failure under the check's own clause that no step's failure explains;
 * - blocked: a step the check needed failed under another clause (`step`): either the check ended on that
 *   failure, or its own failure is about a field the step's failure found missing or mistyped (a send result
 *   without `recipientUsername` blocks the check of the recipients, judged under the send result's shape);
 * - error: the test ended on anything but a CheckFailure, an INFO check ended failed (a suite defect), or its
 *   requests met a 502/503/504 that outlived the retries.
 */
import type { Level } from '../spec/clauses'
import type { Status } from './results'

export interface RaisedError {
  name?: string
  message: string
  /** The clause a CheckFailure names. */
  clause?: string
}

export interface StatusInput {
  clause: string
  level: Level
  state: 'passed' | 'failed' | 'skipped' | 'pending'
  /** Failures in the order they happened: those recorded without stopping the check first, then what stopped it. */
  errors: readonly RaisedError[]
  /** Retried requests or a re-run of the check. */
  retried: boolean
  /** The check's own requests that ended in 502/503/504 after any retries. */
  unavailable: number
  /** For a test that passed when run again (RERUN_ERRORED): what ended the attempts before, in order. */
  earlierAttempts?: readonly RaisedError[]
}

/**
 * How a re-run check's entry begins when every attempt before ended on the network: a 502/503/504, a connection
 * lost or refused, or a 429 that persisted. That is noise on the way, not the server's state.
 */
export const NETWORK_RERUN = 'passed when run again after the network left'

/** The errors of the network, not of the server's answers: a gateway's 502/503/504, a lost connection, a persisting 429. */
const NETWORK_ERRORS = new Set(['ServerUnavailable', 'TransportError', 'RateLimitedError'])

/** The message of a check that passed only when run again: what ended the attempts before (their first lines). */
export function rerunMessage(earlier: readonly RaisedError[]): string {
  const n = earlier.length
  const firsts = [...new Set(earlier.map((e) => `${e.name === 'CheckFailure' || !e.name ? '' : `${e.name}: `}${e.message.split('\n')[0]}`))]
  const attempts = n === 1 ? 'its first attempt' : `its first ${n} attempts`
  const head = earlier.every((e) => NETWORK_ERRORS.has(e.name ?? ''))
    ? `${NETWORK_RERUN} ${attempts} unjudged`
    : `passed when run again; ${attempts} ended unjudged`
  return `${head}:\n${firsts.map((l) => `  ${l}`).join('\n')}`
}

export interface StatusDecision {
  status: Status
  /** The entry's message (not yet redacted). */
  message?: string
  /** The step whose failure blocked the check: its clause and its failure's text. */
  step?: { clause: string; message: string }
  /** Failures under other clauses on the way of a check that failed (or was blocked) on its own: entries of their own. */
  others: { clause: string; message: string }[]
}

const isJudgement = (e: RaisedError | undefined) => e?.name === 'CheckFailure' || e?.name === 'AssertionError'

/** Field names a schema failure found missing, mistyped or forbidden (`MUST /sentList/0/recipientUsername: …` → recipientUsername). */
export function fieldsOfSchemaFailure(message: string): Set<string> {
  const fields = new Set<string>()
  for (const m of message.matchAll(/^\s*(?:[\w-]+: )?MUST (\/\S*): /gm)) {
    const name = m[1]!.split('/').filter((p) => p && !/^\d+$/.test(p)).at(-1)
    if (name) fields.add(name)
  }
  return fields
}

/** The pointers a failure's problem lines name first (`/sentList/0/recipientUsername: got undefined` → that pointer). */
function problemPointers(message: string): string[] {
  const problem = message.split('\n').filter((l) => /^ {2}\S/.test(l) && !/^ {2}(request|response)\b/.test(l))
  return problem.flatMap((l) => [...l.matchAll(/(?:^|\s)(\/[\w/-]+)/g)].map((m) => m[1]!)).slice(0, 1)
}

/** Whether a failure of the check's own is about one of `fields` (its first pointer ends in one). */
export function explainedBy(message: string, fields: ReadonlySet<string>): boolean {
  const pointers = problemPointers(message)
  return pointers.length > 0 && pointers.every((p) => fields.has(p.split('/').filter((x) => x && !/^\d+$/.test(x)).at(-1) ?? ''))
}

export function decideStatus(input: StatusInput): StatusDecision {
  const { clause: id, errors } = input
  const unavailableText = `${input.unavailable} of its requests ended in 502/503/504 (server or gateway unavailable), so the check could not be judged`
  const withUnavailable = (d: StatusDecision): StatusDecision => {
    if (input.unavailable === 0 || d.status === 'skipped' || d.status === 'error') return d
    return { ...d, status: 'error', message: d.message ? `${unavailableText}\n${d.message}` : unavailableText }
  }
  if (input.state === 'skipped' || input.state === 'pending') return { status: 'skipped', others: [] }
  if (input.state === 'passed' && errors.length === 0) {
    const earlier = input.earlierAttempts ?? []
    if (!input.retried) return withUnavailable({ status: 'passed', others: [] })
    return withUnavailable({ status: 'flaky', ...(earlier.length ? { message: rerunMessage(earlier) } : {}), others: [] })
  }
  const first = errors[0]
  let status: Status = isJudgement(first) ? 'failed' : 'error'
  let message = errors.map((e) => (e.name === 'CheckFailure' ? e.message : `${e.name}: ${e.message}`)).join('\n')
  const failures = errors.filter((e) => e.name === 'CheckFailure' && e.clause)
  const own = failures.filter((e) => e.clause === id)
  const others = failures.filter((e) => e.clause !== id)
  // A shape failure recorded without stopping the check may come before the check's own failure: the check
  // failed under its own clause when any of its failures names it.
  if (own.length && status !== 'failed') status = 'failed'
  let failedClause = own.length ? id : first?.name === 'CheckFailure' ? first.clause : undefined
  if (own.length && others.length) {
    // Its own failure is about a field a step's schema failure found broken: the step explains it; blocked.
    const fields = new Set(others.flatMap((e) => [...fieldsOfSchemaFailure(e.message)]))
    if (fields.size && own.every((e) => explainedBy(e.message, fields))) failedClause = others[0]!.clause
  }
  if (failedClause && failedClause !== id) {
    // The check failed under another clause than its own: a step it needed failed (helpers/kit/setup.ts).
    const stepMessage = others.filter((e) => e.clause === failedClause).map((e) => e.message).join('\n') || message
    const rest = others.filter((e) => e.clause !== failedClause).map((e) => ({ clause: e.clause!, message: e.message }))
    return withUnavailable({
      status: 'blocked',
      message: `could not be judged: a set-up step failed under ${failedClause}\n${message}`,
      step: { clause: failedClause, message: stepMessage },
      others: rest,
    })
  }
  // Other clauses that failed on the way (a set-up step's shape) are entries of their own, not a block.
  const rest = own.length ? others.map((e) => ({ clause: e.clause!, message: e.message })) : []
  if (status === 'failed' && input.level === 'INFO') {
    // INFO is observed, never judged: a check that judged one anyway is a defect of the suite.
    status = 'error'
    message = `suite defect: an INFO check ended failed under its own clause (INFO is never judged)\n${message}`
  }
  return withUnavailable({ status, message, others: rest })
}
