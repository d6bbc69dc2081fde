import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { parseChannelRef, resolveChannel } from '../channel-address'
import { newId } from '../ids'
import type { ChannelRecord, SubscriptionRecord } from '../model'
import { call, callerId, channelParam, hashRef, pairKey, sameNamed, SHORT_RACE_MS, sleep, tryResolve, overrideCtxStore } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault, OpenFault } from './types'
import type { ServerContext } from '../context'

/**
 * Deep faults of subscribe, unsubscribe and the subscriber list (§4.2), written in the blind rounds 5 to 12 from
 * the spec's words only (docs/detection.md): each shows only for a particular input, state, address, pair of users,
 * device or concurrent pair of requests. The comment on each names the spec words it breaks; its name says its
 * round. The catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as BLIND_OPEN; the earlier deep
 * faults of the area are in deep-subscriptions-tags.ts.
 */

/** §4.2 unsubscribe of one channel; the other channel's subscription stays listed (subscriptions.subscribe.listed). */
const unsubscribeCancelsTwin: CatalogFault = {
  name: 'r5-unsubscribe-cancels-twin',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description:
    "unsubscribe deletes the caller's subscriptions by channel name: unsubscribing from a public channel also cancels the caller's subscription to private channels of the same name",
  install(app, ctx) {
    wrapHandler(app, 'subscriptions.unsubscribe', (original) => {
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const body = await call(original, this, request, reply)
        const channel = tryResolve(ctx, request)
        const caller = request.caller
        if (channel && caller?.kind === 'USER') {
          for (const c of sameNamed(ctx, channel.name, caller.user.clientId)) {
            if (c.channelId !== channel.channelId) ctx.store.removeSubscriptions(c.channelId, caller.user.userId)
          }
        }
        return body
      }
    })
  },
}

/** §4.2 unsubscribe: "an unsubscribed user is no longer listed" (subscriptions.unsubscribe.removed). */
const raceUnsubscribeRevert: CatalogFault = {
  name: 'r5-race-unsubscribe-revert',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.removed',
  description:
    "unsubscribe reads the subscriber list, awaits (~5 ms), and writes back the list minus the caller: another user's unsubscribe in that window is undone",
  install(app, ctx) {
    wrapHandler(app, 'subscriptions.unsubscribe', (original) => {
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const channel = tryResolve(ctx, request)
        const me = callerId(request)
        if (!channel || !me) return call(original, this, request, reply)
        const before = [...ctx.store.listSubscriptions(channel.channelId)]
        await sleep(5)
        const body = await call(original, this, request, reply)
        if (ctx.store.getChannel(channel.channelId) === channel) {
          const now = ctx.store.listSubscriptions(channel.channelId)
          for (const s of before) {
            if (s.userId !== me && !now.some((x) => x.subscriptionId === s.subscriptionId)) ctx.store.addSubscription({ ...s })
          }
        }
        return body
      }
    })
  },
}

/** §4.2 "Unsubscribe" cancels the caller's subscriptions: when the channel owner unsubscribes, every subscription of the channel is removed. */
const unsubOwnerClearsAll: CatalogFault = {
  name: 'r6-unsub-owner-clears-all',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.own-only',
  description: "the channel owner's unsubscribe also cancels every other user's subscription to the channel (message still counts the owner's only)",
  install(app, ctx) {
    addRouteHook(app, 'subscriptions.unsubscribe', 'preHandler', async (request: FastifyRequest) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, channelParam(request))
      if (channel.ownerId !== user.userId) return
      for (const s of [...ctx.store.listSubscriptions(channel.channelId)]) {
        if (s.userId !== user.userId) ctx.store.removeSubscriptions(channel.channelId, s.userId)
      }
    })
  },
}

/** §4.2 a subscriber is listed among the channel's subscriptions: concurrent subscribes write back the list read before, losing the other. */
const subscribeLostUpdate: CatalogFault = {
  name: 'r6-subscribe-lost-update',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description:
    'two users subscribing to one channel at the same time: the later write drops the subscription the other made meanwhile (read-modify-write of the list)',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.subscribe', async (request, reply, next) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, channelParam(request))
      const before = new Set(ctx.store.listSubscriptions(channel.channelId).map((s) => s.userId))
      await sleep(15) // the read and the write of the subscriber list are two round trips to a database
      const result = await next()
      for (const s of [...ctx.store.listSubscriptions(channel.channelId)]) {
        if (s.userId !== user.userId && !before.has(s.userId)) ctx.store.removeSubscriptions(channel.channelId, s.userId)
      }
      return result
    })
  },
}

