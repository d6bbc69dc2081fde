// Meta-test of schemas/ and helpers/spec/schemas.ts: every schema compiles, accepts a valid sample and
// rejects an invalid one with a MUST; the §2.3 permission quirk, the §2.1 email rule and the timestamp
// formats behave as the spec states.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  SCHEMA_DIR,
  checkSchema,
  compiledSchemaCode,
  formatProblems,
  problemsOf,
  schemaNames,
  validatorsFromCode,
  type SchemaName,
  type SchemaProblem,
} from '../helpers/spec/schemas'

const channelTs = '2015-11-10T19:22:54.123+0000'
const utcTs = '2015-11-10T19:22:54.123Z'

const user = {
  userIdentifier: 'u-1',
  clientId: 'client-1',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  userName: 'ada',
  password: '********',
  userRealm: 'default',
  roles: ['USER'],
  otpCode: '******',
  userAccountData: {},
}
const { email: _email, ...userWithoutEmail } = user
const sessionUser = { ...userWithoutEmail, userStatus: 'ACTIVE' }
const session = { token_type: 'USER', expires_in: 7200, access_token: 'token', user: sessionUser }

const channelBase = {
  name: 'ct-run-1-1',
  description: 'a channel',
  creator: 'u-1%app@example.com/device-1',
  creationDate: channelTs,
  modifiedDate: '2015-11-10T19:22:54.456+01:00',
  persistent: true,
  maxItems: -1,
  maxPayloadSize: 2097152,
  subscriptionEnabled: true,
  privateChannel: false,
  collection: false,
}
const searchItem = { ...channelBase, publishPermission: 'anyone' }
const channel = { ...channelBase, publisherPermission: 'owner', userId: null }
const subscription = { userId: 'u-1', channelName: 'ct-run-1-1', subscriptionId: 's-1', deviceId: null }
const publishedItem = {
  itemId: 'i-1',
  channelName: 'ct-run-1-1',
  publisher: { userId: 'u-1', deviceId: 'device-1' },
  content: { text: 'hello', n: 1 },
}
const count = { requested: 1, sent: 1, unsent: 0 }
const dmEntry = { messageId: 'm-1', deviceId: null, recipientUsername: 'u-2' }
const pushEntry = { pushId: 'p-1', deviceId: 'device-1' }
const delivery = {
  state: 'WAKEUP_REQUIRED',
  recipient: 'u-2',
  sender: 'u-1',
  appId: 'app',
  deviceId: 'device-2',
  messageId: 'm-1',
  queuedAt: '2015-11-10T19:22:54Z',
  receivedAt: null,
}

interface Sample {
  valid: unknown
  invalid: unknown
}

