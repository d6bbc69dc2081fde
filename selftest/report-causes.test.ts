/**
 * The pieces of the failure reports, without a run: endpoint templates, latency percentiles, root-cause
 * grouping, stable JUnit messages, reproducers and the CI annotations made from junit.xml.
 */
import { describe, expect, test } from 'vitest'
import { endpointOf, normaliseRunText } from '../helpers/http/endpoints'
import type { LoggedExchange } from '../helpers/http/recorder'
import { problemOf, rootCauses, storedCauses } from '../helpers/reports/causes'
import { diffRuns } from '../helpers/reports/diff'
import { fixtureRun } from './report-fixtures'
import { annotationsOf, buildJunit, stableMessage } from '../helpers/reports/junit'
import { reportModel } from '../helpers/reports/model'
import { reproducerOf, testsOf } from '../helpers/reports/reproducer'
import { latencyRows, type CheckResult, type RunResults } from '../helpers/reports/results'

function entry(id: string, clause: string, message: string, extra: Partial<CheckResult> = {}): CheckResult {
  return {
    id,
    title: id,
    clause,
    section: '§4',
    area: 'items',
    level: 'MUST',
    status: 'failed',
    durationMs: 5,
    file: 'suites/x.test.ts',
    message,
    requests: 1,
    retries: 0,
    ...extra,
  }
}

const publish403 = (name: string) =>
  `[items.publish.response MUST] POST /message/api/v2/channels/${name}/items → 403\n  status: got 403, want 2xx\n  response (application/json): {"code":"FORBIDDEN"}`
const missingPushId = (clause: string) =>
  `[${clause} MUST] POST /message/api/v2/push/user/b2b2c0de00000000000000000000000b → 200\n  body does not match schema 'push-result':\n  MUST /sentList/0/pushId: required property 'pushId' is missing; got an object with keys messageId, deviceId\n  MUST /sentList/1/pushId: required property 'pushId' is missing; got an object with keys messageId, deviceId`

describe('endpoint templates', () => {
  test('a concrete path becomes its §4 template, whatever the prefixes and the channel name', () => {
    expect(endpointOf('post', '/gw/message/api/v2/channels/ct1f33d10262f114/items?x=1')).toBe('POST /channels/{name}/items')
    expect(endpointOf('GET', '/message/api/v2/channels/a1a1c0de00000000000000000000000a%23ct1f33d1025093')).toBe('GET /channels/{name}')
    expect(endpointOf('GET', '/message/api/v2/channels/c/items/fetch')).toBe('GET /channels/{name}/items/fetch')
    expect(endpointOf('DELETE', '/message/api/v2/channels/c/tags/t1')).toBe('DELETE /channels/{name}/tags/{tag}')
    expect(endpointOf('GET', '/message/api/v2/channels?size=2')).toBe('GET /channels')
    expect(endpointOf('POST', '/mobile/api/com.vendor.server/user/session')).toBe('POST /user/session')
  })

  test('run-specific names, ids and times are normalised', () => {
    expect(normaliseRunText('ct1f33d10262f114 at 2026-11-23T13:43:03.429+0000 id 5e3388c07af52fcfc328b9c8fb5dd2d4, maxItems 100')).toBe(
      '{channel1} at {time} id {id1}, maxItems 100',
    )
  })

  test('ids normalised stay apart: the first seen is {id1}, another {id2}, so a wrong order still reads as one', () => {
    const [x, y] = ['5e3388c07af52fcfc328b9c8fb5dd2d4', 'a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5']
    expect(normaliseRunText(`got ["${y}","${x}"], want ["${x}","${y}"]`)).toBe('got ["{id1}","{id2}"], want ["{id2}","{id1}"]')
    expect(normaliseRunText(`ct1f33d10262f114 and ct1f33d10262f115 then ct1f33d10262f114`)).toBe('{channel1} and {channel2} then {channel1}')
    // Endpoint templates stay one per endpoint, whatever the ids in the path.
    expect(endpointOf('GET', `/x/unknown/${x}`)).toBe(endpointOf('GET', `/x/unknown/${y}`))
  })
})