const r8ResubscribeNotListed: CatalogFault = {
  // §4.2 Subscribe / List subscribers: a subscriber is listed; an unsubscribe then a resubscribe makes a subscriber again.
  name: 'r8-resubscribe-not-listed',
  depth: 'deep',
  area: 'subscriptions',
  clause: 'subscriptions.subscribe.listed',
  description: 'a user who unsubscribed and subscribes again gets a subId but is never listed among the subscriptions again',
  wrapStore(store) {
    const left = new Set<string>()
    return overrideStore(store, {
      removeSubscriptions: (inner) => (channelId: string, userId: string) => {
        const n = inner.removeSubscriptions(channelId, userId)
        if (n > 0) left.add(pairKey(channelId, userId))
        return n
      },
      listSubscriptions: (inner) => (channelId: string) => inner.listSubscriptions(channelId).filter((s) => !left.has(pairKey(channelId, s.userId))),
    })
  },
}

const r8UnsubscribeWithoutSubscriptionDropsLast: CatalogFault = {
  // §4.2 Unsubscribe: cancels the caller's own subscriptions only.
  name: 'r8-unsubscribe-without-subscription-drops-last',
  depth: 'deep',
  area: 'subscriptions',
  clause: 'subscriptions.unsubscribe.own-only',
  description: 'an unsubscribe by a user with no subscription removes the most recent subscriber of the channel instead (and answers 0 cancelled)',
  wrapStore(store) {
    return overrideStore(store, {
      removeSubscriptions: (inner) => (channelId: string, userId: string) => {
        const n = inner.removeSubscriptions(channelId, userId)
        if (n > 0) return n
        const list = inner.listSubscriptions(channelId)
        if (list.length > 0) inner.removeSubscriptions(channelId, list[list.length - 1]!.userId)
        return 0
      },
    })
  },
}

const r8RaceSubscribeLostUpdate: CatalogFault = {
  // §4.2 Subscribe / List subscribers: each subscriber is listed — also two users subscribing at once.
  name: 'r8-race-subscribe-lost-update',
  depth: 'deep',
  area: 'subscriptions',
  clause: 'subscriptions.subscribe.listed',
  description: 'subscribe reads the subscriber list, waits 25 ms, then writes it back with the caller: a concurrent subscribe by another user is lost',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.subscribe', async (request, reply, next) => {
      let channel: Readonly<ChannelRecord> | undefined
      const me = callerOf(request).user.userId
      try {
        channel = resolveChannel(ctx, me, channelParam(request))
      } catch {
        channel = undefined
      }
      if (!channel) return next()
      const before = new Set(ctx.store.listSubscriptions(channel.channelId).map((s) => s.subscriptionId))
      await sleep(SHORT_RACE_MS)
      const result = await next()
      for (const s of [...ctx.store.listSubscriptions(channel.channelId)]) {
        if (!before.has(s.subscriptionId) && s.userId !== me) ctx.store.removeSubscriptions(channel.channelId, s.userId)
      }
      return result
    })
  },
}

/** §4.2 unsubscribe cancels the caller's subscriptions of the channel addressed; §2.3 <user_id>#<name> addresses the other user's private channel. */
const unsubscribeHashIgnored: CatalogFault = {
  name: 'r9-unsubscribe-hash-address-ignored',
  area: 'subscriptions',
  depth: 'deep',
  clause: ['subscriptions.unsubscribe.removed', 'private.other-user-address'],
  description:
    'unsubscribe addressed as <owner_id>#<name> by another user drops the owner part and looks the plain name up for the caller: it cancels nothing there and answers "0 subscription(s) cancelled"',
  consequences: [
    {
      clause: 'subscriptions.subscribe.listed',
      reason: "B's unsubscribe through <owner>#<name> cancels nothing, so B stays listed where the address checks want the list without it",
    },
  ],
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.unsubscribe', async (request, reply, next) => {
      const { user } = callerOf(request)
      const ref = parseChannelRef(channelParam(request))
      if (ref.ownerId === null || ref.ownerId === user.userId) return next()
      const channel = ctx.store.findPrivateChannel(user.userId, ref.name) ?? ctx.store.findPublicChannel(ref.name)
      const cancelled = channel ? ctx.store.removeSubscriptions(channel.channelId, user.userId) : 0
      return { message: `${cancelled} subscription(s) cancelled`, code: 200 }
    })
  },
}

