import type { FastifyReply, FastifyRequest } from 'fastify'
import { AsyncLocalStorage } from 'node:async_hooks'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import type { ChannelRecord, SubscriptionRecord } from '../model'
import type { CatalogFault } from './types'
import { call, callerId, channelOf, note, RACE_WINDOW_MS, scoped, sleep, subscribeEveryTime, tombstones, type Handler, type RouteHandler } from './deep-common'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'

/**
 * Deep faults of subscriptions (§4.2 subscribe, unsubscribe, list subscribers) and tags (§4.2): each shows
 * only after a sequence (unsubscribe then subscribe, a second subscribe, two subscribers, a tag added
 * twice) or for particular values (a tag that is a prefix of another, the first of several tags).
 */

const resubscribing = tombstones('subscriptions.subscribe')
const everyTimeCounted = subscribeEveryTime()
const everyTimeRemoved = subscribeEveryTime()
const wasFirstTag = note<boolean>()

// Written blind, round 3 (docs/detection.md, "Round 3"); listed in the array below.

const unsubscribeHashOwner: CatalogFault = {
  name: 'r3-unsubscribe-hash-cancels-owner',
  clause: ['subscriptions.unsubscribe.own-only', 'subscriptions.unsubscribe.removed'],
  area: 'subscriptions',
  depth: 'deep',
  description: "unsubscribe from <user_id>#<name> cancels the subscriptions of the user named in the address (the owner) instead of the caller's",
  install(app, ctx) {
    wrapHandler(
      app,
      'subscriptions.unsubscribe',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const raw = (request.params as { channel: string }).channel
          const hash = raw.indexOf('#')
          if (hash < 0) return call(original, this, request, reply)
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, raw)
          const cancelled = ctx.store.removeSubscriptions(channel.channelId, raw.slice(0, hash))
          return { message: `${cancelled} subscription(s) cancelled`, code: 200 }
        } as RouteHandler,
    )
  },
}

function subscriptionByDevice(): CatalogFault {
  const device = new AsyncLocalStorage<string>()
  return {
    name: 'r3-subscription-keyed-by-device',
    clause: 'subscriptions.subscribe.listed',
    area: 'subscriptions',
    depth: 'deep',
    description:
      'subscribe treats a subscription of the same device id as the caller\'s own: a second user signed in with a device id already subscribed gets "already subscribed" and is not listed',
    wrapStore: (store) =>
      overrideStore(store, {
        findSubscription: (inner) => (channelId, userId) => {
          const own = inner.findSubscription(channelId, userId)
          const d = device.getStore()
          return own ?? (d === undefined ? undefined : inner.listSubscriptions(channelId).find((s) => s.deviceId === d))
        },
      }),
    install(app) {
      wrapHandler(
        app,
        'subscriptions.subscribe',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            return device.run(callerOf(request).deviceId, () => call(original, this, request, reply))
          } as RouteHandler,
      )
    },
  }
}

// Written blind, round 4 (docs/detection.md, "Round 4"), from the spec alone; listed in the array below.

/** The subscriber list is cached per channel; subscribe (and delete) invalidate it, unsubscribe does not. */
function subscriberListCache(): CatalogFault {
  let cache = new Map<string, unknown>()
  return {
    name: 'r4-subscriber-list-cache',
    clause: 'subscriptions.unsubscribe.removed',
    area: 'subscriptions',
    depth: 'deep',
    description: 'list subscribers is served from a per-channel cache that unsubscribe does not invalidate: once listed, an unsubscribed user stays listed',
    wrapStore(store) {
      cache = new Map()
      return overrideStore(store, {
        addSubscription: (inner) => (subscription) => {
          cache.delete(subscription.channelId)
          inner.addSubscription(subscription)
        },
        deleteChannel: (inner) => (channelId) => {
          cache.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app, ctx) {
      wrapHandler(
        app,
        'subscriptions.list',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const channel = channelOf(ctx, request)
            if (channel && cache.has(channel.channelId)) return structuredClone(cache.get(channel.channelId))
            const result = await (original as Function).call(this, request, reply)
            if (channel) cache.set(channel.channelId, structuredClone(result))
            return result
          } as never,
      )
    },
  }
}

/** Unsubscribe deletes `WHERE channel = ? AND (user_id = ? OR device_id = ?)`: subscriptions of other users on the same device id go too. */
function unsubscribeByDevice(): CatalogFault {
  const device = scoped<string>()
  return {
    name: 'r4-unsubscribe-by-device',
    clause: 'subscriptions.unsubscribe.own-only',
    area: 'subscriptions',
    depth: 'deep',
    description: "unsubscribe also cancels other users' subscriptions made from the caller's device id",
    wrapStore(store) {
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const deviceId = device.get()
          let removed = inner.removeSubscriptions(channelId, userId)
          if (deviceId === undefined) return removed
          const others = new Set(
            inner
              .listSubscriptions(channelId)
              .filter((s) => s.deviceId === deviceId && s.userId !== userId)
              .map((s) => s.userId),
          )
          for (const other of others) removed += inner.removeSubscriptions(channelId, other)
          return removed
        },
      })
    },
    install(app) {
      device.install(app, 'subscriptions.unsubscribe', (request) => (request.caller?.kind === 'USER' ? request.caller.deviceId : undefined))
    },
  }
}

