import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { parseChannelRef, personal, resolveChannel, VISIBLE } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import type { ChannelRecord, ItemRecord } from '../model'
import type { Store } from '../store'
import { parseTimestamp } from '../time'
import { itemView } from '../views'
import { call, callerId, channelParam, type Handler, sameNamed, SHORT_RACE_MS, sleep, tryResolve, overrideCtxStore, channelOf } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults of the date-range fetch, item deletes, maxItems and publishPermission (§2.3, §4.2), written in the
 * blind rounds 5 to 12 from the spec's words only (docs/detection.md): each shows only for a particular input,
 * state, address, pair of users, device or concurrent pair of requests. The comment on each names the spec words it
 * breaks; its name says its round. The catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as
 * BLIND_OPEN; the earlier deep faults of the area are in deep-items.ts.
 */

/** The reference fetch (routes/items.ts), with the items of a channel replaceable. */
function fetchHandler(ctx: ServerContext, itemsOf: (channel: Readonly<ChannelRecord>, request: FastifyRequest) => readonly Readonly<ItemRecord>[]): Handler {
  const stamp = (name: string, text: string) => {
    const ms = parseTimestamp(text)
    if (ms === undefined) throw fail('INVALID_DATE', `${name} must be an ISO 8601 date-time with a zone`)
    return ms
  }
  return async function (request) {
    const { user } = callerOf(request)
    const { since, until, sort_order: sortOrder = 'ASC', offset, size } = request.query as any
    const from = since === undefined ? 0 : stamp('since', since)
    const to = until === undefined ? ctx.clock.now() : stamp('until', until)
    if (from > to) throw fail('INVALID_RANGE', 'since must not be after until')
    const order = String(sortOrder).toUpperCase()
    if (order !== 'ASC' && order !== 'DESC') throw fail('BAD_REQUEST', 'sort_order must be ASC or DESC')
    const channel = resolveChannel(ctx, user.userId, channelParam(request))
    const inRange = [...itemsOf(channel, request)].filter((i) => i.publishedAt >= from && i.publishedAt <= to).sort((a, b) => a.publishedAt - b.publishedAt)
    if (order === 'DESC') inRange.reverse()
    return { totalCount: inRange.length, items: inRange.slice(offset, offset + size).map((item) => itemView(channel, item)) }
  }
}

/** §4.2 fetch "since=<timestamp>&until=<timestamp>": the items published within since..until (items.fetch.range). */
const fetchUntilWholeSeconds: CatalogFault = {
  name: 'r5-fetch-until-whole-seconds',
  area: 'items',
  depth: 'deep',
  clause: 'items.fetch.range',
  description:
    'until is read by a second-precision parser: its fraction is dropped, so items published in the last fraction of a second before until are left out',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest) => {
      const q = request.query as Record<string, unknown>
      if (typeof q.until === 'string') q.until = q.until.replace(/\.\d+/, '')
    })
  },
}

