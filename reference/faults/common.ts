import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AsyncLocalStorage } from 'node:async_hooks'
import { BEARER } from '../auth'
import { personal, resolveChannel, VISIBLE } from '../channel-address'
import type { ServerContext } from '../context'
import type { ChannelRecord, PublishPermission, UserRecord } from '../model'
import type { Store } from '../store'
import { addRouteHook, onRoute, overrideStore, wrapHandler } from './kit'

/** Pieces several faults share. Like kit.ts, nothing here runs unless a fault using it is switched on. */

/** The user a server without authentication on a route ends up acting for: nobody in particular. */
export const ANONYMOUS: Readonly<UserRecord> = {
  userId: 'anonymous',
  clientId: '',
  userName: 'anonymous',
  passwordHash: '',
  passwordSalt: '',
  firstName: '',
  lastName: '',
  email: '',
  userRealm: '',
  userStatus: 'ACTIVE',
  roles: [],
  userAccountData: {},
  createdAt: 0,
}

/**
 * The route forgets its authentication: no token (or, with `anyBearer`, any well-formed bearer token nobody
 * issued) is let through. A valid token still identifies its user; anyone else acts as an anonymous user
 * of the application.
 */
export function unauthenticated(app: FastifyInstance, ctx: ServerContext, id: string, { anyBearer = false } = {}): void {
  onRoute(app, id, (route) => {
    route.config = { ...route.config, auth: 'none' }
  })
  addRouteHook(app, id, 'onRequest', async (request: FastifyRequest) => {
    const match = BEARER.exec(request.headers.authorization ?? '')
    const token = match ? ctx.store.getToken(match[1]!) : undefined
    const user = token?.kind === 'USER' && token.userId ? ctx.store.getUser(token.userId) : undefined
    if (user) request.caller = { kind: 'USER', user, deviceId: token!.deviceId }
    else if (request.headers.authorization === undefined || (anyBearer && match)) {
      request.caller = { kind: 'USER', user: { ...ANONYMOUS, clientId: ctx.application.clientId }, deviceId: 'unknown' }
    }
  })
}

/**
 * The owner check is missing from an owner-only route: the caller acts as the channel's owner. The channel
 * is found as the route finds it (`personal` query parameter).
 */
export function ownerCheckMissing(app: FastifyInstance, ctx: ServerContext, id: string): void {
  addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
    const caller = request.caller
    if (caller?.kind !== 'USER') return
    const params = request.params as { channel: string }
    const query = request.query as { personal?: boolean }
    const addressing = query.personal === undefined ? VISIBLE : personal(query.personal)
    const channel = resolveChannel(ctx, caller.user.userId, params.channel, addressing)
    const owner = ctx.store.getUser(channel.ownerId)
    if (owner && owner.userId !== caller.user.userId) request.caller = { ...caller, user: owner }
  })
}

/** Runs a route's handler with a request-scoped marker that store wrappers can read. */
export function routeScope(): {
  install(app: FastifyInstance, id: string): void
  active(): boolean
} {
  const scope = new AsyncLocalStorage<true>()
  return {
    install(app, id) {
      wrapHandler(
        app,
        id,
        (original) =>
          function (this: unknown, request, reply) {
            return scope.run(true, () => (original as Function).call(this, request, reply))
          },
      )
    },
    active: () => scope.getStore() === true,
  }
}

/** A store whose channels, while `when()` holds, show `to` where they were created with `from`. */
export function permissionSeenAs(store: Store, when: () => boolean, from: PublishPermission, to: PublishPermission): Store {
  const seen = (c: Readonly<ChannelRecord> | undefined) => (c && when() && c.publishPermission === from ? { ...c, publishPermission: to } : c)
  return overrideStore(store, {
    findPublicChannel: (inner) => (name) => seen(inner.findPublicChannel(name)),
    findPrivateChannel: (inner) => (ownerId, name) => seen(inner.findPrivateChannel(ownerId, name)),
  })
}

/** Every channel ever added, in creation order (for faults that mix private channels into public lookups). */
export function withChannelLog(store: Store, use: (wrapped: Store, all: () => Readonly<ChannelRecord>[]) => Store): Store {
  const ids: string[] = []
  const logged = overrideStore(store, {
    addChannel: (inner) => (channel) => {
      const added = inner.addChannel(channel)
      if (added) ids.push(channel.channelId)
      return added
    },
  })
  return use(logged, () => ids.flatMap((id) => store.getChannel(id) ?? []))
}

/** Sets a query parameter (after validation, so the handler sees the changed value). */
export function setQuery(request: FastifyRequest, name: string, value: unknown): void {
  const query = request.query as Record<string, unknown>
  if (value === undefined) delete query[name]
  else query[name] = value
}
