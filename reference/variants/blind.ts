import { createHmac, randomBytes, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import { newId } from '../ids'
import type { ChannelRecord } from '../model'
import type { Variant } from './types'

/**
 * Correct servers written from the spec alone by implementers who chose differently from the reference
 * where the spec leaves the choice open. Written without looking at the suite, to find its false alarms.
 */

type Handler = RouteOptions['handler']
type App = Parameters<NonNullable<Variant['install']>>[0]

/**
 * Puts `handler` in front of a route's handler; it may answer itself or pass on to `next`, so the route
 * keeps what other variants did to it.
 */
function before(app: App, id: string, handler: (request: FastifyRequest, next: () => Promise<unknown>) => unknown): void {
  wrapHandler(
    app,
    id,
    (original) =>
      async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        return handler(request, async () => (original as any).call(this, request, reply))
      } as Handler,
  )
}

/** The channel a request's path names, or undefined where another variant's server would not find it now. */
function channelOf(ctx: ServerContext, request: FastifyRequest): Readonly<ChannelRecord> | undefined {
  try {
    return resolveChannel(ctx, callerOf(request).user.userId, (request.params as { channel: string }).channel)
  } catch {
    return undefined
  }
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
    name: 'jwt-tokens',
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
      rewriteJson(app, 'users.signIn', (body) => ({
        ...body,
        access_token: wrap(body.access_token, body.user?.userIdentifier ?? null, ctx.tokenLifetimeSeconds),
      }))
      rewriteJson(app, 'registration.appSession', (body) => ({ ...body, access_token: wrap(body.access_token, null, ctx.tokenLifetimeSeconds) }))
    },
  }
}

const LAG_MS = 700

