/** Blind round 15 (docs/detection.md), people, devices and races: deep faults written from the spec alone, without reading the suite. */
import type { FastifyRequest } from 'fastify'
import { personal, resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import type { ChannelRecord, SubscriptionRecord } from '../model'
import { callerId, overrideCtxStore, pairKey, sleep, tryResolve } from './deep-common'
import { aroundHandler, overrideStore } from './kit'
import type { CatalogFault } from './types'

/** How long the sign-in's re-indexing of the user keeps it out of the search index. */
const REINDEX_MS = 40

/**
 * §2.4 "lastPublishedTime | timestamp (UTC)"; §4.2 Channel summary (clause channels.summary.last-published:
 * "lastPublishedTime moves with each publish").
 *
 * Publish stamps the channel's last-publish time with an update keyed by the publisher and the name
 * (`UPDATE channels SET last_published = ? WHERE owner_id = :publisher AND name = :name`), written with the
 * owner publishing to its own channel in mind: when another user publishes, the update matches no row, so
 * lastPublishedTime moves only with the owner's publishes (and stays at the creation time when only others
 * published). One user publishing to its own channels never shows it.
 */
const lastPublishedOwnerOnly: CatalogFault = {
  name: 'r15d-channels-last-published-owner-only',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.summary.last-published',
  description:
    "publish updates the channel's lastPublishedTime with a write keyed by the publisher as owner: another user's publish stores the item but leaves lastPublishedTime where the owner's last publish (or the creation) put it",
  wrapStore: (store) =>
    overrideStore(store, {
      addItem: (inner) => (item, maxItems) => {
        const channel = inner.getChannel(item.channelId) as ChannelRecord | undefined
        const before = channel?.lastPublishedAt ?? null
        const evicted = inner.addItem(item, maxItems)
        if (channel && channel.ownerId !== item.publisherId) channel.lastPublishedAt = before
        return evicted
      },
    }),
}

/**
 * §4.1 "Search users: GET /user/query?q=<property>:<value> … property is one of userName, …, userIdentifier …
 * Response: array of User" (clause users.search.property).
 *
 * Each sign-in re-indexes the user's search document (its last sign-in changed): the document is removed,
 * the new one is built across an await, then it is added back. A search that runs while any sign-in of
 * that user is in flight (the user signing in on another device, say) does not find the user, by any
 * property, though the user exists before, during and after. Sequential calls never show it.
 */
const searchReindexOnSignIn: CatalogFault = {
  name: 'r15d-users-search-reindex-on-signin',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  consequences: [
    {
      clause: 'users.search.wildcard',
      reason: 'a wildcard search running during a sign-in of the user it should find misses that user too',
      sometimes: "only when one of the run's sign-ins of that user falls inside a wildcard search",
    },
  ],
  description:
    'sign-in removes the user from the search index and adds it back after a ~40 ms await: a user search running during a sign-in of that user (on another device, say) does not find the user',
  install(app) {
    const reindexing = new Map<string, number>()
    aroundHandler(app, 'users.signIn', async (_request, reply, next) => {
      const session = (await next()) as { user?: { userIdentifier?: string } } | undefined
      const userId = session?.user?.userIdentifier
      if (reply.statusCode >= 400 || typeof userId !== 'string') return session
      reindexing.set(userId, (reindexing.get(userId) ?? 0) + 1)
      try {
        await sleep(REINDEX_MS)
      } finally {
        const n = (reindexing.get(userId) ?? 1) - 1
        if (n <= 0) reindexing.delete(userId)
        else reindexing.set(userId, n)
      }
      return session
    })
    aroundHandler(app, 'users.query', async (_request, _reply, next) => {
      const found = await next()
      return Array.isArray(found) ? found.filter((u: { userIdentifier?: string }) => !reindexing.has(u.userIdentifier ?? '')) : found
    })
  },
}

/**
 * §4.2 "Add tags: POST /channels/{channel_name}/tags … Get tags: GET /channels/{channel_name}/tags. Response
 * 200: {channelName (string), tags (array of string)}" (clauses tags.add.visible: added tags are returned by
 * get tags; tags.delete-one.removes; tags.delete-all.removes).
 *
 * Get tags is cached per caller and channel (the key holds the caller because a plain name resolves per
 * caller). Add and delete tags evict the entry of the user who made the change, the owner, only: another
 * user who read the tags before keeps being answered the old list (tags added since missing, tags deleted
 * since still there). The owner's own reads are right.
 */
const tagsCachePerCaller: CatalogFault = {
  name: 'r15d-tags-get-cache-per-caller',
  area: 'tags',
  depth: 'deep',
  clause: ['tags.add.visible', 'tags.delete-one.removes', 'tags.delete-all.removes'],
  description:
    "get tags is cached per (caller, channel) and add/delete tags evict only the changing owner's entry: another user who read the tags before keeps getting the old list",
  install(app, ctx) {
    const cache = new Map<string, unknown>()
    aroundHandler(app, 'tags.get', async (request, _reply, next) => {
      const me = callerId(request)
      const channel = tryResolve(ctx, request)
      if (!me || !channel) return next()
      const key = pairKey(me, channel.channelId)
      const hit = cache.get(key)
      if (hit !== undefined) return structuredClone(hit)
      const body = await next()
      cache.set(key, structuredClone(body))
      return body
    })
    const evictOwn = (id: string, personalOf: (request: FastifyRequest) => boolean) =>
      aroundHandler(app, id, async (request, _reply, next) => {
        const me = callerId(request)
        const channel = me ? changedChannel(ctx, request, me, personalOf(request)) : undefined
        const body = await next()
        if (me && channel) cache.delete(pairKey(me, channel.channelId))
        return body
      })
    evictOwn('tags.add', (request) => (request.body as { personal?: boolean } | undefined)?.personal === true)
    evictOwn('tags.deleteOne', (request) => (request.query as { personal?: boolean }).personal === true)
    evictOwn('tags.deleteAll', (request) => (request.query as { personal?: boolean }).personal === true)
  },
}

/** The channel a tag write addresses, as the tag routes resolve it (personal picks own private or public). */
function changedChannel(ctx: ServerContext, request: FastifyRequest, me: string, isPersonal: boolean): Readonly<ChannelRecord> | undefined {
  try {
    return resolveChannel(ctx, me, (request.params as { channel: string }).channel, personal(isPersonal))
  } catch {
    return undefined
  }
}

/**
 * §2.3 "maxItems | integer | maximum number of items kept; -1 means unlimited" (clause items.max-items: a
 * channel keeps at most maxItems items).
 *
 * After a publish, eviction counts and trims the items of the channel published by the same user (the count
 * query carries the publisher filter of the "own items" query it was copied from). A channel with one
 * publisher keeps maxItems items; with two publishers it keeps up to maxItems items of each.
 */
const maxItemsPerPublisher: CatalogFault = {
  name: 'r15d-items-max-items-per-publisher',
  area: 'items',
  depth: 'deep',
  clause: 'items.max-items',
  description:
    "eviction counts only the publishing user's items of the channel: with two users publishing, a channel keeps up to maxItems items of each, more than maxItems in all",
  wrapStore: (store) =>
    overrideStore(store, {
      addItem: (inner) => (item, maxItems) => {
        inner.addItem(item, -1)
        if (maxItems < 0) return []
        const mine = inner.listItems(item.channelId).filter((i) => i.publisherId === item.publisherId)
        const excess = mine.slice(0, Math.max(0, mine.length - maxItems))
        for (const old of excess) inner.deleteItem(item.channelId, old.itemId)
        return excess.map((old) => old.itemId)
      },
    }),
}

/**
 * §4.2 "List subscribers: GET /channels/{channel_name}/subscriptions. Response 200: array of Subscription";
 * §2.5 Subscription "userId … deviceId" (clause subscriptions.subscribe.listed: a subscriber is listed among
 * the channel's subscriptions); §4.1 "MMS-DEVICE-ID (required, any value)".
 *
 * A sign-in on a device id that another user's subscriptions were made from is taken for a device handed
 * over to a new user: the device's registrations are reset, which cancels the earlier user's subscriptions
 * made from that device id. That user never unsubscribed, yet is no longer listed. A user signing in again
 * on its own device, or users on distinct device ids, never show it.
 */
const deviceHandoverCancelsSubscriptions: CatalogFault = {
  name: 'r15d-subscriptions-device-handover-cancels',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description:
    "a sign-in on a device id from which another user subscribed resets the device: that other user's subscriptions made from it are cancelled and no longer listed",
  install(app, ctx) {
    const made: SubscriptionRecord[] = []
    overrideCtxStore(ctx, {
      addSubscription: (inner) => (subscription) => {
        inner.addSubscription(subscription)
        made.push(subscription)
      },
    })
    aroundHandler(app, 'users.signIn', async (request, reply, next) => {
      const session = (await next()) as { user?: { userIdentifier?: string } } | undefined
      const userId = session?.user?.userIdentifier
      const deviceId = request.headers['mms-device-id']
      if (reply.statusCode >= 400 || typeof userId !== 'string' || typeof deviceId !== 'string') return session
      // Only subscriptions still in place: one cancelled or replaced since is forgotten.
      const live = made.filter((s) => ctx.store.findSubscription(s.channelId, s.userId)?.subscriptionId === s.subscriptionId)
      made.length = 0
      for (const s of live) {
        if (s.deviceId === deviceId && s.userId !== userId) ctx.store.removeSubscriptions(s.channelId, s.userId)
        else made.push(s)
      }
      return session
    })
  },
}

export const ROUND15_DEVICE_RACE_FAULTS: readonly CatalogFault[] = [
  lastPublishedOwnerOnly,
  searchReindexOnSignIn,
  tagsCachePerCaller,
  maxItemsPerPublisher,
  deviceHandoverCancelsSubscriptions,
]
