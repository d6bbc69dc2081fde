import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { parseChannelRef, resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import type { ChannelRecord, ItemRecord } from '../model'
import type { Store } from '../store'
import { parseTimestamp } from '../time'
import { channelSearchView, itemView } from '../views'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * Blind round 5: deep faults written from the spec's words only (the suite, its helpers and the earlier
 * faults unread). Each shows only for a particular input, state, address form, pair of users, second
 * device or concurrent pair of requests, never on the first ordinary call. The comment on each names the
 * spec words it breaks.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

type Handler = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown

function callerIdOf(request: FastifyRequest): string | undefined {
  const caller = request.caller
  return caller?.kind === 'USER' ? caller.user.userId : undefined
}

/** The channel a request addresses, or undefined when it does not resolve (the original handler then answers). */
function tryResolve(ctx: ServerContext, request: FastifyRequest): Readonly<ChannelRecord> | undefined {
  try {
    const { user } = callerOf(request)
    return resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
  } catch {
    return undefined
  }
}

/** Every channel of this name: the public one and each user's private one (names ignore case as the store does). */
function sameNamed(ctx: ServerContext, name: string, clientId: string): Readonly<ChannelRecord>[] {
  const found: Readonly<ChannelRecord>[] = []
  const pub = ctx.store.findPublicChannel(name)
  if (pub) found.push(pub)
  for (const u of ctx.store.listUsers(clientId)) {
    const own = ctx.store.findPrivateChannel(u.userId, name)
    if (own) found.push(own)
  }
  return found
}

/** The reference search (routes/channels.ts), with the name key and the tag set of a channel replaceable. */
function searchHandler(
  ctx: ServerContext,
  nameKey: (c: Readonly<ChannelRecord>) => string,
  tagsOf: (c: Readonly<ChannelRecord>) => readonly string[],
): Handler {
  return async function (request) {
    const { channelName, description, tag = [], offset, size } = request.query as any
    const nameText = channelName?.toLowerCase()
    const descriptionText = description?.toLowerCase()
    const matches = ctx.store
      .listPublicChannels()
      .filter(
        (c) =>
          (nameText === undefined || nameKey(c).includes(nameText)) &&
          (descriptionText === undefined || c.description.toLowerCase().includes(descriptionText)) &&
          (tag as string[]).every((t) => tagsOf(c).includes(t)),
      )
      .sort((a, b) => a.createdAt - b.createdAt || (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1))
    return { total: matches.length, results: matches.slice(offset, offset + size).map((c) => channelSearchView(ctx, c)) }
  }
}

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
    const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
    const inRange = [...itemsOf(channel, request)].filter((i) => i.publishedAt >= from && i.publishedAt <= to).sort((a, b) => a.publishedAt - b.publishedAt)
    if (order === 'DESC') inRange.reverse()
    return { totalCount: inRange.length, items: inRange.slice(offset, offset + size).map((item) => itemView(channel, item)) }
  }
}

// ---------------------------------------------------------------- inputs

/** §4.2 search: "GET /channels?channelName=<text>" — a channel searched by its exact name is found (channels.search.by-name). */
const searchNameIndex32: CatalogFault = {
  name: 'r5-search-name-index-32',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-name',
  description: 'the search index keeps only the first 32 characters of a channel name: a channel whose name is longer is not found by its exact name',
  install(app, ctx) {
    wrapHandler(app, 'channels.search', () =>
      searchHandler(
        ctx,
        (c) => c.name.toLowerCase().slice(0, 32),
        (c) => c.tags,
      ),
    )
  },
}

/** §2.6 "content | object | key/value map of the message content": an item comes back as published (items.content-intact). */
const contentAstralReplaced: CatalogFault = {
  name: 'r5-content-astral-replaced',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'content strings are stored in a 3-byte UTF-8 column: every character outside the BMP (an emoji) comes back as U+FFFD',
  wrapStore(store) {
    const scrub = (v: unknown): unknown =>
      typeof v === 'string'
        ? v.replace(/[\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
        : Array.isArray(v)
          ? v.map(scrub)
          : v !== null && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, scrub(x)]))
            : v
    return overrideStore(store, {
      addItem: (inner) => (item, maxItems) => inner.addItem({ ...item, content: scrub(item.content) as Record<string, unknown> }, maxItems),
    })
  },
}

