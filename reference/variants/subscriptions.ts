import type { FastifyReply, FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { newId } from '../ids'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import { subscribeEveryTime } from '../faults/deep-common'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import { addBystander } from './channels'
import { before, channelOf } from './common'
import type { Variant } from './types'
import { AsyncLocalStorage } from 'node:async_hooks'

/** Subscriptions (§4.2 subscribe, unsubscribe, list): a busy server and choices the spec leaves open. */

/** How long the bystander takes to notice a new public channel. */
const BYSTANDER_DELAY_MS = 120

const bystanderSubscriber: Variant = {
  name: 'bystander-subscriber',
  area: 'subscriptions',
  description: `another client subscribes to every new public channel ${BYSTANDER_DELAY_MS} ms after it is created`,
  reading: "§4.2 subscribe is open to callers of the service; nothing keeps other users off the suite's public channels",
  install: (app, ctx) => {
    const bot = addBystander(ctx, 'directory.bot')
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.routeOptions.config.id !== 'channels.create' || reply.statusCode >= 300) return
      const body = request.body as { channelName?: string; privateChannel?: boolean } | undefined
      if (!body?.channelName || body.privateChannel) return
      const name = body.channelName
      setTimeout(() => {
        const channel = ctx.store.findPublicChannel(name)
        if (!channel || ctx.store.findSubscription(channel.channelId, bot.userId)) return
        ctx.store.addSubscription({
          subscriptionId: newId(),
          channelId: channel.channelId,
          userId: bot.userId,
          deviceId: 'directory-bot-1',
          createdAt: ctx.clock.now(),
        })
      }, BYSTANDER_DELAY_MS).unref()
    })
  },
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']

const unsubscribeInWords: Variant = {
  name: 'unsubscribe-in-words',
  area: 'subscriptions',
  description: 'the unsubscribe message states the number in words ("one subscription cancelled")',
  reading: '§4.2 unsubscribe: "the message states the number of subscriptions cancelled", in no particular notation',
  install: (app) =>
    rewriteJson(app, 'subscriptions.unsubscribe', (body) => {
      const n = Number(/^(\d+)/.exec(String(body.message))?.[1] ?? NaN)
      const words = Number.isInteger(n) && n < NUMBER_WORDS.length ? NUMBER_WORDS[n]! : String(n)
      return { ...body, message: `${words[0]!.toUpperCase()}${words.slice(1)} subscription${n === 1 ? '' : 's'} cancelled` }
    }),
}

const subscribeTwiceConflict: Variant = {
  name: 'subscribe-twice-conflict',
  area: 'subscriptions',
  description: 'a second subscribe by a user already subscribed is refused with 409',
  reading: '§4.2 subscribe shows only the success answer; what a repeated subscribe does is not shown',
  install: (app, ctx) =>
    wrapHandler(
      app,
      'subscriptions.subscribe',
      (original) =>
        async function subscribeOnce(this: unknown, request, reply) {
          const caller = request.caller
          const ref = (request.params as { channel: string }).channel
          const hash = ref.indexOf('#')
          const userId = caller?.kind === 'USER' ? caller.user.userId : ''
          const channel =
            hash >= 0
              ? ctx.store.findPrivateChannel(ref.slice(0, hash), ref.slice(hash + 1))
              : (ctx.store.findPrivateChannel(userId, ref) ?? ctx.store.findPublicChannel(ref))
          if (channel && ctx.store.findSubscription(channel.channelId, userId)) throw fail('CHANNEL_EXISTS', 'already subscribed')
          return (original as (...a: unknown[]) => unknown).call(this, request, reply)
        },
    ),
}

/** Only a channel's owner may list its subscribers; anyone else is refused with 403. */
const subscribersOwnerOnly: Variant = {
  name: 'subscribers-owner-only',
  area: 'subscriptions',
  description: "list subscribers answers 403 to everyone but the channel's owner",
  reading: '§4.2 list subscribers says nothing of who may list them (§5.5 names no rule either way)',
  install: (app, ctx) =>
    addRouteHook(app, 'subscriptions.list', 'preHandler', async (request: FastifyRequest) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
      if (channel.ownerId !== user.userId) throw fail('NOT_OWNER', 'only the channel owner lists its subscribers')
    }),
}

/**
 * The reference's own id of a record (the one its handler answers with) → the number small-decimal-ids stored
 * it under. The reference's ids are random and unique, so one map serves every server of the process.
 */
const renamedIds = new Map<string, string>()

/**
 * Ids from counters, as a database's auto-increment keys give them: the seeded users are "1", "2", "3", and
 * subscriptions, items and direct messages are numbered from 1, each kind on its own. The unsubscribe message
 * names the subscriptions it cancelled: "1 subscription(s) cancelled (subscription 4)".
 */
