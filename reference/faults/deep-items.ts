import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { assertOwner, personal, resolveChannel } from '../channel-address'
import { fail } from '../errors'
import { newId } from '../ids'
import { MAX_PAYLOAD_SIZE, payloadSize } from '../limits'
import type { ItemRecord } from '../model'
import type { CatalogFault } from './types'
import { permissionSeenAs, routeScope, setQuery } from './common'
import { call, channelOf, note, ownerWhen, sizeOneMeansAll, tombstones, type Handler, type Query } from './deep-common'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'

/**
 * Deep faults of items (§4.2 publish, get by id, fetch, delete; §2.3 maxItems and publishPermission): each
 * shows only at a boundary (maxItems 1, size 1, a full channel), in an order (DESC with an offset), for
 * several ids, or after a sequence (unsubscribe, a subscriber, another publisher).
 */

/** Nested objects for dotted keys, the way a document store that reads `a.b` as a path would keep them. */
function nestDottedKeys(content: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(content)) {
    const parts = k.split('.')
    if (parts.length < 2 || parts.some((p) => p === '')) {
      out[k] = v
      continue
    }
    let at = out
    for (const p of parts.slice(0, -1)) {
      const next = at[p]
      at = (at[p] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}) as Record<string, unknown>
    }
    at[parts[parts.length - 1]!] = v
  }
  return out
}

/** The path segment of a channel as the client sent it (`%23` decoded), for faults keyed on the address form. */
const channelParam = (request: FastifyRequest): string => (request.params as { channel?: string }).channel ?? ''

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const maxItemsAs =
  (map: (maxItems: number) => number): CatalogFault['wrapStore'] =>
  (store) =>
    overrideStore(store, { addItem: (inner) => (item, maxItems) => inner.addItem(item, map(maxItems)) })

const descending = note<boolean>()
const publishing = routeScope()

// Written blind, round 3 (docs/detection.md, "Round 3"); listed in the array below.

const CONTENT_COLUMN = 4000
function truncateStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > CONTENT_COLUMN ? value.slice(0, CONTENT_COLUMN) : value
  if (Array.isArray(value)) return value.map(truncateStrings)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, truncateStrings(v)]))
  return value
}

const contentTruncated: CatalogFault = {
  name: 'r3-content-long-string-truncated',
  clause: 'items.content-intact',
  area: 'items',
  depth: 'deep',
  description: 'a content value longer than 4000 characters is stored cut to 4000 (a VARCHAR column), though the payload is far below maxPayloadSize',
  wrapStore: (store) =>
    overrideStore(store, {
      addItem: (inner) => (item, maxItems) => inner.addItem({ ...item, content: truncateStrings(item.content) as Record<string, unknown> }, maxItems),
    }),
}

function evictedGettable(): CatalogFault {
  const ghosts = new Map<string, ItemRecord>()
  const forget = (channelId: string) => {
    for (const [id, item] of ghosts) if (item.channelId === channelId) ghosts.delete(id)
  }
  return {
    name: 'r3-evicted-item-still-gettable',
    clause: 'items.max-items',
    area: 'items',
    depth: 'deep',
    description: 'eviction beyond maxItems drops the item from the channel list but not from the by-id index: get items by id still returns an evicted item',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          const before = [...inner.listItems(item.channelId), item]
          const evicted = inner.addItem(item, maxItems)
          for (const id of evicted) {
            const record = before.find((i) => i.itemId === id)
            if (record) ghosts.set(id, record)
          }
          return evicted
        },
        getItem: (inner) => (channelId, itemId) => {
          const found = inner.getItem(channelId, itemId)
          if (found) return found
          const ghost = ghosts.get(itemId)
          return ghost && ghost.channelId === channelId ? ghost : undefined
        },
        clearItems: (inner) => (channelId) => {
          forget(channelId)
          return inner.clearItems(channelId)
        },
        deleteChannel: (inner) => (channelId) => {
          forget(channelId)
          return inner.deleteChannel(channelId)
        },
      }),
  }
}