// One valid and one invalid sample per schema; the invalid one changes one thing.
const samples: Record<SchemaName, Sample> = {
  'common/timestamp': { valid: '2015-11-10T19:22:54+01', invalid: '2015-11-10 19:22:54Z' },
  'common/channel-timestamp': { valid: channelTs, invalid: utcTs },
  'common/utc-timestamp': { valid: utcTs, invalid: channelTs.replace('+0000', '+0100') },
  'common/nullable-timestamp': { valid: null, invalid: 'soon' },
  'common/nullable-string': { valid: null, invalid: 7 },
  'common/non-negative-integer': { valid: 0, invalid: -1 },
  'common/publish-permission': { valid: 'subscribers', invalid: 'everyone' },
  'common/key-value-map': { valid: { any: ['thing'] }, invalid: ['not', 'a', 'map'] },
  user: { valid: user, invalid: userWithoutEmail },
  'session-user': { valid: sessionUser, invalid: { ...sessionUser, userStatus: undefined } },
  'user-list': { valid: [user, { ...user, userStatus: 'ACTIVE' }], invalid: [user, sessionUser] },
  session: { valid: session, invalid: { ...session, token_type: 'bearer' } },
  'code-message': { valid: { code: 201, message: 'created' }, invalid: { code: '201', message: 'created' } },
  'channel-search-item': { valid: searchItem, invalid: { ...searchItem, maxItems: 10.5 } },
  channel: { valid: channel, invalid: { ...channel, creationDate: '2015-11-10T19:22:54Z' } },
  'channel-search-page': {
    valid: { total: 2, results: [searchItem, { ...searchItem, userId: 'u-1' }] },
    invalid: { total: 1, results: [channel] },
  },
  'channel-summary': {
    valid: { userId: null, channelName: 'ct-run-1-1', publishedItemCount: 3, lastPublishedTime: utcTs },
    invalid: { userId: null, channelName: 'ct-run-1-1', publishedItemCount: 3, lastPublishedTime: channelTs.replace('+0000', '-0500') },
  },
  subscription: { valid: subscription, invalid: { ...subscription, userId: null } },
  'subscription-list': { valid: [subscription], invalid: [{ ...subscription, subscriptionId: 5 }] },
  'subscribe-response': { valid: { code: 200, subId: 's-1', msg: 'ok' }, invalid: { code: 200, msg: 'ok' } },
  'unsubscribe-response': { valid: { message: '1 subscription cancelled', code: 200 }, invalid: { message: 1, code: 200 } },
  tags: { valid: { channelName: 'ct-run-1-1', tags: ['a', 'b'] }, invalid: { channelName: 'ct-run-1-1', tags: 'a,b' } },
  'publish-response': {
    valid: { message: 'ok', status: 'OK', messageId: 'i-1' },
    invalid: { message: 'ok', status: 201, messageId: 'i-1' },
  },
  'published-item': { valid: publishedItem, invalid: { ...publishedItem, publisher: { userId: 'u-1' } } },
  'items-page': { valid: { totalCount: 1, items: [publishedItem] }, invalid: { totalCount: -1, items: [] } },
  'delete-items-result': { valid: { 'i-1': 200, 'i-2': 404 }, invalid: { 'i-1': '200' } },
  count: { valid: count, invalid: { ...count, unsent: 0.5 } },
  'dm-sent-entry': { valid: dmEntry, invalid: { ...dmEntry, recipientUsername: null } },
  'send-result': { valid: { count, sentList: [dmEntry], unsentList: [] }, invalid: { count, sentList: [pushEntry], unsentList: [] } },
  'push-sent-entry': { valid: pushEntry, invalid: { ...pushEntry, deviceId: null } },
  'push-result': { valid: { count, sentList: [pushEntry], unsentList: [{ anything: true }] }, invalid: { count, sentList: [pushEntry] } },
  'delivery-record': { valid: delivery, invalid: { ...delivery, queuedAt: 'yesterday' } },
  'delivery-list': {
    valid: [delivery, { ...delivery, receivedAt: '2015-11-10T19:23:00.5-0800' }],
    invalid: [{ ...delivery, receivedAt: 0 }],
  },
}

// JSON drops undefined-valued keys, as a server's body would.
const asJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v)) as unknown
const levels = (problems: SchemaProblem[]) => problems.map((p) => p.level)

function schemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? schemaFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : [],
  )
}

describe('schema files', () => {
  const files = schemaFiles(SCHEMA_DIR).map((f) => relative(SCHEMA_DIR, f).split(sep).join('/'))

  test('every file under schemas/ is a compiled schema name', () => {
    expect(
      schemaNames()
        .map((n) => `${n}.json`)
        .sort(),
    ).toEqual([...files].sort())
  })

  test.each(files)('%s is 2020-12 with $id, title and description', (file) => {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Record<string, unknown>
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
    expect(schema.$id).toBe(`https://mcrs-conformance.invalid/schemas/${file}`)
    expect(schema.title).toMatch(/§\d/)
    expect(schema.description).toMatch(/§\d/)
  })

  test('every schema name has a sample', () => {
    expect(Object.keys(samples).sort()).toEqual(schemaNames().sort())
  })
})