/** §4.2 create body "description (string, optional)" and §2.3 description: stored as given (channels.create.fields-stored). */
const descriptionHtmlEscaped: CatalogFault = {
  name: 'r5-description-html-escaped',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.create.fields-stored',
  description: 'the description is HTML-escaped on the way in: a description with <, > or & comes back as &lt; &gt; &amp;',
  wrapStore(store) {
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
    return overrideStore(store, {
      addChannel: (inner) => (channel) => inner.addChannel(Object.assign(channel, { description: esc(channel.description) })),
    })
  },
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

// ---------------------------------------------------------------- states

/** §4.2 "tag may repeat" / delete all tags: search by a tag returns the channels carrying it and no other (channels.search.by-tag). */
const searchTagStaleAfterDeleteAll: CatalogFault = (() => {
  const ghosts = new Map<string, Set<string>>()
  return {
    name: 'r5-search-tag-stale-after-delete-all',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.search.by-tag',
    description: 'the search tag index is updated on add and delete-one but not on delete-all: a channel whose tags were all deleted is still found by them',
    wrapStore(store) {
      return overrideStore(store, {
        clearTags: (inner) => (channelId, at) => {
          const before = inner.getChannel(channelId)?.tags ?? []
          const set = ghosts.get(channelId) ?? new Set<string>()
          for (const t of before) set.add(t)
          ghosts.set(channelId, set)
          return inner.clearTags(channelId, at)
        },
        removeTag: (inner) => (channelId, tag, at) => {
          ghosts.get(channelId)?.delete(tag)
          return inner.removeTag(channelId, tag, at)
        },
        deleteChannel: (inner) => (channelId) => {
          ghosts.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app, ctx) {
      wrapHandler(app, 'channels.search', () =>
        searchHandler(
          ctx,
          (c) => c.name.toLowerCase(),
          (c) => [...c.tags, ...(ghosts.get(c.channelId) ?? [])],
        ),
      )
    },
  }
})()

/** §4.2 add tags / get tags: added tags are returned by get tags (tags.add.visible). */
const tagTombstone: CatalogFault = (() => {
  const tombs = new Set<string>()
  return {
    name: 'r5-tag-readd-after-delete-ignored',
    area: 'tags',
    depth: 'deep',
    clause: 'tags.add.visible',
    description:
      'deleting one tag leaves a soft-deleted row under a unique key: adding the same tag to that channel again is answered 200 but the tag never comes back',
    wrapStore(store) {
      const k = (c: string, t: string) => `${c}\n${t}`
      return overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => {
          const removed = inner.removeTag(channelId, tag, at)
          if (removed) tombs.add(k(channelId, tag))
          return removed
        },
        addTags: (inner) => (channelId, tags, at) =>
          inner.addTags(
            channelId,
            tags.filter((t) => !tombs.has(k(channelId, t))),
            at,
          ),
      })
    },
  }
})()

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

/** §4.2 delete channel: a deleted channel is no longer returned (channels.delete.removes). */
const getCacheRawAddress: CatalogFault = (() => {
  const cache = new Map<string, string>()
  return {
    name: 'r5-get-cache-hash-address',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.delete.removes',
    description:
      'get-by-name caches answers under the address as written; a delete evicts only the address it was sent to, so a private channel read as <owner>#<name> is still answered after its owner deleted it by plain name',
    install(app) {
      wrapHandler(app, 'channels.getByName', (original) => {
        const orig = original as Handler
        return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
          const raw = (request.params as { channel: string }).channel
          if (!raw.includes('#')) return orig.call(this, request, reply)
          const hit = cache.get(raw)
          if (hit !== undefined) return JSON.parse(hit)
          const body = await orig.call(this, request, reply)
          cache.set(raw, JSON.stringify(body))
          return body
        }
      })
      addRouteHook(app, 'channels.delete', 'onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode < 300) cache.delete((request.params as { channel: string }).channel)
        return payload
      })
    },
  }
})()