const deleteAllItemsHash: CatalogFault = {
  name: 'r3-delete-all-items-hash-address',
  clause: 'items.delete-all.owner-only',
  area: 'items',
  depth: 'deep',
  description:
    "delete all items takes the owner named in a <user_id>#<name> address as proof of ownership: any user empties another user's private channel that way",
  install(app, ctx) {
    addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      const raw = (request.params as { channel: string }).channel
      if (caller?.kind !== 'USER' || !raw.includes('#')) return
      const channel = channelOf(ctx, request)
      if (!channel || channel.ownerId === caller.user.userId) return
      const owner = ctx.store.getUser(channel.ownerId)
      if (owner) request.caller = { ...caller, user: owner }
    })
  },
}

function deleteItemOtherChannel(): CatalogFault {
  const scope = routeScope()
  const home = new Map<string, string>()
  return {
    name: 'r3-delete-item-other-channel',
    clause: 'items.delete.removes',
    area: 'items',
    depth: 'deep',
    description: "delete items by id looks items up by id alone: an id of another channel deletes that channel's item",
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          home.set(item.itemId, item.channelId)
          return inner.addItem(item, maxItems)
        },
        getItem: (inner) => (channelId, itemId) => {
          const found = inner.getItem(channelId, itemId)
          const other = home.get(itemId)
          return found ?? (scope.active() && other !== undefined ? inner.getItem(other, itemId) : undefined)
        },
        deleteItem: (inner) => (channelId, itemId) => {
          if (inner.deleteItem(channelId, itemId)) return true
          const other = home.get(itemId)
          return scope.active() && other !== undefined ? inner.deleteItem(other, itemId) : false
        },
      }),
    install: (app) => scope.install(app, 'items.deleteById'),
  }
}

// Written blind, round 4 (docs/detection.md, "Round 4"), from the spec alone; listed in the array below.

/** Content keys with a dot are written through a path setter (document store style): "a.b" becomes {a: {b}}. */
function expandDottedKeys(content: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(content)) {
    if (!key.includes('.')) {
      out[key] = value
      continue
    }
    const parts = key.split('.')
    let node = out
    for (const part of parts.slice(0, -1)) {
      const next = node[part]
      if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {}
      node = node[part] as Record<string, unknown>
    }
    node[parts[parts.length - 1]!] = value
  }
  return out
}

const contentDottedKeys: CatalogFault = {
  name: 'r4-content-dotted-keys',
  clause: 'items.content-intact',
  area: 'items',
  depth: 'deep',
  description: 'a content key containing "." is stored as a nested path ({"a.b":1} comes back as {"a":{"b":1}})',
  install(app) {
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content: Record<string, unknown> }
      if (Object.keys(body.content).some((k) => k.includes('.'))) body.content = expandDottedKeys(body.content)
    })
  },
}

const fetchOffsetPageRounding: CatalogFault = {
  name: 'r4-fetch-offset-page-rounding',
  clause: 'items.fetch.offset',
  area: 'items',
  depth: 'deep',
  description: 'fetch turns offset into a page number (offset / size, integer division): an offset that is not a multiple of size starts at the page boundary',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
      const { offset, size } = request.query as { offset: number; size: number }
      if (size > 0 && offset % size !== 0) setQuery(request, 'offset', Math.floor(offset / size) * size)
    })
  },
}

