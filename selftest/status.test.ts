/**
 * The status decision (helpers/reports/status.ts) and the verdict (helpers/reports/results.ts `judge`) as the
 * pure functions they are: each rule of a check's status, and of a run's verdict and exit code, on its own.
 */
import { describe, expect, test } from 'vitest'
import { decideStatus, explainedBy, fieldsOfSchemaFailure, NETWORK_RERUN, type StatusInput } from '../helpers/reports/status'
import { flakyClusterText } from '../helpers/reports/matrix'
import { countChecks, judge, type CheckResult } from '../helpers/reports/results'
import type { Level } from '../helpers/spec/clauses'

const OWN = 'messages.send.recipients'
const SHAPE = 'messages.send.shape'

const input = (over: Partial<StatusInput> = {}): StatusInput => ({
  clause: OWN,
  level: 'MUST',
  state: 'failed',
  errors: [],
  retried: false,
  unavailable: 0,
  ...over,
})
const failure = (clause: string, problem: string) => ({
  name: 'CheckFailure',
  clause,
  message: `[${clause} MUST] POST /message/api/v2/messages/send_to_user_ids → 200\n  ${problem}\n  response (application/json): {}`,
})
const missingRecipient = failure(
  SHAPE,
  "body does not match schema 'send-result':\n  MUST /sentList/0/recipientUsername: required property 'recipientUsername' is missing",
)

describe('a check’s status', () => {
  test('passed, flaky after a retry, skipped', () => {
    expect(decideStatus(input({ state: 'passed' })).status).toBe('passed')
    expect(decideStatus(input({ state: 'passed', retried: true })).status).toBe('flaky')
    expect(decideStatus(input({ state: 'skipped' })).status).toBe('skipped')
  })

  test('a check that passed when run again says what ended the attempts before, and whether a gateway did', () => {
    const unjudged = {
      name: 'ServerUnavailable',
      message: '1 of its requests ended in 502/503/504 (server or gateway unavailable), so the check could not be judged',
    }
    const lost = { name: 'TransportError', message: 'POST /x: no answer after 1 attempt(s) (ECONNRESET: socket hang up)' }
    const gateway = decideStatus(input({ state: 'passed', retried: true, earlierAttempts: [unjudged, unjudged] }))
    expect(gateway.status).toBe('flaky')
    expect(gateway.message).toBe(`${NETWORK_RERUN} its first 2 attempts unjudged:\n  ServerUnavailable: ${unjudged.message}`)
    const network = decideStatus(input({ state: 'passed', retried: true, earlierAttempts: [unjudged, lost] }))
    expect(network.message).toMatch(new RegExp(`^${NETWORK_RERUN} its first 2 attempts unjudged:\\n  ServerUnavailable: .*\\n  TransportError: POST /x`))
    const broken = { name: 'TypeError', message: "Cannot read properties of undefined (reading 'items')" }
    const other = decideStatus(input({ state: 'passed', retried: true, earlierAttempts: [unjudged, broken] }))
    expect(other.message).toMatch(/^passed when run again; its first 2 attempts ended unjudged:\n  ServerUnavailable: .*\n  TypeError: Cannot read/)
    expect(decideStatus(input({ state: 'passed', retried: true })).message).toBeUndefined()
    // Re-runs after the network's trouble make no cluster that would point at the server.
    const entry = (message?: string) => ({ clause: OWN, level: 'MUST', status: 'flaky', retries: 0, ...(message ? { message } : {}) }) as CheckResult
    expect(flakyClusterText({ checks: [1, 2, 3].map(() => entry(gateway.message)) })).toBe('')
    expect(flakyClusterText({ checks: [1, 2, 3].map(() => entry(network.message)) })).toBe('')
    expect(flakyClusterText({ checks: [1, 2, 3].map(() => entry(other.message)) })).toMatch(/^3 MUST checks passed only when run a second time/)
  })

  test('failed under its own clause; anything but a judgement is an error', () => {
    expect(decideStatus(input({ errors: [failure(OWN, '/count/sent: got 3, want 2')] }))).toMatchObject({ status: 'failed', others: [] })
    expect(decideStatus(input({ errors: [{ name: 'TransportError', message: 'no answer' }] })).status).toBe('error')
  })

  test('a step that failed under its own clause blocks the check, charged to that clause', () => {
    const d = decideStatus(input({ errors: [failure('channels.create.response', 'status: got 500, want 2xx')] }))
    expect(d.status).toBe('blocked')
    expect(d.step?.clause).toBe('channels.create.response')
    expect(d.message).toMatch(/^could not be judged: a set-up step failed under channels\.create\.response/)
  })

  test('its own failure about a field the shape found missing is blocked by the shape, not failed under its own clause', () => {
    const d = decideStatus(input({ errors: [missingRecipient, failure(OWN, '/sentList/0/recipientUsername: got undefined, want the user id of B or C')] }))
    expect(d.status).toBe('blocked')
    expect(d.step?.clause).toBe(SHAPE)
    expect(d.step?.message).toContain("required property 'recipientUsername'")
  })

  test('an independent failure of its own is never hidden by a shape failure: failed, and the shape an entry of its own', () => {
    const d = decideStatus(input({ errors: [missingRecipient, failure(OWN, '/count/sent: got 3, want 2')] }))
    expect(d.status).toBe('failed')
    expect(d.others.map((o) => o.clause)).toEqual([SHAPE])
  })

  test('a shape failure and nothing else of its own: blocked (what it judged rests on a broken answer)', () => {
    expect(decideStatus(input({ state: 'passed', errors: [missingRecipient] }))).toMatchObject({ status: 'blocked', step: { clause: SHAPE } })
  })

  test('an INFO check that ended failed is a suite defect; 502/503/504 make any judgement an error', () => {
    expect(decideStatus(input({ level: 'INFO', errors: [failure(OWN, 'x')] })).status).toBe('error')
    const d = decideStatus(input({ unavailable: 2, errors: [failure(OWN, '/count/sent: got 3, want 2')] }))
    expect(d.status).toBe('error')
    expect(d.message).toMatch(/^2 of its requests ended in 502\/503\/504/)
  })

  test('the same input decides the same way (no order or time in it)', () => {
    const i = input({ errors: [missingRecipient, failure(OWN, '/sentList/0/recipientUsername: got undefined')] })
    expect(decideStatus(i)).toEqual(decideStatus(structuredClone(i)))
  })

  test('fields a schema failure names, and whether a problem is about one of them', () => {
    expect([...fieldsOfSchemaFailure(missingRecipient.message)]).toEqual(['recipientUsername'])
    expect(explainedBy(failure(OWN, '/sentList/1/recipientUsername: got undefined').message, new Set(['recipientUsername']))).toBe(true)
    expect(explainedBy(failure(OWN, '/count/requested: got 2, want 1').message, new Set(['recipientUsername']))).toBe(false)
    expect(explainedBy(failure(OWN, 'no pointer named here').message, new Set(['recipientUsername']))).toBe(false)
  })
})

