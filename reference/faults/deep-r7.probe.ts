/**
 * Manual probe of blind round 7 (`npx tsx reference/faults/deep-r7.probe.ts [name...]`): for each r7 fault and
 * variant, one short scenario run in-process against the clean reference server and against the server with the
 * fault or variant on; it prints both outcomes, and DIFFERS when the fault or variant changed what was answered.
 */
import { buildServer } from '../app'
import { loadSeed } from '../seed'
import { R7_VARIANTS } from '../variants/blind-r7'
import { R7_FAULTS } from './deep-r7'

type App = ReturnType<typeof buildServer>
const U = '/mobile/api/com.vendor.server'
const M = '/message/api/v2'
const seed = loadSeed()
const [alice, bob, carol] = seed.users as [(typeof seed.users)[0], (typeof seed.users)[0], (typeof seed.users)[0]]
const clientId = seed.application.clientId

async function signIn(app: App, user: { userName: string; password: string }, device = 'probe-device', extra: Record<string, string> = {}) {
  const query = new URLSearchParams({
    grant_type: 'password',
    username: user.userName,
    password: user.password,
    client_id: clientId,
    scope: 'public',
    ...extra,
  })
  const r = await app.inject({ method: 'POST', url: `${U}/user/session?${query}`, headers: { 'mms-device-id': device } })
  return { status: r.statusCode, body: r.json() as any, token: (r.json() as any).access_token as string }
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const send = (app: App, token: string, body: unknown) =>
  app.inject({ method: 'POST', url: `${M}/messages/send_to_user_ids`, headers: bearer(token), payload: body as object })
const push = (app: App, token: string, to: string, body: unknown) =>
  app.inject({ method: 'POST', url: `${M}/push/user/${to}`, headers: bearer(token), payload: body as object })

const scenarios: Record<string, (app: App) => Promise<unknown>> = {
  'r7-signin-password-case-insensitive': async (app) => {
    const swapped = [...alice.password].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
    return (await signIn(app, { userName: alice.userName, password: swapped })).status
  },
  'r7-signin-client-id-case-insensitive': async (app) => (await signIn(app, alice, 'd', { client_id: clientId.toUpperCase() })).status,
  'r7-signin-form-charset-refused': async (app) => {
    const form = new URLSearchParams({ grant_type: 'password', username: alice.userName, password: alice.password, client_id: clientId, scope: 'public' })
    const r = await app.inject({
      method: 'POST',
      url: `${U}/user/session`,
      headers: { 'mms-device-id': 'd', 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      payload: form.toString(),
    })
    return r.statusCode
  },
  'r7-signin-concurrent-crossed': async (app) => {
    const [a, b] = await Promise.all([signIn(app, alice, 'da'), signIn(app, bob, 'db')])
    return { aliceAnsweredAs: a.body.user?.userName, bobAnsweredAs: b.body.user?.userName }
  },
  'r7-auth-token-case-insensitive': async (app) => {
    const { token } = await signIn(app, alice)
    return (await app.inject({ method: 'GET', url: `${U}/user/all`, headers: bearer(token.toUpperCase()) })).statusCode
  },
  'r7-users-search-caller-realm-only': async (app) => {
    const { token } = await signIn(app, alice)
    return (await app.inject({ method: 'GET', url: `${U}/user/query?q=userName:${carol.userName}`, headers: bearer(token) })).json().length
  },
  'r7-users-list-shared-device-dropped': async (app) => {
    const { token } = await signIn(app, alice, 'shared-device')
    await signIn(app, bob, 'shared-device')
    const list = (await app.inject({ method: 'GET', url: `${U}/user/all`, headers: bearer(token) })).json() as any[]
    return { aliceListed: list.some((u) => u.userName === alice.userName) }
  },
  'r7-users-search-row-per-device': async (app) => {
    const { token } = await signIn(app, alice, 'phone')
    await signIn(app, alice, 'tablet')
    return (await app.inject({ method: 'GET', url: `${U}/user/query?q=userIdentifier:${alice.userId}`, headers: bearer(token) })).json().length
  },
  'r7-users-wildcard-uppercase-fragment': async (app) => {
    const { token } = await signIn(app, alice)
    const r = (q: string) => app.inject({ method: 'GET', url: `${U}/user/query?q=${encodeURIComponent(q)}`, headers: bearer(token) })
    return { upper: (await r('firstName:*Ali*')).json().length, lower: (await r('firstName:*lic*')).json().length }
  },
  'r7-msg-repeated-id-counted': async (app) => {
    const { token } = await signIn(app, alice)
    await signIn(app, bob)
    return (await send(app, token, { receipt: false, recipientUserIds: [bob.userId, bob.userId], content: { t: 'x' } })).json().count
  },
  'r7-msg-concurrent-sender-crossed': async (app) => {
    const a = await signIn(app, alice, 'da')
    const b = await signIn(app, bob, 'db')
    await signIn(app, carol, 'dc')
    const [ra] = await Promise.all([
      send(app, a.token, { receipt: true, recipientUserIds: [carol.userId], content: { from: 'alice' } }),
      send(app, b.token, { receipt: true, recipientUserIds: [carol.userId], content: { from: 'bob' } }),
    ])
    const id = ra.json().sentList[0].messageId
    const s = await app.inject({ method: 'GET', url: `${M}/messages/${id}`, headers: bearer(a.token) })
    return { statusAsSender: s.statusCode, sender: s.statusCode === 200 ? s.json()[0]?.sender === alice.userId : null }
  },
  'r7-msg-sentlist-later-user-names': async (app) => {
    const { token } = await signIn(app, alice)
    await signIn(app, bob)
    await signIn(app, carol)
    return (await send(app, token, { receipt: true, recipientUserIds: [bob.userId, carol.userId], content: { t: 'x' } }))
      .json()
      .sentList.map((e: any) => e.recipientUsername)
  },
  'r7-msg-empty-metadata-refused': async (app) => {
    const { token } = await signIn(app, alice)
    return (await send(app, token, { receipt: true, recipientUserIds: [bob.userId], content: { t: 'x' }, metadata: {} })).statusCode
  },
  'r7-msg-no-receipt-no-status': async (app) => {
    const { token } = await signIn(app, alice)
    await signIn(app, bob)
    const id = (await send(app, token, { receipt: false, recipientUserIds: [bob.userId], content: { t: 'x' } })).json().sentList[0].messageId
    return (await app.inject({ method: 'GET', url: `${M}/messages/${id}`, headers: bearer(token) })).statusCode
  },
  'r7-push-badge-zero-refused': async (app) => {
    const { token } = await signIn(app, alice)
    return (await push(app, token, bob.userId, { action: 'PUSH', name: 'n', payload: { title: 't', badge: 0 } })).statusCode
  },
  'r7-push-non-ascii-text-refused': async (app) => {
    const { token } = await signIn(app, alice)
    return (await push(app, token, bob.userId, { action: 'PUSH', name: 'n', payload: { title: 'Grüße', body: 'café ☕' } })).statusCode
  },
  'r7-push-wakeup-other-user-refused': async (app) => {
    const { token } = await signIn(app, alice)
    return {
      wakeupOther: (await push(app, token, bob.userId, { action: 'WAKEUP', name: 'n', payload: {} })).statusCode,
      wakeupSelf: (await push(app, token, alice.userId, { action: 'WAKEUP', name: 'n', payload: {} })).statusCode,
    }
  },
  'r7-push-concurrent-shared-counter': async (app) => {
    const a = await signIn(app, alice, 'da')
    const b = await signIn(app, bob, 'db')
    await signIn(app, carol, 'dc')
    const rs = await Promise.all([
      push(app, a.token, carol.userId, { action: 'PUSH', name: 'n', payload: {} }),
      push(app, b.token, carol.userId, { action: 'PUSH', name: 'n', payload: {} }),
    ])
    return rs.map((r) => `${r.json().count.sent}/${r.json().sentList.length}`)
  },
  'r7-delete-channel-owner-address-bypass': async (app) => {
    const a = await signIn(app, alice)
    const b = await signIn(app, bob)
    await app.inject({ method: 'POST', url: `${M}/channels`, headers: bearer(a.token), payload: { channelName: 'probe-priv', privateChannel: true } })
    const del = await app.inject({ method: 'DELETE', url: `${M}/channels/${alice.userId}%23probe-priv?personal=true`, headers: bearer(b.token) })
    const still = await app.inject({ method: 'GET', url: `${M}/channels/probe-priv`, headers: bearer(a.token) })
    return { deleteByBob: del.statusCode, aliceStillHasIt: still.statusCode }
  },
  'r7-delete-all-items-subscriber': async (app) => {
    const a = await signIn(app, alice)
    const b = await signIn(app, bob)
    await app.inject({ method: 'POST', url: `${M}/channels`, headers: bearer(a.token), payload: { channelName: 'probe-pub' } })
    await app.inject({ method: 'POST', url: `${M}/channels/probe-pub/items`, headers: bearer(a.token), payload: { content: { k: 'v' } } })
    await app.inject({ method: 'PUT', url: `${M}/channels/probe-pub/subscribe`, headers: bearer(b.token) })
    const del = await app.inject({ method: 'DELETE', url: `${M}/channels/probe-pub/items/all`, headers: bearer(b.token) })
    const summary = await app.inject({ method: 'GET', url: `${M}/channels/probe-pub/summary`, headers: bearer(a.token) })
    return { deleteAllByBob: del.statusCode, itemsLeft: summary.json().publishedItemCount }
  },
  // Variants
  'r7v-signin-jwt-tokens': async (app) => {
    const { token } = await signIn(app, alice)
    return { form: token.split('.').length, works: (await app.inject({ method: 'GET', url: `${U}/user/all`, headers: bearer(token) })).statusCode }
  },
  'r7v-users-account-data': async (app) => (await signIn(app, alice)).body.user.userAccountData,
  'r7v-users-search-desc-order': async (app) => {
    const { token } = await signIn(app, alice)
    return (await app.inject({ method: 'GET', url: `${U}/user/query?q=userName:*.ct*`, headers: bearer(token) })).json().map((u: any) => u.userName)
  },
  'r7v-msg-sentlist-device-id': async (app) => {
    const { token } = await signIn(app, alice)
    await signIn(app, bob, 'bob-phone')
    return (await send(app, token, { receipt: true, recipientUserIds: [bob.userId], content: { t: 'x' } })).json().sentList[0].deviceId
  },
  'r7v-push-id-uuid': async (app) => {
    const { token } = await signIn(app, alice)
    await signIn(app, bob)
    return (await push(app, token, bob.userId, { action: 'PUSH', name: 'n', payload: {} })).json().sentList[0].pushId
  },
  'r7v-auth-problem-json-errors': async (app) => {
    const r = await app.inject({ method: 'GET', url: `${U}/user/all`, headers: bearer('nope') })
    return { status: r.statusCode, type: r.headers['content-type'], www: r.headers['www-authenticate'], body: r.json() }
  },
}

const wanted = process.argv.slice(2)
let failures = 0
for (const [name, scenario] of Object.entries(scenarios)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue
  const isVariant = R7_VARIANTS.some((v) => v.name === name)
  if (!isVariant && !R7_FAULTS.some((f) => f.name === name)) throw new Error(`no such r7 fault or variant: ${name}`)
  const clean = buildServer()
  const changed = buildServer(isVariant ? { variants: [name] } : { faults: [name] })
  const before = JSON.stringify(await scenario(clean))
  const after = JSON.stringify(await scenario(changed))
  await clean.close()
  await changed.close()
  const differs = before !== after
  if (!differs) failures++
  console.log(`${differs ? 'DIFFERS' : 'SAME   '} ${name}\n    clean: ${before}\n    ${isVariant ? 'variant' : 'fault'}: ${after}`)
}
process.exitCode = failures > 0 ? 1 : 0