/** Get-by-id goes through an id cache that eviction (maxItems) does not invalidate. */
function evictedStillById(): CatalogFault {
  let ghosts = new Map<string, ItemRecord>()
  const scope = routeScope()
  return {
    name: 'r4-evicted-item-still-by-id',
    clause: 'items.max-items',
    area: 'items',
    depth: 'deep',
    description: 'an item evicted because the channel is at maxItems is still returned by get items by id (stale id cache)',
    wrapStore(store) {
      ghosts = new Map()
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          const before = [...inner.listItems(item.channelId)]
          const evicted = inner.addItem(item, maxItems)
          for (const id of evicted) {
            const old = before.find((i) => i.itemId === id)
            if (old) ghosts.set(id, old)
          }
          return evicted
        },
        getItem: (inner) => (channelId, itemId) => {
          const live = inner.getItem(channelId, itemId)
          if (live || !scope.active()) return live
          const ghost = ghosts.get(itemId)
          return ghost && ghost.channelId === channelId ? ghost : undefined
        },
        deleteItem: (inner) => (channelId, itemId) => {
          ghosts.delete(itemId)
          return inner.deleteItem(channelId, itemId)
        },
        clearItems: (inner) => (channelId) => {
          for (const [id, g] of ghosts) if (g.channelId === channelId) ghosts.delete(id)
          return inner.clearItems(channelId)
        },
        deleteChannel: (inner) => (channelId) => {
          for (const [id, g] of ghosts) if (g.channelId === channelId) ghosts.delete(id)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app) {
      scope.install(app, 'items.getById')
    },
  }
}

const refusedPublishKept: CatalogFault = {
  name: 'r4-refused-publish-kept',
  clause: 'items.permission.subscribers',
  area: 'items',
  depth: 'deep',
  description: 'on a subscribers-only channel the item of a non-subscriber is inserted before the check; the 403 does not roll it back',
  install(app, ctx) {
    wrapHandler(
      app,
      'items.publish',
      (original) =>
        function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const channel = channelOf(ctx, request)
          const caller = request.caller
          if (
            channel &&
            caller?.kind === 'USER' &&
            channel.publishPermission === 'subscribers' &&
            channel.ownerId !== caller.user.userId &&
            !ctx.store.findSubscription(channel.channelId, caller.user.userId)
          ) {
            const body = request.body as { content: Record<string, unknown>; messageType?: string; contentType?: string }
            if (payloadSize(body.content) <= MAX_PAYLOAD_SIZE) {
              ctx.store.addItem(
                {
                  itemId: newId(),
                  channelId: channel.channelId,
                  publisherId: caller.user.userId,
                  publisherDeviceId: caller.deviceId,
                  content: body.content,
                  messageType: body.messageType ?? null,
                  contentType: body.contentType ?? null,
                  publishedAt: ctx.clock.now(),
                },
                channel.maxItems,
              )
            }
          }
          return (original as Function).call(this, request, reply)
        } as never,
    )
  },
}

const hashAddressOwnerCheck: CatalogFault = {
  name: 'r4-hash-address-owner-check',
  clause: 'items.delete-all.owner-only',
  area: 'items',
  depth: 'deep',
  description:
    'delete all items compares the channel owner with the owner part of a <user_id>#<name> address instead of the caller: anyone deletes through that address',
  install(app, ctx) {
    addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      const raw = (request.params as { channel: string }).channel
      const hash = raw.indexOf('#')
      if (caller?.kind !== 'USER' || hash < 0) return
      const addressedOwner = raw.slice(0, hash)
      const channel = ctx.store.findPrivateChannel(addressedOwner, raw.slice(hash + 1))
      if (!channel || channel.ownerId !== addressedOwner || channel.ownerId === caller.user.userId) return
      const owner = ctx.store.getUser(channel.ownerId)
      if (owner) request.caller = { ...caller, user: owner }
    })
  },
}

