import { describe, expect, test } from 'vitest'
import { ALICE, BOB, CAROL, ZOE, CLIENT_ID, CLIENT_SECRET, isErrorBody, useServer } from './harness'

const server = useServer()

const form = (params: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded', 'mms-device-id': 'dev-form' },
  body: new URLSearchParams(params).toString(),
})

const good = {
  grant_type: 'password',
  username: ALICE.userName,
  password: ALICE.password,
  client_id: CLIENT_ID,
  scope: 'public',
}

describe('POST /user/session (§4.1 sign in)', () => {
  test('answers a USER session for a form body', async () => {
    const res = await server.api.call('POST', server.api.user('/user/session'), form(good))
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.json).toMatchObject({ token_type: 'USER', expires_in: 7200 })
    expect(res.json.access_token).toMatch(/^[0-9a-f]{32}$/)
    expect(res.json.user).toEqual({
      userIdentifier: ALICE.userId,
      clientId: CLIENT_ID,
      firstName: ALICE.firstName,
      lastName: ALICE.lastName,
      userName: ALICE.userName,
      password: '********',
      userRealm: ALICE.userRealm,
      userStatus: 'ACTIVE',
      roles: ['USER'],
      otpCode: '******',
      userAccountData: {},
    })
    expect(res.json.user).not.toHaveProperty('email')
    expect(res.text).not.toContain(ALICE.password)
  })

  test('accepts the parameters in the query string', async () => {
    const res = await server.api.call('POST', server.api.user('/user/session'), {
      headers: { 'mms-device-id': 'dev-query' },
      query: good,
    })
    expect(res.status).toBe(200)
    expect(res.json.token_type).toBe('USER')
  })

  test('registers the MMS-DEVICE-ID as an active device, once per device id', async () => {
    const store = server.app.reference.store
    await server.api.signIn(BOB.userName, BOB.password, 'bob-phone')
    await server.api.signIn(BOB.userName, BOB.password, 'bob-phone')
    await server.api.signIn(BOB.userName, BOB.password, 'bob-tablet')
    expect(store.listDevices(BOB.userId).map((d) => d.deviceId)).toEqual(['bob-phone', 'bob-tablet'])
  })

  test('issues a token that authenticates later calls', async () => {
    const res = await server.api.signIn(ALICE.userName, ALICE.password)
    const all = await server.api.call('GET', server.api.user('/user/all'), { token: res.json.access_token })
    expect(all.status).toBe(200)
  })

  test.each([
    ['without MMS-DEVICE-ID', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(good).toString() }, 400],
    ['with an empty MMS-DEVICE-ID', { ...form(good), headers: { ...form(good).headers, 'mms-device-id': '' } }, 400],
    ['without grant_type', form({ ...good, grant_type: '' }), 400],
    ['with grant_type client_credentials', form({ ...good, grant_type: 'client_credentials' }), 400],
    ['without username', form({ ...good, username: '' }), 400],
    ['without password', form({ ...good, password: '' }), 400],
    ['without client_id', form({ ...good, client_id: '' }), 400],
    ['with scope other than public', form({ ...good, scope: 'admin' }), 400],
    ['with another client_id', form({ ...good, client_id: 'someone-else' }), 401],
    ['with a wrong password', form({ ...good, password: 'nope' }), 401],
    ['with an unknown user', form({ ...good, username: 'nobody' }), 401],
    ['with a text body', { headers: { 'content-type': 'text/plain', 'mms-device-id': 'd' }, body: 'x' }, 415],
  ])('refuses a sign-in %s', async (_title, options, status) => {
    const before = server.app.reference.store.snapshot()
    const res = await server.api.call('POST', server.api.user('/user/session'), options)
    expect(res.status).toBe(status)
    expect(isErrorBody(res.json)).toBe(true)
    expect(server.app.reference.store.snapshot()).toEqual(before)
  })

  test('refuses a parameter given twice', async () => {
    const body = `${new URLSearchParams(good).toString()}&username=${BOB.userName}`
    const res = await server.api.call('POST', server.api.user('/user/session'), {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'mms-device-id': 'd' },
      body,
    })
    expect(res.status).toBe(400)
  })

  test('matches the user name ignoring case', async () => {
    const res = await server.api.signIn(ALICE.userName.toUpperCase(), ALICE.password)
    expect(res.status).toBe(200)
    expect(res.json.user.userName).toBe(ALICE.userName)
  })

  test('token expires after expires_in seconds', async () => {
    const signIn = await server.api.signIn(ALICE.userName, ALICE.password)
    const token = signIn.json.access_token
    server.clock.advance(7199_000)
    expect((await server.api.call('GET', server.api.user('/user/all'), { token })).status).toBe(200)
    server.clock.advance(1_000)
    const expired = await server.api.call('GET', server.api.user('/user/all'), { token })
    expect(expired.status).toBe(401)
    expect(isErrorBody(expired.json)).toBe(true)
  })
})