/** §4.2 delete items by id: deleted items are gone (items.delete.removes), also from the date-range fetch. */
const fetchShowsDeletedById: CatalogFault = (() => {
  const ghosts = new Map<string, ItemRecord[]>()
  return {
    name: 'r5-fetch-shows-deleted-by-id',
    area: 'items',
    depth: 'deep',
    clause: 'items.delete.removes',
    description: 'the date-range index is not updated by delete-by-id (only by delete-all): an item deleted by id still comes back from fetch',
    wrapStore(store) {
      return overrideStore(store, {
        deleteItem: (inner) => (channelId, itemId) => {
          const item = inner.getItem(channelId, itemId)
          const done = inner.deleteItem(channelId, itemId)
          if (done && item) ghosts.set(channelId, [...(ghosts.get(channelId) ?? []), item as ItemRecord])
          return done
        },
        clearItems: (inner) => (channelId) => {
          ghosts.delete(channelId)
          return inner.clearItems(channelId)
        },
        deleteChannel: (inner) => (channelId) => {
          ghosts.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app, ctx) {
      wrapHandler(app, 'items.fetch', () =>
        fetchHandler(ctx, (channel) => [...ctx.store.listItems(channel.channelId), ...(ghosts.get(channel.channelId) ?? [])]),
      )
    },
  }
})()

/** §2.3 publishPermission subscribers + <user_id>#<channel_name>: a subscriber may publish (items.permission.subscribers). */
const hashPublishSubscriberRefused: CatalogFault = {
  name: 'r5-hash-publish-subscriber-refused',
  area: 'items',
  depth: 'deep',
  clause: 'items.permission.subscribers',
  description:
    "publishing to another user's private 'subscribers' channel through <owner>#<name> looks the subscription up on the public channel of that name, so a subscriber is refused",
  install(app, ctx) {
    wrapHandler(app, 'items.publish', (original) => {
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const raw = channelParam(request)
        const me = callerId(request)
        const channel = tryResolve(ctx, request)
        if (channel && me && raw.includes('#') && channel.ownerId !== me && channel.publishPermission === 'subscribers') {
          const pub = ctx.store.findPublicChannel(channel.name)
          if (!pub || !ctx.store.findSubscription(pub.channelId, me)) {
            throw fail('PUBLISH_FORBIDDEN', `publishPermission of ${channel.name} is subscribers`)
          }
        }
        return call(original, this, request, reply)
      }
    })
  },
}

/** §4.2 fetch returns the items of the channel addressed within since..until "and no other" (items.fetch.range). */
const fetchSameNameChannels: CatalogFault = {
  name: 'r5-fetch-same-name-channels',
  area: 'items',
  depth: 'deep',
  clause: 'items.fetch.range',
  description:
    "the date-range fetch selects items by channel name, not channel id: it also returns the items of other users' private channels and the public channel of the same name",
  install(app, ctx) {
    wrapHandler(app, 'items.fetch', () =>
      fetchHandler(ctx, (channel, request) => {
        const { user } = callerOf(request)
        return sameNamed(ctx, channel.name, user.clientId).flatMap((c) => ctx.store.listItems(c.channelId))
      }),
    )
  },
}

/** §4.2 delete items by id: "deleted items are gone and the others remain" (items.delete.removes). */
const raceDeleteDropsPublish: CatalogFault = {
  name: 'r5-race-delete-drops-publish',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete.removes',
  description:
    "delete-by-id reads the channel's item list, awaits (~5 ms), and writes the list back without the deleted ids: an item published meanwhile is lost",
  install(app, ctx) {
    wrapHandler(app, 'items.deleteById', (original) => {
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const channel = tryResolve(ctx, request)
        if (!channel) return call(original, this, request, reply)
        const before = new Set(ctx.store.listItems(channel.channelId).map((i) => i.itemId))
        await sleep(5)
        const body = await call(original, this, request, reply)
        if (ctx.store.getChannel(channel.channelId) === channel) {
          for (const i of [...ctx.store.listItems(channel.channelId)]) if (!before.has(i.itemId)) ctx.store.deleteItem(channel.channelId, i.itemId)
        }
        return body
      }
    })
  },
}

/** §2.3 "maxItems | maximum number of items kept" (items.max-items). */
const raceMaxItemsOverflow: CatalogFault = (() => {
  const noEvict = new AsyncLocalStorage<boolean>()
  return {
    name: 'r5-race-max-items-overflow',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-items',
    description:
      'publish counts the items, awaits (~4 ms), then inserts evicting only if the count it read was full: two publishes at once into a channel one short of maxItems keep maxItems+1',
    wrapStore(store: Store) {
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem(item, noEvict.getStore() === true ? -1 : maxItems),
      })
    },
    install(app, ctx) {
      wrapHandler(app, 'items.publish', (original) => {
        return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
          const channel = tryResolve(ctx, request)
          if (!channel || channel.maxItems < 0) return call(original, this, request, reply)
          const seen = ctx.store.listItems(channel.channelId).length
          await sleep(4)
          return noEvict.run(seen < channel.maxItems, () => call(original, this, request, reply))
        }
      })
    },
  }
})()

/** §4.2 / §5.5 "Only the channel owner may delete items this way": with a <user_id>#name address the owner is taken from the address. */
const deleteAllHashOwnerSkip: CatalogFault = {
  name: 'r6-deleteall-hash-owner-skip',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete-all.owner-only',
  description:
    "delete all items addressed as <owner_id>#<name> takes the owner from the address and skips the owner check: any user empties another's private channel",
  install(app, ctx) {
    aroundHandler(app, 'items.deleteAll', async (request, reply, next) => {
      const { ownerId, name } = parseChannelRef(channelParam(request))
      const channel = ownerId === null ? undefined : ctx.store.findPrivateChannel(ownerId, name)
      if (!channel) return next()
      const deleted = ctx.store.clearItems(channel.channelId)
      return { code: 200, message: `${deleted} item(s) deleted from ${channel.name}` }
    })
  },
}