/** Delete by id runs `DELETE FROM items WHERE id IN (…)` without the channel: an id of another channel is deleted too. */
function deleteItemAnyChannel(): CatalogFault {
  let channelOfItem = new Map<string, string>()
  const scope = routeScope()
  return {
    name: 'r4-delete-item-any-channel',
    clause: 'items.delete.removes',
    area: 'items',
    depth: 'deep',
    description: 'delete items by id ignores the channel in the path: the id of an item of another channel deletes that item',
    wrapStore(store) {
      channelOfItem = new Map()
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          channelOfItem.set(item.itemId, item.channelId)
          return inner.addItem(item, maxItems)
        },
        getItem: (inner) => (channelId, itemId) => {
          const own = inner.getItem(channelId, itemId)
          const home = channelOfItem.get(itemId)
          return own ?? (scope.active() && home !== undefined ? inner.getItem(home, itemId) : undefined)
        },
        deleteItem: (inner) => (channelId, itemId) => {
          if (inner.deleteItem(channelId, itemId)) return true
          const home = channelOfItem.get(itemId)
          return scope.active() && home !== undefined ? inner.deleteItem(home, itemId) : false
        },
      })
    },
    install(app) {
      scope.install(app, 'items.deleteById')
    },
  }
}

export const DEEP_ITEM_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-items-max-items-off-by-one',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-items',
    description: 'a full channel evicts one item too late: it keeps maxItems + 1 items',
    wrapStore: maxItemsAs((n) => (n >= 0 ? n + 1 : n)),
  },
  {
    name: 'deep-items-max-items-one-unlimited',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-items',
    description: 'maxItems 1 is taken for unlimited (a check of |maxItems| = 1): the channel keeps every item',
    wrapStore: maxItemsAs((n) => (n === 1 ? -1 : n)),
  },
  {
    name: 'deep-items-unlimited-keeps-four',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-items.unlimited',
    description: 'maxItems -1 is stored as a capacity of 4 (the default page size): a fifth item evicts the oldest',
    consequences: [
      { clause: 'channels.summary.count', reason: 'where the count is of the items kept, a channel that keeps four counts four of eight publishes' },
      {
        clause: 'items.delete.removes',
        reason:
          'the race check of publishes and deletes by id keeps more than four items in a channel of the default maxItems, so the oldest it must keep are evicted',
      },
    ],
    wrapStore: maxItemsAs((n) => (n < 0 ? 4 : n)),
  },
  {
    name: 'deep-items-fetch-desc-offset',
    area: 'items',
    depth: 'deep',
    clause: 'items.fetch.offset',
    description: 'fetch with sort_order=DESC takes the page in ASC order and then reverses it: offset and size count from the oldest item',
    install: (app) => {
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        const order = (request.query as { sort_order?: string }).sort_order
        if (order?.toUpperCase() !== 'DESC') return
        descending.set(request, true)
        setQuery(request, 'sort_order', 'ASC')
      })
      rewriteJson(app, 'items.fetch', (page, request) => (descending.get(request) ? { ...page, items: [...page.items].reverse() } : page))
    },
  },
  {
    name: 'deep-items-fetch-size-one',
    area: 'items',
    depth: 'deep',
    clause: 'items.fetch.size',
    description: 'fetch takes size=1 as no size (a "size > 1" test): every item in range comes back',
    install: sizeOneMeansAll('items.fetch'),
  },
  {
    name: 'deep-items-get-three-ids-only',
    area: 'items',
    depth: 'deep',
    clause: 'items.get.by-ids',
    description: 'get items by id reads at most three id parameters: a fourth id asked for is left out',
    install: (app) =>
      addRouteHook(app, 'items.getById', 'preHandler', async (request: FastifyRequest) => {
        setQuery(request, 'id', (request.query as { id: string[] }).id.slice(0, 3))
      }),
  },
  {
    name: 'deep-items-delete-ids-clears-channel',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete.removes',
    description: 'delete items by id with more than one id deletes every item of the channel',
    install: (app, ctx) =>
      rewriteJson(app, 'items.deleteById', (result, request) => {
        const channel = channelOf(ctx, request)
        if (channel && (request.query as { id: string[] }).id.length > 1) ctx.store.clearItems(channel.channelId)
        return result
      }),
  },
  {
    name: 'deep-items-delete-result-last-id',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete.result',
    description: 'delete items by id answers the status of the last id only (one key overwritten per id)',
    install: (app) =>
      rewriteJson(app, 'items.deleteById', (result: Record<string, number>, request) => {
        const ids = (request.query as { id: string[] }).id
        const last = ids[ids.length - 1]!
        return { [last]: result[last] }
      }),
  },
  {
    name: 'deep-items-publish-after-unsubscribe',
    area: 'items',
    depth: 'deep',
    clause: 'items.permission.subscribers',
    description: 'publishPermission subscribers counts cancelled subscriptions: a user who unsubscribed may still publish',
    ...tombstones('items.publish'),
  },
  {
    name: 'deep-items-owner-permission-as-subscribers',
    area: 'items',
    depth: 'deep',
    clause: 'items.permission.owner',
    description: 'publishPermission owner is enforced like subscribers: a subscribed non-owner may publish',
    wrapStore: (store) => permissionSeenAs(store, publishing.active, 'owner', 'subscribers'),
    install: (app) => publishing.install(app, 'items.publish'),
  },
  {
    name: 'deep-items-anyone-needs-subscribers',
    area: 'items',
    depth: 'deep',
    clause: 'items.permission.anyone',
    description: 'publishPermission anyone refuses everybody but the owner while the channel has no subscriber (an empty fan-out is taken for an error)',
    install: (app, ctx) =>
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const channel = channelOf(ctx, request)
        const caller = request.caller?.kind === 'USER' ? request.caller.user.userId : undefined
        if (channel?.publishPermission === 'anyone' && channel.ownerId !== caller && ctx.store.listSubscriptions(channel.channelId).length === 0) {
          throw fail('PUBLISH_FORBIDDEN', `channel ${channel.name} has no subscriber`)
        }
      }),
  },
  {
    name: 'deep-items-delete-all-private-no-owner-check',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete-all.owner-only',
    description: 'delete all items checks the owner on public channels only: anyone who can address a private channel empties it',
    install: (app, ctx) => ownerWhen(app, ctx, 'items.deleteAll', (channel) => channel.privateChannel),
  },
  {
    name: 'deep-items-delete-all-by-subscriber',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete-all.owner-only',
    description: 'delete all items lets a subscriber of the channel empty it (members are taken for owners)',
    install: (app, ctx) => ownerWhen(app, ctx, 'items.deleteAll', (channel, callerId) => ctx.store.findSubscription(channel.channelId, callerId) !== undefined),
  },
  {
    name: 'deep-items-delete-all-own-items-only',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete-all.empties',
    description: 'delete all items deletes only the items the owner published: items of other publishers stay',
    install: (app, ctx) =>
      wrapHandler(
        app,
        'items.deleteAll',
        () =>
          async function (request) {
            const { user } = callerOf(request)
            const channel = resolveChannel(
              ctx,
              user.userId,
              (request.params as { channel: string }).channel,
              personal((request.query as { personal: boolean }).personal),
            )
            assertOwner(channel, user.userId)
            const own = ctx.store.listItems(channel.channelId).filter((i) => i.publisherId === user.userId)
            for (const item of own) ctx.store.deleteItem(channel.channelId, item.itemId)
            return { code: 200, message: `${own.length} item(s) deleted from ${channel.name}` }
          },
      ),
  },
  {
    name: 'deep-items-delete-all-204',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete-all.status',
    description: 'delete all items answers 204 No Content when it removed items (200 only when there were none)',
    install: (app) =>
      rewriteJson(app, 'items.deleteAll', (body, _request, reply) => {
        if (/^0 /.test(String(body.message))) return body
        reply.code(204)
        return undefined
      }),
  },
  {
    name: 'deep-items-oversized-content-cut',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-payload',
    description: 'content over maxPayloadSize is cut down to fit and stored (201) instead of refused',
    install: (app) =>
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const body = request.body as { content: Record<string, unknown> }
        if (payloadSize(body.content) <= MAX_PAYLOAD_SIZE) return
        body.content = Object.fromEntries(Object.entries(body.content).map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 1024) : v]))
      }),
  },
  {
    name: 'deep-items-get-any-channel',
    area: 'items',
    depth: 'deep',
    clause: 'items.get.by-ids',
    description: "get items by id looks an id up among every channel's items, so another channel's item comes back through this one",
    wrapStore(store) {
      const everywhere = new Map<string, string>()
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          everywhere.set(item.itemId, item.channelId)
          return inner.addItem(item, maxItems)
        },
        getItem: (inner) => (channelId, itemId) => {
          const own = inner.getItem(channelId, itemId)
          if (own) return own
          const other = everywhere.get(itemId)
          return other === undefined ? undefined : inner.getItem(other, itemId)
        },
      })
    },
  },
  // written blind, round 1 (docs/detection.md, "Faults written blind")
  {
    name: 'deep-item-dotted-key',
    clause: 'items.content-intact',
    area: 'items',
    depth: 'deep',
    description: 'a content key with a dot ("a.b") is stored as a nested object, so the item comes back changed',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item: ItemRecord, maxItems: number) => inner.addItem({ ...item, content: nestDottedKeys(item.content) }, maxItems),
      })
    },
  },
  {
    name: 'deep-fetch-offset-zone',
    clause: 'items.fetch.range',
    area: 'items',
    depth: 'deep',
    description: 'fetch reads since/until with a non-zero numeric UTC offset as if they were UTC (the offset is dropped)',
    install(app) {
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        const q = request.query as Query
        for (const k of ['since', 'until']) {
          const v = q[k]
          if (typeof v === 'string') q[k] = v.replace(/[+ -]\d{2}:?\d{2}$/, 'Z')
        }
      })
    },
  },
  // written blind, round 2 (docs/detection.md, "Faults written blind")
  {
    name: 'deep-auth-delete-items-explicit-personal',
    clause: 'items.delete-all.owner-only',
    area: 'items',
    depth: 'deep',
    description: 'delete all items checks the owner only when personal is left out: a non-owner sending personal=false empties a public channel',
    install(app, ctx) {
      addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
        if (!/[?&]personal=false(?:&|$)/.test(request.url)) return
        const channel = ctx.store.findPublicChannel(channelParam(request))
        if (!channel || channel.ownerId === (request.caller?.kind === 'USER' ? request.caller.user.userId : '')) return
        const deleted = ctx.store.clearItems(channel.channelId)
        return reply.send({ code: 200, message: `${deleted} item(s) deleted from ${channel.name}` })
      })
    },
  },
  {
    name: 'deep-small-max-items-keeps-one-more',
    clause: 'items.max-items',
    area: 'items',
    depth: 'deep',
    description: 'a channel with maxItems 1 or 2 keeps one item more than maxItems',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem(item, maxItems >= 1 && maxItems <= 2 ? maxItems + 1 : maxItems),
      })
    },
  },
  {
    name: 'deep-delete-all-items-hash-address-skips-owner',
    clause: 'items.delete-all.owner-only',
    area: 'items',
    depth: 'deep',
    description: 'delete all items addressed as <user_id>#<channel_name> skips the owner-only rule',
    install(app, ctx) {
      wrapHandler(app, 'items.deleteAll', (original) => {
        const inner = original as Handler
        return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const raw = (request.params as { channel: string }).channel
          if (!raw.includes('#')) return inner.call(this, request, reply)
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, raw, personal((request.query as { personal: boolean }).personal))
          const deleted = ctx.store.clearItems(channel.channelId)
          return { code: 200, message: `${deleted} item(s) deleted from ${channel.name}` }
        } as never
      })
    },
  },
  {
    name: 'deep-concurrent-publish-lost',
    clause: ['items.max-items.unlimited', 'channels.summary.count'],
    area: 'items',
    depth: 'deep',
    description: 'a publish that arrives while another publish to the same channel is in flight is answered 201 but not stored',
    install(app) {
      const inFlight = new Map<string, number>()
      wrapHandler(app, 'items.publish', (original) => {
        const inner = original as Handler
        return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const key = (request.params as { channel: string }).channel.toLowerCase()
          const busy = (inFlight.get(key) ?? 0) > 0
          inFlight.set(key, (inFlight.get(key) ?? 0) + 1)
          try {
            // A short window in which a second publish finds the first one still running.
            await delay(5)
            if (busy) return reply.code(201).send({ message: 'item published', status: 'OK', messageId: newId() })
            return await inner.call(this, request, reply)
          } finally {
            inFlight.set(key, inFlight.get(key)! - 1)
          }
        } as never
      })
    },
  },
  // written blind, round 3 (docs/detection.md, "Round 3")
  contentTruncated,
  evictedGettable(),
  deleteAllItemsHash,
  deleteItemOtherChannel(),
  // written blind, round 4 (docs/detection.md, "Round 4")
  contentDottedKeys,
  fetchOffsetPageRounding,
  evictedStillById(),
  refusedPublishKept,
  hashAddressOwnerCheck,
  deleteItemAnyChannel(),
  // the records model (suites/records.test.ts): one item, one record, whoever reads it
  ...itemRecordFaults(),
  // a removal × the pages of a view (suites/views.test.ts)
  ghostPages('deleted'),
  ghostPages('evicted'),
]

