import { beforeAll, describe, expect, test } from 'vitest'
import { ALICE, CAROL, channelName, isErrorBody, signInAccounts, useServer, type Session } from './harness'

const server = useServer()
let alice: Session
let bob: Session
let carol: Session

beforeAll(async () => {
  ;({ alice, bob, carol } = await signInAccounts(server.api, { alice: 'alice-ios-1', bob: 'bob-android-1', carol: 'carol-1' }))
})

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/

describe('POST /channels (§4.2 create channel)', () => {
  test('creates a channel with the defaults', async () => {
    const name = channelName()
    const res = await alice.call('POST', '/channels', { json: { channelName: name } })
    expect(res.status).toBe(201)
    expect(res.json).toEqual({ code: 201, message: expect.any(String) })
    expect(res.headers.get('location')).toBe(`/message/api/v2/channels/${name}`)

    const got = await alice.call('GET', `/channels/${name}`)
    expect(got.status).toBe(200)
    expect(got.json).toEqual({
      name,
      description: '',
      creator: `${ALICE.userId}%${server.app.reference.application.appId}@${server.app.reference.application.domain}/alice-ios-1`,
      creationDate: expect.stringMatching(TIMESTAMP),
      modifiedDate: expect.stringMatching(TIMESTAMP),
      persistent: true,
      maxItems: -1,
      maxPayloadSize: 2097152,
      subscriptionEnabled: true,
      publisherPermission: 'anyone',
      privateChannel: false,
      collection: false,
      userId: null,
    })
    expect(got.json.creationDate).toBe('2025-03-01T12:00:00.000+0000')
  })

  test('keeps every field given', async () => {
    const name = channelName()
    await alice.mustCreateChannel({
      channelName: name,
      maxItems: 5,
      description: 'All the news',
      publishPermission: 'subscribers',
      subscribeOnCreate: false,
    })
    const got = await alice.call('GET', `/channels/${name}`)
    expect(got.json).toMatchObject({ maxItems: 5, description: 'All the news', publisherPermission: 'subscribers' })
    expect((await alice.call('GET', `/channels/${name}/subscriptions`)).json).toEqual([])
  })

  test('subscribes the creator by default', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const subs = await alice.call('GET', `/channels/${name}/subscriptions`)
    expect(subs.json).toEqual([{ userId: ALICE.userId, channelName: name, subscriptionId: expect.stringMatching(/^[0-9a-f]{32}$/), deviceId: 'alice-ios-1' }])
  })

  test('refuses a duplicate public name, ignoring case, with 409', async () => {
    const name = channelName('Dup')
    await alice.mustCreateChannel({ channelName: name })
    const res = await bob.call('POST', '/channels', { json: { channelName: name.toLowerCase() } })
    expect(res.status).toBe(409)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test('allows the same private name for two owners and beside a public channel', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    await bob.mustCreateChannel({ channelName: name, privateChannel: true })
    await carol.mustCreateChannel({ channelName: name })
    const again = await alice.call('POST', '/channels', { json: { channelName: name, privateChannel: true } })
    expect(again.status).toBe(409)
  })

  test('keeps the name as given', async () => {
    const name = channelName('MiXeD')
    await alice.mustCreateChannel({ channelName: name })
    expect((await alice.call('GET', `/channels/${name.toUpperCase()}`)).json.name).toBe(name)
  })
})

describe('GET /channels/{channel_name} (§4.2 get channel by name)', () => {
  test('answers publisherPermission and userId, and no publishPermission', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, publishPermission: 'owner' })
    const got = await bob.call('GET', `/channels/${name}`)
    expect(got.json.publisherPermission).toBe('owner')
    expect(got.json).not.toHaveProperty('publishPermission')
    expect(got.json.userId).toBeNull()
  })

  test('refuses an unknown channel with 404', async () => {
    const res = await alice.call('GET', `/channels/${channelName('missing')}`)
    expect(res.status).toBe(404)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test('refuses a malformed name with 400', async () => {
    const res = await alice.call('GET', `/channels/${'x'.repeat(51)}`)
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
  })
})

