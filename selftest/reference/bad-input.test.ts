import { beforeAll, describe, expect, test } from 'vitest'
import { ALICE, BOB, isErrorBody, signInAccounts, useServer, type CallOptions, type Session } from './harness'

/**
 * Refusals: each request below must get the given 4xx with `{ code, message }`, never a 5xx, and must
 * leave the store exactly as it was.
 */

const server = useServer()
let alice: Session
let bob: Session
const PUB = 'fixture-public'
const PRIV = 'fixture-private'
const ITEM = { id: '' }

beforeAll(async () => {
  ;({ alice, bob } = await signInAccounts(server.api))
  await alice.mustCreateChannel({ channelName: PUB, publishPermission: 'owner' })
  await alice.mustCreateChannel({ channelName: PRIV, privateChannel: true })
  await alice.call('POST', `/channels/${PUB}/tags`, { json: { tags: ['t1'] } })
  ITEM.id = await alice.mustPublish(PUB, { hello: 'world' })
})

type Who = 'alice' | 'bob' | 'nobody'
interface Row {
  who: Who
  method: string
  /** Under the message API path unless it starts with 'user:'. */
  path: string
  options?: CallOptions
  status: number
}

const json = (body: unknown): CallOptions => ({ json: body })
const raw = (body: string, type = 'application/json'): CallOptions => ({ body, headers: { 'content-type': type } })
const long = (n: number) => 'x'.repeat(n)