describe('samples', () => {
  test.each(schemaNames())('%s accepts its valid sample', (name) => {
    expect(formatProblems(checkSchema(name, asJson(samples[name].valid)))).toBe('')
  })

  test.each(schemaNames())('%s rejects its invalid sample with a MUST', (name) => {
    const problems = checkSchema(name, asJson(samples[name].invalid))
    expect(levels(problems)).toContain('MUST')
  })
})

// Values a field may wrongly hold, and timestamps in every form the formats and preferredForm tell apart.
const ODD_VALUES: unknown[] = [
  null,
  -1,
  0.5,
  true,
  'x',
  [],
  {},
  '2015-11-10T19:22:54',
  '2015-11-10T19:22Z',
  '20151110T192254,5+0100',
  '2015-11-10T19:22:54.123+05:30',
  '2015-02-30T19:22:54.123Z',
]

/** The sample bodies, and each changed in one place: a property left out, set to an odd value, or added. */
function variationsOf(value: unknown): unknown[] {
  const out: unknown[] = [value, ...ODD_VALUES]
  if (Array.isArray(value) && value.length) for (const inner of variationsOf(value[0])) out.push([inner, ...value.slice(1)])
  else if (value && typeof value === 'object')
    for (const key of Object.keys(value)) {
      const { [key]: _left, ...without } = value as Record<string, unknown>
      out.push(without, { ...value, extra: 1 })
      for (const odd of ODD_VALUES) out.push({ ...value, [key]: odd })
    }
  return out
}

describe('validators made from compiled code (a session compiles once for all its runs)', () => {
  const fromCode = validatorsFromCode(compiledSchemaCode())
  const bodies = (name: SchemaName) => [...variationsOf(samples[name].valid), samples[name].invalid].map(asJson)

  test.each(schemaNames())('%s: the same problems as a validator compiled in place, for every sample and change of one', (name) => {
    const validate = fromCode.get(name)!
    for (const body of bodies(name)) expect(problemsOf(validate, body), JSON.stringify(body)).toEqual(checkSchema(name, body))
  })

  test('the comparison meets every kind of problem: formats, the preferred form, extra and missing fields, types', () => {
    const keywords = new Set(schemaNames().flatMap((name) => bodies(name).flatMap((body) => problemsOf(fromCode.get(name)!, body).map((p) => p.keyword))))
    for (const keyword of ['format', 'preferredForm', 'additionalProperties', 'required', 'type', 'enum']) expect([...keywords]).toContain(keyword)
  })
})

describe('classification and messages', () => {
  test('an undocumented property is exactly one SHOULD', () => {
    const problems = checkSchema('channel-search-item', { ...searchItem, colour: 'blue' })
    expect(problems).toEqual([
      {
        level: 'SHOULD',
        pointer: '/colour',
        keyword: 'additionalProperties',
        message: `undocumented property 'colour'; got "blue" (string)`,
      },
    ])
  })

  test('an extra property in a nested object is a SHOULD at its pointer', () => {
    const problems = checkSchema('items-page', {
      totalCount: 1,
      items: [{ ...publishedItem, publisher: { ...publishedItem.publisher, x: 1 } }],
    })
    expect(formatProblems(problems)).toBe(`SHOULD /items/0/publisher/x: undocumented property 'x'; got 1 (number)`)
  })

  test('a wrong type reads with pointer, wanted and got', () => {
    const problems = checkSchema('channel-search-page', { total: 1, results: [{ ...searchItem, maxItems: '10' }] })
    expect(formatProblems(problems)).toBe('MUST /results/0/maxItems: must be integer; got "10" (string)')
  })

  test('a missing property names the pointer and the keys present', () => {
    const problems = checkSchema('subscribe-response', { code: 200, msg: 'ok' })
    expect(problems).toEqual([
      {
        level: 'MUST',
        pointer: '/subId',
        keyword: 'required',
        message: "required property 'subId' is missing; got an object with keys code, msg",
      },
    ])
  })

  test('a long value is cut in the message', () => {
    const [problem] = checkSchema('code-message', { code: 'x'.repeat(500), message: 'm' })
    expect(problem?.message.length).toBeLessThan(130)
    expect(problem?.message).toContain('…')
  })

  test('a non-object body is one MUST at the root', () => {
    const problems = checkSchema('session', 'Unauthorized')
    expect(formatProblems(problems)).toBe('MUST (root): must be object; got "Unauthorized" (string)')
  })

  test('a problem inside a $ref is reported once, at the inner value', () => {
    const problems = checkSchema('session', { ...session, user: { ...sessionUser, roles: 'USER' } })
    expect(problems).toEqual([{ level: 'MUST', pointer: '/user/roles', keyword: 'type', message: 'must be array; got "USER" (string)' }])
  })

  test('null where §2 says "or null" passes, null elsewhere fails', () => {
    expect(checkSchema('channel-summary', { userId: null, channelName: 'c', publishedItemCount: 0, lastPublishedTime: utcTs })).toEqual([])
    expect(levels(checkSchema('channel-summary', { userId: 'u', channelName: null, publishedItemCount: 0, lastPublishedTime: utcTs }))).toEqual(['MUST'])
  })
})

