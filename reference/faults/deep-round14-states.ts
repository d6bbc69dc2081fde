/** Blind round 14 (docs/detection.md), states and sequences: deep faults written from the spec alone, without reading the suite. */
import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context'
import type { SubscriptionRecord } from '../model'
import type { Store } from '../store'
import { routeScope } from './common'
import { lower, overrideCtxStore, pairKey } from './deep-common'
import { overrideStore, rewriteJson } from './kit'
import type { CatalogFault } from './types'

/**
 * §4.2 "Delete one tag: DELETE /channels/{channel_name}/tags/{tag}?personal=<boolean>" (the tag is removed).
 *
 * Tags are rows of a (channel, tag) table without a unique key: adding a tag the channel already has inserts a
 * second row. Get tags selects DISTINCT, so nothing shows; delete one tag deletes one row (LIMIT 1), so a tag
 * that was added twice (in two add calls) is still listed after it was deleted.
 */
function tagsReaddDuplicateRow(): Pick<CatalogFault, 'wrapStore'> {
  return {
    wrapStore: (store) => {
      // Per channel, per tag: rows beyond the first.
      const extra = new Map<string, Map<string, number>>()
      return overrideStore(store, {
        addTags: (inner) => (channelId, tags, at) => {
          const channel = inner.getChannel(channelId)
          if (channel) {
            const rows = extra.get(channelId) ?? new Map<string, number>()
            for (const t of new Set(tags)) if (channel.tags.includes(t)) rows.set(t, (rows.get(t) ?? 0) + 1)
            extra.set(channelId, rows)
          }
          return inner.addTags(channelId, tags, at)
        },
        removeTag: (inner) => (channelId, tag, at) => {
          const rows = extra.get(channelId)
          const n = rows?.get(tag) ?? 0
          if (n > 0 && inner.getChannel(channelId)?.tags.includes(tag)) {
            rows!.set(tag, n - 1)
            return true
          }
          return inner.removeTag(channelId, tag, at)
        },
        clearTags: (inner) => (channelId, at) => {
          extra.delete(channelId)
          return inner.clearTags(channelId, at)
        },
        deleteChannel: (inner) => (channelId) => {
          extra.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
  }
}

/**
 * §2.3 "maxItems | integer | maximum number of items kept; -1 means unlimited"; §4.2 "Fetch items by date
 * range" (the items published in the range).
 *
 * Eviction goes by an item counter kept on the channel (+1 on publish, -1 on eviction and on delete by id), not by
 * the items held. Delete all items empties the item table but does not reset the counter: a channel that held
 * items when it was emptied then evicts too early, and a channel emptied when full keeps one item at a time.
 */
function itemsEvictCounterAfterEmpty(): Pick<CatalogFault, 'wrapStore'> {
  return {
    wrapStore: (store) => {
      const counter = new Map<string, number>()
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          const channelId = item.channelId
          if (!inner.getChannel(channelId)) return []
          let n = counter.get(channelId) ?? inner.listItems(channelId).length
          const evicted: string[] = []
          if (maxItems >= 0 && n >= maxItems) {
            const oldest = inner.listItems(channelId)[0]
            if (oldest && inner.deleteItem(channelId, oldest.itemId)) evicted.push(oldest.itemId)
            n--
          }
          evicted.push(...inner.addItem(item, -1))
          counter.set(channelId, n + 1)
          return evicted
        },
        deleteItem: (inner) => (channelId, itemId) => {
          const deleted = inner.deleteItem(channelId, itemId)
          const n = counter.get(channelId)
          if (deleted && n !== undefined) counter.set(channelId, n - 1)
          return deleted
        },
        // clearItems is the store's own: the counter stays as it was.
        deleteChannel: (inner) => (channelId) => {
          counter.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
  }
}

/**
 * §4.2 "Get items by id: GET /channels/{channel_name}/items?id=<item_id>&id=<item_id>" ("id repeats once per
 * item": each id names one item).
 *
 * An item id is the channel's key and a sequence number taken as "items in the channel + 1". Once an item is
 * gone (deleted by id, or evicted by maxItems), the next publish gets the id of the channel's newest item: that
 * id then answers the new item, and the older item it named can no longer be fetched by it.
 */
function itemsIdFromCount(): Pick<CatalogFault, 'wrapStore'> {
  return {
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          // The route answers messageId from this record after the store call, so the id it answers is this one.
          item.itemId = `${item.channelId}-${inner.listItems(item.channelId).length + 1}`
          return inner.addItem(item, maxItems)
        },
      }),
  }
}

/**
 * §2.3 "creator | composite owner identifier: user id, then a separator, then a user-name and domain part, then
 * a slash and device id" (the device of the channel's creation: a channel's creator does not change).
 *
 * The channel views join the owner's user row for the device part of creator, and the user row keeps the device
 * of its latest sign-in: once the owner signs in on another device, every channel it created before names that
 * device, in get-by-name and in search alike.
 */
function channelsCreatorLatestDevice(): Pick<CatalogFault, 'install'> {
  return {
    install(app: FastifyInstance, ctx: ServerContext) {
      const lastDevice = new Map<string, string>()
      const withLatest = (creator: unknown): unknown => {
        if (typeof creator !== 'string') return creator
        const at = creator.indexOf('@')
        const slash = creator.indexOf('/', at)
        const percent = creator.indexOf('%')
        if (at < 0 || slash < 0 || percent < 0) return creator
        const device = lastDevice.get(creator.slice(0, percent))
        return device === undefined ? creator : `${creator.slice(0, slash + 1)}${device}`
      }
      overrideCtxStore(ctx, {
        registerDevice: (inner) => (userId, deviceId, at) => {
          lastDevice.set(userId, deviceId)
          inner.registerDevice(userId, deviceId, at)
        },
      })
      rewriteJson(app, 'channels.getByName', (body) => (body && typeof body === 'object' ? { ...body, creator: withLatest(body.creator) } : body))
      rewriteJson(app, 'channels.search', (body) =>
        body && Array.isArray(body.results)
          ? { ...body, results: body.results.map((r: Record<string, unknown>) => ({ ...r, creator: withLatest(r.creator) })) }
          : body,
      )
    },
  }
}

/**
 * §4.2 "List subscribers: GET /channels/{channel_name}/subscriptions. Response 200: array of Subscription" (a
 * user who subscribed is listed).
 *
 * Subscribe's "already subscribed" check reads the user's own map of subscriptions keyed by channel name. Unsubscribe
 * updates that map; delete channel removes the channel's subscriptions but not the users' map entries. After a
 * channel is deleted and created again under its name, a user who was subscribed to the old one is answered
 * "already subscribed" (with the old subId) and is never listed. The same name key also mixes a public channel
 * with a private channel of the same name.
 */
function subscriptionsNameIndexAfterDelete(): Pick<CatalogFault, 'install'> {
  const nameKey = (store: Store, channelId: string, userId: string): string | undefined => {
    const channel = store.getChannel(channelId)
    return channel ? pairKey(userId, lower(channel.name)) : undefined
  }
  return {
    install(app: FastifyInstance, ctx: ServerContext) {
      const scope = routeScope()
      const byName = new Map<string, SubscriptionRecord>()
      overrideCtxStore(ctx, {
        addSubscription: (inner) => (subscription) => {
          inner.addSubscription(subscription)
          const k = nameKey(inner, subscription.channelId, subscription.userId)
          if (k !== undefined) byName.set(k, subscription)
        },
        removeSubscriptions: (inner) => (channelId, userId) => {
          const k = nameKey(inner, channelId, userId)
          if (k !== undefined) byName.delete(k)
          return inner.removeSubscriptions(channelId, userId)
        },
        findSubscription: (inner) => (channelId, userId) => {
          const found = inner.findSubscription(channelId, userId)
          if (found || !scope.active()) return found
          const k = nameKey(inner, channelId, userId)
          return k === undefined ? undefined : byName.get(k)
        },
      })
      scope.install(app, 'subscriptions.subscribe')
    },
  }
}

export const ROUND14_STATE_FAULTS: CatalogFault[] = [
  {
    name: 'r14b-tags-readd-duplicate-row',
    area: 'tags',
    depth: 'deep',
    clause: 'tags.delete-one.removes',
    description:
      'adding a tag the channel already has stores a second row (get tags shows it once); delete one tag removes one row, so a tag added twice is still listed after its delete',
    ...tagsReaddDuplicateRow(),
  },
  {
    name: 'r14b-items-evict-counter-after-empty',
    area: 'items',
    depth: 'deep',
    clause: ['items.max-items', 'items.fetch.range'],
    description:
      'eviction goes by a per-channel item counter that delete all items does not reset: a channel with maxItems emptied while holding items evicts too early afterwards (emptied when full, it keeps one item at a time)',
    ...itemsEvictCounterAfterEmpty(),
  },
  {
    name: 'r14b-items-id-from-count',
    area: 'items',
    depth: 'deep',
    clause: 'items.get.by-ids',
    description:
      "item ids are the channel's item count + 1: after a delete by id (or an eviction) the next publish reuses the newest item's id, and get by id of that id answers the new item instead",
    consequences: [
      {
        clause: 'items.delete.removes',
        reason: 'two items share one id after a delete by id and a publish: a later delete by that id removes the wrong one of them, or both',
      },
      {
        clause: 'items.delete-all.empties',
        reason:
          'two items share one id after a delete by id and a publish (or an eviction): the store, which finds items by id, then holds one it no longer reaches, and a delete of all items leaves it behind',
      },
    ],
    ...itemsIdFromCount(),
  },
  {
    name: 'r14b-channels-creator-latest-device',
    area: 'channels',
    depth: 'deep',
    clause: ['channels.record.fixed', 'channels.get.creator-device'],
    description:
      "creator's device part is the owner's latest sign-in device: once the owner signs in on another device, its earlier channels name that device in get-by-name and search",
    ...channelsCreatorLatestDevice(),
  },
  {
    name: 'r14b-subscriptions-name-index-after-delete',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.subscribe.listed',
    description:
      'the "already subscribed" check reads a per-user map keyed by channel name that delete channel leaves: a subscriber of a deleted channel who subscribes to the re-created one is answered "already subscribed" and not listed',
    ...subscriptionsNameIndexAfterDelete(),
  },
]