// ---------------------------------------------------------------- addresses × callers

/** §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>" (private.other-user-address). */
const hashResolvesCallersTwin: CatalogFault = {
  name: 'r5-hash-resolves-callers-twin',
  area: 'private',
  depth: 'deep',
  clause: 'private.other-user-address',
  consequences: [
    {
      clause: 'channels.summary.count',
      reason: "B's summary through <A's id>#n reaches B's own private channel of that name, so it counts B's items, not A's",
    },
    {
      clause: 'items.fetch.range',
      reason: "B's fetch through <A's id>#n reaches B's own private channel of that name, so its totalCount counts B's items, not A's",
    },
  ],
  description: "<user_id>#<name> sent by another user who has a private channel of the same name reaches the caller's own channel, not the owner's",
  install(app, ctx) {
    app.addHook('preHandler', async (request) => {
      const params = request.params as { channel?: string } | undefined
      const raw = params?.channel
      const me = callerIdOf(request)
      if (raw === undefined || me === undefined || !raw.includes('#')) return
      let ref
      try {
        ref = parseChannelRef(raw)
      } catch {
        return
      }
      if (ref.ownerId !== null && ref.ownerId !== me && ctx.store.findPrivateChannel(me, ref.name)) params!.channel = ref.name
    })
  },
}

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
      const orig = original as Handler
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const raw = (request.params as { channel: string }).channel
        const me = callerIdOf(request)
        const channel = tryResolve(ctx, request)
        if (channel && me && raw.includes('#') && channel.ownerId !== me && channel.publishPermission === 'subscribers') {
          const pub = ctx.store.findPublicChannel(channel.name)
          if (!pub || !ctx.store.findSubscription(pub.channelId, me)) {
            throw fail('PUBLISH_FORBIDDEN', `publishPermission of ${channel.name} is subscribers`)
          }
        }
        return orig.call(this, request, reply)
      }
    })
  },
}

/** §4.2 delete all tags "?personal=<boolean>" with personal true: the caller's own private channel (private.tags-personal). */
const tagsClearPersonalPublicFirst: CatalogFault = {
  name: 'r5-tags-clear-personal-public-first',
  area: 'private',
  depth: 'deep',
  clause: 'private.tags-personal',
  description:
    "delete all tags with personal=true clears the caller's public channel of that name when the caller owns one, and leaves the private channel's tags",
  install(app, ctx) {
    addRouteHook(app, 'tags.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const q = request.query as { personal?: boolean }
      const me = callerIdOf(request)
      const raw = (request.params as { channel: string }).channel
      if (q.personal !== true || me === undefined || raw.includes('#')) return
      const pub = ctx.store.findPublicChannel(raw)
      if (pub && pub.ownerId === me) q.personal = false
    })
  },
}

// ---------------------------------------------------------------- isolation

