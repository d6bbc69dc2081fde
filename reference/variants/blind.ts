import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { ApiError, ERRORS, fail } from '../errors'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import { newId } from '../ids'
import type { ChannelRecord, UserRecord } from '../model'
import { channelSearchView } from '../views'
import type { Variant } from './types'

/**
 * Correct servers written from the spec alone by implementers who chose differently from the reference
 * where the spec leaves the choice open. Written without looking at the suite, to find its false alarms.
 */

type Handler = RouteOptions['handler']
type Query = Record<string, string | string[] | undefined>

/** Replaces a route's handler with one that has the server context at hand. */
function replaceHandler(app: Parameters<NonNullable<Variant['install']>>[0], id: string, handler: (request: FastifyRequest, reply: FastifyReply) => unknown): void {
  wrapHandler(app, id, () => handler as Handler)
}

/** The reference writes `<ms>+0000`; Date.parse wants a `Z` or a colon offset. */
function toMs(text: string): number {
  return Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
}

/** `2015-11-11T00:52:54.123+05:30`: a server that writes its own (Indian Standard) local time. */
function istTime(ms: number): string {
  return new Date(ms + 330 * 60_000).toISOString().replace(/Z$/, '+05:30')
}

/** Owner id, domain and device from the reference's `<userId>%<appId>@<domain>/<deviceId>`. */
function parseCreator(creator: string): { ownerId: string; domain: string; deviceId: string } | undefined {
  const m = /^([^%]+)%[^@]*@([^/]*)\/(.*)$/.exec(creator)
  return m ? { ownerId: m[1]!, domain: m[2]!, deviceId: m[3]! } : undefined
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** One shared secret per server: tokens are signed, the store keeps the opaque id inside them. */
function jwtTokens(): Variant {
  const key = randomBytes(32)
  const sign = (data: string): string => createHmac('sha256', key).update(data).digest('base64url')
  const wrap = (token: string, sub: string | null, lifetime: number): string => {
    const now = Math.floor(Date.now() / 1000)
    const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub, jti: token, iat: now, exp: now + lifetime })}`
    return `${body}.${sign(body)}`
  }
  const unwrap = (jwt: string): string | undefined => {
    const parts = jwt.split('.')
    if (parts.length !== 3 || sign(`${parts[0]}.${parts[1]}`) !== parts[2]) return undefined
    try {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { jti?: unknown }
      return typeof claims.jti === 'string' ? claims.jti : undefined
    } catch {
      return undefined
    }
  }
  return {
    name: 'blind-jwt-tokens',
    area: 'signin',
    description: 'access tokens are signed JWTs (three base64url parts with dots, ~250 characters) that live 3600 s; expires_in says 3600',
    reading:
      '§2.2 access_token is a string (`<ACCESS_TOKEN>`), its form not shown; §5.3 "The sample value of expires_in is 7200; the unit is not stated" and §8 lists 7200 as the value shown: a sample, not a rule',
    wrapStore: (store) =>
      overrideStore(store, {
        getToken: (inner) => (token) => {
          const id = unwrap(token)
          return id === undefined ? undefined : inner.getToken(id)
        },
      }),
    install(app, ctx) {
      ctx.tokenLifetimeSeconds = 3600
      rewriteJson(app, 'users.signIn', (body) => ({ ...body, access_token: wrap(body.access_token, body.user?.userIdentifier ?? null, ctx.tokenLifetimeSeconds) }))
      rewriteJson(app, 'registration.appSession', (body) => ({ ...body, access_token: wrap(body.access_token, null, ctx.tokenLifetimeSeconds) }))
    },
  }
}

/** Channel record timestamps rewritten; every other field as the reference has it. */
function withIstDates(channel: any): any {
  return { ...channel, creationDate: istTime(toMs(channel.creationDate)), modifiedDate: istTime(toMs(channel.modifiedDate)) }
}

/** A secondsless UTC time, `2015-11-10T19:22:54+00:00`. */
function utcSeconds(text: string): string {
  return new Date(Math.floor(toMs(text) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00')
}

/** The search handler of a full-text engine: token-prefix names, word descriptions, any tag, newest first. */
function searchEngineHandler(ctx: ServerContext) {
  const words = (text: string): string[] => text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w !== '')
  return async (request: FastifyRequest) => {
    const q = request.query as { channelName?: string; description?: string; tag?: string[]; offset: number; size: number }
    const nameText = q.channelName?.toLowerCase()
    const descWords = q.description === undefined ? undefined : words(q.description)
    const nameMatches = (c: ChannelRecord): boolean => {
      if (nameText === undefined) return true
      const name = c.name.toLowerCase()
      return name.startsWith(nameText) || name.split(/[-_.]/).some((token) => token.startsWith(nameText))
    }
    const descMatches = (c: ChannelRecord): boolean => {
      if (descWords === undefined || descWords.length === 0) return true
      const have = new Set(words(c.description))
      return descWords.some((w) => have.has(w))
    }
    const tags = q.tag ?? []
    const matches = ctx.store
      .listPublicChannels()
      .filter((c) => nameMatches(c) && descMatches(c) && (tags.length === 0 || tags.some((t) => c.tags.includes(t))))
      .sort((a, b) => b.createdAt - a.createdAt || (a.name < b.name ? 1 : -1))
    const size = Math.min(q.size, 50)
    return { total: matches.length, results: matches.slice(q.offset, q.offset + size).map((c) => channelSearchView(ctx, c)) }
  }
}

const LAG_MS = 700

/** What the search index still holds of channels deleted less than LAG_MS ago. */
function laggingIndex(): Variant {
  const seen = new Map<string, number>()
  const ghosts: { channel: ChannelRecord; until: number }[] = []
  return {
    name: 'blind-search-index-lag',
    area: 'channels',
    description: `channel search reads a separate index refreshed every ${LAG_MS} ms: a new channel shows in search only after that, a deleted one lingers as long`,
    reading:
      '§4.2 search says nothing of when a change becomes searchable, and §4.1 "Filtering, sorting and pagination follow URI search conventions of a full-text search engine" names the kind of back end whose index refreshes on an interval',
    wrapStore: (store) =>
      overrideStore(store, {
        addChannel: (inner) => (channel) => {
          const added = inner.addChannel(channel)
          if (added) seen.set(channel.channelId, Date.now())
          return added
        },
        deleteChannel: (inner) => (channelId) => {
          const channel = inner.getChannel(channelId)
          if (channel && !channel.privateChannel) ghosts.push({ channel: structuredClone(channel) as ChannelRecord, until: Date.now() + LAG_MS })
          return inner.deleteChannel(channelId)
        },
        listPublicChannels: (inner) => () => {
          const now = Date.now()
          while (ghosts.length > 0 && ghosts[0]!.until <= now) ghosts.shift()
          const live = inner.listPublicChannels().filter((c) => now - (seen.get(c.channelId) ?? 0) >= LAG_MS)
          return [...live, ...ghosts.map((g) => g.channel)].sort((a, b) => a.createdAt - b.createdAt)
        },
      }),
  }
}

/** Solr-style user search: start/rows, `sort=<field> asc|desc`, exact field names, case-sensitive values. */
const SOLR_PARAMS = new Set(['q', 'start', 'rows', 'sort'])
const USER_FIELDS = ['userName', 'firstName', 'lastName', 'email', 'userRealm', 'userStatus', 'userIdentifier'] as const
type UserField = (typeof USER_FIELDS)[number]
const fieldOf = (u: Readonly<UserRecord>, f: UserField): string => (f === 'userIdentifier' ? u.userId : u[f])

function solrInt(raw: string | string[] | undefined, fallback: number, name: string): number {
  if (raw === undefined) return fallback
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw)) throw fail('INVALID_USER_QUERY', `${name} must be a non-negative integer`)
  return Number(raw)
}

function solrHandler(ctx: ServerContext) {
  return async (request: FastifyRequest) => {
    const { user } = callerOf(request)
    const query = request.query as Query
    const q = query.q
    if (typeof q !== 'string') throw fail('INVALID_USER_QUERY', 'q=<field>:<value> is required once')
    const colon = q.indexOf(':')
    const field = USER_FIELDS.find((f) => f === q.slice(0, colon))
    const value = q.slice(colon + 1)
    if (colon < 0 || !field || value === '') throw fail('INVALID_USER_QUERY', `q must be <field>:<value>, field one of ${USER_FIELDS.join(', ')}`)
    const start = solrInt(query.start, 0, 'start')
    const rows = Math.min(solrInt(query.rows, 10, 'rows'), 1000)
    const lead = value.length > 1 && value.startsWith('*')
    const trail = value.endsWith('*')
    const core = value === '*' ? '' : value.slice(lead ? 1 : 0, trail ? -1 : undefined)
    const matches = (v: string): boolean =>
      value === '*' || (lead && trail ? v.includes(core) : lead ? v.endsWith(core) : trail ? v.startsWith(core) : v === core)
    let users = ctx.store.listUsers(user.clientId).filter((u) => matches(fieldOf(u, field)))
    if (query.sort !== undefined) {
      const m = typeof query.sort === 'string' ? /^(\w+) +(asc|desc)$/.exec(query.sort) : null
      const sortField = USER_FIELDS.find((f) => f === m?.[1])
      if (!m || !sortField) throw fail('INVALID_USER_QUERY', 'sort must be "<field> asc" or "<field> desc"')
      const sign = m[2] === 'asc' ? 1 : -1
      users = [...users].sort((a, b) => (fieldOf(a, sortField) < fieldOf(b, sortField) ? -sign : fieldOf(a, sortField) > fieldOf(b, sortField) ? sign : 0))
    }
    return users.slice(start, start + rows).map((u) => ({
      userIdentifier: u.userId,
      clientId: u.clientId,
      firstName: u.firstName,
      lastName: u.lastName,
      email: u.email,
      userName: u.userName,
      password: '********',
      userRealm: u.userRealm,
      userStatus: u.userStatus,
      roles: [...u.roles],
      otpCode: '******',
      userAccountData: { ...u.userAccountData },
    }))
  }
}

/** Owner-centred channel fields: `creator` as `<userId>:<userName>@<domain>/<deviceId>`, userId always the owner. */
function ownerFields(ctx: ServerContext, channel: any): any {
  const parsed = parseCreator(channel.creator)
  if (!parsed) return channel
  const userName = ctx.store.getUser(parsed.ownerId)?.userName ?? parsed.ownerId
  return { ...channel, creator: `${parsed.ownerId}:${userName}@${parsed.domain}/${parsed.deviceId}`, userId: parsed.ownerId }
}

const ITEM_NOT_FOUND = { status: 404, code: 4005, message: 'item not found' }

export const BLIND_VARIANTS: readonly Variant[] = [
  {
    name: 'blind-minimal-bodies',
    area: 'channels',
    description: 'create channel answers 200 {code:200, message} with no Location header; the four body-less deletes answer 200 with an empty body',
    reading:
      '§4.2 create channel: "Response: {code (integer), message (string)}", no status given (publish alone says 201); "Success of the four delete operations ... is status 200. Success body: not shown."',
    install(app) {
      rewriteJson(app, 'channels.create', (body, _request, reply) => {
        reply.code(200)
        reply.removeHeader('location')
        return { ...body, code: 200 }
      })
      for (const id of ['channels.delete', 'tags.deleteOne', 'tags.deleteAll', 'items.deleteAll']) {
        addRouteHook(app, id, 'onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
          if (reply.statusCode !== 200) return payload
          reply.removeHeader('content-type')
          return ''
        })
      }
    },
  },
  jwtTokens(),
  {
    name: 'blind-local-time-stamps',
    area: 'channels',
    description:
      'channel dates in the server’s local zone with a colon offset (`…T00:52:54.123+05:30`); summary lastPublishedTime to the second as `+00:00`; delivery queuedAt to the second with `Z`',
    reading:
      '§2 "Timestamps are ISO 8601 strings"; §2.3 asks only "millisecond precision and a numeric UTC offset" of channel dates (+05:30 is one); §2.4 lastPublishedTime is "timestamp (UTC)" with no precision; §2.7 queuedAt is a timestamp',
    install(app) {
      rewriteJson(app, 'channels.getByName', (body) => withIstDates(body))
      rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map(withIstDates) }))
      rewriteJson(app, 'channels.summary', (body) => ({ ...body, lastPublishedTime: utcSeconds(body.lastPublishedTime) }))
      rewriteJson(app, 'messages.status', (body) =>
        body.map((r: any) => ({ ...r, queuedAt: new Date(Math.floor(toMs(r.queuedAt) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') })),
      )
    },
  },
  {
    name: 'blind-search-engine',
    area: 'channels',
    description:
      'channel search as a full-text engine: channelName matches a name or a -_. token by prefix, description by any whole word, tags by any of those given; newest first; size defaults to 10 and is capped at 50',
    reading:
      '§4.2 search: "Matching rules for channelName and description, and the defaults and maximum of size: not shown"; the order of results and how repeated tags combine are not stated',
    install(app, ctx) {
      addRouteHook(app, 'channels.search', 'preValidation', async (request: FastifyRequest) => {
        const query = request.query as Query
        if (query.size === undefined) query.size = '10'
      })
      replaceHandler(app, 'channels.search', searchEngineHandler(ctx))
    },
  },
  laggingIndex(),
  {
    name: 'blind-subscription-per-device',
    area: 'subscriptions',
    description:
      'a subscription belongs to a user on a device: subscribing from a second signed-in device adds a second subscription (same device again: the same subId); unsubscribe cancels all of the user’s',
    reading:
      '§2.5 a Subscription carries deviceId; §4.2 unsubscribe: "the message states the number of subscriptions cancelled", so a user may hold more than one; repeated subscribes are not described',
    install(app, ctx) {
      replaceHandler(app, 'subscriptions.subscribe', async (request) => {
        const { user, deviceId } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        const mine = ctx.store.listSubscriptions(channel.channelId).find((s) => s.userId === user.userId && s.deviceId === deviceId)
        if (mine) return { code: 200, subId: mine.subscriptionId, msg: 'already subscribed on this device' }
        const subscriptionId = newId()
        ctx.store.addSubscription({ subscriptionId, channelId: channel.channelId, userId: user.userId, deviceId, createdAt: ctx.clock.now() })
        return { code: 200, subId: subscriptionId, msg: `subscribed to ${channel.name}` }
      })
    },
  },
  {
    name: 'blind-items-strict-ids',
    area: 'items',
    description: 'get items by id refuses the whole request (404) when any id is not an item of the channel; delete by id reports 204 for each item deleted',
    reading:
      '§4.2 get items by id: "Behaviour for unknown ids: not shown"; delete by id: values are "integer status codes, one per id", which codes is not stated',
    install(app, ctx) {
      addRouteHook(app, 'items.getById', 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        for (const id of (request.query as { id: string[] }).id) {
          if (!ctx.store.getItem(channel.channelId, id)) throw new ApiError(ITEM_NOT_FOUND, `item ${id} not found in ${channel.name}`)
        }
      })
      rewriteJson(app, 'items.deleteById', (body: Record<string, number>) =>
        Object.fromEntries(Object.entries(body).map(([id, status]) => [id, status === 200 ? 204 : status])),
      )
    },
  },
  {
    name: 'blind-fetch-window',
    area: 'items',
    description: 'fetch by date range requires since (400 without); sort_order defaults to DESC (newest first) and size to 20',
    reading: '§4.2 fetch items: "Defaults and requiredness of since, until, sort_order, offset and size: not shown"',
    install(app) {
      addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest) => {
        const query = request.query as Query
        if (query.since === undefined) throw fail('BAD_REQUEST', 'since is required')
        if (query.sort_order === undefined) query.sort_order = 'DESC'
        if (query.size === undefined) query.size = '20'
      })
    },
  },
  {
    name: 'blind-solr-users',
    area: 'users',
    description:
      'user search is Solr-like: paging start/rows (rows default 10), sort=`<field> asc|desc`, field names and values case-sensitive, any other query parameter is a 400; the user list is ordered by userName',
    reading:
      '§4.1 search: "Filtering, sorting and pagination follow URI search conventions of a full-text search engine. Names of the sort and pagination parameters: not shown"; case rules of the value are not stated; §4.1 list all users states no order',
    install(app, ctx) {
      addRouteHook(app, 'users.query', 'preValidation', async (request: FastifyRequest) => {
        const unknown = Object.keys(request.query as Query).filter((k) => !SOLR_PARAMS.has(k))
        if (unknown.length > 0) throw fail('INVALID_USER_QUERY', `unknown parameter(s): ${unknown.join(', ')}`)
      })
      replaceHandler(app, 'users.query', solrHandler(ctx))
      rewriteJson(app, 'users.list', (body: { userName: string }[]) => [...body].sort((a, b) => (a.userName < b.userName ? -1 : a.userName > b.userName ? 1 : 0)))
    },
  },
  {
    name: 'blind-null-devices',
    area: 'subscriptions',
    description: 'the server does not track devices per subscription or item: subscription deviceId and item publisher.deviceId are null',
    reading: '§2.5 Subscription deviceId is "string or null"; §2.6 publisher deviceId is "(string or null)"',
    install(app) {
      rewriteJson(app, 'subscriptions.list', (body) => body.map((s: any) => ({ ...s, deviceId: null })))
      const nullPublisher = (body: any) => ({ ...body, items: body.items.map((i: any) => ({ ...i, publisher: { ...i.publisher, deviceId: null } })) })
      rewriteJson(app, 'items.getById', nullPublisher)
      rewriteJson(app, 'items.fetch', nullPublisher)
    },
  },
  {
    name: 'blind-owner-fields',
    area: 'channels',
    description:
      'channel creator is `<userId>:<userName>@<domain>/<deviceId>`; userId is the owner for public channels too (get by name, summary) and search results carry it as well',
    reading:
      '§2.3 creator: "user id, then a separator, then a user-name and domain part, then a slash and device id" (the separator is not named); userId is "string or null" and present in get-by-name, its presence elsewhere not excluded; §2.4 summary userId "string or null"',
    install(app, ctx) {
      rewriteJson(app, 'channels.getByName', (body) => ownerFields(ctx, body))
      rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map((c: any) => ownerFields(ctx, c)) }))
      rewriteJson(app, 'channels.summary', (body, request) => {
        const { user } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        return { ...body, userId: channel.ownerId }
      })
    },
  },
  {
    name: 'blind-push-lenient',
    area: 'push',
    description:
      'push to an unknown user id answers 200 with zero counts; a direct message’s sentList names the device woken (deviceId a string) and unsentList elements are {userId, messageId, error}',
    reading:
      '§4.4 "Pushes to all active devices of the user": an unknown id has none, and §7 shows no failure codes; §2.8 sentList deviceId is "string or null"; §4.3 "Element shape of unsentList: not shown"',
    install(app, ctx) {
      wrapHandler(app, 'push.user', (original) => async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        try {
          return await (original as any).call(this, request, reply)
        } catch (error) {
          if (error instanceof ApiError && error.entry === ERRORS.USER_NOT_FOUND) {
            return { count: { requested: 0, sent: 0, unsent: 0 }, sentList: [], unsentList: [] }
          }
          throw error
        }
      } as Handler)
      rewriteJson(app, 'messages.send', (body) => ({
        ...body,
        sentList: body.sentList.map((s: any) => ({ ...s, deviceId: ctx.store.getMessage(s.messageId)?.deliveries[0]?.deviceId ?? null })),
        unsentList: body.unsentList.map((u: any) => ({ userId: u.recipientUsername, messageId: u.messageId, error: u.reason })),
      }))
    },
  },
  {
    name: 'blind-edge-gateway',
    area: 'http',
    description:
      'a gateway in front: Content-Type `application/json;charset=UTF-8`, X-Request-Id and Via headers, weak ETags on GET with 304 for a matching If-None-Match, gzip when the client accepts it',
    reading:
      '§4 "Request and response bodies are JSON" (a charset parameter is still JSON); ETags, conditional requests, compression and extra headers are HTTP behaviour the spec is silent on',
    install(app) {
      app.addHook('onSend', async (request, reply, payload) => {
        reply.header('x-request-id', randomUUID())
        reply.header('via', '1.1 edge-gateway')
        const type = reply.getHeader('content-type')
        if (typeof type !== 'string' || !type.startsWith('application/json') || typeof payload !== 'string') return payload
        reply.header('content-type', 'application/json;charset=UTF-8')
        if (request.method === 'GET' && reply.statusCode === 200) {
          const etag = `W/"${createHmac('sha1', 'etag').update(payload).digest('hex')}"`
          reply.header('etag', etag)
          if (request.headers['if-none-match'] === etag) {
            reply.code(304)
            return ''
          }
        }
        reply.header('vary', 'Accept-Encoding')
        if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) && payload.length > 0) {
          reply.header('content-encoding', 'gzip')
          return gzipSync(payload)
        }
        return payload
      })
    },
  },
  {
    name: 'blind-exact-case-names',
    area: 'channels',
    description: 'a channel is addressed by its name exactly as created: `Demo` does not find `demo` (404); names stay unique ignoring case (409)',
    reading: '§2.3 "Constraints on channel names (length, allowed characters): not shown"; nothing says names match ignoring case',
    wrapStore: (store) =>
      overrideStore(store, {
        findPublicChannel: (inner) => (name) => {
          const found = inner.findPublicChannel(name)
          return found && found.name === name ? found : undefined
        },
        findPrivateChannel: (inner) => (ownerId, name) => {
          const found = inner.findPrivateChannel(ownerId, name)
          return found && found.name === name ? found : undefined
        },
      }),
  },
]