describe('latency', () => {
  test('count, p50, p95, max and errors per endpoint, slowest p95 first', () => {
    const rows = latencyRows({
      'GET /channels': { ms: Array.from({ length: 100 }, (_, i) => 100 - i), errors: 0 },
      'POST /channels': { ms: [300, 200, 900], errors: 1 },
    })
    expect(rows).toEqual([
      { endpoint: 'POST /channels', count: 3, p50: 300, p95: 900, max: 900, errors: 1 },
      { endpoint: 'GET /channels', count: 100, p50: 50, p95: 95, max: 100, errors: 0 },
    ])
  })
})

describe('root causes', () => {
  const checks: CheckResult[] = [
    entry('items.publish.response: answers 201', 'items.publish.response', publish403('ct1f33d1013241')),
    entry('items.fetch.order: lists items > items.publish.response', 'items.publish.response', publish403('ct1f33d1023245'), {
      parent: 'items.fetch.order: lists items',
    }),
    entry('items.fetch.order: lists items', 'items.fetch.order', 'could not be judged: a set-up step failed under items.publish.response', {
      status: 'blocked',
      blockedBy: 'items.publish.response',
    }),
    entry('push.shape: answers', 'push.shape', missingPushId('push.shape')),
    entry('push.counts: counts', 'push.counts', missingPushId('push.counts')),
    entry(
      'push.shape: answers > http.no-extra-fields',
      'http.no-extra-fields',
      'push-result: SHOULD /sentList/0/messageId: undocumented property \'messageId\'; got "1234567890abcdef1234567890abcdef" (string)',
      { level: 'SHOULD', parent: 'push.shape: answers' },
    ),
    entry(
      'messages.send.unknown-not-matched: leaves',
      'messages.send.unknown-not-matched',
      `${missingPushId('messages.send.unknown-not-matched').replace('push-result', 'send-result')}\n[messages.send.unknown-not-matched MUST] POST /message/api/v2/messages/send_to_user_ids → 200\n  /count/requested: got 2 (number), want 1`,
    ),
  ]

  test("a matcher's status line with the call it names is the same answer as that status on that endpoint", () => {
    const refused = (name: string) =>
      `[items.permission.owner MUST] POST /message/api/v2/channels/${name}/items → 201\n  status: got 201, want a refusal (not 2xx)`
    const named = (name: string) =>
      `[items.permission.owner MUST] POST /message/api/v2/channels/${name}/items → 201\n  B's publish to a channel whose publishPermission is owner: status: got 201, want a refusal (not 2xx)`
    const causes = rootCauses({
      checks: [
        entry('items.permission.owner: refuses', 'items.permission.owner', refused('ct1f33d1013241')),
        entry('items.permission.owner: stores nothing', 'items.permission.owner', named('ct1f33d1013242')),
      ],
    })
    expect(causes.map((c) => c.problem)).toEqual(['POST /channels/{name}/items answers 201 (status: got 201, want a refusal (not 2xx))'])
    expect(causes[0]!.checks).toHaveLength(2)
  })

  test("a SHOULD about a field of the schema that blocked the check joins that schema's MUST cause", () => {
    const read = `[channels.get.shape MUST] GET /message/api/v2/channels/ct1f33d1013241 → 200\n  body does not match schema 'channel':\n  MUST /creationDate: must be an ISO 8601 date-time with a numeric offset`
    const form = `channel: SHOULD /creationDate: should be the common ISO 8601 form with a zone`
    const check = 'channels.create.default-max-items: defaults'
    const causes = rootCauses({
      checks: [
        entry(check, 'channels.create.default-max-items', '', { status: 'blocked', blockedBy: 'channels.get.shape' }),
        entry(`${check} > channels.get.shape`, 'channels.get.shape', read, { parent: check }),
        entry(`${check} > http.timestamp-form`, 'http.timestamp-form', form, { level: 'SHOULD', parent: check }),
      ],
    })
    expect(causes.map((c) => `${c.level} ${c.clause}`)).toEqual(['MUST channels.get.shape'])
    expect(causes[0]!.checks.sort()).toEqual([`${check} > channels.get.shape`, `${check} > http.timestamp-form`])
  })

  test('one cause per deviation: a status on one endpoint, a schema problem at one place, each with what it explains', () => {
    const causes = rootCauses({ checks })
    const text = causes.map((c) => c.problem).join('\n')
    expect(causes, text).toHaveLength(4)
    const publish = causes.find((c) => c.clause === 'items.publish.response')!
    expect(publish.problem).toBe('POST /channels/{name}/items answers 403 (status: got 403, want 2xx)')
    expect(publish.checks).toHaveLength(2)
    expect(publish.blocked).toEqual(['items.fetch.order: lists items'])
    const push = causes.find((c) => c.problem.startsWith("schema 'push-result'"))!
    // The undocumented field of the renamed one joins the failure of its check.
    expect(push.checks.sort()).toEqual(['push.counts: counts', 'push.shape: answers', 'push.shape: answers > http.no-extra-fields'])
    expect(push.level).toBe('MUST')
    // A check that met two deviations is explained by both.
    expect(causes.filter((c) => c.checks.includes('messages.send.unknown-not-matched: leaves'))).toHaveLength(2)
  })

  test('the JUnit message states the problem and is the same across runs', () => {
    const a = entry('x', 'items.publish.response', publish403('ct1f33d1013241'))
    const b = entry('x', 'items.publish.response', publish403('ct9a8b7c0999999'))
    expect(stableMessage(a, { problem: problemOf(a) })).toBe('[items.publish.response MUST] POST /channels/{name}/items: status: got 403, want 2xx')
    expect(stableMessage(b, { problem: problemOf(b) })).toBe(stableMessage(a, { problem: problemOf(a) }))
    expect(problemOf(entry('y', 'push.shape', missingPushId('push.shape')))).toBe(
      "POST /push/user/{userId}: schema 'push-result' MUST /sentList/0/pushId: required property 'pushId' is missing; got an object with keys messageId, deviceId",
    )
  })

  test('CI annotations: one error per distinct problem, a warning per SHOULD warning', () => {
    const base: Omit<RunResults, 'checks'> = {
      format: 'mcrs-conformance-results/2',
      suite: { name: 's', version: '1' },
      target: { display: 't', url: 'http://x', userApiPath: '/u', messageApiPath: '/m', embedded: false },
      runId: 'r',
      seed: 1,
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
      durationMs: 1000,
      strict: false,
      filters: { areas: [], level: null },
      interrupted: false,
      verdict: 'non-conformant',
      exitCode: 1,
      counts: {} as never,
      http: { requests: 1, retries: 0 },
      cleanup: [],
      errors: [],
      coverage: { clauses: 1, checked: 1, notTestable: [], withoutCheck: [] },
    }
    const xml = buildJunit(reportModel({ ...base, checks: checks.filter((c) => c.status !== 'blocked') }))
    const lines = annotationsOf(xml)
    expect(lines.filter((l) => l.startsWith('::error')).some((l) => l.includes('(2 checks)') && l.includes('items.publish.response'))).toBe(true)
    expect(lines.filter((l) => l.startsWith('::warning'))).toHaveLength(1)
    for (const l of lines) expect(l).not.toMatch(/\n/)
  })
})

