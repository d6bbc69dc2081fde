/**
 * Blind round 8 probes: for each r8 fault and variant, one short scenario run against the reference server
 * with and without it, printing both observations, so one sees the change really happens.
 * `npx tsx scripts/probe-r8.ts [name-filter]`
 */
import { buildServer } from '../reference/app'

const U = '/mobile/api/com.vendor.server'
const M = '/message/api/v2'
const A = { name: 'alice.ct', pw: 'alice-pass-4821', id: 'a1a1c0de00000000000000000000000a' }
const B = { name: 'bob.ct', pw: 'bob-pass-7390', id: 'b2b2c0de00000000000000000000000b' }
const C = { name: 'carol.ct', pw: 'carol-pass-1654', id: 'c3c3c0de00000000000000000000000c' }

type App = ReturnType<typeof buildServer>
async function signIn(app: App, u: { name: string; pw: string }, device = 'dev-1') {
  const r = await app.inject({
    method: 'POST',
    url: `${U}/user/session`,
    headers: { 'mms-device-id': device },
    query: { grant_type: 'password', username: u.name, password: u.pw, client_id: 'ct-reference-app', scope: 'public' },
  })
  return { status: r.statusCode, token: r.json().access_token as string, body: r.json() }
}
function call(app: App, token: string) {
  return async (method: string, url: string, payload?: unknown) => {
    const r = await app.inject({
      method: method as 'GET',
      url: url.startsWith('/mobile') ? url : `${M}${url}`,
      headers: { authorization: `Bearer ${token}` },
      ...(payload ? { payload: payload as object } : {}),
    })
    let body: unknown
    try {
      body = r.json()
    } catch {
      body = r.body
    }
    return { status: r.statusCode, body: body as any }
  }
}
const ch = (n: string) => `probe-${n}-${Math.random().toString(36).slice(2, 8)}`

