import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import { gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { ApiError, ERRORS, fail } from '../errors'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import { newId } from '../ids'
import { parseTimestamp } from '../time'
import type { ChannelRecord, UserRecord } from '../model'
import { channelSearchView, deliveryViews } from '../views'
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

const REPLICA_MS = 400
/** Routes a read replica answers: every GET of the spec. */
const READ_ROUTES = [
  'channels.getByName',
  'channels.summary',
  'channels.search',
  'subscriptions.list',
  'tags.get',
  'items.getById',
  'items.fetch',
  'messages.status',
  'users.list',
  'users.query',
]

/** Writes go to the primary; GETs read a replica that has not yet seen the last REPLICA_MS of writes. */
function replicaLag(): Variant {
  const born = new WeakMap<object, number>()
  let onReplica = false
  const visible = <T extends object>(record: T | undefined): T | undefined =>
    record && onReplica && Date.now() - (born.get(record) ?? 0) < REPLICA_MS ? undefined : record
  const settled = <T extends object>(records: readonly T[]): T[] => records.filter((r) => visible(r) !== undefined)
  const stamp = <T extends object>(record: T): T => {
    born.set(record, Date.now())
    return record
  }
  return {
    name: 'blind-replica-lag',
    area: 'http',
    description: `GETs are served by a read replica ${REPLICA_MS} ms behind the primary: a channel, subscription, item or message just written is not there yet (404 or left out)`,
    reading:
      'the spec promises no read-after-write consistency anywhere; a deployment with read replicas answers reads from slightly stale data',
    wrapStore: (store) =>
      overrideStore(store, {
        addChannel: (inner) => (channel) => inner.addChannel(stamp(channel)),
        addSubscription: (inner) => (subscription) => inner.addSubscription(stamp(subscription)),
        addItem: (inner) => (item, maxItems) => inner.addItem(stamp(item), maxItems),
        addMessage: (inner) => (message) => inner.addMessage(stamp(message)),
        findPublicChannel: (inner) => (name) => visible(inner.findPublicChannel(name)),
        findPrivateChannel: (inner) => (ownerId, name) => visible(inner.findPrivateChannel(ownerId, name)),
        listPublicChannels: (inner) => () => settled(inner.listPublicChannels()),
        listSubscriptions: (inner) => (channelId) => settled(inner.listSubscriptions(channelId)),
        listItems: (inner) => (channelId) => settled(inner.listItems(channelId)),
        getItem: (inner) => (channelId, itemId) => visible(inner.getItem(channelId, itemId)),
        getMessage: (inner) => (messageId) => visible(inner.getMessage(messageId)),
      }),
    install(app) {
      // The reference handlers read the store synchronously, so the flag covers exactly one request's reads.
      for (const id of READ_ROUTES) {
        wrapHandler(app, id, (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            onReplica = true
            try {
              return (original as any).call(this, request, reply)
            } finally {
              onReplica = false
            }
          } as Handler,
        )
      }
    },
  }
}

/** A token bucket per client address in front of the whole service. */
function rateLimited(): Variant {
  const RATE = 80
  const BURST = 40
  const buckets = new Map<string, { tokens: number; at: number }>()
  return {
    name: 'blind-rate-limit',
    area: 'http',
    description: `a gateway allows ${RATE} requests per second per client address (bursts of ${BURST}); beyond that it answers 429 with Retry-After: 1`,
    reading: '§8 "Rate limits and maximum page size: not shown": a deployment has some',
    install(app) {
      app.addHook('onRequest', async (request, reply) => {
        const now = Date.now()
        const bucket = buckets.get(request.ip) ?? { tokens: BURST, at: now }
        bucket.tokens = Math.min(BURST, bucket.tokens + ((now - bucket.at) * RATE) / 1000)
        bucket.at = now
        buckets.set(request.ip, bucket)
        if (bucket.tokens < 1) {
          await reply.code(429).header('retry-after', '1').send({ code: 429, message: 'too many requests' })
          return reply
        }
        bucket.tokens -= 1
      })
    },
  }
}

/** Counts of every publish a channel has had, deletes and evictions notwithstanding. */
function lifetimeSummary(): Variant {
  const published = new Map<string, number>()
  return {
    name: 'blind-summary-lifetime',
    area: 'channels',
    description:
      'summary publishedItemCount counts every publish the channel ever had (deletes and evictions do not lower it); lastPublishedTime before any publish is the epoch; modifiedDate moves on each publish',
    reading:
      '§2.4 names publishedItemCount and lastPublishedTime with types only: what they count and their value before a first publish are not stated; §2.3 modifiedDate is "same format", when it moves is not stated',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          published.set(item.channelId, (published.get(item.channelId) ?? 0) + 1)
          return inner.addItem(item, maxItems)
        },
      }),
    install(app, ctx) {
      const channelOf = (request: FastifyRequest) =>
        resolveChannel(ctx, callerOf(request).user.userId, (request.params as { channel: string }).channel)
      rewriteJson(app, 'channels.summary', (body, request) => {
        const channel = channelOf(request)
        return {
          ...body,
          publishedItemCount: published.get(channel.channelId) ?? 0,
          lastPublishedTime: new Date(channel.lastPublishedAt ?? 0).toISOString(),
        }
      })
      rewriteJson(app, 'channels.getByName', (body, request) => {
        const channel = channelOf(request)
        const modified = Math.max(channel.modifiedAt, channel.lastPublishedAt ?? 0)
        return { ...body, modifiedDate: new Date(modified).toISOString().replace(/Z$/, '+0000') }
      })
    },
  }
}