/**
 * §4.2 offset and size: a fetch pages over every item the channel ever held (deleted or evicted ones kept as
 * tombstones in the index) and drops the tombstones after cutting the page, so a page comes back short and an
 * offset counts items that are gone. A fresh channel's pages are right.
 */
function ghostPages(kind: 'deleted' | 'evicted'): CatalogFault {
  const ghosts = new Map<string, ItemRecord[]>()
  const bury = (item: ItemRecord) => ghosts.set(item.channelId, [...(ghosts.get(item.channelId) ?? []), item])
  return {
    name: `deep-items-fetch-pages-count-${kind}`,
    area: 'items',
    depth: 'deep',
    clause: 'items.fetch.offset',
    consequences: [
      { clause: 'items.fetch.size', reason: "the page is cut before the tombstones are dropped, so a page of the holdings' count comes back short" },
    ],
    description: `fetch cuts its page from an index that still holds ${kind} items, then drops them: offset counts them and the page comes back short`,
    wrapStore: (store) =>
      overrideStore(store, {
        ...(kind === 'deleted'
          ? {
              deleteItem: (inner) => (channelId, itemId) => {
                const item = inner.getItem(channelId, itemId)
                const done = inner.deleteItem(channelId, itemId)
                if (done && item) bury({ ...item })
                return done
              },
            }
          : {
              addItem: (inner) => (item, maxItems) => {
                const before = [...inner.listItems(item.channelId)]
                const evicted = inner.addItem(item, maxItems)
                for (const id of evicted) {
                  const gone = before.find((i) => i.itemId === id)
                  if (gone) bury({ ...gone })
                }
                return evicted
              },
            }),
      }),
    install(app, ctx) {
      wrapHandler(
        app,
        'items.fetch',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const channel = channelOf(ctx, request)
            const buried = channel ? (ghosts.get(channel.channelId) ?? []) : []
            if (!buried.length) return call(original, this, request, reply)
            const query = request.query as { offset: number; size: number; sort_order?: string }
            const { offset, size } = query
            setQuery(request, 'offset', 0)
            setQuery(request, 'size', 100_000)
            const whole = (await call(original, this, request, reply)) as { totalCount: number; items: { itemId: string }[] }
            const at = (id: string) => ctx.store.getItem(channel!.channelId, id)?.publishedAt ?? 0
            const desc = (query.sort_order ?? 'ASC').toUpperCase() === 'DESC'
            const index = [...whole.items.map((i) => ({ live: i, t: at(i.itemId) })), ...buried.map((g) => ({ live: undefined, t: g.publishedAt }))].sort(
              (x, y) => (desc ? y.t - x.t : x.t - y.t),
            )
            const page = index.slice(offset, offset + size).flatMap((e) => (e.live ? [e.live] : []))
            return { ...whole, items: page }
          } as Handler,
      )
    },
  }
}