describe('private channel addressing (§2.3)', () => {
  test("a plain name finds the caller's own private channel before the public one", async () => {
    const name = channelName()
    await bob.mustCreateChannel({ channelName: name, description: 'public' })
    await alice.mustCreateChannel({ channelName: name, privateChannel: true, description: 'mine' })
    expect((await alice.call('GET', `/channels/${name}`)).json.description).toBe('mine')
    expect((await carol.call('GET', `/channels/${name}`)).json.description).toBe('public')
  })

  test('another user reaches a private channel as <userId>%23<name>', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await bob.call('GET', `/channels/${name}`)).status).toBe(404)
    const got = await bob.call('GET', `/channels/${ALICE.userId}%23${name}`)
    expect(got.status).toBe(200)
    expect(got.json).toMatchObject({ name, privateChannel: true, userId: ALICE.userId })
    // The owner may use the same form.
    expect((await alice.call('GET', `/channels/${ALICE.userId}%23${name}`)).status).toBe(200)
  })

  test('<userId>#<name> of a user without that channel is 404', async () => {
    const res = await bob.call('GET', `/channels/${CAROL.userId}%23${channelName()}`)
    expect(res.status).toBe(404)
  })

  test('private channels never appear in search', async () => {
    const name = channelName('hidden')
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    const res = await alice.call('GET', '/channels', { query: { channelName: name } })
    expect(res.json).toEqual({ total: 0, results: [] })
  })
})

describe('GET /channels (§4.2 search public channels)', () => {
  const prefix = `srch${process.pid}`
  const names = [`${prefix}-alpha`, `${prefix}-beta`, `${prefix}-gamma`]

  beforeAll(async () => {
    for (const [i, name] of names.entries()) {
      await alice.mustCreateChannel({ channelName: name, description: i === 1 ? 'Weather REPORTS' : `number ${i}` })
      server.clock.advance(1)
    }
    await alice.call('POST', `/channels/${names[0]}/tags`, { json: { tags: ['red', 'blue'] } })
    await alice.call('POST', `/channels/${names[2]}/tags`, { json: { tags: ['red'] } })
  })

  const search = (query: Record<string, string | number | (string | number)[]>) => bob.call('GET', '/channels', { query })
  const resultNames = (res: { json: { results: { name: string }[] } }) => res.json.results.map((c) => c.name)

  test('matches channelName as a case-insensitive substring', async () => {
    const res = await search({ channelName: prefix.toUpperCase() })
    expect(res.status).toBe(200)
    expect(res.json.total).toBe(3)
    expect(resultNames(res)).toEqual(names)
  })

  test('matches description as a case-insensitive substring', async () => {
    expect(resultNames(await search({ channelName: prefix, description: 'weather report' }))).toEqual([names[1]])
  })

  test('requires every tag given', async () => {
    expect(resultNames(await search({ channelName: prefix, tag: 'red' }))).toEqual([names[0], names[2]])
    expect(resultNames(await search({ channelName: prefix, tag: ['red', 'blue'] }))).toEqual([names[0]])
    expect(resultNames(await search({ channelName: prefix, tag: ['green'] }))).toEqual([])
  })

  test('pages with offset and size; total counts every match', async () => {
    const res = await search({ channelName: prefix, offset: 1, size: 1 })
    expect(res.json.total).toBe(3)
    expect(resultNames(res)).toEqual([names[1]])
    const past = await search({ channelName: prefix, offset: 10 })
    expect(past.json).toEqual({ total: 3, results: [] })
  })

  test('answers publishPermission, not publisherPermission', async () => {
    const [first] = (await search({ channelName: names[0]! })).json.results
    expect(first).toMatchObject({ name: names[0], publishPermission: 'anyone', privateChannel: false })
    expect(first).not.toHaveProperty('publisherPermission')
  })

  test('defaults size to 200', async () => {
    const res = await search({})
    expect(res.json.results.length).toBe(Math.min(200, res.json.total))
  })

  test.each([
    ['a negative size', { size: -1 }],
    ['a size over 1000', { size: 1001 }],
    ['a fractional size', { size: 1.5 }],
    ['a non-numeric offset', { offset: 'x' }],
    ['a negative offset', { offset: -1 }],
    ['a huge offset', { offset: '99999999999999999999' }],
  ])('refuses %s with 400', async (_title, query) => {
    const res = await search(query)
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
  })
})