/** 403 on reads of a private channel for anyone but its owner and its subscribers. */
const PRIVATE_READS = ['channels.getByName', 'channels.summary', 'subscriptions.list', 'tags.get', 'items.getById', 'items.fetch']

/** Routes that address a channel by plain name, `#` form or not, without `personal`. */
const VISIBLE_ROUTES = [
  'channels.getByName',
  'channels.summary',
  'subscriptions.subscribe',
  'subscriptions.unsubscribe',
  'subscriptions.list',
  'tags.get',
  'items.publish',
  'items.getById',
  'items.fetch',
  'items.deleteById',
]

/** A plain name means the public channel when there is one; the caller's own private namesake then needs `<userId>#<name>`. */
function publicFirst(): Variant {
  let plainRef = false
  return {
    name: 'blind-plain-name-public-first',
    area: 'private',
    description: 'when the caller owns a private channel and a public channel of the same name exists, the plain name means the public one; the private one is reached as `<userId>#<name>`',
    reading:
      '§2.3 "a public channel or the caller\'s own private channel is addressed by its plain name": which one a plain name means when both exist is not stated',
    wrapStore: (store) =>
      overrideStore(store, {
        findPrivateChannel: (inner) => (ownerId, name) => (plainRef && inner.findPublicChannel(name) ? undefined : inner.findPrivateChannel(ownerId, name)),
      }),
    install(app) {
      for (const id of VISIBLE_ROUTES) {
        wrapHandler(app, id, (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            plainRef = !(request.params as { channel: string }).channel.includes('#')
            try {
              return (original as any).call(this, request, reply)
            } finally {
              plainRef = false
            }
          } as Handler,
        )
      }
    },
  }
}

/** Tag changes by anyone who can address the channel, with `personal` choosing as the reference does. */
function openTagHandlers(app: Parameters<NonNullable<Variant['install']>>[0], ctx: ServerContext): void {
  const ref = (request: FastifyRequest) => (request.params as { channel: string }).channel
  replaceHandler(app, 'tags.add', async (request) => {
    const { user } = callerOf(request)
    const { tags, personal: isPersonal = false } = request.body as { tags: string[]; personal?: boolean }
    const channel = resolveChannel(ctx, user.userId, ref(request), personal(isPersonal))
    const added = ctx.store.addTags(channel.channelId, tags, ctx.clock.now())
    return { message: `${added} tag(s) added`, code: 200 }
  })
  replaceHandler(app, 'tags.deleteOne', async (request) => {
    const { user } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, ref(request), personal((request.query as { personal: boolean }).personal))
    const tag = (request.params as { tag: string }).tag
    if (!ctx.store.removeTag(channel.channelId, tag, ctx.clock.now())) throw fail('TAG_NOT_FOUND')
    return { code: 200, message: `tag ${tag} removed` }
  })
  replaceHandler(app, 'tags.deleteAll', async (request) => {
    const { user } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, ref(request), personal((request.query as { personal: boolean }).personal))
    return { code: 200, message: `${ctx.store.clearTags(channel.channelId, ctx.clock.now())} tag(s) removed` }
  })
}