const smallDecimalIds: Variant = {
  name: 'small-decimal-ids',
  area: 'subscriptions',
  description: 'users, subscriptions, items and messages have small decimal ids ("1", "2", …); the unsubscribe message names the cancelled subscription ids',
  reading:
    '§2.1, §2.5, §2.6 and §2.7 give every id the type string and no form; §4.2 unsubscribe: "the message states the number of subscriptions cancelled", and may say more',
  wrapSeed: (seed) => ({ ...seed, users: seed.users.map((u, i) => ({ ...u, userId: String(i + 1) })) }),
  wrapStore: (store) => {
    const counter = () => {
      let n = 0
      return () => String(++n)
    }
    const [nextSubscription, nextItem, nextMessage] = [counter(), counter(), counter()]
    const renumber = <T extends object, K extends keyof T>(record: T, key: K, next: () => string): T => {
      const id = next()
      renamedIds.set(String(record[key]), id)
      // In place: a handler that answers with the record's field (publish's messageId) answers the number.
      Object.assign(record, { [key]: id })
      return record
    }
    return overrideStore(store, {
      addSubscription: (inner) => (sub) => inner.addSubscription(renumber(sub, 'subscriptionId', nextSubscription)),
      addItem: (inner) => (item, maxItems) => inner.addItem(renumber(item, 'itemId', nextItem), maxItems),
      addMessage: (inner) => (message) => inner.addMessage(renumber(message, 'messageId', nextMessage)),
    })
  },
  install: (app, ctx) => {
    const renamed = (id: unknown): unknown => (typeof id === 'string' ? (renamedIds.get(id) ?? id) : id)
    // Subscribe and send answer with the ids their handlers made before the store numbered them.
    rewriteJson(app, 'subscriptions.subscribe', (body) => ({ ...body, subId: renamed(body.subId) }))
    rewriteJson(app, 'messages.send', (result) => {
      const relabel = (e: unknown) => (e !== null && typeof e === 'object' && 'messageId' in e ? { ...e, messageId: renamed(e.messageId) } : e)
      return { ...result, sentList: result.sentList.map(relabel), unsentList: result.unsentList.map(relabel) }
    })
    wrapHandler(
      app,
      'subscriptions.unsubscribe',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
          const ids = ctx.store
            .listSubscriptions(channel.channelId)
            .filter((sub) => sub.userId === user.userId)
            .map((sub) => sub.subscriptionId)
          const body = (await (original as (...a: unknown[]) => Promise<{ message: string; code: number }>).call(this, request, reply)) ?? {}
          return ids.length ? { ...body, message: `${body.message} (subscription${ids.length === 1 ? '' : 's'} ${ids.join(', ')})` } : body
        } as never,
    )
  },
}

// Written blind (docs/detection.md, "Faults written blind"): correct servers by implementers who had not read the suite.

const subscriptionPerDevice: Variant = {
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
}

// Written blind, round 4 (docs/detection.md, "Round 4"): correct servers by an author who had not read the suite; listed in the array below.

const unsubscribeNamesChannel: Variant = {
  name: 'unsubscribe-message-names-channel',
  area: 'subscriptions',
  description:
    'the unsubscribe message names the user, the channel and the device before the count: "User <id> on device <d> unsubscribed from <channel>; subscriptions cancelled: N"',
  reading: '§4.2 unsubscribe: "the message states the number of subscriptions cancelled" — its wording and what else it says are not stated',
  install: (app) =>
    rewriteJson(app, 'subscriptions.unsubscribe', (body, request) => {
      const n = Number(/^(\d+)/.exec(String(body.message))?.[1] ?? NaN)
      if (!Number.isInteger(n)) return body
      const { user, deviceId } = callerOf(request)
      const channel = (request.params as { channel: string }).channel
      return { ...body, message: `User ${user.userId} on device ${deviceId} unsubscribed from ${channel}; subscriptions cancelled: ${n}` }
    }),
}

/**
 * Every subscribe adds a subscription, a user already subscribed included; unsubscribe cancels and counts them all.
 * The ground of the faults that miscount such subscriptions (reference/faults/deep-subscriptions-tags.ts): their
 * reproducers are told from a clean server with this variant.
 */
const subscribeAddsEachTime: Variant = {
  name: 'subscribe-adds-each-time',
  area: 'subscriptions',
  description: 'every subscribe adds a subscription, also for a user already subscribed; unsubscribe cancels and states them all',
  reading:
    '§4.2 unsubscribe: "the message states the number of subscriptions cancelled", so a user may hold several; the spec does not say a second subscribe is refused or kept as one',
  ...subscribeEveryTime(),
}

export const SUBSCRIPTION_VARIANTS: readonly Variant[] = [
  subscribeAddsEachTime,
  bystanderSubscriber,
  unsubscribeInWords,
  subscribeTwiceConflict,
  subscribersOwnerOnly,
  smallDecimalIds,
  subscriptionPerDevice,
  // written blind, round 4 (docs/detection.md, "Round 4")
  unsubscribeNamesChannel,
]

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

