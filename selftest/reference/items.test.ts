import { beforeAll, describe, expect, test } from 'vitest'
import { ALICE, BOB, channelName, isErrorBody, signInAccounts, useServer, type Session } from './harness'

const server = useServer()
let alice: Session
let bob: Session
let carol: Session

beforeAll(async () => {
  ;({ alice, bob, carol } = await signInAccounts(server.api))
})

const ids = (res: { json: { items: { itemId: string }[] } }) => res.json.items.map((i) => i.itemId)
const iso = (ms: number) => new Date(ms).toISOString()

describe('POST /channels/{channel_name}/items (§4.2 publish item)', () => {
  test('publishes and answers 201 with the item id', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await bob.call('POST', `/channels/${name}/items`, {
      json: { content: { text: 'héllo', nested: { n: [1, 2] } }, messageType: 'chat', contentType: 'application/json' },
    })
    expect(res.status).toBe(201)
    expect(res.json).toEqual({ message: expect.any(String), status: 'OK', messageId: expect.stringMatching(/^[0-9a-f]{32}$/) })
    const got = await alice.call('GET', `/channels/${name}/items`, { query: { id: res.json.messageId } })
    expect(got.json).toEqual({
      totalCount: 1,
      items: [
        {
          itemId: res.json.messageId,
          channelName: name,
          publisher: { userId: BOB.userId, deviceId: 'bob-dev' },
          content: { text: 'héllo', nested: { n: [1, 2] } },
        },
      ],
    })
  })

  test.each([
    ['anyone', { alice: 201, bob: 201, carol: 201 }],
    ['owner', { alice: 201, bob: 403, carol: 403 }],
    ['subscribers', { alice: 201, bob: 201, carol: 403 }],
  ])('enforces publishPermission %s', async (permission, expected) => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, publishPermission: permission, subscribeOnCreate: false })
    await bob.call('PUT', `/channels/${name}/subscribe`)
    const outcome: Record<string, number> = {}
    for (const [who, session] of Object.entries({ alice, bob, carol })) {
      const res = await session.call('POST', `/channels/${name}/items`, { json: { content: { who } } })
      outcome[who] = res.status
      if (res.status !== 201) expect(isErrorBody(res.json)).toBe(true)
    }
    expect(outcome).toEqual(expected)
    const summary = await alice.call('GET', `/channels/${name}/summary`)
    expect(summary.json.publishedItemCount).toBe(Object.values(expected).filter((s) => s === 201).length)
  })

  test('others publish to a private channel through <userId>%23<name>', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await bob.call('POST', `/channels/${name}/items`, { json: { content: {} } })).status).toBe(404)
    expect((await bob.call('POST', `/channels/${ALICE.userId}%23${name}/items`, { json: { content: { a: 1 } } })).status).toBe(201)
  })

  test('accepts content of exactly maxPayloadSize bytes and refuses one byte more with 413', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const overhead = JSON.stringify({ p: '' }).length
    const exact = { p: 'x'.repeat(2097152 - overhead) }
    expect((await alice.call('POST', `/channels/${name}/items`, { json: { content: exact } })).status).toBe(201)
    const over = await alice.call('POST', `/channels/${name}/items`, { json: { content: { p: `${exact.p}y` } } })
    expect(over.status).toBe(413)
    expect(isErrorBody(over.json)).toBe(true)
    expect((await alice.call('GET', `/channels/${name}/summary`)).json.publishedItemCount).toBe(1)
  })

  test("answers a body over the server's body limit with 413", async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await alice.call('POST', `/channels/${name}/items`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ content: { p: 'x'.repeat(9 * 1024 * 1024) } }),
    })
    expect(res.status).toBe(413)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test('evicts the oldest items beyond maxItems', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, maxItems: 3 })
    const published: string[] = []
    for (let i = 0; i < 5; i++) published.push(await alice.mustPublish(name, { i }))
    const all = await alice.call('GET', `/channels/${name}/items/fetch`)
    expect(all.json.totalCount).toBe(3)
    expect(ids(all)).toEqual(published.slice(2))
    const old = await alice.call('GET', `/channels/${name}/items`, { query: { id: published[0]! } })
    expect(old.json).toEqual({ totalCount: 0, items: [] })
    expect((await alice.call('GET', `/channels/${name}/summary`)).json.publishedItemCount).toBe(3)
  })

  test('keeps every item with maxItems -1', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, maxItems: -1 })
    for (let i = 0; i < 25; i++) await alice.mustPublish(name, { i })
    expect((await alice.call('GET', `/channels/${name}/summary`)).json.publishedItemCount).toBe(25)
  })
})