/** What the search index still holds of channels deleted less than LAG_MS ago. */
function laggingIndex(): Variant {
  const seen = new Map<string, number>()
  const ghosts: { channel: ChannelRecord; until: number }[] = []
  return {
    name: 'search-index-lag',
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
          seen.delete(channelId)
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

/** Owner-centred channel fields: `creator` as `<userId>:<userName>@<domain>/<deviceId>`, userId always the owner. */
function ownerFields(ctx: ServerContext, channel: any): any {
  const parsed = parseCreator(channel.creator)
  if (!parsed) return channel
  const userName = ctx.store.getUser(parsed.ownerId)?.userName ?? parsed.ownerId
  return { ...channel, creator: `${parsed.ownerId}:${userName}@${parsed.domain}/${parsed.deviceId}`, userId: parsed.ownerId }
}

/** Counts of every publish a channel has had, deletes and evictions notwithstanding. */
function lifetimeSummary(): Variant {
  const published = new Map<string, number>()
  return {
    name: 'summary-lifetime',
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
      rewriteJson(app, 'channels.summary', (body, request) => {
        const channel = channelOf(ctx, request)
        if (!channel) return body
        return {
          ...body,
          publishedItemCount: published.get(channel.channelId) ?? 0,
          lastPublishedTime: new Date(channel.lastPublishedAt ?? 0).toISOString(),
        }
      })
      rewriteJson(app, 'channels.getByName', (body, request) => {
        const channel = channelOf(ctx, request)
        if (!channel) return body
        const modified = Math.max(channel.modifiedAt, channel.lastPublishedAt ?? 0)
        return { ...body, modifiedDate: new Date(modified).toISOString().replace(/Z$/, '+0000') }
      })
    },
  }
}

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
    name: 'plain-name-public-first',
    area: 'private',
    description:
      'when the caller owns a private channel and a public channel of the same name exists, the plain name means the public one; the private one is reached as `<userId>#<name>`',
    reading:
      '§2.3 "a public channel or the caller\'s own private channel is addressed by its plain name": which one a plain name means when both exist is not stated',
    wrapStore: (store) =>
      overrideStore(store, {
        findPrivateChannel: (inner) => (ownerId, name) => (plainRef && inner.findPublicChannel(name) ? undefined : inner.findPrivateChannel(ownerId, name)),
      }),
    install(app) {
      for (const id of VISIBLE_ROUTES) {
        wrapHandler(
          app,
          id,
          (original) =>
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

export const BLIND_VARIANTS: readonly Variant[] = [
  jwtTokens(),
  laggingIndex(),
  {
    name: 'subscription-per-device',
    area: 'subscriptions',
    description:
      'a subscription belongs to a user on a device: subscribing from a second signed-in device adds a second subscription (same device again: the same subId); unsubscribe cancels all of the user’s',
    reading:
      '§2.5 a Subscription carries deviceId; §4.2 unsubscribe: "the message states the number of subscriptions cancelled", so a user may hold more than one; repeated subscribes are not described',
    install(app, ctx) {
      before(app, 'subscriptions.subscribe', async (request, next) => {
        const { user, deviceId } = callerOf(request)
        const channel = channelOf(ctx, request)
        const subs = channel ? ctx.store.listSubscriptions(channel.channelId).filter((s) => s.userId === user.userId) : []
        // A first subscription, or none found: the server's own answer.
        if (!channel || subs.length === 0) return next()
        const mine = subs.find((s) => s.deviceId === deviceId)
        if (mine) return { code: 200, subId: mine.subscriptionId, msg: 'already subscribed on this device' }
        const subscriptionId = newId()
        ctx.store.addSubscription({ subscriptionId, channelId: channel.channelId, userId: user.userId, deviceId, createdAt: ctx.clock.now() })
        return { code: 200, subId: subscriptionId, msg: `subscribed to ${channel.name}` }
      })
    },
  },
  {
    name: 'owner-fields',
    area: 'channels',
    description:
      'channel creator is `<userId>:<userName>@<domain>/<deviceId>`; userId is the owner for public channels too (get by name, summary) and search results carry it as well',
    reading:
      '§2.3 creator: "user id, then a separator, then a user-name and domain part, then a slash and device id" (the separator is not named); userId is "string or null" and present in get-by-name, its presence elsewhere not excluded; §2.4 summary userId "string or null"',
    install(app, ctx) {
      rewriteJson(app, 'channels.getByName', (body) => ownerFields(ctx, body))
      rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map((c: any) => ownerFields(ctx, c)) }))
      rewriteJson(app, 'channels.summary', (body, request) => {
        const channel = channelOf(ctx, request)
        return channel ? { ...body, userId: channel.ownerId } : body
      })
    },
  },
  {
    name: 'edge-gateway',
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
    name: 'exact-case-names',
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
  lifetimeSummary(),
  {
    name: 'strict-routing',
    area: 'http',
    description: 'paths are matched exactly: a trailing slash is a 404; HEAD and OPTIONS answer 405 with an Allow header',
    reading:
      'the spec gives every path without a trailing slash and names only GET, POST, PUT and DELETE; HEAD, OPTIONS and trailing slashes are not mentioned',
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
  publicFirst(),
  {
    name: 'names-unique-per-caller',
    area: 'private',
    description:
      'a user cannot hold a private channel and see a public channel of the same name: creating either when the other exists is a 409, so a plain name is never ambiguous',
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
    name: 'personal-strict',
    area: 'private',
    description:
      'on operations that take `personal`, a `<userId>#<name>` reference with personal false (the default) is a 404: personal=false means a public channel',
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
    name: 'subscribers-literal',
    area: 'items',
    description:
      'publishPermission `subscribers` admits subscribers only: an owner who unsubscribed (or created with subscribeOnCreate false) may not publish (403)',
    reading: '§2.3 publishPermission is "one of anyone, owner, subscribers"; whether the owner counts as a subscriber is not stated',
    install(app, ctx) {
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const channel = channelOf(ctx, request)
        if (channel?.publishPermission === 'subscribers' && !ctx.store.findSubscription(channel.channelId, user.userId)) {
          throw fail('PUBLISH_FORBIDDEN', 'only subscribers may publish to this channel')
        }
      })
    },
  },
  {
    name: 'item-delete-owner-only',
    area: 'items',
    description: 'delete items by id: only the channel owner deletes (200); a publisher who is not the owner gets 403 for each of its items',
    reading:
      '§4.2 delete items by id states no permission rule; §5.5 names the owner-only operations, and a server may keep item deletion to the owner as well',
    install(app, ctx) {
      before(app, 'items.deleteById', async (request, next) => {
        const channel = channelOf(ctx, request)
        if (!channel || channel.ownerId === callerOf(request).user.userId) return next()
        // Not the owner: each item of the channel is refused; the other ids get the server's own answer.
        const query = request.query as { id: string[] }
        const items = query.id.filter((id) => ctx.store.getItem(channel.channelId, id) !== undefined)
        const refused = Object.fromEntries(items.map((id) => [id, 403]))
        query.id = query.id.filter((id) => !items.includes(id))
        return query.id.length === 0 ? refused : { ...((await next()) as object), ...refused }
      })
    },
  },
  {
    name: 'jsonb-content',
    area: 'items',
    description: 'item content is kept as PostgreSQL jsonb: it comes back with its keys reordered (shorter first), nested objects too',
    reading: '§2.6 content is a "key/value map of the message content": a map, whose key order JSON does not fix (RFC 8259: objects are unordered)',
    install(app) {
      const reorder = (body: any) => ({ ...body, items: body.items.map((i: any) => ({ ...i, content: jsonbOrder(i.content) })) })
      rewriteJson(app, 'items.getById', reorder)
      rewriteJson(app, 'items.fetch', reorder)
    },
  },
]