describe('the verdict', () => {
  const entry = (level: Level, status: CheckResult['status']): CheckResult => ({
    id: `${level}-${status}`,
    title: 't',
    clause: 'x',
    section: '§1',
    area: 'items',
    level,
    status,
    durationMs: 0,
    file: 'f',
    requests: 0,
    retries: 0,
  })
  const verdict = (entries: CheckResult[], opts: Partial<{ strict: boolean; interrupted: boolean; errors: number }> = {}) =>
    judge(countChecks(entries), { strict: false, interrupted: false, errors: 0, ...opts })

  test('a MUST failure: non-conformant, exit 1; a blocked check decides nothing by itself', () => {
    expect(verdict([entry('MUST', 'failed'), entry('MUST', 'blocked')])).toEqual({ verdict: 'non-conformant', exitCode: 1 })
    expect(verdict([entry('MUST', 'passed'), entry('MUST', 'blocked')])).toEqual({ verdict: 'conformant', exitCode: 0 })
  })

  test('SHOULD warnings fail only a strict run; interrupted and errors are incomplete; nothing judged could not run', () => {
    expect(verdict([entry('MUST', 'passed'), entry('SHOULD', 'failed')])).toEqual({ verdict: 'conformant-with-warnings', exitCode: 0 })
    expect(verdict([entry('MUST', 'passed'), entry('SHOULD', 'failed')], { strict: true }).exitCode).toBe(1)
    expect(verdict([entry('MUST', 'failed')], { interrupted: true })).toEqual({ verdict: 'incomplete', exitCode: 2 })
    expect(verdict([entry('MUST', 'passed'), entry('MUST', 'error')])).toEqual({ verdict: 'incomplete', exitCode: 2 })
    expect(verdict([entry('MUST', 'skipped')])).toEqual({ verdict: 'could-not-run', exitCode: 2 })
    expect(verdict([entry('MUST', 'known')])).toEqual({ verdict: 'known-failures-only', exitCode: 0 })
  })
})