/** §4.2 subscribe: the subscriber (any caller, the owner too) is then listed among the subscriptions. */
const creatorLateSubscribeUnlisted: CatalogFault = {
  name: 'r9-creator-late-subscribe-unlisted',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description:
    "the owner's own subscribe to its channel (after subscribeOnCreate false, or after it unsubscribed) answers a subId but stores nothing: owners are taken as implicitly subscribed",
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.subscribe', async (request, reply, next) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, channelParam(request))
      if (channel.ownerId === user.userId && !ctx.store.findSubscription(channel.channelId, user.userId)) {
        return { code: 200, subId: newId(), msg: `subscribed to ${channel.name}` }
      }
      return next()
    })
  },
}

/** §4.2 "Unsubscribe ... the message states the number of subscriptions cancelled": the caller's subscriptions, whatever device made them. */
const unsubscribeSameDeviceOnly: CatalogFault = {
  name: 'r9-unsubscribe-same-device-only',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.removed',
  description:
    "unsubscribe cancels only the caller's subscriptions made from the device id of its current token: a user subscribed from one device and unsubscribing from another stays listed",
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.unsubscribe', async (request, reply, next) => {
      const { user, deviceId } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, channelParam(request))
      const mine = ctx.store.listSubscriptions(channel.channelId).filter((s) => s.userId === user.userId)
      const others = mine.filter((s) => s.deviceId !== deviceId)
      if (others.length === 0) return next()
      ctx.store.removeSubscriptions(channel.channelId, user.userId)
      for (const s of others) ctx.store.addSubscription({ ...s })
      return { message: `${mine.length - others.length} subscription(s) cancelled`, code: 200 }
    })
  },
}

/**
 * §4.2 subscribe subscribes the caller (then listed among the subscriptions, §2.5). Through
 * `<owner_id>#<name>` another user's subscribe is made for the user named in the address: the owner.
 */
const hashSubscribeOwner: CatalogFault = {
  name: 'r10-hash-subscribe-as-owner',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description: 'subscribe addressed as <owner_id>#<name> by another user subscribes the owner named in the address (or finds its subscription), not the caller',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.subscribe', async (request, reply, next) => {
      const ref = hashRef(channelParam(request))
      const caller = request.caller
      const owner = ref === null ? undefined : ctx.store.getUser(ref.ownerId)
      if (caller?.kind !== 'USER' || owner === undefined || owner.userId === caller.user.userId) return next()
      request.caller = { kind: 'USER', user: owner, deviceId: caller.deviceId }
      try {
        return await next()
      } finally {
        request.caller = caller
      }
    })
  },
}

/**
 * §4.2 a subscriber is listed among the channel's subscriptions until it unsubscribes. Delete all items
 * clears the channel's child rows by a shared helper that also deletes its subscriptions.
 */
const deleteAllItemsDropsSubscriptions: CatalogFault = {
  name: 'r10-delete-all-items-drops-subscriptions',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description: 'delete all items also cancels every subscription of the channel: its subscribers are no longer listed',
  install(app, ctx) {
    aroundHandler(app, 'items.deleteAll', async (request, reply, next) => {
      const result = await next()
      const userId = callerId(request)
      if (userId !== undefined) {
        const query = request.query as { personal?: boolean }
        const channel = resolveChannel(ctx, userId, channelParam(request), {
          mode: 'personal',
          personal: query.personal ?? false,
        })
        for (const s of [...ctx.store.listSubscriptions(channel.channelId)]) ctx.store.removeSubscriptions(channel.channelId, s.userId)
      }
      return result
    })
  },
}

const r11UnsubscribeDeviceScoped: CatalogFault = {
  // §4.2 "Unsubscribe: PUT /channels/{channel_name}/unsubscribe … the message states the number of
  // subscriptions cancelled": the user's subscription is cancelled, whichever of its devices asks.
  name: 'r11-unsubscribe-device-scoped',
  area: 'subscriptions',
  depth: 'deep',
  clause: ['subscriptions.unsubscribe.removed', 'subscriptions.unsubscribe.count'],
  description:
    'unsubscribe cancels only subscriptions made from the calling device id: a user who subscribed on one device and unsubscribes from another stays listed ("0 subscription(s) cancelled")',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.unsubscribe', async (request, reply, next) => {
      const { user, deviceId } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, channelParam(request))
      const mine = ctx.store.listSubscriptions(channel.channelId).filter((s) => s.userId === user.userId)
      if (mine.length > 0 && mine.every((s) => s.deviceId !== deviceId)) return { message: '0 subscription(s) cancelled', code: 200 }
      return next()
    })
  },
}