const rows: Record<string, Row> = {
  // create channel
  'create: malformed JSON': { who: 'alice', method: 'POST', path: '/channels', options: raw('{"channelName":'), status: 400 },
  'create: JSON array body': { who: 'alice', method: 'POST', path: '/channels', options: json([{ channelName: 'a' }]), status: 400 },
  'create: JSON null body': { who: 'alice', method: 'POST', path: '/channels', options: raw('null'), status: 400 },
  'create: no body': { who: 'alice', method: 'POST', path: '/channels', status: 400 },
  'create: text body': { who: 'alice', method: 'POST', path: '/channels', options: raw('channelName', 'text/plain'), status: 415 },
  'create: form body': { who: 'alice', method: 'POST', path: '/channels', options: raw('channelName=a', 'application/x-www-form-urlencoded'), status: 415 },
  'create: missing channelName': { who: 'alice', method: 'POST', path: '/channels', options: json({ description: 'd' }), status: 400 },
  'create: empty channelName': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: '' }), status: 400 },
  'create: 51-character channelName': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: long(51) }), status: 400 },
  'create: channelName with a space': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'a b' }), status: 400 },
  'create: channelName with #': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'a#b' }), status: 400 },
  'create: numeric channelName': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 42 }), status: 400 },
  'create: 256-character description': {
    who: 'alice',
    method: 'POST',
    path: '/channels',
    options: json({ channelName: 'ok-1', description: long(256) }),
    status: 400,
  },
  'create: maxItems 0': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'ok-1', maxItems: 0 }), status: 400 },
  'create: maxItems -2': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'ok-1', maxItems: -2 }), status: 400 },
  'create: fractional maxItems': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'ok-1', maxItems: 1.5 }), status: 400 },
  'create: maxItems as a string': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'ok-1', maxItems: '5' }), status: 400 },
  'create: huge maxItems': { who: 'alice', method: 'POST', path: '/channels', options: json({ channelName: 'ok-1', maxItems: 1e20 }), status: 400 },
  'create: privateChannel as a string': {
    who: 'alice',
    method: 'POST',
    path: '/channels',
    options: json({ channelName: 'ok-1', privateChannel: 'true' }),
    status: 400,
  },
  'create: subscribeOnCreate as a number': {
    who: 'alice',
    method: 'POST',
    path: '/channels',
    options: json({ channelName: 'ok-1', subscribeOnCreate: 1 }),
    status: 400,
  },
  'create: unknown publishPermission': {
    who: 'alice',
    method: 'POST',
    path: '/channels',
    options: json({ channelName: 'ok-1', publishPermission: 'everyone' }),
    status: 400,
  },
  'create: publisherPermission spelling is ignored, duplicate still 409': {
    who: 'bob',
    method: 'POST',
    path: '/channels',
    options: json({ channelName: PUB.toUpperCase(), publisherPermission: 'x' }),
    status: 409,
  },
  'create: duplicate public name': { who: 'bob', method: 'POST', path: '/channels', options: json({ channelName: PUB }), status: 409 },
  'create: duplicate private name': {
    who: 'alice',
    method: 'POST',
    path: '/channels',
    options: json({ channelName: PRIV, privateChannel: true }),
    status: 409,
  },
  'create: prototype pollution': { who: 'alice', method: 'POST', path: '/channels', options: raw('{"channelName":"ok-1","__proto__":{"x":1}}'), status: 400 },

  // search
  'search: size -1': { who: 'alice', method: 'GET', path: '/channels', options: { query: { size: -1 } }, status: 400 },
  'search: size 1001': { who: 'alice', method: 'GET', path: '/channels', options: { query: { size: 1001 } }, status: 400 },
  'search: huge offset': { who: 'alice', method: 'GET', path: '/channels', options: { query: { offset: '1e30' } }, status: 400 },
  'search: offset twice': { who: 'alice', method: 'GET', path: '/channels', options: { query: { offset: [1, 2] } }, status: 400 },

  // channel addressing
  'get: unknown channel': { who: 'alice', method: 'GET', path: '/channels/no-such-channel', status: 404 },
  "get: another user's private channel by plain name": { who: 'bob', method: 'GET', path: `/channels/${PRIV}`, status: 404 },
  'get: 300-character name': { who: 'alice', method: 'GET', path: `/channels/${long(300)}`, status: 400 },
  'get: bad percent-encoding': { who: 'alice', method: 'GET', path: '/channels/%E0%A4%A', status: 400 },
  'get: <userId># with an empty name': { who: 'bob', method: 'GET', path: `/channels/${ALICE.userId}%23`, status: 400 },
  'get: unknown owner in <userId>#<name>': { who: 'bob', method: 'GET', path: `/channels/nobody%23${PRIV}`, status: 404 },

  // delete channel
  'delete: non-owner': { who: 'bob', method: 'DELETE', path: `/channels/${PUB}`, status: 403 },
  'delete: non-owner of a private channel': { who: 'bob', method: 'DELETE', path: `/channels/${ALICE.userId}%23${PRIV}`, status: 403 },
  'delete: personal=maybe': { who: 'alice', method: 'DELETE', path: `/channels/${PUB}`, options: { query: { personal: 'maybe' } }, status: 400 },
  'delete: private channel without personal': { who: 'alice', method: 'DELETE', path: `/channels/${PRIV}`, status: 404 },

  // subscriptions
  'subscribe: unknown channel': { who: 'bob', method: 'PUT', path: '/channels/no-such-channel/subscribe', status: 404 },
  'subscribe: text body': { who: 'bob', method: 'PUT', path: `/channels/${PUB}/subscribe`, options: raw('x', 'text/plain'), status: 415 },
  'unsubscribe: unknown channel': { who: 'bob', method: 'PUT', path: '/channels/no-such-channel/unsubscribe', status: 404 },
  'subscriptions: unknown channel': { who: 'bob', method: 'GET', path: '/channels/no-such-channel/subscriptions', status: 404 },

  // tags
  'tags: non-owner adds': { who: 'bob', method: 'POST', path: `/channels/${PUB}/tags`, options: json({ tags: ['x'] }), status: 403 },
  'tags: tags not an array': { who: 'alice', method: 'POST', path: `/channels/${PUB}/tags`, options: json({ tags: 'x' }), status: 400 },
  'tags: 101 tags': {
    who: 'alice',
    method: 'POST',
    path: `/channels/${PUB}/tags`,
    options: json({ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }),
    status: 400,
  },
  'tags: delete a tag not on the channel': { who: 'alice', method: 'DELETE', path: `/channels/${PUB}/tags/absent`, status: 404 },
  'tags: delete a 51-character tag': { who: 'alice', method: 'DELETE', path: `/channels/${PUB}/tags/${long(51)}`, status: 400 },
  'tags: non-owner deletes all': { who: 'bob', method: 'DELETE', path: `/channels/${PUB}/tags`, status: 403 },

  // publish
  'publish: no content': { who: 'alice', method: 'POST', path: `/channels/${PUB}/items`, options: json({ messageType: 'm' }), status: 400 },
  'publish: string content': { who: 'alice', method: 'POST', path: `/channels/${PUB}/items`, options: json({ content: 'hi' }), status: 400 },
  'publish: array content': { who: 'alice', method: 'POST', path: `/channels/${PUB}/items`, options: json({ content: [1] }), status: 400 },
  'publish: null content': { who: 'alice', method: 'POST', path: `/channels/${PUB}/items`, options: json({ content: null }), status: 400 },
  'publish: numeric messageType': { who: 'alice', method: 'POST', path: `/channels/${PUB}/items`, options: json({ content: {}, messageType: 1 }), status: 400 },
  'publish: contentType not a MIME type': {
    who: 'alice',
    method: 'POST',
    path: `/channels/${PUB}/items`,
    options: json({ content: {}, contentType: 'json' }),
    status: 400,
  },
  'publish: content over maxPayloadSize': {
    who: 'alice',
    method: 'POST',
    path: `/channels/${PUB}/items`,
    options: json({ content: { p: long(2097152) } }),
    status: 413,
  },
  'publish: body over the body limit': {
    who: 'alice',
    method: 'POST',
    path: `/channels/${PUB}/items`,
    options: json({ content: { p: long(8 * 1024 * 1024) } }),
    status: 413,
  },
  'publish: by a non-owner to an owner-only channel': {
    who: 'bob',
    method: 'POST',
    path: `/channels/${PUB}/items`,
    options: json({ content: {} }),
    status: 403,
  },
  'publish: to an unknown channel': { who: 'alice', method: 'POST', path: '/channels/no-such-channel/items', options: json({ content: {} }), status: 404 },

  // items
  'items by id: no id': { who: 'alice', method: 'GET', path: `/channels/${PUB}/items`, status: 400 },
  'fetch: bad since': { who: 'alice', method: 'GET', path: `/channels/${PUB}/items/fetch`, options: { query: { since: 'last week' } }, status: 400 },
  'fetch: bad until': { who: 'alice', method: 'GET', path: `/channels/${PUB}/items/fetch`, options: { query: { until: '2025-13-01T00:00:00Z' } }, status: 400 },
  'fetch: since after until': {
    who: 'alice',
    method: 'GET',
    path: `/channels/${PUB}/items/fetch`,
    options: { query: { since: '2025-01-02T00:00:00Z', until: '2025-01-01T00:00:00Z' } },
    status: 400,
  },
  'fetch: sort_order sideways': {
    who: 'alice',
    method: 'GET',
    path: `/channels/${PUB}/items/fetch`,
    options: { query: { sort_order: 'sideways' } },
    status: 400,
  },
  'fetch: size -5': { who: 'alice', method: 'GET', path: `/channels/${PUB}/items/fetch`, options: { query: { size: -5 } }, status: 400 },
  'fetch: offset 2^53': { who: 'alice', method: 'GET', path: `/channels/${PUB}/items/fetch`, options: { query: { offset: '9007199254740993' } }, status: 400 },
  'delete items: no id': { who: 'alice', method: 'DELETE', path: `/channels/${PUB}/items`, status: 400 },
  'delete all items: non-owner': { who: 'bob', method: 'DELETE', path: `/channels/${PUB}/items/all`, status: 403 },
  'delete all items: personal=1': { who: 'alice', method: 'DELETE', path: `/channels/${PUB}/items/all`, options: { query: { personal: '1' } }, status: 400 },

  // messages and push
  'send: malformed JSON': { who: 'alice', method: 'POST', path: '/messages/send_to_user_ids', options: raw('{'), status: 400 },
  'send: recipients not an array': {
    who: 'alice',
    method: 'POST',
    path: '/messages/send_to_user_ids',
    options: json({ receipt: true, recipientUserIds: BOB.userId, content: {} }),
    status: 400,
  },
  'status: unknown message': { who: 'alice', method: 'GET', path: `/messages/${'a'.repeat(32)}`, status: 404 },
  'push: bad action': {
    who: 'alice',
    method: 'POST',
    path: `/push/user/${BOB.userId}`,
    options: json({ action: 'BEEP', name: 'n', payload: {} }),
    status: 400,
  },
  'push: unknown user': { who: 'alice', method: 'POST', path: '/push/user/nobody', options: json({ action: 'PUSH', name: 'n', payload: {} }), status: 404 },
  'push: payload over 2 MiB': {
    who: 'alice',
    method: 'POST',
    path: `/push/user/${BOB.userId}`,
    options: json({ action: 'PUSH', name: 'n', payload: { p: long(2097152) } }),
    status: 413,
  },

  // users
  'user query: missing q': { who: 'alice', method: 'GET', path: 'user:/user/query', status: 400 },
  'user query: unknown property': { who: 'alice', method: 'GET', path: 'user:/user/query', options: { query: { q: 'shoe:42' } }, status: 400 },

  // authentication and routing
  'no token': { who: 'nobody', method: 'GET', path: `/channels/${PUB}`, status: 401 },
  'malformed Authorization': { who: 'nobody', method: 'GET', path: `/channels/${PUB}`, options: { headers: { authorization: 'Bearer' } }, status: 401 },
  'token in the wrong scheme': { who: 'nobody', method: 'GET', path: `/channels/${PUB}`, options: { headers: { authorization: 'Token abc' } }, status: 401 },
  'no token, with a bad body too': { who: 'nobody', method: 'POST', path: '/channels', options: raw('{'), status: 401 },
  'unknown route': { who: 'alice', method: 'GET', path: '/nowhere', status: 404 },
  'unknown method on a known path': { who: 'alice', method: 'PATCH', path: `/channels/${PUB}`, status: 404 },
}

