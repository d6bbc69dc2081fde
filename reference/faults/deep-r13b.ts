import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import type { ItemRecord, MessageRecord, SubscriptionRecord } from '../model'
import { channelParam, overrideCtxStore, sameNamed } from './deep-common'
import { wrapHandler } from './kit'
import { routeScope } from './common'
import type { CatalogFault } from './types'

/** Blind round 13 (b): faults written from the spec's words only. Region: states and sequences, isolation. */

/**
 * §4.2 "Unsubscribe: PUT /channels/{channel_name}/unsubscribe" and "List subscribers: GET
 * /channels/{channel_name}/subscriptions. Response 200: array of Subscription." An unsubscribed user is no
 * longer a subscriber. The server caches each channel's subscriber list on first read and drops the cache when a
 * subscription is added, but unsubscribe forgets to drop it: after subscribe, list, unsubscribe, the list still
 * names the user who left (until someone else subscribes).
 */
const subscriberListCache: CatalogFault = {
  name: 'r13b-subscriptions-list-cache-unsubscribe',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.removed',
  consequences: [
    {
      clause: 'subscriptions.unsubscribe.count',
      reason: 'the number an unsubscribe states is judged against how often the user left the subscriber list, and the stale list still shows the user',
    },
  ],
  description:
    'the subscriber list is cached per channel and the cache is dropped on subscribe but not on unsubscribe: a list read before an unsubscribe keeps showing the user who left',
  install(_app: FastifyInstance, ctx: ServerContext) {
    const cache = new Map<string, readonly Readonly<SubscriptionRecord>[]>()
    overrideCtxStore(ctx, {
      listSubscriptions: (inner) => (channelId) => {
        const hit = cache.get(channelId)
        if (hit) return hit
        const list = [...inner.listSubscriptions(channelId)]
        cache.set(channelId, list)
        return list
      },
      addSubscription: (inner) => (subscription) => {
        inner.addSubscription(subscription)
        cache.delete(subscription.channelId)
      },
      deleteChannel: (inner) => (channelId) => {
        cache.delete(channelId)
        return inner.deleteChannel(channelId)
      },
    })
  },
}

/**
 * §2.3 "a public channel or the caller's own private channel is addressed by its plain name" (two channels of
 * one name are different channels) and §4.2 fetch "GET /channels/{channel_name}/items/fetch?since=…&until=…"
 * (the channel's items in the range, no other's). The server files a channel's item list under the channel's
 * name: a public channel and a user's private channel of the same name (or two users' private channels of one
 * name) read one list, so a fetch or a summary of one shows the other's items.
 */
const itemsByName: CatalogFault = {
  name: 'r13b-items-shared-by-name',
  area: 'items',
  depth: 'deep',
  clause: ['items.fetch.range', 'channels.summary.count'],
  description:
    "a channel's item list is looked up by name: a public and a private channel of the same name (or two users' private ones) each fetch and count the other's items",
  install(_app: FastifyInstance, ctx: ServerContext) {
    overrideCtxStore(ctx, {
      listItems: (inner) => (channelId) => {
        const channel = inner.getChannel(channelId)
        if (!channel) return inner.listItems(channelId)
        const merged: Readonly<ItemRecord>[] = []
        for (const c of sameNamed(ctx, channel.name, ctx.application.clientId)) merged.push(...inner.listItems(c.channelId))
        if (!merged.some((i) => i.channelId === channelId)) merged.push(...inner.listItems(channelId))
        // Stable: items of one millisecond keep the order they had.
        return merged.sort((a, b) => a.publishedAt - b.publishedAt)
      },
    })
  },
}

/**
 * §4.3 "Send to user ids … recipientUserIds (array of string)" and §2.7 "recipient | string (user id); sender |
 * string (user id); messageId | string": each delivery record names its own message and recipient. The send
 * handler builds one message record before the loop over recipients and fills in the id, recipient and
 * deliveries inside it, storing the same object under each id: with two or more recipients, the status of every
 * message but the last names the last recipient and the last message id.
 */
