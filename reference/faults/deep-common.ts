import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { AsyncLocalStorage } from 'node:async_hooks'
import { BEARER, callerOf } from '../auth'
import { parseChannelRef, personal, resolveChannel, VISIBLE } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import type { ChannelRecord, SubscriptionRecord } from '../model'
import type { Store } from '../store'
import { ANONYMOUS, routeScope, setQuery } from './common'
import { addRouteHook, onRoute, overrideStore, wrapHandler } from './kit'

/** Pieces the deep faults share. Like kit.ts, nothing here runs unless a fault using it is switched on. */

/** A request's parsed query, as a hook reads and changes it. */
export type Query = Record<string, unknown>

/** A route handler called with Fastify's `this`, as a fault wrapping one writes it. */
export type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown

/** A route handler as Fastify's route options hold it. */
export type RouteHandler = RouteOptions['handler']

/** Runs a route's original handler (with Fastify's `this`). */
export const call = (original: RouteHandler, self: unknown, request: FastifyRequest, reply: FastifyReply) =>
  (original as (this: unknown, rq: FastifyRequest, rp: FastifyReply) => unknown).call(self, request, reply)

/**
 * A paged route that takes size=1 as no size at all (a "size > 1" test where "size given" was meant): every
 * match comes back. Shared by the search and fetch faults of that kind.
 */
export function sizeOneMeansAll(route: string): (app: FastifyInstance) => void {
  return (app) =>
    addRouteHook(app, route, 'preHandler', async (request: FastifyRequest) => {
      if ((request.query as { size: number }).size === 1) setQuery(request, 'size', 200)
    })
}

/** The channel a route's request addresses, found as the route finds it (`personal` where the route takes it). */
export function channelOf(ctx: ServerContext, request: FastifyRequest): Readonly<ChannelRecord> | undefined {
  const caller = request.caller
  if (caller?.kind !== 'USER') return undefined
  const { channel } = request.params as { channel: string }
  const query = request.query as { personal?: boolean }
  try {
    return resolveChannel(ctx, caller.user.userId, channel, query.personal === undefined ? VISIBLE : personal(query.personal))
  } catch {
    return undefined
  }
}

/** On an owner-only route, the caller acts as the channel's owner whenever `when` holds for it. */
export function ownerWhen(app: FastifyInstance, ctx: ServerContext, id: string, when: (channel: Readonly<ChannelRecord>, callerId: string) => boolean): void {
  addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
    const caller = request.caller
    const channel = channelOf(ctx, request)
    if (caller?.kind !== 'USER' || !channel || channel.ownerId === caller.user.userId || !when(channel, caller.user.userId)) return
    const owner = ctx.store.getUser(channel.ownerId)
    if (owner) request.caller = { ...caller, user: owner }
  })
}

/**
 * Cancelled subscriptions are kept as tombstones, and `findSubscription` still finds them while the given
 * route runs (the route reads a table that unsubscribe only marks).
 */
export function tombstones(route: string): { wrapStore(store: Store): Store; install(app: FastifyInstance): void } {
  const scope = routeScope()
  const cancelled = new Map<string, SubscriptionRecord>()
  const key = (channelId: string, userId: string) => `${channelId}\n${userId}`
  return {
    wrapStore: (store) =>
      overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const mine = inner.listSubscriptions(channelId).filter((s) => s.userId === userId)
          if (mine[0]) cancelled.set(key(channelId, userId), mine[0])
          return inner.removeSubscriptions(channelId, userId)
        },
        findSubscription: (inner) => (channelId, userId) =>
          inner.findSubscription(channelId, userId) ?? (scope.active() ? cancelled.get(key(channelId, userId)) : undefined),
      }),
    install: (app) => scope.install(app, route),
  }
}

/** Subscribe adds a new subscription on every call (a choice the spec allows: unsubscribe counts several). */
export function subscribeEveryTime(): { wrapStore(store: Store): Store; install(app: FastifyInstance): void } {
  const scope = routeScope()
  return {
    wrapStore: (store) =>
      overrideStore(store, { findSubscription: (inner) => (channelId, userId) => (scope.active() ? undefined : inner.findSubscription(channelId, userId)) }),
    install: (app) => scope.install(app, 'subscriptions.subscribe'),
  }
}

/**
 * The route takes no token when `open(request)` holds: a valid token still identifies its user, a call
 * without one acts as an anonymous user; otherwise a missing or bad token is refused as usual.
 */
export function openWhen(app: FastifyInstance, ctx: ServerContext, id: string, open: (request: FastifyRequest) => boolean): void {
  onRoute(app, id, (route) => {
    route.config = { ...route.config, auth: 'none' }
  })
  addRouteHook(app, id, 'onRequest', async (request: FastifyRequest) => {
    const header = request.headers.authorization
    const match = BEARER.exec(header ?? '')
    const token = match ? ctx.store.getToken(match[1]!) : undefined
    const live = token && token.expiresAt > ctx.clock.now() && token.kind === 'USER' && token.userId ? ctx.store.getUser(token.userId) : undefined
    if (live) request.caller = { kind: 'USER', user: live, deviceId: token!.deviceId }
    else if (open(request)) {
      request.caller = { kind: 'USER', user: { ...ANONYMOUS, clientId: ctx.application.clientId }, deviceId: 'unknown' }
    } else throw fail(header === undefined ? 'UNAUTHORIZED' : 'INVALID_TOKEN')
  })
}

