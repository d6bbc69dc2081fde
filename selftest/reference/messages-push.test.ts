import { beforeAll, describe, expect, test } from 'vitest'
import { ALICE, BOB, CAROL, CLIENT_ID, CLIENT_SECRET, isErrorBody, signInAccounts, useServer, type Session } from './harness'

const server = useServer()
let alice: Session
let bob: Session
let carol: Session
let loner: { userId: string }

beforeAll(async () => {
  ;({ alice, bob, carol } = await signInAccounts(server.api, { alice: 'alice-ios-1', bob: 'bob-ios-1', carol: 'carol-unreachable' }))
  await server.api.mustSignIn(BOB, 'bob-android-2')
  // A user who never signed in has no device.
  const app = await server.api.call('POST', server.api.user('/applications/session'), {
    headers: { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`, 'mms-device-id': 'x' },
  })
  const enrolled = await server.api.call('POST', server.api.user('/user/enrollment'), {
    token: app.json.access_token,
    json: { userName: 'loner.ct', password: 'loner-pass' },
  })
  loner = { userId: enrolled.json.userIdentifier }
})

describe('POST /messages/send_to_user_ids (§4.3 send to user ids)', () => {
  test('sends one message per matched recipient; unknown ids are not counted', async () => {
    const sentBefore = server.gateway.sent.length
    const res = await alice.call('POST', '/messages/send_to_user_ids', {
      json: {
        receipt: true,
        recipientUserIds: [BOB.userId, 'f'.repeat(32), BOB.userId, loner.userId, CAROL.userId],
        content: { text: 'hi' },
        metadata: { kind: 'greeting' },
      },
    })
    expect(res.status).toBe(200)
    expect(res.json.count).toEqual({ requested: 3, sent: 1, unsent: 2 })
    expect(res.json.sentList).toEqual([{ messageId: expect.stringMatching(/^[0-9a-f]{32}$/), deviceId: null, recipientUsername: BOB.userId }])
    expect(res.json.unsentList).toEqual([
      { messageId: expect.stringMatching(/^[0-9a-f]{32}$/), recipientUsername: loner.userId, reason: 'no active device' },
      { messageId: expect.stringMatching(/^[0-9a-f]{32}$/), recipientUsername: CAROL.userId, reason: 'device unreachable' },
    ])
    // Bob's two devices were woken through the gateway, one on each platform.
    const woken = server.gateway.sent.slice(sentBefore)
    expect(woken.map((p) => [p.deviceId, p.platform, p.action])).toEqual([
      ['bob-ios-1', 'APNS', 'WAKEUP'],
      ['bob-android-2', 'FCM', 'WAKEUP'],
    ])
  })

  test('reports delivery status to sender and recipient, one record per device', async () => {
    const sent = await alice.call('POST', '/messages/send_to_user_ids', {
      json: { receipt: false, recipientUserIds: [BOB.userId], content: { n: 1 } },
    })
    const messageId = sent.json.sentList[0].messageId
    const status = await alice.call('GET', `/messages/${messageId}`)
    expect(status.status).toBe(200)
    const record = {
      state: 'WAKEUP_REQUIRED',
      recipient: BOB.userId,
      sender: ALICE.userId,
      appId: server.app.reference.application.appId,
      messageId,
      queuedAt: new Date(server.clock.now()).toISOString(),
      receivedAt: null,
    }
    expect(status.json).toEqual([
      { ...record, deviceId: 'bob-ios-1' },
      { ...record, deviceId: 'bob-android-2' },
    ])
    expect((await bob.call('GET', `/messages/${messageId}`)).json).toEqual(status.json)
    expect((await carol.call('GET', `/messages/${messageId}`)).status).toBe(404)
  })

  test('an unsent message has no delivery records', async () => {
    const sent = await alice.call('POST', '/messages/send_to_user_ids', {
      json: { receipt: false, recipientUserIds: [loner.userId], content: { n: 1 } },
    })
    const status = await alice.call('GET', `/messages/${sent.json.unsentList[0].messageId}`)
    expect(status.json).toEqual([])
  })

  test('answers zero counts when no id matches', async () => {
    const res = await alice.call('POST', '/messages/send_to_user_ids', {
      json: { receipt: false, recipientUserIds: ['nobody'], content: {} },
    })
    expect(res.json).toEqual({ count: { requested: 0, sent: 0, unsent: 0 }, sentList: [], unsentList: [] })
  })

  test('refuses an unknown message id with 404', async () => {
    const res = await alice.call('GET', `/messages/${'0'.repeat(32)}`)
    expect(res.status).toBe(404)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test.each([
    ['no receipt', { recipientUserIds: [BOB.userId], content: {} }],
    ['a string receipt', { receipt: 'yes', recipientUserIds: [BOB.userId], content: {} }],
    ['no recipients', { receipt: true, content: {} }],
    ['an empty recipient list', { receipt: true, recipientUserIds: [], content: {} }],
    ['a non-string recipient', { receipt: true, recipientUserIds: [42], content: {} }],
    ['no content', { receipt: true, recipientUserIds: [BOB.userId] }],
    ['array content', { receipt: true, recipientUserIds: [BOB.userId], content: [1] }],
    ['string metadata', { receipt: true, recipientUserIds: [BOB.userId], content: {}, metadata: 'm' }],
  ])('refuses a message with %s', async (_title, json) => {
    const before = server.app.reference.store.snapshot()
    const sentBefore = server.gateway.sent.length
    const res = await alice.call('POST', '/messages/send_to_user_ids', { json })
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
    expect(server.app.reference.store.snapshot()).toEqual(before)
    expect(server.gateway.sent.length).toBe(sentBefore)
  })

  test('refuses content over 2 MiB with 413', async () => {
    const res = await alice.call('POST', '/messages/send_to_user_ids', {
      json: { receipt: false, recipientUserIds: [BOB.userId], content: { p: 'x'.repeat(2097152) } },
    })
    expect(res.status).toBe(413)
  })
})

describe('POST /push/user/{recipientUserId} (§4.4 push to user)', () => {
  test('pushes to every active device of the user', async () => {
    const sentBefore = server.gateway.sent.length
    const res = await alice.call('POST', `/push/user/${BOB.userId}`, {
      json: { action: 'PUSH', name: 'promo', payload: { title: 'Hi', body: 'There', badge: 1, sound: 'default', icon: 'i', extra: { a: 1 } } },
    })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({
      count: { requested: 2, sent: 2, unsent: 0 },
      sentList: [
        { pushId: expect.stringMatching(/^[0-9a-f]{32}$/), deviceId: 'bob-ios-1' },
        { pushId: expect.stringMatching(/^[0-9a-f]{32}$/), deviceId: 'bob-android-2' },
      ],
      unsentList: [],
    })
    const pushed = server.gateway.sent.slice(sentBefore)
    expect(pushed.map((p) => [p.pushId, p.platform, p.action, p.name])).toEqual([
      [res.json.sentList[0].pushId, 'APNS', 'PUSH', 'promo'],
      [res.json.sentList[1].pushId, 'FCM', 'PUSH', 'promo'],
    ])
    expect(pushed[0]!.payload).toEqual({ title: 'Hi', body: 'There', badge: 1, sound: 'default', icon: 'i', extra: { a: 1 } })
  })

  test('counts a device the gateway refuses as unsent', async () => {
    const res = await alice.call('POST', `/push/user/${CAROL.userId}`, { json: { action: 'WAKEUP', name: 'sync', payload: {} } })
    expect(res.json).toEqual({
      count: { requested: 1, sent: 0, unsent: 1 },
      sentList: [],
      unsentList: [{ deviceId: 'carol-unreachable', reason: 'device unreachable' }],
    })
  })

  test('answers zero devices for a user who never signed in', async () => {
    const res = await alice.call('POST', `/push/user/${loner.userId}`, { json: { action: 'PUSH', name: 'n', payload: {} } })
    expect(res.json.count).toEqual({ requested: 0, sent: 0, unsent: 0 })
  })

  test('refuses an unknown user with 404', async () => {
    const res = await alice.call('POST', `/push/user/${'0'.repeat(32)}`, { json: { action: 'PUSH', name: 'n', payload: {} } })
    expect(res.status).toBe(404)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test.each([
    ['an unknown action', { action: 'SHOUT', name: 'n', payload: {} }],
    ['a lower-case action', { action: 'push', name: 'n', payload: {} }],
    ['no name', { action: 'PUSH', payload: {} }],
    ['no payload', { action: 'PUSH', name: 'n' }],
    ['a numeric title', { action: 'PUSH', name: 'n', payload: { title: 1 } }],
    ['a negative badge', { action: 'PUSH', name: 'n', payload: { badge: -1 } }],
  ])('refuses a push with %s', async (_title, json) => {
    const sentBefore = server.gateway.sent.length
    const res = await alice.call('POST', `/push/user/${BOB.userId}`, { json })
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
    expect(server.gateway.sent.length).toBe(sentBefore)
  })
})