function sessionOf(who: Who): Session | undefined {
  return who === 'alice' ? alice : who === 'bob' ? bob : undefined
}

describe('bad input is refused with {code, message} and changes nothing', () => {
  test.each(Object.entries(rows))('%s', async (_title, row) => {
    const url = row.path.startsWith('user:') ? server.api.user(row.path.slice(5)) : server.api.msg(row.path)
    const before = server.app.reference.store.snapshot()
    const token = sessionOf(row.who)?.token
    const res = await server.api.call(row.method, url, { ...row.options, token })
    expect(res.status, res.text.slice(0, 300)).toBe(row.status)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(isErrorBody(res.json), res.text.slice(0, 300)).toBe(true)
    expect(server.app.reference.store.snapshot()).toEqual(before)
  })
})

/** Every endpoint, as the spec lists them (and the registration call that needs a token). */
const ENDPOINTS: [string, string, CallOptions?][] = [
  ['GET', 'user:/user/all'],
  ['GET', 'user:/user/query', { query: { q: 'userName:*' } }],
  ['POST', 'user:/user/enrollment', json({ userName: 'x', password: 'y' })],
  ['POST', '/channels', json({ channelName: 'zz' })],
  ['GET', '/channels'],
  ['GET', `/channels/${PUB}`],
  ['GET', `/channels/${PUB}/summary`],
  ['DELETE', `/channels/${PUB}`],
  ['PUT', `/channels/${PUB}/subscribe`],
  ['PUT', `/channels/${PUB}/unsubscribe`],
  ['GET', `/channels/${PUB}/subscriptions`],
  ['POST', `/channels/${PUB}/tags`, json({ tags: ['a'] })],
  ['GET', `/channels/${PUB}/tags`],
  ['DELETE', `/channels/${PUB}/tags/t1`],
  ['DELETE', `/channels/${PUB}/tags`],
  ['POST', `/channels/${PUB}/items`, json({ content: {} })],
  ['GET', `/channels/${PUB}/items`, { query: { id: 'a' } }],
  ['GET', `/channels/${PUB}/items/fetch`],
  ['DELETE', `/channels/${PUB}/items`, { query: { id: 'a' } }],
  ['DELETE', `/channels/${PUB}/items/all`],
  ['POST', '/messages/send_to_user_ids', json({ receipt: true, recipientUserIds: [BOB.userId], content: {} })],
  ['GET', `/messages/${'a'.repeat(32)}`],
  ['POST', `/push/user/${BOB.userId}`, json({ action: 'PUSH', name: 'n', payload: {} })],
]