describe('reproducers', () => {
  const ex = (method: string, url: string, status: number, account: string, body?: string): LoggedExchange => ({
    endpoint: endpointOf(method, url),
    account,
    phase: 'check',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 3,
    method,
    url,
    requestHeaders: { accept: 'application/json', authorization: 'Bearer «redacted»', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { requestBody: body } : {}),
    status,
    responseHeaders: {},
    responseBody: '',
  })
  const ctx = {
    origin: 'http://127.0.0.1:9',
    userApiPath: '/u',
    messageApiPath: '/m',
    runId: 'ab12cd',
    clientId: 'app-1',
    accounts: { A: { userName: 'alice', userId: 'a1a1c0de' }, B: { userName: 'bob', userId: 'b2b2c0de' } },
  }
  test("the check's requests up to the failing one: accounts signed in from .env variables, the run's values as variables", () => {
    const log = [
      ex('POST', '/m/channels', 201, 'A', '{"channelName":"ctab12cd0a1f1","description":"it\'s"}'),
      { ...ex('POST', '/m/channels/ctab12cd0a1f1/items', 201, 'A', '{"x":1}'), responseBody: '{"items":[{"itemId":"9f8e7d6c5b4a"}]}' },
      ex('DELETE', '/m/channels/ctab12cd0a1f1/items/9f8e7d6c5b4a', 403, 'B'),
      ex('GET', '/m/channels/ctab12cd0a1f1', 200, 'A'),
    ]
    const script = reproducerOf(log, '[items.delete.result MUST] DELETE /m/channels/ctab12cd0a1f1/items/9f8e7d6c5b4a → 403\n  status: got 403, want 2xx', ctx)!
    expect(script).toMatch(/^#!\/bin\/sh\n/)
    expect(script).toContain(': "${BASE_URL:?')
    expect(script).toContain('signin "$USER_A_NAME" "$USER_A_PASSWORD"')
    expect(script).toContain('signin "$USER_B_NAME" "$USER_B_PASSWORD"')
    // A fresh run id in the channel name; the item id the server made captured from its answer.
    expect(script).toContain('"{\\"channelName\\":\\"ct${R}0a1f1\\",\\"description\\":\\"it\'s\\"}"')
    expect(script).toContain('V1=$(nth itemId 1)')
    expect(script).toContain('"${BASE_URL}${MP}/channels/ct${R}0a1f1/items/${V1}"')
    expect(script).not.toContain('«redacted»')
    // The run's id stays in the comments and the messages only: no request of the script sends it.
    const requests = script.split('\n').filter((l) => /^\s*(call|del) /.test(l))
    expect(requests.length).toBe(5)
    expect(requests.join('\n')).not.toContain('ab12cd')
    // Expected answers beside the requests, the judgement at the end, and the channel deleted on exit.
    expect(script).toContain('# Expected: 2xx, as the run got (201).')
    expect(script).toContain('if case $STATUS in 2??) false ;; *) true ;; esac; then DEV=1')
    expect(script).toContain('del A "${BASE_URL}${MP}/channels/ct${R}0a1f1"')
    // By its personal address too: a server that made it private anyway keeps it there.
    expect(script).toContain('del A "${BASE_URL}${MP}/channels/ct${R}0a1f1?personal=true"')
    // Stops at the request the failure names.
    expect(script.match(/^call /gm)).toHaveLength(3)
  })

  test('a sign-in replayed with its password from the variables, the field name hidden from the redaction', () => {
    const signIn = ex('POST', '/u/user/session', 200, 'anonymous', 'grant_type=password&username=alice&password=«redacted»&client_id=app-1')
    const script = reproducerOf([signIn], '[signin.session.shape MUST] POST /u/user/session → 200\n  /expires_in: must be integer; got "7200" (string)', ctx)!
    expect(script).toContain('username=${USER_A_NAME}&${F_password}=${USER_A_PASSWORD}&client_id=${CLIENT_ID}')
    expect(script).toContain('F_password=password')
    // The wrong value's form, digits aside: the replay's answer is another number in quotes.
    expect(script).toContain(`if has '"expires_in"[[:space:]]*:[[:space:]]*"[0-9][0-9][0-9][0-9]"([^0-9.eE]|$)'; then DEV=1`)
    expect(script).not.toContain('«redacted»')
  })

  test("a wrong password made again from the account's as the record says (with a suffix, a prefix, in a query): never the account's own", () => {
    const wrong = {
      ...ex('POST', '/u/user/session', 401, 'anonymous', 'grant_type=password&username=alice&password=«redacted»&client_id=app-1'),
      secrets: [{ in: 'body' as const, field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'suffixed' as const, suffix: '-x9 z' }],
    }
    const suffixed = reproducerOf([wrong], '[signin.wrong-password.refused MUST] POST /u/user/session → 401\n  status: got 200, want a refusal (not 2xx)', ctx)!
    expect(suffixed).toContain('&${F_password}=${USER_A_PASSWORD}-x9%20z&client_id=')
    const prefix = { ...wrong, secrets: [{ in: 'body' as const, field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'prefix' as const, length: 8 }] }
    expect(reproducerOf([prefix], 'status: got 200, want a refusal (not 2xx)', ctx)).toContain(`&\${F_password}=$(printf '%.8s' "$USER_A_PASSWORD")&client_id=`)
    const swapped = { ...wrong, secrets: [{ in: 'body' as const, field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'swapcase' as const }] }
    expect(reproducerOf([swapped], 'status: got 200, want a refusal (not 2xx)', ctx)).toContain(
      `&\${F_password}=$(printf '%s' "$USER_A_PASSWORD" | tr 'a-zA-Z' 'A-Za-z')&client_id=`,
    )
    const prefixed = { ...wrong, secrets: [{ in: 'body' as const, field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'prefixed' as const, prefix: ' ' }] }
    expect(reproducerOf([prefixed], 'status: got 200, want a refusal (not 2xx)', ctx)).toContain('&${F_password}=%20${USER_A_PASSWORD}&client_id=')
    const query = {
      ...ex('POST', '/u/user/session?grant_type=password&username=bob&password=«redacted»&client_id=app-1', 400, 'anonymous'),
      secrets: [{ in: 'url' as const, field: 'password', nth: 1, from: 'USER_B_PASSWORD', how: 'same' as const }],
    }
    const inQuery = reproducerOf([query], `[signin.params.query MUST] POST ${query.url} → 400\n  status: got 400, want 2xx`, ctx)!
    expect(inQuery).toContain("echo 'DEVIATION SHOWS: [signin.params.query MUST] POST /u/user/session?… → 400'")
    expect(inQuery).toContain(
      '"${BASE_URL}${UP}/user/session?grant_type=password&username=${USER_B_NAME}&${F_password}=${USER_B_PASSWORD}&client_id=${CLIENT_ID}"',
    )
    expect(inQuery).toContain('signin "$USER_B_NAME" "$USER_B_PASSWORD"')
    for (const script of [suffixed, inQuery])
      expect(
        script
          .split('\n')
          .filter((l) => !l.startsWith('#'))
          .join('\n'),
      ).not.toContain('«redacted»')
  })

  test("each sign-in of the check's own keeps its token: a later request sends the one the run sent", () => {
    const signIn = (seq: number, user: string) => ({
      ...ex('POST', '/u/user/session', 200, 'anonymous', `grant_type=password&username=${user}&password=«redacted»&client_id=app-1`),
      seq,
    })
    const log = [
      signIn(1, 'alice'),
      signIn(2, 'bob'),
      { ...ex('PUT', '/m/channels/ctab12cd0a1f1/subscribe', 200, 'other'), seq: 3, tokenFrom: 1 },
      { ...ex('GET', '/m/channels/ctab12cd0a1f1/subscriptions', 200, 'other'), seq: 4, tokenFrom: 2 },
    ]
    const script = reproducerOf(
      log,
      '[x MUST] GET /m/channels/ctab12cd0a1f1/subscriptions → 200\n  /0/userId: got "b2b2c0de" (string), want "a1a1c0de" (string)',
      ctx,
    )!
    expect(script).toContain('TOKEN_S1=$TOKEN_O')
    expect(script).toContain('TOKEN_S2=$TOKEN_O')
    expect(script).toMatch(/TOKEN_O=\$TOKEN_S1\ncall O -X PUT /)
    expect(script).toMatch(/TOKEN_O=\$TOKEN_S2\ncall O -X GET /)
    // The token is the script's own now: judged, not "not judged".
    expect(script).not.toContain('exit 2\nif [ "$DEV" = 1 ]')
  })

  test("a field missing from one record of a list: counted against a field each of the run's records had once", () => {
    const body = '[{"userId":"a1","subscriptionId":"s1"},{"userId":"b2","subscriptionId":"s2","channelName":"c"}]'
    const [t] = testsOf(
      "[x MUST] GET /m/c → 200\n  MUST /0/channelName: required property 'channelName' is missing; got an object with keys userId, subscriptionId",
      body,
    )
    expect(t!.deviates).toBe(`[ "$(count '"userId"[[:space:]]*:')" -gt "$(count '"channelName"[[:space:]]*:')" ]`)
    // A key the answer holds elsewhere too counts no records: another key is taken, else the field anywhere.
    const nested = '[{"userId":"a1","owner":{"userId":"x"},"subscriptionId":"s1"},{"userId":"b2","subscriptionId":"s2","channelName":"c"}]'
    expect(
      testsOf("  /0/channelName: required property 'channelName' is missing; got an object with keys userId, owner, subscriptionId", nested)[0]!.deviates,
    ).toContain(`count '"subscriptionId"`)
    expect(testsOf("  /0/channelName: required property 'channelName' is missing; got an object with keys userId", nested)[0]!.deviates).toBe(
      `! has '"channelName"[[:space:]]*:'`,
    )
  })

  test("a time wanted later than an earlier answer's: captured there, compared as the replay gets it, the run's pause kept", () => {
    const summary = (at: string, ms: number) => ({
      ...ex('GET', '/m/channels/ctab12cd0a1f1/summary', 200, 'A'),
      startedAt: at,
      responseBody: `{"publishedItemCount":${ms},"lastPublishedTime":"2026-01-01T00:00:00.100Z"}`,
    })
    const log = [
      ex('POST', '/m/channels/ctab12cd0a1f1/items', 201, 'A', '{"x":1}'),
      summary('2026-01-01T00:00:00.050Z', 1),
      { ...ex('POST', '/m/channels/ctab12cd0a1f1/items', 201, 'A', '{"x":2}'), startedAt: '2026-01-01T00:00:01.200Z' },
      summary('2026-01-01T00:00:01.300Z', 2),
    ]
    const message =
      '[channels.summary.last-published MUST] GET /m/channels/ctab12cd0a1f1/summary → 200\n  after a publish 1.1 s after the one before: /lastPublishedTime: got "2026-01-01T00:00:00.100Z" (string), want later than the first publish\'s "2026-01-01T00:00:00.100Z" (string)'
    const script = reproducerOf(log, message, ctx)!
    expect(script).toContain('V1=$(nth lastPublishedTime 1)')
    expect(script).toContain(`if not_later "$(nth lastPublishedTime 1)" ''"\${V1}"''; then DEV=1`)
    expect(script).toMatch(/\nsleep 2\n/)
    // Not found again in an earlier answer: not judged, never the run's answer taken for the deviation.
    const alone = reproducerOf(log.slice(2), message, ctx)!
    expect(alone).not.toContain('RUN_BODY=')
    expect(alone).toContain('exit 2\nif [ "$DEV" = 1 ]')
  })

  test('a count of times an account left a list: the read before the request made again after it', () => {
    const list = (n: number) => ({
      ...ex('GET', '/m/channels/ctab12cd0a1f1/subscriptions', 200, 'A'),
      responseBody: JSON.stringify(Array(n).fill({ userId: 'b2b2c0de' })),
    })
    const log = [ex('PUT', '/m/channels/ctab12cd0a1f1/subscribe', 200, 'B'), list(2), ex('PUT', '/m/channels/ctab12cd0a1f1/unsubscribe', 200, 'B'), list(0)]
    const message =
      '[subscriptions.unsubscribe.count MUST] PUT /m/channels/ctab12cd0a1f1/unsubscribe → 200\n  /message: "1 subscription(s) cancelled" (string) does not state 2 (B was listed 2 time(s) before the unsubscribe and 0 after)'
    const script = reproducerOf(log, message, ctx)!
    expect(script).toContain('LISTED_BEFORE=$(count "\\"$ID_B\\"")')
    expect(script).toMatch(/while \[ "\$LISTED_AFTER" -ge "\$LISTED_BEFORE" \].*\n.*\n.*\n  call A -X GET .*\/subscriptions"\n  LISTED_AFTER=/)
    expect(script).toContain('if ! states "$(nth message 1)" "$((LISTED_BEFORE - LISTED_AFTER))"; then DEV=1')
    expect(script).toContain('signin "$USER_B_NAME"')
  })

  test("a change of state that the judged read answered in the run as before: not judged, not the run's answer again", () => {
    const read = { ...ex('GET', '/m/channels/ctab12cd0a1f1', 200, 'A'), responseBody: '{"name":"ctab12cd0a1f1","modifiedDate":"2026-01-01T00:00:00.000Z"}' }
    const log = [read, ex('DELETE', '/m/channels/ctab12cd0a1f1', 403, 'B'), { ...read, responseBody: read.responseBody.replace('00.000Z', '05.000Z') }]
    const message =
      '[channels.delete.owner-only MUST] GET /m/channels/ctab12cd0a1f1 → 200\n  after the refused deletes: before {"items":["x"]}, after {"items":[]}'
    const script = reproducerOf(log, message, ctx)!
    expect(script).not.toContain('RUN_BODY=')
    expect(script).toContain("echo 'not judged: the failure is a change between a state before and after")
    // A read that answered otherwise than before is where the change shows: the run's answer is compared.
    const changed = [read, log[1]!, { ...read, status: 404, responseBody: '{"code":404}' }]
    expect(reproducerOf(changed, message.replace('→ 200', '→ 404'), ctx)).toContain('RUN_BODY=')
  })

  test('a string the answer must hold once, held more often: counted as written in JSON', () => {
    const [t] = testsOf('  A searching userIdentifier:a1a1c0de: (root): got "a1a1c0de" (string) (account A) 3 times (elements 0, 1, 2), want it once')
    expect(t).toEqual({ says: '"a1a1c0de" once', deviates: `[ "$(count '"a1a1c0de"')" -gt 1 ]`, sourced: true })
    // A number's digits would be counted inside other numbers too: no test.
    expect(testsOf('  /ids: got 7 (number) 2 times (elements 0, 4), want it once')).toEqual([])
  })

  test('the tests a message states: status, missing, undocumented and wrong-valued fields', () => {
    const tests = testsOf(
      [
        '[x MUST] GET /m/c → 200',
        '  status: got 200, want 404',
        "  MUST /sentList/0/pushId: required property 'pushId' is missing; got an object with keys messageId",
        "  SHOULD /extra: undocumented property 'extra'; got 1",
        '  /maxItems: got 100 (number), want -1',
        '  /count/sent: got 2 (number), want 1 (the length of /sentList)',
        '  /count/unsent: got 2 (number), want 0 (number) (the length of /unsentList)',
        `  B's read: /0/sender: got "b2b2c0de" (string), want "a1a1c0de" (string) (A's user id)`,
        '  /tags: got 1 element(s) ["x"] (array), want 0',
        '  content-type: text/plain',
      ].join('\n'),
    )
    // A want relative to the answer is no test: in the replay's state a correct server may answer the run's value.
    // A context before the pointer names a read of the same answer, and a reason naming no place in it keeps the value.
    expect(tests.map((t) => t.says)).toEqual([
      'status 404',
      'the answer has the property "pushId"',
      'the answer has no property "extra"',
      '"maxItems" is -1',
      '"sender" is "a1a1c0de"',
      'content type application/json',
    ])
  })

  test('a message naming no exchange ends at the one the recorder noted, else at the last answer of the status it got', () => {
    const log = [
      ex('POST', '/m/channels', 201, 'A', '{"channelName":"ctab12cd0a1f1"}'),
      ex('DELETE', '/m/channels/ctab12cd0a1f1', 401, 'B'),
      ex('GET', '/m/channels/ctab12cd0a1f1', 200, 'A'),
    ]
    const byStatus = reproducerOf(log, 'status 401, want 403', ctx)!
    expect(byStatus.match(/^call /gm)).toHaveLength(2)
    expect(byStatus).toContain('if case $STATUS in 403) false ;; *) true ;; esac; then DEV=1')
    const noted = reproducerOf(log, '/x: got 1 (number), want 2', ctx, { failedAt: 'DELETE /m/channels/ctab12cd0a1f1 → 401' })!
    expect(noted.match(/^call /gm)).toHaveLength(2)
    expect(reproducerOf(log, '/x: got 1 (number), want 2', ctx)!.match(/^call /gm)).toHaveLength(3)
  })

  test("a wanted value is tested with the script's variables; one the server made and the script does not know is no test", () => {
    const sent = {
      ...ex('POST', '/m/messages/send_to_user_ids', 200, 'A', '{"recipientUserIds":["b2b2c0de"]}'),
      responseBody: '{"sentList":[{"messageId":"0123456789abcdef0123"}]}',
    }
    const read = ex('GET', '/m/messages/0123456789abcdef0123', 200, 'B')
    const known = reproducerOf(
      [sent, read],
      '[m MUST] GET /m/messages/0123456789abcdef0123 → 200\n  /0/messageId: got "ffffeeeeddddcccc0000" (string), want "0123456789abcdef0123" (string)',
      ctx,
    )!
    expect(known).toContain('V1=$(nth messageId 1)')
    expect(known).toContain(`if ! has '"messageId"[[:space:]]*:[[:space:]]*"'"\${V1}"'"([^0-9.eE]|$)'; then DEV=1`)
    const unknown = reproducerOf(
      [sent, read],
      '[m MUST] GET /m/messages/0123456789abcdef0123 → 200\n  /0/messageId: got "0123456789abcdef0123" (string), want "ffffeeeeddddcccc0000" (string)',
      ctx,
    )!
    expect(unknown).not.toContain('ffffeeeeddddcccc0000"([^0-9.eE]|$)')
    expect(unknown).toContain('RUN_BODY=')
  })

  test('the whole-answer comparison keeps apart the accounts and the values the check sent itself', () => {
    const add = ex('PUT', '/m/channels/ctab12cd0a1f1/tags', 200, 'A', '{"tags":["30d1241ad35f9873"]}')
    const read = {
      ...ex('GET', '/m/channels/ctab12cd0a1f1/tags', 200, 'A'),
      responseBody: '{"tags":["30d1241ad35f9873","14ad43a8e8b19a03"],"by":"b2b2c0de00000000"}',
    }
    const script = reproducerOf([add, read], '[t MUST] GET /m/channels/ctab12cd0a1f1/tags → 200\n  the tag is still there', {
      ...ctx,
      accounts: { ...ctx.accounts, B: { userName: 'bob', userId: 'b2b2c0de00000000' } },
    })!
    expect(script).toContain(`RUN_BODY='{"tags":["LIT1","ID"],"by":"USER_B"}'`)
    expect(script).toContain(`-e "s/$ID_B/USER_B/g" -e 's/30d1241ad35f9873/LIT1/g'`)
    expect(script).toContain('signin "$USER_B_NAME" "$USER_B_PASSWORD"')
  })

  test('a read repeated as is (a poll) is replayed once, as its last answer', () => {
    const poll = (status: number) => ex('GET', '/m/channels/ctab12cd0a1f1', status, 'A')
    const log = [
      ex('POST', '/m/channels', 201, 'A', '{"channelName":"ctab12cd0a1f1"}'),
      ex('DELETE', '/m/channels/ctab12cd0a1f1', 200, 'A'),
      poll(200),
      poll(200),
      poll(200),
    ]
    const script = reproducerOf(log, '[channels.delete.removes MUST] GET /m/channels/ctab12cd0a1f1 → 200\n  status: got 200, want 404', ctx)!
    expect(script.match(/^call /gm)).toHaveLength(3)
    expect(script).toContain('# 2 repeated reads of the run (polls while the server caught up) made once each here.')
    // Reads with something between them are two steps.
    const apart = reproducerOf(
      [poll(200), ex('DELETE', '/m/channels/ctab12cd0a1f1', 200, 'A'), poll(200)],
      '[x MUST] GET /m/channels/ctab12cd0a1f1 → 200\n  status: got 200, want 404',
      ctx,
    )!
    expect(apart.match(/^call /gm)).toHaveLength(3)
  })
})

describe('the diff reads the stored causes', () => {
  test('a deviation new in the newer run, and gone when it is fixed, by its stable id', () => {
    const clean = fixtureRun()
    const faulty = fixtureRun({ changes: { 'channels.create.default-max-items': { status: 'failed' } } })
    faulty.causes = storedCauses(faulty.checks)
    expect(faulty.causes).toHaveLength(1)
    expect(diffRuns(clean, faulty).causes).toEqual({ new: [expect.objectContaining({ id: faulty.causes[0]!.id })], gone: [] })
    expect(diffRuns(faulty, clean).causes).toEqual({ new: [], gone: [expect.objectContaining({ id: faulty.causes[0]!.id })] })
    // The same deviation in another run is the same cause: neither new nor gone.
    const again = fixtureRun({ runId: 'again1', changes: { 'channels.create.default-max-items': { status: 'failed' } } })
    expect(diffRuns(faulty, again).causes).toEqual({ new: [], gone: [] })
  })
})