const r6vSubscriptionDeviceNull: Variant = {
  name: 'r6v-subscription-device-null',
  area: 'subscriptions',
  description: 'list subscribers answers deviceId null for every subscription (subscriptions are kept per user, not per device)',
  reading: '§2.5 Subscription: "deviceId | string or null"',
  install(app) {
    rewriteJson(app, 'subscriptions.list', (body) => (body as Record<string, unknown>[]).map((s) => ({ ...s, deviceId: null })))
  },
}

const r9vSubscribersNewestFirst: Variant = {
  name: 'r9v-subscribers-newest-first',
  area: 'subscriptions',
  description: 'list subscribers answers the most recent subscription first',
  reading: '§4.2 list subscribers: "Response 200: array of Subscription"; no order is stated.',
  wrapStore(store) {
    return overrideStore(store, {
      listSubscriptions: (inner) => (channelId) => [...inner.listSubscriptions(channelId)].reverse(),
    })
  },
}

/** The unsubscribe message names the channel first, then states the count. */
const r10vUnsubscribeMessageNameFirst: Variant = {
  name: 'r10v-unsubscribe-message-name-first',
  area: 'subscriptions',
  description: 'the unsubscribe message names the channel before the count: "channel <name>: 1 subscription cancelled" (a name may hold digits)',
  reading: '§4.2 unsubscribe: "the message states the number of subscriptions cancelled"; its wording is not given.',
  install(app) {
    rewriteJson(app, 'subscriptions.unsubscribe', (body, request) => {
      // A message another variant already rewrote (in words, say) is left as it is: this one rewords the plain count.
      const digits = /^(\d+)/.exec(String(body.message))?.[1]
      if (digits === undefined) return body
      const n = Number(digits)
      const channel = (request.params as { channel: string }).channel
      return { message: `channel ${channel}: ${n} subscription${n === 1 ? '' : 's'} cancelled`, code: body.code }
    })
  },
}

const r11vUnsubscribeMessageAddressFirst: Variant = {
  name: 'r11v-unsubscribe-message-address-first',
  area: 'subscriptions',
  description:
    'the unsubscribe message names the channel address as sent before the count: "unsubscribed from <address>: N subscription(s) cancelled" (the address may hold digits, a user id among them)',
  reading:
    '§4.2 unsubscribe: "Response 200: {message (string), code (integer)}; the message states the number of subscriptions cancelled." The wording around the number is not stated.',
  install(app) {
    rewriteJson(app, 'subscriptions.unsubscribe', (body, request) => {
      const n = /^(\d+) /.exec(typeof body?.message === 'string' ? body.message : '')
      if (!n) return body
      const address = (request.params as { channel: string }).channel
      return { ...body, message: `unsubscribed from ${address}: ${n[1]} subscription(s) cancelled` }
    })
  },
}

/** Subscribers listed newest first. */
const r12vSubscribersNewestFirst: Variant = {
  name: 'r12v-subscribers-newest-first',
  area: 'subscriptions',
  description: 'list subscribers answers the most recent subscription first',
  reading: '§4.2 List subscribers: "Response 200: array of Subscription"; no order is stated.',
  install(app) {
    rewriteJson(app, 'subscriptions.list', (body) => (Array.isArray(body) ? [...body].reverse() : body))
  },
}

/**
 * Subscriptions are per device: a subscribe from the device that already holds the user's subscription answers that
 * one (idempotent), a subscribe from another device of the same user adds a subscription carrying that device id.
 * Unsubscribe still cancels every subscription of the user and says how many; the user is listed once per device.
 */
function subscriptionsPerDevice(): Variant {
  const device = new AsyncLocalStorage<string>()
  return {
    name: 'r13cv-subscriptions-per-device',
    area: 'subscriptions',
    description: "subscribe is idempotent per (user, device): the same user subscribing from a second device gets a second subscription with that device's id",
    reading:
      '§2.5 Subscription carries a `deviceId` of its own besides `userId`; §4.2 Unsubscribe: "the message states the number of subscriptions cancelled" (a user may hold several). Whether one user holds one subscription or one per device is not stated.',
    wrapStore: (store) =>
      overrideStore(store, {
        findSubscription: (inner) => (channelId, userId) => {
          const from = device.getStore()
          if (from === undefined) return inner.findSubscription(channelId, userId)
          return inner.listSubscriptions(channelId).find((s) => s.userId === userId && (s.deviceId === from || s.deviceId === null))
        },
      }),
    install(app) {
      wrapHandler(
        app,
        'subscriptions.subscribe',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: unknown) {
            const caller = request.caller
            const run = () => (original as (this: unknown, rq: FastifyRequest, rp: unknown) => unknown).call(this, request, reply)
            return caller?.kind === 'USER' ? device.run(caller.deviceId, run) : run()
          } as never,
      )
    },
  }
}

export const BLIND_SUBSCRIPTION_VARIANTS: readonly Variant[] = [
  r6vSubscriptionDeviceNull,
  r9vSubscribersNewestFirst,
  r10vUnsubscribeMessageNameFirst,
  r11vUnsubscribeMessageAddressFirst,
  r12vSubscribersNewestFirst,
  subscriptionsPerDevice(),
]