describe('every endpoint requires a valid token', () => {
  test.each(ENDPOINTS)('%s %s without a token is 401', async (method, path, options) => {
    const url = path.startsWith('user:') ? server.api.user(path.slice(5)) : server.api.msg(path)
    const before = server.app.reference.store.snapshot()
    const res = await server.api.call(method, url, options)
    expect(res.status).toBe(401)
    expect(isErrorBody(res.json)).toBe(true)
    expect(server.app.reference.store.snapshot()).toEqual(before)
  })

  test.each(ENDPOINTS.filter(([, path]) => path.includes(`/channels/${PUB}`)))('%s %s on an unknown channel is 404', async (method, path, options) => {
    const before = server.app.reference.store.snapshot()
    const res = await alice.call(method, path.replace(PUB, 'never-created'), options)
    expect(res.status).toBe(404)
    expect(isErrorBody(res.json)).toBe(true)
    expect(server.app.reference.store.snapshot()).toEqual(before)
  })
})

test('the fixture survived every refusal', async () => {
  const got = await alice.call('GET', `/channels/${PUB}/items`, { query: { id: ITEM.id } })
  expect(got.json.items[0].content).toEqual({ hello: 'world' })
  expect((await alice.call('GET', `/channels/${PUB}/tags`)).json.tags).toEqual(['t1'])
})