const raceSubscribeLost: CatalogFault = {
  name: 'r4-race-subscribe-lost',
  clause: 'subscriptions.subscribe.listed',
  area: 'subscriptions',
  depth: 'deep',
  description: 'subscribe reads the subscriber list, waits on I/O, then writes the list back with itself added: concurrent subscribers are lost',
  install(app, ctx) {
    wrapHandler(
      app,
      'subscriptions.subscribe',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const channel = channelOf(ctx, request)
          const before = channel ? new Set(ctx.store.listSubscriptions(channel.channelId).map((s) => s.subscriptionId)) : undefined
          await sleep(RACE_WINDOW_MS)
          const result = await (original as Function).call(this, request, reply)
          if (channel && before && ctx.store.getChannel(channel.channelId)) {
            const mine = (result as { subId?: string }).subId
            const lost = ctx.store.listSubscriptions(channel.channelId).filter((s) => !before.has(s.subscriptionId) && s.subscriptionId !== mine)
            for (const s of lost) ctx.store.removeSubscriptions(channel.channelId, s.userId)
          }
          return result
        } as never,
    )
  },
}

export const DEEP_SUBSCRIPTION_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-subscriptions-resubscribe-lost',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.subscribe.listed',
    description: 'a subscribe after an unsubscribe finds the cancelled subscription, answers "already subscribed" and lists nobody',
    ...resubscribing,
  },
  {
    name: 'deep-subscriptions-unsubscribe-counts-one',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.unsubscribe.count',
    description: 'each subscribe adds a subscription (allowed), but unsubscribe states 1 cancelled however many it cancelled',
    builtOn: ['subscribe-adds-each-time'],
    wrapStore: everyTimeCounted.wrapStore,
    install: (app) => {
      everyTimeCounted.install(app)
      rewriteJson(app, 'subscriptions.unsubscribe', (body) => ({ ...body, message: String(body.message).replace(/^\d+/, (n) => (Number(n) > 0 ? '1' : n)) }))
    },
  },
  {
    name: 'deep-subscriptions-unsubscribe-removes-one',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.unsubscribe.removed',
    description: 'each subscribe adds a subscription (allowed), but unsubscribe cancels only the oldest: a user who subscribed twice stays listed',
    builtOn: ['subscribe-adds-each-time'],
    wrapStore: (store) =>
      overrideStore(everyTimeRemoved.wrapStore(store), {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const all = inner.listSubscriptions(channelId)
          const first = all.find((s) => s.userId === userId)
          if (!first) return 0
          const rest = all.filter((s) => s.userId === userId && s !== first)
          inner.removeSubscriptions(channelId, userId)
          for (const s of rest) inner.addSubscription(s)
          return 1
        },
      }),
    install: (app) => everyTimeRemoved.install(app),
  },
  {
    name: 'deep-subscriptions-unsubscribe-everyone',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.unsubscribe.own-only',
    description: "unsubscribe cancels every subscription of the channel, not only the caller's (the count states the caller's)",
    consequences: [
      {
        clause: 'subscriptions.subscribe.listed',
        reason: "an unsubscribe that cancels everyone's also cancels the subscription of a user who subscribed at the same moment, when that one landed first",
      },
    ],
    wrapStore: (store) =>
      overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const mine = inner.listSubscriptions(channelId).filter((s) => s.userId === userId).length
          for (const other of new Set(inner.listSubscriptions(channelId).map((s) => s.userId))) inner.removeSubscriptions(channelId, other)
          return mine
        },
      }),
  },
  {
    name: 'deep-subscriptions-list-first-only',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.subscribe.listed',
    description: 'list subscribers answers only the first subscription of the channel (a query with LIMIT 1)',
    install: (app) => rewriteJson(app, 'subscriptions.list', (list: unknown[]) => list.slice(0, 1)),
  },
  {
    name: 'deep-subscriptions-creator-entry-no-channel',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.list.shape',
    description: "the creator's subscription made by subscribeOnCreate is listed without channelName",
    install: (app, ctx) =>
      rewriteJson(app, 'subscriptions.list', (list: Record<string, unknown>[], request) => {
        const channel = channelOf(ctx, request)
        return list.map(({ channelName, ...s }) => (s.userId === channel?.ownerId ? s : { ...s, channelName }))
      }),
  },
  {
    name: 'deep-subscriptions-last-unsubscribe-204',
    area: 'subscriptions',
    depth: 'deep',
    clause: ['subscriptions.unsubscribe.response', 'subscriptions.unsubscribe.count'],
    description: 'unsubscribe answers 204 No Content, without {message, code}, when it leaves the channel with no subscriber',
    install: (app, ctx) =>
      rewriteJson(app, 'subscriptions.unsubscribe', (body, request, reply) => {
        const channel = channelOf(ctx, request)
        if (!channel || ctx.store.listSubscriptions(channel.channelId).length > 0) return body
        reply.code(204)
        return undefined
      }),
  },
  // written blind, round 1 (docs/detection.md, "Faults written blind")
  {
    name: 'deep-resubscribe-not-listed',
    clause: 'subscriptions.subscribe.listed',
    area: 'subscriptions',
    depth: 'deep',
    description: 'a user who unsubscribed and subscribes again is answered a subId but never listed again',
    wrapStore(store) {
      const left = new Set<string>()
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId: string, userId: string) => {
          const n = inner.removeSubscriptions(channelId, userId)
          if (n > 0) left.add(`${channelId}\n${userId}`)
          return n
        },
        addSubscription: (inner) => (subscription: SubscriptionRecord) => {
          if (!left.has(`${subscription.channelId}\n${subscription.userId}`)) inner.addSubscription(subscription)
        },
      })
    },
  },
  {
    name: 'deep-owner-unsubscribe-clears',
    clause: 'subscriptions.unsubscribe.own-only',
    area: 'subscriptions',
    depth: 'deep',
    description: "the channel owner's unsubscribe also cancels every other subscriber's subscription",
    wrapStore(store) {
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId: string, userId: string) => {
          const channel = inner.getChannel(channelId)
          if (channel?.ownerId === userId) {
            for (const s of [...inner.listSubscriptions(channelId)]) if (s.userId !== userId) inner.removeSubscriptions(channelId, s.userId)
          }
          return inner.removeSubscriptions(channelId, userId)
        },
      })
    },
  },
  // written blind, round 2 (docs/detection.md, "Faults written blind")
  {
    name: 'deep-unsubscribe-drops-next-in-crowd',
    clause: 'subscriptions.unsubscribe.own-only',
    area: 'subscriptions',
    depth: 'deep',
    description: "on a channel with three or more subscriptions, unsubscribe also cancels the one listed after the caller's",
    wrapStore(store) {
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const list = inner.listSubscriptions(channelId)
          const at = list.findIndex((s) => s.userId === userId)
          const next = list.length >= 3 && at >= 0 ? list[at + 1] : undefined
          const n = inner.removeSubscriptions(channelId, userId)
          if (next && next.userId !== userId) inner.removeSubscriptions(channelId, next.userId)
          return n
        },
      })
    },
  },
  // written blind, round 3 (docs/detection.md, "Round 3")
  unsubscribeHashOwner,
  subscriptionByDevice(),
  // written blind, round 4 (docs/detection.md, "Round 4")
  subscriberListCache(),
  unsubscribeByDevice(),
  raceSubscribeLost,
]