/** §4.2 "Delete items by id" on {channel_name}: the id lookup ignores the channel, so another channel's item of the caller is deleted. */
const itemsDeleteCrossChannel: CatalogFault = {
  name: 'r6-items-delete-cross-channel',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete.removes',
  description: 'delete items by id on channel A deletes an item of channel B whose id is given (when the caller published it), answering 200 for it',
  ...(() => {
    const channelOf = new Map<string, string>()
    return {
      wrapStore(store: Store) {
        return overrideStore(store, {
          addItem: (inner) => (item, maxItems) => {
            channelOf.set(item.itemId, item.channelId)
            return inner.addItem(item, maxItems)
          },
        })
      },
      install(app: any, ctx: any) {
        aroundHandler(app, 'items.deleteById', async (request, reply, next) => {
          const { user } = callerOf(request)
          const here = resolveChannel(ctx, user.userId, channelParam(request))
          const elsewhere: string[] = []
          for (const id of (request.query as { id: string[] }).id) {
            const other = channelOf.get(id)
            if (other === undefined || other === here.channelId) continue
            const item = ctx.store.getItem(other, id)
            if (item && item.publisherId === user.userId && ctx.store.deleteItem(other, id)) elsewhere.push(id)
          }
          const result = (await next()) as Record<string, number>
          for (const id of elsewhere) result[id] = 200
          return result
        })
      },
    }
  })(),
}

/**
 * §5.5 "deleting all items of a channel [is] permitted only to the channel owner" (items.delete-all.owner-only).
 * The check admits the channel's members: a subscriber who is not the owner empties the channel.
 */
const deleteAllItemsSubscriber: CatalogFault = {
  name: 'r7-delete-all-items-subscriber',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete-all.owner-only',
  description: 'delete all items is allowed to any subscriber of the channel, not only its owner',
  install(app, ctx) {
    wrapHandler(
      app,
      'items.deleteAll',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const caller = request.caller
          if (caller?.kind === 'USER') {
            const query = request.query as { personal?: boolean }
            const channel = resolveChannel(ctx, caller.user.userId, channelParam(request), personal(query.personal ?? false))
            if (channel.ownerId !== caller.user.userId && ctx.store.findSubscription(channel.channelId, caller.user.userId)) {
              const deleted = ctx.store.clearItems(channel.channelId)
              return { code: 200, message: `${deleted} item(s) deleted from ${channel.name}` }
            }
          }
          return (original as (...a: unknown[]) => unknown).call(this, request, reply)
        } as never,
    )
  },
}

const r8DeletedItemStillFetched: CatalogFault = {
  // §4.2 Delete items by id: deleted items are gone (every view: get by id, fetch, summary count).
  name: 'r8-deleted-item-still-fetched',
  depth: 'deep',
  area: 'items',
  clause: 'items.delete.removes',
  description: 'delete by id hides the item from get-by-id only; fetch by date range (and the summary count) still list it',
  wrapStore(store) {
    const deleted = new Set<string>()
    return overrideStore(store, {
      getItem: (inner) => (channelId: string, itemId: string) => (deleted.has(itemId) ? undefined : inner.getItem(channelId, itemId)),
      deleteItem: (inner) => (channelId: string, itemId: string) => {
        if (deleted.has(itemId) || !inner.getItem(channelId, itemId)) return false
        deleted.add(itemId)
        return true
      },
    })
  },
}

const r8DeleteAllItemsIgnoresPersonal: CatalogFault = {
  // §4.2 Delete all items: DELETE …/items/all?personal=<boolean>; personal=true addresses the caller's private channel.
  name: 'r8-delete-all-items-ignores-personal',
  depth: 'deep',
  area: 'items',
  // Shows as the owner refused its own private channel (private.own-plain-name) and, where the owner also has a
  // public channel of the name, as that channel's items deleted instead (items.delete.removes).
  clause: ['items.delete-all.empties', 'private.own-plain-name', 'items.delete.removes'],
  description: 'delete all items ignores personal=true and addresses the public channel of the name (404 or 403 for an owner of a private channel)',
  install(app) {
    aroundHandler(app, 'items.deleteAll', async (request, reply, next) => {
      ;(request.query as { personal: boolean }).personal = false
      return next()
    })
  },
}

const r8RaceMaxItemsEviction: CatalogFault = (() => {
  const als = new AsyncLocalStorage<{ oldest: string[] }>()
  const fault: CatalogFault = {
    // §2.3 maxItems: "maximum number of items kept" — also after two publishes at once.
    name: 'r8-race-max-items-eviction',
    depth: 'deep',
    area: 'items',
    clause: 'items.max-items',
    description:
      'publish picks the items to evict before a 25 ms step: two concurrent publishes evict the same old items and the channel keeps more than maxItems',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item: ItemRecord, maxItems: number) => {
          const plan = als.getStore()
          if (!plan || maxItems < 0) return inner.addItem(item, maxItems)
          inner.addItem(item, -1)
          const victims = plan.oldest.slice(0, Math.max(0, plan.oldest.length + 1 - maxItems))
          return victims.filter((id) => inner.deleteItem(item.channelId, id))
        },
      })
    },
    install(app, ctx) {
      aroundHandler(app, 'items.publish', async (request, reply, next) => {
        let oldest: string[] | undefined
        try {
          const channel = resolveChannel(ctx, callerOf(request).user.userId, channelParam(request), VISIBLE)
          oldest = ctx.store.listItems(channel.channelId).map((i) => i.itemId)
        } catch {
          oldest = undefined
        }
        if (oldest === undefined) return next()
        await sleep(SHORT_RACE_MS)
        return als.run({ oldest }, () => next())
      })
    },
  }
  return fault
})()