/** A per-request note from one hook to a later one. */
export function note<T>(): { set(request: FastifyRequest, value: T): void; get(request: FastifyRequest): T | undefined } {
  const notes = new WeakMap<FastifyRequest, T>()
  return { set: (request, value) => void notes.set(request, value), get: (request) => notes.get(request) }
}

/** A pause, as the racy handlers take one between a read and the write that depends on it. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The window between a read and the write that depends on it, in the racy handlers of blind round 4. */
export const RACE_WINDOW_MS = 30

/** Runs a route's handler inside an AsyncLocalStorage holding a value computed from the request. */
export function scoped<T>(): { install(app: FastifyInstance, id: string, value: (request: FastifyRequest) => T | undefined): void; get(): T | undefined } {
  const als = new AsyncLocalStorage<T>()
  return {
    install(app, id, value) {
      wrapHandler(
        app,
        id,
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const v = value(request)
            if (v === undefined) return (original as Function).call(this, request, reply)
            return als.run(v, () => (original as Function).call(this, request, reply))
          } as never,
      )
    },
    get: () => als.getStore(),
  }
}

/** The id of the user calling, if a user is calling. */
export function callerId(request: FastifyRequest): string | undefined {
  return request.caller?.kind === 'USER' ? request.caller.user.userId : undefined
}

/** A route's `:channel` path parameter as sent (plain name or `<user_id>#<name>`). */
export const channelParam = (request: FastifyRequest): string => (request.params as { channel: string }).channel

/** The name part of a channel address: what follows `#`, or the whole of a plain name. */
export const plainName = (raw: string): string => raw.slice(raw.indexOf('#') + 1)

/** Owner part and name of a `<user_id>#<name>` address, or null for a plain name (or one the route would refuse). */
export function hashRef(raw: string): { ownerId: string; name: string } | null {
  try {
    const ref = parseChannelRef(raw)
    return ref.ownerId === null ? null : { ownerId: ref.ownerId, name: ref.name }
  } catch {
    return null
  }
}

/** `<owner>#<name>` split at its first `#` without any check, or null for a plain name. */
export function splitHash(raw: string): { ownerId: string; name: string } | null {
  const hash = raw.indexOf('#')
  return hash < 0 ? null : { ownerId: raw.slice(0, hash), name: raw.slice(hash + 1) }
}

/** The channel a request addresses by its plain or `#` address (no `personal`), or undefined when it does not resolve. */
export function tryResolve(ctx: ServerContext, request: FastifyRequest): Readonly<ChannelRecord> | undefined {
  try {
    const { user } = callerOf(request)
    return resolveChannel(ctx, user.userId, channelParam(request))
  } catch {
    return undefined
  }
}

/** Every channel of this name: the public one and each user's private one (names ignore case as the store does). */
export function sameNamed(ctx: ServerContext, name: string, clientId: string): Readonly<ChannelRecord>[] {
  const found: Readonly<ChannelRecord>[] = []
  const pub = ctx.store.findPublicChannel(name)
  if (pub) found.push(pub)
  for (const u of ctx.store.listUsers(clientId)) {
    const own = ctx.store.findPrivateChannel(u.userId, name)
    if (own) found.push(own)
  }
  return found
}

/** Replaces ctx.store (the route plugins take it from ctx when they register, after install). */
export function overrideCtxStore(ctx: ServerContext, overrides: Parameters<typeof overrideStore>[1]): void {
  ctx.store = overrideStore(ctx.store, overrides)
}

/** A map key for a pair of ids (channel and user, sender and recipient). */
export const pairKey = (a: string, b: string) => `${a}\n${b}`

/** Lower case, as names and texts are compared. */
export const lower = (s: string) => s.toLowerCase()

/** The shorter window of the racy handlers of blind round 8. */
export const SHORT_RACE_MS = 25

/**
 * Requests of one key (a user name, a sender) that overlap in time form a group: a request that starts while
 * another of the same key is in flight joins that one's group. A race fault acts only inside a group of 2+.
 */
export class OverlapGroups<T> {
  private readonly open = new Map<string, { inflight: number; members: T[] }>()
  enter(key: string): { inflight: number; members: T[] } {
    let group = this.open.get(key)
    if (!group) {
      group = { inflight: 0, members: [] }
      this.open.set(key, group)
    }
    group.inflight++
    return group
  }
  leave(key: string, group: { inflight: number; members: T[] }): void {
    group.inflight--
    if (group.inflight === 0 && this.open.get(key) === group) this.open.delete(key)
  }
}

/**
 * Sign-in refuses (400, as a missing device id) an MMS-DEVICE-ID for which `refusal` gives a message; `hook` is
 * the stage that looks (the spec accepts any value).
 */
export function refuseDeviceId(app: FastifyInstance, refusal: (deviceId: string) => string | undefined, hook: 'onRequest' | 'preHandler' = 'preHandler'): void {
  addRouteHook(app, 'users.signIn', hook, async (request: FastifyRequest) => {
    const value = request.headers['mms-device-id']
    const message = typeof value === 'string' ? refusal(value) : undefined
    if (message !== undefined) throw fail('MISSING_DEVICE_ID', message)
  })
}