// Written blind, round 3 (docs/detection.md, "Round 3"); listed in the array below.

const tagCommaSplit: CatalogFault = {
  name: 'r3-tag-comma-split',
  clause: 'tags.add.visible',
  area: 'tags',
  depth: 'deep',
  description: 'tags are kept as a comma-joined list: a tag containing "," comes back split into several tags',
  wrapStore: (store) =>
    overrideStore(store, {
      addTags: (inner) => (channelId, tags, at) =>
        inner.addTags(
          channelId,
          tags.flatMap((t) => t.split(',')).filter((t) => t !== ''),
          at,
        ),
    }),
}

// Written blind, round 4 (docs/detection.md, "Round 4"), from the spec alone; listed in the array below.

const raceTagsLost: CatalogFault = {
  name: 'r4-race-tags-lost',
  clause: 'tags.add.visible',
  area: 'tags',
  depth: 'deep',
  description: 'add tags reads the tag list, waits on I/O, then writes back what it read plus its own tags: tags added concurrently are lost',
  install(app, ctx) {
    wrapHandler(
      app,
      'tags.add',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          let channel: Readonly<ChannelRecord> | undefined
          const caller = callerId(request)
          const body = request.body as { personal?: boolean; tags: string[] }
          try {
            if (caller !== undefined) channel = resolveChannel(ctx, caller, (request.params as { channel: string }).channel, personal(body.personal ?? false))
          } catch {
            channel = undefined
          }
          const before = new Set(channel?.tags ?? [])
          await sleep(RACE_WINDOW_MS)
          const result = await (original as Function).call(this, request, reply)
          const now = channel ? ctx.store.getChannel(channel.channelId) : undefined
          if (now) {
            for (const t of [...now.tags]) if (!before.has(t) && !body.tags.includes(t)) ctx.store.removeTag(now.channelId, t, ctx.clock.now())
          }
          return result
        } as never,
    )
  },
}

