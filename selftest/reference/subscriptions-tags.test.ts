import { beforeAll, describe, expect, test } from 'vitest'
import { ALICE, BOB, channelName, isErrorBody, signInAccounts, useServer, type Session } from './harness'

const server = useServer()
let alice: Session
let bob: Session
let carol: Session

beforeAll(async () => {
  ;({ alice, bob, carol } = await signInAccounts(server.api))
})

describe('PUT /channels/{channel_name}/subscribe (§4.2 subscribe)', () => {
  test('subscribes the caller with its device, once per user', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, subscribeOnCreate: false })
    const first = await bob.call('PUT', `/channels/${name}/subscribe`)
    expect(first.status).toBe(200)
    expect(first.json).toEqual({ code: 200, subId: expect.stringMatching(/^[0-9a-f]{32}$/), msg: expect.any(String) })
    const again = await bob.call('PUT', `/channels/${name}/subscribe`)
    expect(again.json.subId).toBe(first.json.subId)
    const list = await carol.call('GET', `/channels/${name}/subscriptions`)
    expect(list.json).toEqual([{ userId: BOB.userId, channelName: name, subscriptionId: first.json.subId, deviceId: 'bob-dev' }])
  })

  test('accepts an empty JSON body', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await bob.call('PUT', `/channels/${name}/subscribe`, { headers: { 'content-type': 'application/json' }, body: '' })
    expect(res.status).toBe(200)
  })

  test("subscribes to another user's private channel through <userId>%23<name>", async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await bob.call('PUT', `/channels/${name}/subscribe`)).status).toBe(404)
    expect((await bob.call('PUT', `/channels/${ALICE.userId}%23${name}/subscribe`)).status).toBe(200)
    const list = await alice.call('GET', `/channels/${name}/subscriptions`)
    expect(list.json.map((s: { userId: string }) => s.userId)).toEqual([ALICE.userId, BOB.userId])
  })

  test('refuses an unknown channel with 404', async () => {
    const res = await bob.call('PUT', `/channels/${channelName('nope')}/subscribe`)
    expect(res.status).toBe(404)
    expect(isErrorBody(res.json)).toBe(true)
  })
})

describe('PUT /channels/{channel_name}/unsubscribe (§4.2 unsubscribe)', () => {
  test("cancels the caller's subscription and says how many", async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    await bob.call('PUT', `/channels/${name}/subscribe`)
    const res = await bob.call('PUT', `/channels/${name}/unsubscribe`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ message: '1 subscription(s) cancelled', code: 200 })
    const list = await alice.call('GET', `/channels/${name}/subscriptions`)
    expect(list.json.map((s: { userId: string }) => s.userId)).toEqual([ALICE.userId])
  })

  test('cancels nothing when not subscribed', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await carol.call('PUT', `/channels/${name}/unsubscribe`)
    expect(res.json).toEqual({ message: '0 subscription(s) cancelled', code: 200 })
  })
})

describe('tags (§4.2 add, get, delete one, delete all)', () => {
  test('the owner adds tags; adding one twice keeps one', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const created = (await alice.call('GET', `/channels/${name}`)).json.modifiedDate
    server.clock.advance(1000)
    const res = await alice.call('POST', `/channels/${name}/tags`, { json: { personal: false, tags: ['sport', 'news'] } })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ message: expect.any(String), code: 200 })
    await alice.call('POST', `/channels/${name}/tags`, { json: { tags: ['news', 'local'] } })
    const got = await bob.call('GET', `/channels/${name}/tags`)
    expect(got.json).toEqual({ channelName: name, tags: ['sport', 'news', 'local'] })
    expect((await alice.call('GET', `/channels/${name}`)).json.modifiedDate).not.toBe(created)
  })

  test('tags a private channel with personal: true', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await alice.call('POST', `/channels/${name}/tags`, { json: { tags: ['x'] } })).status).toBe(404)
    expect((await alice.call('POST', `/channels/${name}/tags`, { json: { personal: true, tags: ['x'] } })).status).toBe(200)
    expect((await bob.call('GET', `/channels/${ALICE.userId}%23${name}/tags`)).json.tags).toEqual(['x'])
  })

  test('refuses tag changes by a non-owner with 403', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    await alice.call('POST', `/channels/${name}/tags`, { json: { tags: ['keep'] } })
    expect((await bob.call('POST', `/channels/${name}/tags`, { json: { tags: ['spam'] } })).status).toBe(403)
    expect((await bob.call('DELETE', `/channels/${name}/tags/keep`)).status).toBe(403)
    expect((await bob.call('DELETE', `/channels/${name}/tags`)).status).toBe(403)
    expect((await alice.call('GET', `/channels/${name}/tags`)).json.tags).toEqual(['keep'])
  })

  test('deletes one tag, then 404 for a tag not on the channel', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    await alice.call('POST', `/channels/${name}/tags`, { json: { tags: ['a b', 'c'] } })
    const res = await alice.call('DELETE', `/channels/${name}/tags/a%20b`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ code: 200, message: expect.any(String) })
    expect((await alice.call('GET', `/channels/${name}/tags`)).json.tags).toEqual(['c'])
    const missing = await alice.call('DELETE', `/channels/${name}/tags/a%20b`)
    expect(missing.status).toBe(404)
    expect(isErrorBody(missing.json)).toBe(true)
  })

  test('deletes all tags', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    await alice.call('POST', `/channels/${name}/tags`, { json: { personal: true, tags: ['a', 'b'] } })
    const res = await alice.call('DELETE', `/channels/${name}/tags`, { query: { personal: true } })
    expect(res.status).toBe(200)
    expect(res.json.code).toBe(200)
    expect((await alice.call('GET', `/channels/${name}/tags`)).json.tags).toEqual([])
  })

  test.each([
    ['no tags', {}],
    ['an empty list', { tags: [] }],
    ['a non-string tag', { tags: [1] }],
    ['an empty tag', { tags: [''] }],
    ['a 51-character tag', { tags: ['t'.repeat(51)] }],
    ['tags as a string', { tags: 'a' }],
    ['a non-boolean personal', { personal: 'true', tags: ['a'] }],
  ])('refuses %s with 400', async (_title, json) => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await alice.call('POST', `/channels/${name}/tags`, { json })
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
    expect((await alice.call('GET', `/channels/${name}/tags`)).json.tags).toEqual([])
  })
})