const sharedMessageRecord: CatalogFault = {
  name: 'r13b-messages-shared-record',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.status.agrees',
  description:
    "a send to several users stores one record object, rewritten per recipient, under every message id: each message's status shows the last recipient and the last message id",
  install(app: FastifyInstance, ctx: ServerContext) {
    const scope = routeScope()
    let shared: MessageRecord | undefined
    overrideCtxStore(ctx, {
      addMessage: (inner) => (message) => {
        if (!scope.active()) return inner.addMessage(message)
        shared = shared ? Object.assign(shared, message) : { ...message }
        inner.addMessage(shared)
      },
    })
    // The handler is synchronous up to its answer: one send's records are never mixed with another's.
    wrapHandler(
      app,
      'messages.send',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply) {
          shared = undefined
          try {
            return await (original as (this: unknown, rq: FastifyRequest, rp: typeof reply) => unknown).call(this, request, reply)
          } finally {
            shared = undefined
          }
        } as RouteOptions['handler'],
    )
    scope.install(app, 'messages.send')
  },
}

/**
 * §2.3 "creator | composite owner identifier: user id, then a separator, then a user-name and domain part, then a
 * slash and device id": the device of the session that created the channel. The server keeps the signed-in
 * device on the user rather than on the token: after the same user signs in on a second device, calls made with
 * the first device's token act as the second device (creator, publisher and subscription device ids).
 */
const devicePerUser: CatalogFault = {
  name: 'r13b-signin-device-per-user',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.get.creator-device',
  description: "the session's device is kept per user, overwritten by each sign-in: a token from an earlier sign-in acts as the device signed in last",
  install(app: FastifyInstance, ctx: ServerContext) {
    const lastDevice = new Map<string, string>()
    overrideCtxStore(ctx, {
      registerDevice: (inner) => (userId, deviceId, at) => {
        lastDevice.set(userId, deviceId)
        inner.registerDevice(userId, deviceId, at)
      },
    })
    app.addHook('preHandler', async (request) => {
      const caller = request.caller
      if (caller?.kind !== 'USER') return
      const device = lastDevice.get(caller.user.userId)
      if (device !== undefined) request.caller = { ...caller, deviceId: device }
    })
  },
}

/**
 * §4.2 "Delete items by id: DELETE /channels/{channel_name}/items?id=<item_id>&id=<item_id>": the items named are
 * deleted, the others remain. The handler finds every id's position in the channel's list first, then removes
 * by position from the list as it shrinks: with two or more ids the later positions are stale, so the wrong item
 * goes (the one after it), an item asked for stays, and every id still answers 200.
 */
const deleteByStalePosition: CatalogFault = {
  name: 'r13b-items-delete-stale-positions',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete.removes',
  description:
    'delete by several ids removes by positions computed before the first removal: from the second id on, the item after the one asked for is deleted',
  install(app: FastifyInstance, ctx: ServerContext) {
    wrapHandler(
      app,
      'items.deleteById',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const { store } = ctx
          const channel = resolveChannel(ctx, user.userId, channelParam(request))
          const ids = (request.query as { id: string[] }).id
          const before = [...store.listItems(channel.channelId)]
          const position = new Map(ids.map((id) => [id, before.findIndex((i) => i.itemId === id)]))
          const result: Record<string, number> = {}
          for (const id of ids) {
            const item = store.getItem(channel.channelId, id)
            if (!item) result[id] = result[id] ?? 404
            else if (item.publisherId !== user.userId && channel.ownerId !== user.userId) result[id] = 403
            else {
              const victim = store.listItems(channel.channelId)[position.get(id)!]
              if (victim) store.deleteItem(channel.channelId, victim.itemId)
              result[id] = 200
            }
          }
          return result
        } as RouteOptions['handler'],
    )
  },
}

export const R13B_FAULTS: readonly CatalogFault[] = [subscriberListCache, itemsByName, sharedMessageRecord, devicePerUser, deleteByStalePosition]