type ItemPage = { totalCount: number; items: { itemId: string; publisher: { userId: string; deviceId: string | null }; content: unknown }[] }

/** §2.6 / §4.2: an item reads the same to every reader, by id and by fetch, before and after later calls. */
function itemRecordFaults(): CatalogFault[] {
  return [
    {
      name: 'deep-items-fetch-publisher-is-reader',
      area: 'items',
      depth: 'deep',
      clause: 'items.publisher',
      description: "a fetch by anyone but the channel's owner names the reader as the publisher of every item (a 'my items' join on the session)",
      install(app, ctx) {
        rewriteJson(app, 'items.fetch', (page: ItemPage, request) => {
          const channel = channelOf(ctx, request)
          const reader = callerOf(request).user.userId
          if (!channel || channel.ownerId === reader) return page
          return { ...page, items: page.items.map((i) => ({ ...i, publisher: { ...i.publisher, userId: reader } })) }
        })
      },
    },
    {
      name: 'deep-items-get-stale-index-after-delete',
      area: 'items',
      depth: 'deep',
      clause: 'items.content-intact',
      consequences: [
        {
          clause: 'items.publisher',
          reason: 'the record served in place of the one asked for names its own publisher too',
        },
        {
          clause: 'items.get.by-ids',
          reason: 'get by id of an item kept after a delete by id answers another item: not the item asked for',
        },
      ],
      description:
        'after a delete by id, get by id keeps a position index that was never rebuilt: an id before the deleted one answers with the content and publisher of the item after it',
      install(app, ctx) {
        const shifted = new Set<string>()
        addRouteHook(app, 'items.deleteById', 'preHandler', async (request: FastifyRequest) => {
          const channel = channelOf(ctx, request)
          if (channel) shifted.add(channel.channelId)
        })
        rewriteJson(app, 'items.getById', (page: ItemPage, request) => {
          const channel = channelOf(ctx, request)
          if (!channel || !shifted.has(channel.channelId)) return page
          const order = ctx.store.listItems(channel.channelId)
          return {
            ...page,
            items: page.items.map((i) => {
              const at = order.findIndex((x) => x.itemId === i.itemId)
              const next = at >= 0 ? order[at + 1] : undefined
              return next ? { ...i, content: next.content, publisher: { userId: next.publisherId, deviceId: next.publisherDeviceId } } : i
            }),
          }
        })
      },
    },
    {
      name: 'deep-items-get-newest-content-for-others',
      area: 'items',
      depth: 'deep',
      clause: 'items.content-intact',
      description:
        "get by id from a reader other than the item's publisher serves each item the content of the channel's newest item (a per-channel cache of the last item)",
      consequences: [
        {
          clause: 'items.get.by-ids',
          reason:
            "the three-user publish race reads each item by its id as the other users: the content served is the newest item's, so the item asked for is not among those the answer holds",
        },
      ],
      install(app, ctx) {
        rewriteJson(app, 'items.getById', (page: ItemPage, request) => {
          const channel = channelOf(ctx, request)
          const reader = callerOf(request).user.userId
          const order = channel ? ctx.store.listItems(channel.channelId) : []
          const newest = order[order.length - 1]
          if (!newest) return page
          return { ...page, items: page.items.map((i) => (i.publisher.userId === reader ? i : { ...i, content: newest.content })) }
        })
      },
    },
  ]
}