/** Operations that take `personal`, and where they read it. */
const PERSONAL_ROUTES: [string, 'query' | 'body'][] = [
  ['channels.delete', 'query'],
  ['tags.add', 'body'],
  ['tags.deleteOne', 'query'],
  ['tags.deleteAll', 'query'],
  ['items.deleteAll', 'query'],
]

/** PostgreSQL jsonb key order: shorter keys first, then bytewise; nested objects alike. */
function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder)
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(keys.map((k) => [k, jsonbOrder((value as Record<string, unknown>)[k])]))
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
  replicaLag(),
  rateLimited(),
  lifetimeSummary(),
  {
    name: 'blind-private-members-only',
    area: 'private',
    description:
      'a private channel is readable (get, summary, subscribers, tags, items) only by its owner and its subscribers; anyone who knows `<userId>#<name>` may subscribe, and is then a member',
    reading:
      '§1 channels are "public or private"; §2.3 says how another user\'s private channel is addressed, not what others may do with it: what "private" withholds is not stated',
    install(app, ctx) {
      for (const id of PRIVATE_READS) {
        addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
          if (channel.privateChannel && channel.ownerId !== user.userId && !ctx.store.findSubscription(channel.channelId, user.userId)) {
            throw fail('NOT_OWNER', 'a private channel is visible to its owner and subscribers only')
          }
        })
      }
    },
  },
  {
    name: 'blind-half-open-range',
    area: 'items',
    description:
      'fetch by date range reads [since, until): an item published exactly at until is left out, since = until is an empty range; publish answers status "ACCEPTED" and message "Published"',
    reading:
      '§4.2 fetch names since and until without saying whether the bounds are inclusive; publish answers "{message (string), status (string), messageId (string)}" with no values given',
    install(app) {
      addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
        const query = request.query as Query
        if (typeof query.until !== 'string') return
        const until = parseTimestamp(query.until)
        if (until === undefined) return
        const since = typeof query.since === 'string' ? parseTimestamp(query.since) : 0
        if (since !== undefined && since === until) {
          await reply.send({ totalCount: 0, items: [] })
          return reply
        }
        const last = Math.ceil(until) - 1
        if (since === undefined || since <= last) query.until = new Date(last).toISOString()
      })
      rewriteJson(app, 'items.publish', (body) => ({ ...body, status: 'ACCEPTED', message: 'Published' }))
    },
  },
  {
    name: 'blind-sorted-lists',
    area: 'tags',
    description: 'lists in the server\'s own orders: tags alphabetical, items by id newest first, subscribers newest first, users newest first',
    reading: '§4.2 get tags, get items by id and list subscribers, and §4.1 list all users, answer arrays whose order is not stated',
    install(app, ctx) {
      rewriteJson(app, 'tags.get', (body) => ({ ...body, tags: [...body.tags].sort() }))
      rewriteJson(app, 'subscriptions.list', (body) => [...body].reverse())
      rewriteJson(app, 'users.list', (body) => [...body].reverse())
      rewriteJson(app, 'items.getById', (body, request) => {
        const { user } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        const at = (item: any) => ctx.store.getItem(channel.channelId, item.itemId)?.publishedAt ?? 0
        return { ...body, items: [...body.items].sort((a, b) => at(b) - at(a)) }
      })
    },
  },
  {
    name: 'blind-signin-exact',
    area: 'signin',
    description: 'sign-in matches the user name exactly (case-sensitive); an empty MMS-DEVICE-ID is accepted as a device of its own',
    reading:
      '§4.1 sign-in: `username` with no case rule; `MMS-DEVICE-ID` "required, any value" and §5.2 "any value is accepted"',
    wrapStore: (store) =>
      overrideStore(store, {
        findUserByName: (inner) => (clientId, userName) => {
          const found = inner.findUserByName(clientId, userName)
          return found && found.userName === userName ? found : undefined
        },
      }),
    install(app) {
      addRouteHook(app, 'users.signIn', 'onRequest', async (request: FastifyRequest) => {
        const value = request.headers['mms-device-id']
        if (typeof value === 'string' && value.trim() === '') request.headers['mms-device-id'] = 'empty-device-id'
      })
    },
  },
  {
    name: 'blind-strict-routing',
    area: 'http',
    description: 'paths are matched exactly: a trailing slash is a 404; HEAD and OPTIONS answer 405 with an Allow header',
    reading: 'the spec gives every path without a trailing slash and names only GET, POST, PUT and DELETE; HEAD, OPTIONS and trailing slashes are not mentioned',
    install(app) {
      app.addHook('onRequest', async (request, reply) => {
        const path = request.url.split('?')[0]!
        if (request.method === 'HEAD' || request.method === 'OPTIONS') {
          await reply.code(405).header('allow', 'GET, POST, PUT, DELETE').send({ code: 405, message: 'method not allowed' })
          return reply
        }
        if (path.length > 1 && path.endsWith('/')) {
          await reply.code(404).send({ code: 404, message: `no route ${request.method} ${path}` })
          return reply
        }
      })
    },
  },
  {
    name: 'blind-full-channel-refuses',
    area: 'items',
    description: 'a channel holding maxItems items refuses further publishes (409) instead of evicting the oldest',
    reading: '§2.3 maxItems is the "maximum number of items kept; -1 means unlimited": how the limit is kept (evict or refuse) is not stated',
    install(app, ctx) {
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        if (channel.maxItems >= 0 && ctx.store.listItems(channel.channelId).length >= channel.maxItems) {
          throw new ApiError({ status: 409, code: 5002, message: 'channel is full' }, `channel ${channel.name} holds its maxItems (${channel.maxItems})`)
        }
      })
    },
  },
  publicFirst(),
  {
    name: 'blind-names-unique-per-caller',
    area: 'private',
    description: 'a user cannot hold a private channel and see a public channel of the same name: creating either when the other exists is a 409, so a plain name is never ambiguous',
    reading:
      '§2.3 a plain name addresses "a public channel or the caller\'s own private channel"; §2.3 "Constraints on channel names ... not shown", uniqueness rules included',
    install(app, ctx) {
      addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const { channelName, privateChannel = false } = request.body as { channelName: string; privateChannel?: boolean }
        const clash = privateChannel ? ctx.store.findPublicChannel(channelName) : ctx.store.findPrivateChannel(user.userId, channelName)
        if (clash) throw fail('CHANNEL_EXISTS', `a ${privateChannel ? 'public' : 'private'} channel ${channelName} already exists`)
      })
    },
  },
  {
    name: 'blind-personal-strict',
    area: 'private',
    description: 'on operations that take `personal`, a `<userId>#<name>` reference with personal false (the default) is a 404: personal=false means a public channel',
    reading: '§4.2 delete channel: "`personal` defaults to false, meaning a public channel"; how it combines with a `#` reference is not stated',
    install(app) {
      for (const [id, where] of PERSONAL_ROUTES) {
        addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
          const flag = where === 'query' ? (request.query as { personal?: boolean }).personal : (request.body as { personal?: boolean }).personal
          if ((request.params as { channel: string }).channel.includes('#') && flag !== true) {
            throw fail('CHANNEL_NOT_FOUND', 'personal=false addresses a public channel')
          }
        })
      }
    },
  },
  {
    name: 'blind-subscribers-literal',
    area: 'items',
    description: 'publishPermission `subscribers` admits subscribers only: an owner who unsubscribed (or created with subscribeOnCreate false) may not publish (403)',
    reading: '§2.3 publishPermission is "one of anyone, owner, subscribers"; whether the owner counts as a subscriber is not stated',
    install(app, ctx) {
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        if (channel.publishPermission === 'subscribers' && !ctx.store.findSubscription(channel.channelId, user.userId)) {
          throw fail('PUBLISH_FORBIDDEN', 'only subscribers may publish to this channel')
        }
      })
    },
  },
  {
    name: 'blind-item-delete-owner-only',
    area: 'items',
    description: 'delete items by id: only the channel owner deletes (200); a publisher who is not the owner gets 403 for each of its items',
    reading: '§4.2 delete items by id states no permission rule; §5.5 names the owner-only operations, and a server may keep item deletion to the owner as well',
    install(app, ctx) {
      replaceHandler(app, 'items.deleteById', async (request) => {
        const { user } = callerOf(request)
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        const result: Record<string, number> = {}
        for (const id of (request.query as { id: string[] }).id) {
          if (!ctx.store.getItem(channel.channelId, id)) result[id] = result[id] ?? 404
          else if (channel.ownerId !== user.userId) result[id] = 403
          else result[id] = ctx.store.deleteItem(channel.channelId, id) ? 200 : 404
        }
        return result
      })
    },
  },
  {
    name: 'blind-open-tags',
    area: 'tags',
    description: 'any signed-in user who can address a channel may add and delete its tags (tags are shared labels, like a wiki)',
    reading: '§4.2 add tags, delete one tag and delete all tags state no permission rule; §5.5 lists only delete channel and delete all items as owner-only',
    install(app, ctx) {
      openTagHandlers(app, ctx)
    },
  },
  {
    name: 'blind-one-status-record',
    area: 'messages',
    description:
      'delivery status is one record per message (the first device woken), or one record with state UNDELIVERED and deviceId "" when no device was reached; any user of the application may read it',
    reading:
      '§4.3 get delivery status answers an array of records, how many not stated; §3 "Other values of state: not shown"; who may read a status is not stated',
    install(app, ctx) {
      replaceHandler(app, 'messages.status', async (request) => {
        const message = ctx.store.getMessage((request.params as { messageId: string }).messageId)
        if (!message) throw fail('MESSAGE_NOT_FOUND')
        const [first] = deliveryViews(message)
        if (first) return [first]
        return [
          {
            state: 'UNDELIVERED',
            recipient: message.recipientId,
            sender: message.senderId,
            appId: message.appId,
            deviceId: '',
            messageId: message.messageId,
            queuedAt: new Date(message.queuedAt).toISOString(),
            receivedAt: null,
          },
        ]
      })
    },
  },
  {
    name: 'blind-jsonb-content',
    area: 'items',
    description: 'item content is kept as PostgreSQL jsonb: it comes back with its keys reordered (shorter first), nested objects too',
    reading: '§2.6 content is a "key/value map of the message content": a map, whose key order JSON does not fix (RFC 8259: objects are unordered)',
    install(app) {
      const reorder = (body: any) => ({ ...body, items: body.items.map((i: any) => ({ ...i, content: jsonbOrder(i.content) })) })
      rewriteJson(app, 'items.getById', reorder)
      rewriteJson(app, 'items.fetch', reorder)
    },
  },
  {
    name: 'blind-user-account-data',
    area: 'users',
    description: 'users carry account data ({"locale":"en-US","timezone":"UTC"}) and a second role (APP_USER) besides USER',
    reading: '§2.1 userAccountData is an "account data map; may be empty" (so may be filled); "Values of userRealm, other roles ... not shown"',
    install(app) {
      const extend = (u: any) => ({ ...u, roles: [...u.roles, 'APP_USER'], userAccountData: { locale: 'en-US', timezone: 'UTC', ...u.userAccountData } })
      rewriteJson(app, 'users.signIn', (body) => ({ ...body, user: extend(body.user) }))
      rewriteJson(app, 'users.list', (body) => body.map(extend))
      rewriteJson(app, 'users.query', (body) => body.map(extend))
    },
  },
  {
    name: 'blind-spring-errors',
    area: 'http',
    description:
      'refusals as a Spring Boot service answers them: 401 with an empty body and WWW-Authenticate: Bearer; other 4xx as {timestamp, status, error, message, path}',
    reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"',
    install(app) {
      app.addHook('onSend', async (request, reply, payload) => {
        if (reply.statusCode < 400 || reply.statusCode >= 500 || typeof payload !== 'string') return payload
        if (reply.statusCode === 401) {
          reply.header('www-authenticate', 'Bearer error="invalid_token"')
          reply.removeHeader('content-type')
          return ''
        }
        let message = ''
        try {
          message = String((JSON.parse(payload) as { message?: unknown }).message ?? '')
        } catch {
          message = ''
        }
        return JSON.stringify({
          timestamp: new Date().toISOString(),
          status: reply.statusCode,
          error: STATUS_CODES[reply.statusCode] ?? 'Error',
          message,
          path: request.url.split('?')[0],
        })
      })
    },
  },
]