/**
 * §2 "Timestamps are ISO 8601 strings"; §4.2 fetch returns the items published within since..until. The
 * parser is a fixed pattern yyyy-MM-dd'T'HH:mm:ss.SSS<zone>: a since or until without exactly three
 * fraction digits (…T08:00:00Z, or microseconds) is refused.
 */
const fetchNeedsMillis: CatalogFault = {
  name: 'r10-fetch-needs-three-fraction-digits',
  area: 'items',
  depth: 'deep',
  clause: 'items.fetch.range',
  description:
    'fetch refuses (400) a since or until that has no fraction of a second, or more than three digits of it (a fixed yyyy-MM-ddTHH:mm:ss.SSSZ parser)',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
      const query = request.query as { since?: string; until?: string }
      for (const name of ['since', 'until'] as const) {
        const value = query[name]
        if (value !== undefined && !/T\d{2}:\d{2}:\d{2}\.\d{3}(?:Z|[+-]\d{2}:?\d{2}| \d{2}:?\d{2})$/.test(value)) {
          throw fail('INVALID_DATE', `${name} must look like 2015-11-10T19:22:54.123Z`)
        }
      }
    })
  },
}

/**
 * §4.2 delete items by id: the deleted items are gone, the others stay. Delete reads the channel's item
 * list, awaits (~15 ms), and writes the list back without its own ids: an item deleted by another request
 * in that window is written back.
 */
const raceDeleteByIdResurrects: CatalogFault = {
  name: 'r10-race-delete-by-id-resurrects',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete.removes',
  description: 'delete items by id writes back the item list it read ~15 ms earlier minus its own ids: an item deleted by a concurrent delete-by-id comes back',
  install(app, ctx) {
    aroundHandler(app, 'items.deleteById', async (request, reply, next) => {
      const userId = callerId(request)
      let channel: Readonly<ChannelRecord> | undefined
      try {
        channel = userId === undefined ? undefined : resolveChannel(ctx, userId, channelParam(request))
      } catch {
        channel = undefined
      }
      const read: ItemRecord[] = channel ? [...ctx.store.listItems(channel.channelId)] : []
      await sleep(15)
      const result = await next()
      if (channel) {
        const own = new Set((request.query as { id: string[] }).id)
        for (const item of read) {
          if (!own.has(item.itemId) && ctx.store.getItem(channel.channelId, item.itemId) === undefined) ctx.store.addItem(item, -1)
        }
      }
      return result
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

/**
 * §4.2 Delete all items: "Only the channel owner may delete items this way." §4.2: "Success of the four delete
 * operations ... (delete channel, delete one tag, delete all tags, delete all items) is status 200." §2.3 creator:
 * "composite owner identifier: user id, then a separator, then a user-name and domain part, then a slash and device id".
 *
 * The owner check compares the channel's composite `creator` with the same composite built from the caller's
 * session, device id included: the owner signed in on a second device (another MMS-DEVICE-ID) is refused with 403.
 * From the device the channel was created on, and for every other user, the answer is right.
 */
const deleteAllOwnerByCreatorDevice: CatalogFault = {
  name: 'r13c-items-deleteall-creator-device',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete-all.status',
  description: "delete all items compares the channel's creator (user and device) with the caller's session: the owner on a second device gets 403",
  install(app, ctx) {
    addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      const channel = channelOf(ctx, request)
      if (caller?.kind !== 'USER' || !channel) return
      const creator = `${channel.ownerId}/${channel.ownerDeviceId}`
      const session = `${caller.user.userId}/${caller.deviceId}`
      if (channel.ownerId === caller.user.userId && creator !== session) throw fail('NOT_OWNER')
    })
  },
}

export const BLIND_ITEM_FAULTS: readonly CatalogFault[] = [
  fetchUntilWholeSeconds,
  fetchShowsDeletedById,
  hashPublishSubscriberRefused,
  fetchSameNameChannels,
  raceDeleteDropsPublish,
  raceMaxItemsOverflow,
  deleteAllHashOwnerSkip,
  itemsDeleteCrossChannel,
  deleteAllItemsSubscriber,
  r8DeletedItemStillFetched,
  r8DeleteAllItemsIgnoresPersonal,
  r8RaceMaxItemsEviction,
  fetchNeedsMillis,
  raceDeleteByIdResurrects,
  itemsByName,
  deleteByStalePosition,
  deleteAllOwnerByCreatorDevice,
]