/** §2.4 publishedItemCount of the channel summarised (channels.summary.count). */
const summaryCountNamePrefix: CatalogFault = {
  name: 'r5-summary-count-name-prefix',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.summary.count',
  description:
    "the summary counts items with a name LIKE '<name>%': a public channel's count includes the items of public channels whose names start with its name",
  install(app, ctx) {
    rewriteJson(app, 'channels.summary', (body) => {
      if (body.userId !== null) return body
      const prefix = String(body.channelName).toLowerCase()
      const count = ctx.store
        .listPublicChannels()
        .filter((c) => c.name.toLowerCase().startsWith(prefix))
        .reduce((n, c) => n + ctx.store.listItems(c.channelId).length, 0)
      return { ...body, publishedItemCount: count }
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
      const orig = original as Handler
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const body = await orig.call(this, request, reply)
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

// ---------------------------------------------------------------- people and devices

/** §2.3 creator "... then a slash and device id": the device the owner created the channel from (channels.get.creator-device). */
const creatorFirstDevice: CatalogFault = {
  name: 'r5-creator-first-device',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.get.creator-device',
  description:
    "creator names the owner's first registered device, not the device of the session that created the channel (differs once the owner signed in on a second device)",
  wrapStore(store) {
    return overrideStore(store, {
      addChannel: (inner) => (channel) => {
        const first = inner.listDevices(channel.ownerId)[0]
        return inner.addChannel(first ? Object.assign(channel, { ownerDeviceId: first.deviceId }) : channel)
      },
    })
  },
}

/** §2.6 publisher.userId (string): the publishing user's id (items.publisher). */
const sharedDevicePublisher: CatalogFault = {
  name: 'r5-shared-device-publisher',
  area: 'items',
  depth: 'deep',
  clause: 'items.publisher',
  description: 'the publisher is looked up from the device id: when two users signed in on one device, items of the second carry the first user as publisher',
  wrapStore(store) {
    return overrideStore(store, {
      addItem: (inner) => (item, maxItems) => {
        const me = inner.getUser(item.publisherId)
        let who = item.publisherId
        let when = Infinity
        if (me && item.publisherDeviceId !== null) {
          for (const u of inner.listUsers(me.clientId)) {
            const d = inner.listDevices(u.userId).find((x) => x.deviceId === item.publisherDeviceId)
            if (d && d.registeredAt < when) {
              when = d.registeredAt
              who = u.userId
            }
          }
        }
        return inner.addItem({ ...item, publisherId: who }, maxItems)
      },
    })
  },
}

/** §4.3 "sent counts users for whom a push was sent, unsent counts users for whom it could not be sent" (messages.send.counts-add-up). */
const messageSentCountsDevices: CatalogFault = {
  name: 'r5-message-sent-counts-devices',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.send.counts-add-up',
  description: 'count.sent of a direct message counts the devices woken, not the users: a recipient signed in on two devices counts twice',
  install(app, ctx) {
    rewriteJson(app, 'messages.send', (body) => {
      const sent = (body.sentList as { recipientUsername: string }[]).reduce(
        (n, e) => n + Math.max(1, ctx.store.listDevices(e.recipientUsername).filter((d) => !/unreachable/i.test(d.deviceId)).length),
        0,
      )
      return { ...body, count: { ...body.count, sent } }
    })
  },
}

// ---------------------------------------------------------------- races

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
      const orig = original as Handler
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const channel = tryResolve(ctx, request)
        if (!channel) return orig.call(this, request, reply)
        const before = new Set(ctx.store.listItems(channel.channelId).map((i) => i.itemId))
        await sleep(5)
        const body = await orig.call(this, request, reply)
        if (ctx.store.getChannel(channel.channelId) === channel) {
          for (const i of [...ctx.store.listItems(channel.channelId)]) if (!before.has(i.itemId)) ctx.store.deleteItem(channel.channelId, i.itemId)
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
      const orig = original as Handler
      return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
        const channel = tryResolve(ctx, request)
        const me = callerIdOf(request)
        if (!channel || !me) return orig.call(this, request, reply)
        const before = [...ctx.store.listSubscriptions(channel.channelId)]
        await sleep(5)
        const body = await orig.call(this, request, reply)
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
        const orig = original as Handler
        return async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
          const channel = tryResolve(ctx, request)
          if (!channel || channel.maxItems < 0) return orig.call(this, request, reply)
          const seen = ctx.store.listItems(channel.channelId).length
          await sleep(4)
          return noEvict.run(seen < channel.maxItems, () => orig.call(this, request, reply))
        }
      })
    },
  }
})()

export const R5_FAULTS: readonly CatalogFault[] = [
  searchNameIndex32,
  contentAstralReplaced,
  descriptionHtmlEscaped,
  fetchUntilWholeSeconds,
  searchTagStaleAfterDeleteAll,
  tagTombstone,
  fetchShowsDeletedById,
  getCacheRawAddress,
  hashResolvesCallersTwin,
  hashPublishSubscriberRefused,
  tagsClearPersonalPublicFirst,
  summaryCountNamePrefix,
  fetchSameNameChannels,
  unsubscribeCancelsTwin,
  creatorFirstDevice,
  sharedDevicePublisher,
  messageSentCountsDevices,
  raceDeleteDropsPublish,
  raceUnsubscribeRevert,
  raceMaxItemsOverflow,
]