describe('GET /channels/{channel_name}/items?id= (§4.2 get items by id)', () => {
  test('answers the items in the order asked, leaving out unknown ids', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const a = await alice.mustPublish(name, { n: 'a' })
    const b = await alice.mustPublish(name, { n: 'b' })
    const res = await bob.call('GET', `/channels/${name}/items`, { query: { id: [b, 'f'.repeat(32), a, 'junk'] } })
    expect(res.status).toBe(200)
    expect(res.json.totalCount).toBe(2)
    expect(ids(res)).toEqual([b, a])
  })

  test('does not answer an item of another channel', async () => {
    const one = channelName()
    const two = channelName()
    await alice.mustCreateChannel({ channelName: one })
    await alice.mustCreateChannel({ channelName: two })
    const id = await alice.mustPublish(one, { x: 1 })
    expect((await alice.call('GET', `/channels/${two}/items`, { query: { id } })).json.totalCount).toBe(0)
  })

  test('refuses a call without id with 400', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await alice.call('GET', `/channels/${name}/items`)
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
  })
})

describe('GET /channels/{channel_name}/items/fetch (§4.2 fetch items by date range)', () => {
  const name = channelName('fetch')
  const times: number[] = []
  const items: string[] = []

  beforeAll(async () => {
    await alice.mustCreateChannel({ channelName: name })
    // Five items one second apart, then two in the same millisecond.
    for (let i = 0; i < 5; i++) {
      server.clock.advance(1000)
      times.push(server.clock.now())
      items.push(await alice.mustPublish(name, { i }))
    }
    items.push(await alice.mustPublish(name, { i: 5 }))
    times.push(server.clock.now())
  })

  const fetchItems = (query: Record<string, string | number> = {}) => bob.call('GET', `/channels/${name}/items/fetch`, { query })

  test('defaults to everything until now, oldest first', async () => {
    const res = await fetchItems()
    expect(res.status).toBe(200)
    expect(res.json.totalCount).toBe(6)
    expect(ids(res)).toEqual(items)
  })

  test('includes both bounds', async () => {
    const res = await fetchItems({ since: iso(times[1]!), until: iso(times[3]!) })
    expect(ids(res)).toEqual(items.slice(1, 4))
  })

  test('reads numeric offsets, with or without colon', async () => {
    const since = iso(times[1]!).replace('Z', '+0000')
    // times[2] written as the local time of a +02:00 zone
    const until = iso(times[2]! + 2 * 3600_000).replace('Z', '+02:00')
    expect(ids(await fetchItems({ since, until }))).toEqual(items.slice(1, 3))
  })

  test('reads a space before the offset as +', async () => {
    const res = await bob.call('GET', `/channels/${name}/items/fetch?since=${iso(times[4]!).replace('Z', '+0000').replace('+', '%20')}`)
    expect(res.status).toBe(200)
    expect(ids(res)).toEqual(items.slice(4))
  })

  test('sorts DESC, keeping same-millisecond items in reverse publish order', async () => {
    const res = await fetchItems({ sort_order: 'DESC' })
    expect(ids(res)).toEqual([...items].reverse())
    expect(ids(await fetchItems({ sort_order: 'desc' }))).toEqual([...items].reverse())
  })

  test('pages with offset and size; totalCount counts the whole range', async () => {
    const res = await fetchItems({ since: iso(times[1]!), offset: 1, size: 2 })
    expect(res.json.totalCount).toBe(5)
    expect(ids(res)).toEqual(items.slice(2, 4))
    const asc = await fetchItems({ size: 2, sort_order: 'ASC' })
    expect(ids(asc)).toEqual(items.slice(0, 2))
  })

  test('leaves out items published after "now" by default', async () => {
    const later = channelName()
    await alice.mustCreateChannel({ channelName: later })
    const clock = server.clock
    clock.advance(10_000)
    await alice.mustPublish(later, { future: true })
    clock.advance(-5_000) // the clock steps back: the item now lies in the future
    const res = await alice.call('GET', `/channels/${later}/items/fetch`)
    expect(res.json.totalCount).toBe(0)
    clock.advance(5_000)
  })

  test.each([
    ['an unparseable since', { since: 'yesterday' }],
    ['a date without time', { since: '2025-03-01' }],
    ['a time without zone', { since: '2025-03-01T12:00:00' }],
    ['an impossible date', { until: '2025-02-30T12:00:00Z' }],
    ['an hour of 24', { until: '2025-03-01T24:00:00Z' }],
    ['since after until', { since: '2025-03-02T00:00:00Z', until: '2025-03-01T00:00:00Z' }],
    ['an unknown sort_order', { sort_order: 'NEWEST' }],
    ['a negative offset', { offset: -1 }],
    ['a size over 1000', { size: 5000 }],
    ['a non-integer size', { size: 'ten' }],
  ])('refuses %s with 400', async (_title, query) => {
    const res = await fetchItems(query)
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
  })
})