describe('GET /channels/{channel_name}/summary (§4.2 channel summary)', () => {
  test('counts stored items and gives the last publish time in UTC', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    const created = server.clock.now()
    const empty = await alice.call('GET', `/channels/${name}/summary`)
    expect(empty.json).toEqual({
      userId: ALICE.userId,
      channelName: name,
      publishedItemCount: 0,
      lastPublishedTime: new Date(created).toISOString(),
    })
    server.clock.advance(5000)
    await alice.mustPublish(name, { n: 1 })
    await alice.mustPublish(name, { n: 2 })
    const after = await bob.call('GET', `/channels/${ALICE.userId}%23${name}/summary`)
    expect(after.json).toMatchObject({ publishedItemCount: 2, lastPublishedTime: new Date(created + 5000).toISOString() })
  })

  test('has userId null for a public channel', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    expect((await bob.call('GET', `/channels/${name}/summary`)).json.userId).toBeNull()
  })
})

describe('DELETE /channels/{channel_name} (§4.2 delete channel)', () => {
  test('the owner deletes a public channel, with its items and subscriptions', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    await alice.mustPublish(name, { a: 1 })
    await bob.call('PUT', `/channels/${name}/subscribe`)
    const { channelId } = server.app.reference.store.findPublicChannel(name)!
    const res = await alice.call('DELETE', `/channels/${name}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ code: 200, message: expect.any(String) })
    expect((await alice.call('GET', `/channels/${name}`)).status).toBe(404)
    const snapshot = server.app.reference.store.snapshot()
    expect(snapshot.items.filter((i) => i.channelId === channelId)).toEqual([])
    expect(snapshot.subscriptions.filter((s) => s.channelId === channelId)).toEqual([])
    // The name is free again.
    await alice.mustCreateChannel({ channelName: name })
    expect((await alice.call('GET', `/channels/${name}/summary`)).json.publishedItemCount).toBe(0)
  })

  test('refuses a non-owner with 403 and keeps the channel', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await bob.call('DELETE', `/channels/${name}`)
    expect(res.status).toBe(403)
    expect(isErrorBody(res.json)).toBe(true)
    expect((await alice.call('GET', `/channels/${name}`)).status).toBe(200)
  })

  test("personal=true deletes the caller's private channel, not the public one", async () => {
    const name = channelName()
    await bob.mustCreateChannel({ channelName: name })
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await alice.call('DELETE', `/channels/${name}`)).status).toBe(403) // the public one is Bob's
    expect((await alice.call('DELETE', `/channels/${name}`, { query: { personal: true } })).status).toBe(200)
    expect((await alice.call('GET', `/channels/${name}`)).json.privateChannel).toBe(false)
  })

  test('personal=false does not reach a private channel', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await alice.call('DELETE', `/channels/${name}`, { query: { personal: false } })).status).toBe(404)
  })

  test('another user cannot delete a private channel through <userId>%23<name>', async () => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name, privateChannel: true })
    expect((await bob.call('DELETE', `/channels/${ALICE.userId}%23${name}`)).status).toBe(403)
    expect((await alice.call('DELETE', `/channels/${ALICE.userId}%23${name}`)).status).toBe(200)
  })

  test.each(['yes', '1', 'TRUE ', ''])('refuses personal=%j with 400', async (value) => {
    const name = channelName()
    await alice.mustCreateChannel({ channelName: name })
    const res = await alice.call('DELETE', `/channels/${name}`, { query: { personal: value } })
    expect(res.status).toBe(400)
    expect((await alice.call('GET', `/channels/${name}`)).status).toBe(200)
  })

  test('refuses an unknown channel with 404', async () => {
    expect((await alice.call('DELETE', `/channels/${channelName('gone')}`)).status).toBe(404)
  })
})