const r11UnsubscribeNoneStatesOne: CatalogFault = {
  // §4.2 unsubscribe: "the message states the number of subscriptions cancelled".
  name: 'r11-unsubscribe-none-states-one',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.count',
  description:
    'unsubscribe counts the channel rows it matched, not the subscriptions it removed: an unsubscribe by a user with no subscription (a second unsubscribe in a row) states "1 subscription(s) cancelled"',
  install(app) {
    rewriteJson(app, 'subscriptions.unsubscribe', (body) =>
      typeof body?.message === 'string' && /^0 /.test(body.message) ? { ...body, message: body.message.replace(/^0 /, '1 ') } : body,
    )
  },
}

/**
 * §4.2 Unsubscribe: "the message states the number of subscriptions cancelled". The creator's subscription
 * made by subscribeOnCreate is kept apart; unsubscribe removes it but counts only ordinary ones: "0".
 */
const unsubscribeCreatorCountsZero: CatalogFault = {
  name: 'r12-unsubscribe-creator-counts-zero',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.count',
  description: 'unsubscribing the creator subscription made by subscribeOnCreate removes it but the message says 0 subscription(s) cancelled',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.unsubscribe', async (request, reply, next) => {
      const me = callerId(request)
      let creatorSubscription = false
      const raw = channelParam(request)
      if (me && !raw.includes('#')) {
        const channel = ctx.store.findPrivateChannel(me, raw) ?? ctx.store.findPublicChannel(raw)
        const sub = channel && ctx.store.findSubscription(channel.channelId, me)
        creatorSubscription = !!channel && !!sub && channel.ownerId === me && sub.createdAt === channel.createdAt
      }
      const result = (await next()) as { message: string; code: number }
      if (creatorSubscription && result && typeof result.message === 'string') {
        return { ...result, message: result.message.replace(/^\d+/, '0') }
      }
      return result
    })
  },
}

/**
 * §4.2 Subscribe answers `{code, subId, msg}` and §2.5 lists subscriptions with their subscriptionId: a user
 * already subscribed who subscribes again from another device gets a freshly minted subId that is stored
 * nowhere (the list still shows the first subscription only).
 */
const subscribeSecondDevicePhantom: CatalogFault = {
  name: 'r12-subscribe-second-device-phantom-subid',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description: 'a subscribe from a second device of an already subscribed user answers a new subId that no subscription listed carries',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.subscribe', async (request, reply, next) => {
      const result = (await next()) as { code: number; subId: string; msg: string }
      const caller = request.caller
      if (caller?.kind === 'USER' && result && typeof result.subId === 'string') {
        const raw = channelParam(request)
        const hash = raw.indexOf('#')
        const channel =
          hash >= 0
            ? ctx.store.findPrivateChannel(raw.slice(0, hash), raw.slice(hash + 1))
            : (ctx.store.findPrivateChannel(caller.user.userId, raw) ?? ctx.store.findPublicChannel(raw))
        const sub = channel && ctx.store.findSubscription(channel.channelId, caller.user.userId)
        if (sub && sub.subscriptionId === result.subId && sub.deviceId !== null && sub.deviceId !== caller.deviceId) {
          return { code: 200, subId: newId(), msg: `subscribed to ${channel!.name}` }
        }
      }
      return result
    })
  },
}

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

export const BLIND_SUBSCRIPTION_FAULTS: readonly CatalogFault[] = [
  unsubscribeCancelsTwin,
  raceUnsubscribeRevert,
  unsubOwnerClearsAll,
  subscribeLostUpdate,
  r8ResubscribeNotListed,
  r8UnsubscribeWithoutSubscriptionDropsLast,
  r8RaceSubscribeLostUpdate,
  unsubscribeHashIgnored,
  creatorLateSubscribeUnlisted,
  hashSubscribeOwner,
  deleteAllItemsDropsSubscriptions,
  r11UnsubscribeDeviceScoped,
  // Open after round 9 as a reading; the suite reads an unsubscribe as the user's (subscriptions.unsubscribe.removed:
  // an unsubscribed user is no longer listed, whichever of its devices asks), as round 11's author read it too.
  unsubscribeSameDeviceOnly,
  r11UnsubscribeNoneStatesOne,
  unsubscribeCreatorCountsZero,
  subscribeSecondDevicePhantom,
  subscriberListCache,
]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_SUBSCRIPTION_OPEN: readonly OpenFault[] = []