describe('DELETE /channels/{channel_name}/items?id= (§4.2 delete items by id)', () => {
  test('answers a status per id: owner and publisher may delete, others 403, unknown 404', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const byAlice = await alice.mustPublish(name, { who: 'alice' })
    const byBob = await bob.mustPublish(name, { who: 'bob' })
    const byBob2 = await bob.mustPublish(name, { who: 'bob2' })
    const unknown = 'e'.repeat(32)

    const carolTry = await carol.call('DELETE', `/channels/${name}/items`, { query: { id: [byAlice, byBob] } })
    expect(carolTry.status).toBe(200)
    expect(carolTry.json).toEqual({ [byAlice]: 403, [byBob]: 403 })

    const bobTry = await bob.call('DELETE', `/channels/${name}/items`, { query: { id: [byAlice, byBob, unknown] } })
    expect(bobTry.json).toEqual({ [byAlice]: 403, [byBob]: 200, [unknown]: 404 })

    const aliceTry = await alice.call('DELETE', `/channels/${name}/items`, { query: { id: [byBob2, byBob] } })
    expect(aliceTry.json).toEqual({ [byBob2]: 200, [byBob]: 404 })

    const left = await alice.call('GET', `/channels/${name}/items/fetch`)
    expect(ids(left)).toEqual([byAlice])
  })
})

describe('DELETE /channels/{channel_name}/items/all (§4.2 delete all items)', () => {
  test('the owner deletes every item', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    await bob.mustPublish(name, { a: 1 })
    await alice.mustPublish(name, { b: 2 })
    const res = await alice.call('DELETE', `/channels/${name}/items/all`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ code: 200, message: expect.any(String) })
    expect((await alice.call('GET', `/channels/${name}/items/fetch`)).json.totalCount).toBe(0)
  })

  test('refuses a non-owner with 403 and deletes nothing', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    await bob.mustPublish(name, { a: 1 })
    const res = await bob.call('DELETE', `/channels/${name}/items/all`)
    expect(res.status).toBe(403)
    expect(isErrorBody(res.json)).toBe(true)
    expect((await alice.call('GET', `/channels/${name}/items/fetch`)).json.totalCount).toBe(1)
  })

  test("personal=true empties the caller's private channel", async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    await alice.mustPublish(name, { a: 1 })
    expect((await alice.call('DELETE', `/channels/${name}/items/all`)).status).toBe(404)
    expect((await alice.call('DELETE', `/channels/${name}/items/all`, { query: { personal: true } })).status).toBe(200)
    expect((await alice.call('GET', `/channels/${name}/summary`)).json.publishedItemCount).toBe(0)
  })
})