describe('authentication of other calls (§5)', () => {
  test.each([
    ['no Authorization header', undefined],
    ['a non-Bearer scheme', 'Basic YTpi'],
    ['a Bearer without token', 'Bearer '],
    ['an unknown token', 'Bearer 0123456789abcdef0123456789abcdef'],
  ])('refuses %s with 401', async (_title, authorization) => {
    const res = await server.api.call('GET', server.api.user('/user/all'), {
      headers: authorization === undefined ? {} : { authorization },
    })
    expect(res.status).toBe(401)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test('refuses an application token on a user call', async () => {
    const app = await appToken()
    const res = await server.api.call('GET', server.api.user('/user/all'), { token: app })
    expect(res.status).toBe(401)
  })
})

describe('GET /user/all (§4.1 list all users)', () => {
  test('lists every user of the application, with email', async () => {
    const alice = await server.api.mustSignIn(ALICE)
    const res = await alice.callUser('GET', '/user/all')
    expect(res.status).toBe(200)
    expect(res.json.map((u: { userName: string }) => u.userName)).toEqual(expect.arrayContaining([ALICE.userName, BOB.userName, CAROL.userName]))
    const bob = res.json.find((u: { userIdentifier: string }) => u.userIdentifier === BOB.userId)
    expect(bob).toMatchObject({ email: BOB.email, userStatus: 'ACTIVE', password: '********', otpCode: '******' })
  })
})

describe('GET /user/query (§4.1 search users)', () => {
  const query = async (params: Record<string, string>) => {
    const alice = await server.api.mustSignIn(ALICE)
    return alice.callUser('GET', '/user/query', { query: params })
  }
  const names = (res: { json: { userName: string }[] }) => res.json.map((u) => u.userName)

  test.each([
    ['equality, ignoring case', `userName:${BOB.userName.toUpperCase()}`, [BOB.userName]],
    ['firstName', `firstName:${CAROL.firstName}`, [CAROL.userName]],
    ['lastName', `lastName:${ALICE.lastName}`, [ALICE.userName]],
    ['email', `email:${ALICE.email}`, [ALICE.userName]],
    ['userIdentifier', `userIdentifier:${BOB.userId}`, [BOB.userName]],
    ['userRealm', `userRealm:${CAROL.userRealm}`, [CAROL.userName]],
    ['contains', 'userName:*o*', [BOB.userName, CAROL.userName, ZOE.userName]],
    ['prefix', `userName:${ALICE.userName.slice(0, 3)}*`, [ALICE.userName]],
    ['suffix', 'lastName:*er', [ALICE.userName, BOB.userName, ZOE.userName]],
    // The seed's one user beyond the run's accounts: names beyond ASCII, found as stored.
    ['non-ASCII letters', `lastName:${ZOE.lastName}`, [ZOE.userName]],
    ['no match', 'userName:nobody-at-all', []],
  ])('finds users by %s', async (_title, q, expected) => {
    const res = await query({ q })
    expect(res.status).toBe(200)
    expect(names(res)).toEqual(expected)
    for (const user of res.json) expect(user).toHaveProperty('email')
  })

  test('finds by userStatus ACTIVE', async () => {
    const res = await query({ q: 'userStatus:active' })
    expect(names(res)).toEqual(expect.arrayContaining([ALICE.userName, BOB.userName, CAROL.userName]))
  })

  test('sorts and pages with sort, skip and take', async () => {
    const desc = await query({ q: 'userName:*.ct', sort: 'firstName:desc' })
    expect(names(desc)).toEqual([CAROL.userName, BOB.userName, ALICE.userName])
    const page = await query({ q: 'userName:*.ct', sort: 'firstName:asc', skip: '1', take: '1' })
    expect(names(page)).toEqual([BOB.userName])
  })

  test.each([
    ['no q', {}],
    ['q without colon', { q: 'alice' }],
    ['an unknown property', { q: 'password:x' }],
    ['an empty value', { q: 'userName:' }],
    ['take 0', { q: 'userName:*', take: '0' }],
    ['take over 1000', { q: 'userName:*', take: '1001' }],
    ['a negative skip', { q: 'userName:*', skip: '-1' }],
    ['a non-integer take', { q: 'userName:*', take: 'ten' }],
    ['an unknown sort property', { q: 'userName:*', sort: 'shoeSize:asc' }],
    ['an unknown sort direction', { q: 'userName:*', sort: 'userName:sideways' }],
  ])('refuses %s with 400', async (_title, params) => {
    const res = await query(params as Record<string, string>)
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
  })
})

async function appToken(deviceId = 'enrol-device'): Promise<string> {
  const res = await server.api.call('POST', server.api.user('/applications/session'), {
    headers: {
      authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
      'mms-device-id': deviceId,
    },
  })
  expect(res.status).toBe(200)
  return res.json.access_token
}

describe('POST /applications/session and /user/enrollment (registration, not in the spec)', () => {
  test('answers an APPLICATION token for the client credentials', async () => {
    const res = await server.api.call('POST', server.api.user('/applications/session'), {
      headers: {
        authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
        'mms-device-id': 'x',
      },
    })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ token_type: 'APPLICATION', access_token: expect.stringMatching(/^[0-9a-f]{32}$/), expires_in: 7200 })
  })

  test.each([
    ['no Authorization', {}],
    ['a wrong secret', { authorization: `Basic ${Buffer.from(`${CLIENT_ID}:wrong`).toString('base64')}` }],
    ['an unknown client', { authorization: `Basic ${Buffer.from(`other:${CLIENT_SECRET}`).toString('base64')}` }],
    ['a malformed header', { authorization: 'Basic !!!' }],
  ])('refuses %s with 401', async (_title, headers) => {
    const res = await server.api.call('POST', server.api.user('/applications/session'), {
      headers: { ...headers, 'mms-device-id': 'x' },
    })
    expect(res.status).toBe(401)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test('enrols a user who can then sign in', async () => {
    const token = await appToken()
    const res = await server.api.call('POST', server.api.user('/user/enrollment'), {
      token,
      json: { userName: 'dora.ct', password: 'dora-pass-1', firstName: 'Dora', lastName: 'Diaz', email: 'dora@example.com' },
    })
    expect(res.status).toBe(201)
    expect(res.json).toMatchObject({
      userIdentifier: expect.stringMatching(/^[0-9a-f]{32}$/),
      clientId: CLIENT_ID,
      userName: 'dora.ct',
      firstName: 'Dora',
      lastName: 'Diaz',
      email: 'dora@example.com',
      password: '********',
      userStatus: 'ACTIVE',
      roles: ['USER'],
    })
    expect(res.text).not.toContain('dora-pass-1')
    const signIn = await server.api.signIn('dora.ct', 'dora-pass-1')
    expect(signIn.status).toBe(200)
    expect(signIn.json.user.userIdentifier).toBe(res.json.userIdentifier)
  })

  test('refuses a duplicate user name with 409', async () => {
    const token = await appToken()
    const res = await server.api.call('POST', server.api.user('/user/enrollment'), {
      token,
      json: { userName: ALICE.userName.toUpperCase(), password: 'x' },
    })
    expect(res.status).toBe(409)
    expect(isErrorBody(res.json)).toBe(true)
  })

  test('refuses a user token with 401', async () => {
    const alice = await server.api.mustSignIn(ALICE)
    const res = await server.api.call('POST', server.api.user('/user/enrollment'), {
      token: alice.token,
      json: { userName: 'eve.ct', password: 'x' },
    })
    expect(res.status).toBe(401)
  })

  test.each([
    ['no userName', { password: 'x' }],
    ['no password', { userName: 'frank.ct' }],
    ['a userName with spaces', { userName: 'frank ct', password: 'x' }],
    ['a non-string password', { userName: 'frank.ct', password: 12345 }],
    ['a malformed email', { userName: 'frank.ct', password: 'x', email: 'not-an-email' }],
  ])('refuses an enrolment with %s', async (_title, json) => {
    const token = await appToken()
    const before = server.app.reference.store.snapshot()
    const res = await server.api.call('POST', server.api.user('/user/enrollment'), { token, json })
    expect(res.status).toBe(400)
    expect(isErrorBody(res.json)).toBe(true)
    expect(server.app.reference.store.snapshot()).toEqual(before)
  })
})