describe('§2.3 publishPermission / publisherPermission quirk', () => {
  test('get-by-name with publishPermission instead of publisherPermission fails MUST', () => {
    const { publisherPermission: _p, ...rest } = channel
    const problems = checkSchema('channel', { ...rest, publishPermission: 'owner' })
    expect(problems).toContainEqual(expect.objectContaining({ level: 'MUST', pointer: '/publisherPermission', keyword: 'required' }))
    expect(problems).toContainEqual(expect.objectContaining({ level: 'SHOULD', pointer: '/publishPermission' }))
  })

  test('search item with publisherPermission instead of publishPermission fails MUST', () => {
    const { publishPermission: _p, ...rest } = searchItem
    const problems = checkSchema('channel-search-item', { ...rest, publisherPermission: 'anyone' })
    expect(problems).toContainEqual(expect.objectContaining({ level: 'MUST', pointer: '/publishPermission', keyword: 'required' }))
  })

  test('get-by-name without userId fails MUST; search item without it passes', () => {
    const { userId: _u, ...rest } = channel
    expect(levels(checkSchema('channel', rest))).toEqual(['MUST'])
    expect(checkSchema('channel-search-item', searchItem)).toEqual([])
  })

  test('a permission outside the listed values fails MUST', () => {
    expect(formatProblems(checkSchema('channel', { ...channel, publisherPermission: 'ANYONE' }))).toBe(
      'MUST /publisherPermission: must be one of "anyone", "owner", "subscribers"; got "ANYONE" (string)',
    )
  })
})

describe('§2.1 email in the sign-in user', () => {
  test('a session user with email fails MUST, once', () => {
    const problems = checkSchema('session', { ...session, user: { ...sessionUser, email: 'ada@example.com' } })
    expect(problems).toEqual([
      {
        level: 'MUST',
        pointer: '/user/email',
        keyword: 'not',
        message: 'email must be absent from the sign-in user; got "ada@example.com" (string)',
      },
    ])
  })

  test('a listed user without userStatus passes; a session user without it fails', () => {
    expect(checkSchema('user', user)).toEqual([])
    const { userStatus: _s, ...noStatus } = sessionUser
    expect(problemsAt(checkSchema('session-user', noStatus))).toEqual(['MUST /userStatus'])
  })
})

function problemsAt(problems: SchemaProblem[]): string[] {
  return problems.map((p) => `${p.level} ${p.pointer}`)
}