export const DEEP_TAG_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-tags-delete-one-prefix',
    area: 'tags',
    depth: 'deep',
    clause: 'tags.delete-one.removes',
    description: "delete one tag removes every tag that starts with it (a LIKE 'tag%' match)",
    wrapStore: (store) =>
      overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => {
          const hits = (inner.getChannel(channelId)?.tags ?? []).filter((t) => t.startsWith(tag))
          for (const t of hits) inner.removeTag(channelId, t, at)
          return hits.length > 0
        },
      }),
  },
  {
    name: 'deep-tags-delete-all-skips-every-second',
    area: 'tags',
    depth: 'deep',
    clause: ['tags.delete-all.removes', 'private.tags-personal'],
    description: 'delete all tags removes tags one by one from the list it is walking: every second tag stays',
    wrapStore: (store) =>
      overrideStore(store, {
        clearTags: (inner) => (channelId, at) => {
          const live = inner.getChannel(channelId)?.tags ?? []
          let removed = 0
          for (let i = 0; i < live.length; i++) if (inner.removeTag(channelId, live[i]!, at)) removed++
          return removed
        },
      }),
  },
  {
    name: 'deep-tags-add-new-201',
    area: 'tags',
    depth: 'deep',
    clause: 'tags.add.response',
    description: 'add tags answers 201 Created when it stored new tags (200 only when every tag was there already)',
    install: (app) =>
      rewriteJson(app, 'tags.add', (body, _request, reply) => {
        if (!/^0 /.test(String(body.message))) reply.code(201)
        return { ...body, code: reply.statusCode }
      }),
  },
  {
    name: 'deep-tags-delete-first-204',
    area: 'tags',
    depth: 'deep',
    clause: ['tags.delete-one.status', 'private.tags-personal'],
    description: "delete one tag answers 204 No Content when the tag deleted was the channel's first",
    install: (app, ctx) => {
      addRouteHook(app, 'tags.deleteOne', 'preHandler', async (request: FastifyRequest) => {
        wasFirstTag.set(request, channelOf(ctx, request)?.tags[0] === (request.params as { tag: string }).tag)
      })
      rewriteJson(app, 'tags.deleteOne', (body, request, reply) => {
        if (!wasFirstTag.get(request)) return body
        reply.code(204)
        return undefined
      })
    },
  },
  {
    name: 'deep-tags-astral-500',
    area: 'http',
    depth: 'deep',
    clause: 'http.valid-request-answered',
    description: 'a tag holding a character outside the Basic Multilingual Plane (an emoji) is answered 500, as a 3-byte utf8 column does',
    install(app) {
      addRouteHook(app, 'tags.add', 'preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
        const tags = (request.body as { tags?: unknown[] } | undefined)?.tags ?? []
        if (tags.some((t) => typeof t === 'string' && /[\u{10000}-\u{10FFFF}]/u.test(t)))
          return reply.code(500).send({ code: 500, message: 'Incorrect string value for column tag' })
      })
    },
  },
  {
    name: 'deep-tags-deleted-tag-still-searchable',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.search.by-tag',
    description: 'search by tag reads an index that learns of added tags but never of removed ones: a deleted tag still finds its channel',
    wrapStore(store) {
      const ghosts = new Map<string, Set<string>>()
      const haunt = (channelId: string, tags: readonly string[]) => {
        const set = ghosts.get(channelId) ?? new Set<string>()
        for (const t of tags) set.add(t)
        ghosts.set(channelId, set)
      }
      return overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => {
          haunt(channelId, [tag])
          return inner.removeTag(channelId, tag, at)
        },
        clearTags: (inner) => (channelId, at) => {
          haunt(channelId, inner.getChannel(channelId)?.tags ?? [])
          return inner.clearTags(channelId, at)
        },
        deleteChannel: (inner) => (channelId) => {
          ghosts.delete(channelId)
          return inner.deleteChannel(channelId)
        },
        listPublicChannels: (inner) => () =>
          inner.listPublicChannels().map((ch) => (ghosts.has(ch.channelId) ? { ...ch, tags: [...new Set([...ch.tags, ...ghosts.get(ch.channelId)!])] } : ch)),
      })
    },
  },
  // written blind, round 1 (docs/detection.md, "Faults written blind")
  {
    name: 'deep-tags-mixed-batch-dropped',
    clause: 'tags.add.visible',
    area: 'tags',
    depth: 'deep',
    description: 'an add-tags batch that repeats a tag the channel has is dropped whole, its new tags with it',
    wrapStore(store) {
      return overrideStore(store, {
        addTags: (inner) => (channelId: string, tags: readonly string[], at: number) => {
          const has = inner.getChannel(channelId)?.tags ?? []
          if (tags.some((t) => has.includes(t))) return 0
          return inner.addTags(channelId, tags, at)
        },
      })
    },
  },
  {
    name: 'deep-tags-race-lost-update',
    clause: 'tags.add.visible',
    area: 'tags',
    depth: 'deep',
    description: 'add tags reads the tag list, waits, then writes it back whole: of two racing adds one is lost',
    consequences: [
      {
        clause: 'tags.delete-one.removes',
        reason: 'an add that writes back the list it read before a delete at the same moment brings the deleted tag back',
      },
      {
        clause: 'tags.delete-all.removes',
        reason: 'an add that writes back the list it read before a delete of all tags at the same moment brings the deleted tags back',
      },
    ],
    install(app, ctx) {
      wrapHandler(app, 'tags.add', (original) => {
        const handler: Handler = async function (request, reply) {
          const { user } = request.caller as { user: { userId: string } }
          const body = request.body as { tags: string[]; personal?: boolean }
          const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel, personal(body.personal ?? false))
          const before = [...channel.tags]
          await new Promise((resolve) => setTimeout(resolve, 60))
          const answer = await (original as Handler).call(this, request, reply)
          // Write back what was read plus this request's tags, over whatever others added meanwhile.
          const now = ctx.clock.now()
          ctx.store.clearTags(channel.channelId, now)
          ctx.store.addTags(channel.channelId, [...before, ...body.tags], now)
          return answer
        }
        return handler as typeof original
      })
    },
  },
  // written blind, round 2 (docs/detection.md, "Faults written blind")
  {
    name: 'deep-delete-last-tag-removes-first',
    clause: 'tags.delete-one.removes',
    area: 'tags',
    depth: 'deep',
    description: 'deleting the last of three or more tags removes the first tag instead',
    wrapStore(store) {
      return overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => {
          const tags = inner.getChannel(channelId)?.tags ?? []
          if (tags.length >= 3 && tags[tags.length - 1] === tag) return inner.removeTag(channelId, tags[0]!, at)
          return inner.removeTag(channelId, tag, at)
        },
      })
    },
  },
  // written blind, round 3 (docs/detection.md, "Round 3")
  tagCommaSplit,
  // written blind, round 4 (docs/detection.md, "Round 4")
  raceTagsLost,
]