const scenarios: Record<string, (app: App) => Promise<unknown>> = {
  'r8-signin-device-id-inner-space': async (app) => (await signIn(app, A, 'Pixel 7 Pro')).status,
  'r8-users-wildcard-email': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    return (await a('GET', `${U}/user/query?q=email:*${'ct'}*`)).body.length
  },
  'r8-create-max-items-int16': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('m')
    await a('POST', '/channels', { channelName: n, maxItems: 40000 })
    return (await a('GET', `/channels/${n}`)).body.maxItems
  },
  'r8-search-name-with-dot': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = `${ch('d')}.x`
    await a('POST', '/channels', { channelName: n })
    return (await a('GET', `/channels?channelName=${n}`)).body.total
  },
  'r8-tag-delete-with-space': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('t')
    await a('POST', '/channels', { channelName: n })
    await a('POST', `/channels/${n}/tags`, { tags: ['two words'] })
    const d = await a('DELETE', `/channels/${n}/tags/two%20words`)
    return [d.status, (await a('GET', `/channels/${n}/tags`)).body.tags]
  },
  'r8-content-null-values-dropped': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('c')
    await a('POST', '/channels', { channelName: n })
    const p = await a('POST', `/channels/${n}/items`, { content: { k: null, v: 1 } })
    return (await a('GET', `/channels/${n}/items?id=${p.body.messageId}`)).body.items[0].content
  },
  'r8-summary-keeps-first-publish-time': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('s')
    await a('POST', '/channels', { channelName: n })
    await a('POST', `/channels/${n}/items`, { content: { i: 1 } })
    const s1 = (await a('GET', `/channels/${n}/summary`)).body.lastPublishedTime
    await new Promise((r) => setTimeout(r, 20))
    await a('POST', `/channels/${n}/items`, { content: { i: 2 } })
    const s2 = (await a('GET', `/channels/${n}/summary`)).body.lastPublishedTime
    return s1 === s2 ? 'unchanged' : 'moved'
  },
  'r8-resubscribe-not-listed': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const b = call(app, (await signIn(app, B)).token)
    const n = ch('r')
    await a('POST', '/channels', { channelName: n })
    await b('PUT', `/channels/${n}/subscribe`)
    await b('PUT', `/channels/${n}/unsubscribe`)
    await b('PUT', `/channels/${n}/subscribe`)
    return (await a('GET', `/channels/${n}/subscriptions`)).body.map((s: any) => s.userId).includes(B.id)
  },
  'r8-tag-readd-after-delete-ignored': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('ra')
    await a('POST', '/channels', { channelName: n })
    await a('POST', `/channels/${n}/tags`, { tags: ['x'] })
    await a('DELETE', `/channels/${n}/tags`)
    await a('POST', `/channels/${n}/tags`, { tags: ['x'] })
    return (await a('GET', `/channels/${n}/tags`)).body.tags
  },
  'r8-deleted-item-still-fetched': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('di')
    await a('POST', '/channels', { channelName: n })
    const p = await a('POST', `/channels/${n}/items`, { content: { i: 1 } })
    await a('DELETE', `/channels/${n}/items?id=${p.body.messageId}`)
    return (await a('GET', `/channels/${n}/items/fetch`)).body.totalCount
  },
  'r8-subscribe-hash-goes-public': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const b = call(app, (await signIn(app, B)).token)
    const n = ch('h')
    await a('POST', '/channels', { channelName: n, privateChannel: true })
    await b('POST', '/channels', { channelName: n })
    await b('PUT', `/channels/${A.id}%23${n}/subscribe`)
    return (await a('GET', `/channels/${n}/subscriptions`)).body.map((s: any) => s.userId)
  },
  'r8-delete-all-items-ignores-personal': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('da')
    await a('POST', '/channels', { channelName: n, privateChannel: true })
    await a('POST', `/channels/${n}/items`, { content: { i: 1 } })
    const d = await a('DELETE', `/channels/${n}/items/all?personal=true`)
    return [d.status, (await a('GET', `/channels/${n}/summary`)).body.publishedItemCount]
  },
  'r8-search-exact-name-leaks-private': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const b = call(app, (await signIn(app, B)).token)
    const n = ch('pl')
    await a('POST', '/channels', { channelName: n, privateChannel: true })
    return (await b('GET', `/channels?channelName=${n}`)).body.total
  },
  'r8-unsubscribe-without-subscription-drops-last': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const b = call(app, (await signIn(app, B)).token)
    const c = call(app, (await signIn(app, C)).token)
    const n = ch('u')
    await a('POST', '/channels', { channelName: n, subscribeOnCreate: false })
    await b('PUT', `/channels/${n}/subscribe`)
    await c('PUT', `/channels/${n}/unsubscribe`)
    return (await a('GET', `/channels/${n}/subscriptions`)).body.length
  },
  'r8-shared-device-token-follows-last-user': async (app) => {
    const ta = (await signIn(app, A, 'shared')).token
    await signIn(app, B, 'shared')
    const a = call(app, ta)
    const n = ch('sd')
    await a('POST', '/channels', { channelName: n })
    return (await a('GET', `/channels/${n}`)).body.creator.split('%')[0]
  },
  'r8-send-recipients-sharing-device-dropped': async (app) => {
    await signIn(app, B, 'shared')
    await signIn(app, C, 'shared')
    const a = call(app, (await signIn(app, A)).token)
    return (await a('POST', '/messages/send_to_user_ids', { receipt: false, recipientUserIds: [B.id, C.id], content: { x: 1 } })).body.count
  },
  'r8-push-sent-counts-user': async (app) => {
    await signIn(app, B, 'b1')
    await signIn(app, B, 'b2')
    const a = call(app, (await signIn(app, A)).token)
    return (await a('POST', `/push/user/${B.id}`, { action: 'PUSH', name: 'n', payload: { title: 't' } })).body.count
  },
  'r8-race-tags-add-lost-update': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('rt')
    await a('POST', '/channels', { channelName: n })
    await Promise.all([a('POST', `/channels/${n}/tags`, { tags: ['p'] }), a('POST', `/channels/${n}/tags`, { tags: ['q'] })])
    return (await a('GET', `/channels/${n}/tags`)).body.tags
  },
  'r8-race-max-items-eviction': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('rm')
    await a('POST', '/channels', { channelName: n, maxItems: 1 })
    await Promise.all([a('POST', `/channels/${n}/items`, { content: { i: 1 } }), a('POST', `/channels/${n}/items`, { content: { i: 2 } })])
    return (await a('GET', `/channels/${n}/items/fetch`)).body.totalCount
  },
  'r8-race-subscribe-lost-update': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const b = call(app, (await signIn(app, B)).token)
    const c = call(app, (await signIn(app, C)).token)
    const n = ch('rs')
    await a('POST', '/channels', { channelName: n, subscribeOnCreate: false })
    await Promise.all([b('PUT', `/channels/${n}/subscribe`), c('PUT', `/channels/${n}/subscribe`)])
    return (await a('GET', `/channels/${n}/subscriptions`)).body.length
  },
  // variants
  'r8v-search-newest-first': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const p = ch('o')
    await a('POST', '/channels', { channelName: `${p}-1` })
    await new Promise((r) => setTimeout(r, 5))
    await a('POST', '/channels', { channelName: `${p}-2` })
    return (await a('GET', `/channels?channelName=${p}`)).body.results.map((c: any) => c.name)
  },
  'r8v-error-body-nested': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    return (await a('GET', '/channels/no-such-channel-zz')).body
  },
  'r8v-offset-with-colon': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('tz')
    await a('POST', '/channels', { channelName: n })
    return (await a('GET', `/channels/${n}`)).body.creationDate
  },
  'r8v-fetch-default-desc': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    const n = ch('fd')
    await a('POST', '/channels', { channelName: n })
    await a('POST', `/channels/${n}/items`, { content: { i: 1 } })
    await new Promise((r) => setTimeout(r, 3))
    await a('POST', `/channels/${n}/items`, { content: { i: 2 } })
    return (await a('GET', `/channels/${n}/items/fetch`)).body.items.map((i: any) => i.content.i)
  },
  'r8v-unsent-as-user-ids': async (app) => {
    const a = call(app, (await signIn(app, A)).token)
    return (await a('POST', '/messages/send_to_user_ids', { receipt: false, recipientUserIds: [C.id], content: { x: 1 } })).body.unsentList
  },
  'r8v-token-lifetime-3600': async (app) => (await signIn(app, A)).body.expires_in,
}

const filter = process.argv[2] ?? ''
for (const [name, run] of Object.entries(scenarios)) {
  if (!name.includes(filter)) continue
  const clean = buildServer({})
  const changed = buildServer(name.startsWith('r8v-') ? { variants: [name] } : { faults: [name] })
  const [a, b] = [JSON.stringify(await run(clean)), JSON.stringify(await run(changed))]
  console.log(`${a === b ? 'SAME   ' : 'CHANGED'} ${name}\n   clean:  ${a}\n   with:   ${b}`)
  await clean.close()
  await changed.close()
}