describe('timestamp formats', () => {
  const accepts = (name: SchemaName, value: string) => expect(checkSchema(name, value), value).toEqual([])
  const rejects = (name: SchemaName, value: string) =>
    expect(
      checkSchema(name, value).filter((p) => p.level === 'MUST'),
      value,
    ).toEqual([expect.objectContaining({ level: 'MUST', keyword: 'format' })])

  const shouldOnly = (name: SchemaName, value: string) =>
    expect(checkSchema(name, value), value).toEqual([expect.objectContaining({ level: 'SHOULD', keyword: 'preferredForm', clause: 'http.timestamp-form' })])

  test.each([
    '2015-11-10T19:22:54.123+0000',
    '2015-11-10T19:22:54.123+00:00',
    '2015-11-10T19:22:54.123-0530',
    '2015-11-10T19:22:54.123+00',
    '2015-11-10T21:22:54.123+02:00',
  ])('channel-timestamp accepts %s', (v) => accepts('common/channel-timestamp', v))
  test.each([
    '2015-11-10T19:22:54+0000',
    '2015-11-10T19:22:54.123Z',
    '2015-11-10T19:22:54.1234+0000',
    '2015-11-10T19:22:54.12+0000',
    '2015-11-10T19:22:54.123',
    '2015-02-30T19:22:54.123+0000',
  ])('channel-timestamp rejects %s', (v) => rejects('common/channel-timestamp', v))
  test.each(['20151110T192254.123+0000'])('channel-timestamp takes the basic format as a SHOULD only: %s', (v) => shouldOnly('common/channel-timestamp', v))

  test.each([
    '2015-11-10T19:22:54Z',
    '2015-11-10T19:22:54.123Z',
    '2015-11-10T19:22:54+00',
    '2015-11-10T19:22:54.1+0000',
    '2015-11-10T19:22:54+00:00',
    '2015-11-10T19:22:54.123456-00:00',
  ])('utc-timestamp accepts %s', (v) => accepts('common/utc-timestamp', v))
  test.each(['2015-11-10T19:22:54+0100', '2015-11-10T19:22:54.123-05:00', '2015-11-10T19:22:54+02'])('utc-timestamp rejects %s', (v) =>
    rejects('common/utc-timestamp', v),
  )
  test.each(['2015-11-10T19:22:54', '20151110T192254Z'])('utc-timestamp takes %s as a SHOULD only (UTC not marked, or basic format)', (v) =>
    shouldOnly('common/utc-timestamp', v),
  )

  test.each([
    '2015-11-10T19:22:54Z',
    '2015-11-10T19:22:54.123456+05:30',
    '2016-02-29T00:00:00-08',
    '2016-12-31T23:59:60Z',
    '2017-01-01T00:59:60+0100',
    '2015-11-10T21:22:54+02:00',
    '2015-11-10T19:22:54.1Z',
  ])('timestamp accepts %s', (v) => accepts('common/timestamp', v))
  test.each([
    '2015-13-45T99:00:00Z',
    'yesterday',
    '2015-02-29T00:00:00Z',
    '2015-11-10T24:00:00Z',
    '2015-11-10T19:22:54+2400',
    '2015-11-10T19:22:60Z',
    '2015-11-10',
    '2015-11-10 19:22:54Z',
    '1447183374123',
  ])('timestamp rejects %s', (v) => rejects('common/timestamp', v))
  // ISO 8601 all the same: a local time, the basic format, no seconds, a decimal comma. The spec states no form here.
  test.each(['2015-11-10T19:22:54', '20151110T192254Z', '2015-11-10T19:22Z', '2015-11-10T19:22:54,123+01:00'])('timestamp takes %s as a SHOULD only', (v) =>
    shouldOnly('common/timestamp', v),
  )

  test('a bad timestamp message says what was wanted', () => {
    expect(formatProblems(checkSchema('channel', { ...channel, modifiedDate: '2015-11-10T19:22:54Z' }))).toBe(
      'MUST /modifiedDate: must be an ISO 8601 date-time with exactly 3 fraction digits and a numeric offset ±hh, ±hhmm or ±hh:mm (§2.3); got "2015-11-10T19:22:54Z" (string)',
    )
  })

  test('a timestamp of the wrong type is one MUST', () => {
    expect(problemsAt(checkSchema('delivery-record', { ...delivery, queuedAt: 1447183374123 }))).toEqual(['MUST /queuedAt'])
  })
})
