import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ChannelRecord, ItemRecord } from '../model'
import { call, callerId, channelParam, hashRef, type RouteHandler, sleep } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, wrapHandler } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Deep faults of an item's content, publisher and id as published (§2.6, §4.2 publish and get by ids), written in
 * the blind rounds 5 to 12 from the spec's words only (docs/detection.md): each shows only for a particular input,
 * state, address, pair of users, device or concurrent pair of requests. The comment on each names the spec words it
 * breaks; its name says its round. The catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as
 * BLIND_OPEN; the earlier deep faults of the area are in deep-items.ts.
 */

/** §2.6 itemId identifies one item; get items by id answers the item asked for with its content. */
let pendingItemId: string | undefined

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

/** §2.6 "content: key/value map of the message content" comes back as published: a key with a "." is expanded into nested objects. */
const itemsDottedKey: CatalogFault = {
  name: 'r6-items-dotted-key',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'publish stores a content key containing "." as a nested path ({"a.b":1} comes back as {"a":{"b":1}})',
  install(app) {
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content?: Record<string, unknown> }
      const content = body?.content
      if (!content || typeof content !== 'object') return
      if (!Object.keys(content).some((k) => k.includes('.'))) return
      const out: Record<string, any> = {}
      for (const [k, v] of Object.entries(content)) {
        const parts = k.split('.').filter((p) => p !== '')
        if (parts.length < 2) {
          out[k] = v
          continue
        }
        let at = out
        for (const p of parts.slice(0, -1)) at = at[p] = typeof at[p] === 'object' && at[p] !== null ? at[p] : {}
        at[parts.at(-1)!] = v
      }
      body.content = out
    })
  },
}

const contentNullValuesDropped: CatalogFault = {
  // §2.6 content: "key/value map of the message content" — given back as published (items.content-intact).
  name: 'r8-content-null-values-dropped',
  depth: 'deep',
  area: 'items',
  clause: 'items.content-intact',
  description: 'a content key whose value is null is dropped on publish; items with only non-null values are intact',
  wrapStore(store) {
    return overrideStore(store, {
      addItem: (inner) => (item: ItemRecord, maxItems: number) => {
        const values = Object.values(item.content)
        if (!values.some((v) => v === null)) return inner.addItem(item, maxItems)
        const content = Object.fromEntries(Object.entries(item.content).filter(([, v]) => v !== null))
        return inner.addItem({ ...item, content }, maxItems)
      },
    })
  },
}

/** §2.6 content: "key/value map of the message content", returned as published. */
const contentDollarKeyDropped: CatalogFault = {
  name: 'r9-content-dollar-key-dropped',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'publish silently drops content keys that start with "$" (at any depth), as a document store sanitizing operators would',
  install(app) {
    const strip = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(strip)
      if (value === null || typeof value !== 'object') return value
      return Object.fromEntries(
        Object.entries(value)
          .filter(([k]) => !k.startsWith('$'))
          .map(([k, v]) => [k, strip(v)]),
      )
    }
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content?: unknown }
      if (body && typeof body.content === 'object' && body.content !== null) body.content = strip(body.content)
    })
  },
}

const racePublishSameItemId: CatalogFault = {
  name: 'r9-race-publish-same-item-id',
  area: 'items',
  depth: 'deep',
  clause: ['items.get.by-ids', 'items.content-intact'],
  description:
    'item ids come from a per-channel sequence read before a ~15 ms step and bumped after it: two publishes to one channel within that window get the same id, and get-by-id of the first answers the second item',
  wrapStore(store) {
    return overrideStore(store, {
      addItem: (inner) => (item, maxItems) => {
        if (pendingItemId !== undefined) (item as ItemRecord).itemId = pendingItemId
        return inner.addItem(item, maxItems)
      },
    })
  },
  install(app, ctx) {
    const sequence = new Map<string, number>()
    aroundHandler(app, 'items.publish', async (request, reply, next) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, channelParam(request))
      const seq = sequence.get(channel.channelId) ?? 0
      await sleep(15)
      sequence.set(channel.channelId, seq + 1)
      pendingItemId = channel.channelId.slice(0, 24) + seq.toString(16).padStart(8, '0')
      try {
        return next() // runs synchronously up to the store call
      } finally {
        pendingItemId = undefined
      }
    })
  },
}

/**
 * §2.6 publisher.userId is the publishing user's id. Publishing to another user's private channel through
 * `<owner_id>#<name>` takes the user id of the address as the publisher.
 */
function hashPublishPublisherOwner(): CatalogFault {
  let override: string | null = null
  return {
    name: 'r10-hash-publish-publisher-owner',
    area: 'items',
    depth: 'deep',
    clause: 'items.publisher',
    description: 'an item another user publishes through <owner_id>#<name> records the owner named in the address as its publisher',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem(override === null ? item : { ...item, publisherId: override }, maxItems),
      })
    },
    install(app) {
      wrapHandler(
        app,
        'items.publish',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const ref = hashRef(channelParam(request))
            const me = callerId(request)
            // The handler runs to its store call without awaiting, so the override covers exactly this publish.
            override = ref !== null && ref.ownerId !== me ? ref.ownerId : null
            try {
              return call(original, this, request, reply)
            } finally {
              override = null
            }
          } as RouteHandler,
      )
    },
  }
}

const r11ItemsContentTrimmed: CatalogFault = {
  // §2.6 "content | object | key/value map of the message content": it comes back as published.
  name: 'r11-items-content-trimmed',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'publish trims leading and trailing whitespace (spaces, tabs, newlines) of every string in content, at any depth (an input "sanitizer")',
  install(app) {
    const trim = (v: unknown): unknown =>
      typeof v === 'string'
        ? v.trim()
        : Array.isArray(v)
          ? v.map(trim)
          : v !== null && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x)]))
            : v
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content?: unknown }
      if (body && typeof body.content === 'object' && body.content !== null) body.content = trim(body.content)
    })
  },
}

const r11RacePublishPublisherCrossed: CatalogFault = {
  // §2.6 "publisher | object | userId (string), deviceId (string or null)": the user who published the item.
  name: 'r11-race-publish-publisher-crossed',
  area: 'items',
  depth: 'deep',
  clause: 'items.publisher',
  description:
    'publish keeps the publisher in a per-channel "current publisher" field across a ~20 ms step: of two publishes to one channel by different users within it, the first item is stored with the second user as publisher',
  install(app, ctx) {
    const current = new Map<string, { userId: string; deviceId: string }>()
    aroundHandler(app, 'items.publish', async (request, reply, next) => {
      const { user, deviceId } = callerOf(request)
      let channel: Readonly<ChannelRecord>
      try {
        channel = resolveChannel(ctx, user.userId, channelParam(request))
      } catch {
        return next()
      }
      current.set(channel.channelId, { userId: user.userId, deviceId })
      await sleep(20)
      const who = current.get(channel.channelId)!
      const before = new Set(ctx.store.listItems(channel.channelId).map((i) => i.itemId))
      const result = await next()
      if (who.userId !== user.userId) {
        const mine = ctx.store.listItems(channel.channelId).filter((i) => !before.has(i.itemId) && i.publisherId === user.userId)
        for (const item of mine as ItemRecord[]) {
          item.publisherId = who.userId
          item.publisherDeviceId = who.deviceId
        }
      }
      return result
    })
  },
}

/**
 * §2.6 "content: key/value map of the message content" (an item comes back with its content): blank
 * values are stripped on publish, so a key whose value is the empty string is lost.
 */
const itemsContentEmptyString: CatalogFault = {
  name: 'r12-items-content-empty-string-dropped',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'publish drops the top-level content keys whose value is the empty string ""',
  install(app) {
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content?: Record<string, unknown> }
      if (body?.content && typeof body.content === 'object') {
        body.content = Object.fromEntries(Object.entries(body.content).filter(([, v]) => v !== ''))
      }
    })
  },
}

/**
 * §4.2 Publish item to `/channels/{channel_name}/items` (and get items by id in that channel): the target
 * channel is kept in a variable shared by all requests across an await; two publishes to different channels
 * within ~8 ms both land in the later one's channel.
 */
const racePublishChannelCrossed: CatalogFault = {
  name: 'r12-race-publish-channel-crossed',
  area: 'items',
  depth: 'deep',
  clause: ['items.get.by-ids', 'channels.summary.count'],
  description: "two publishes to different channels within ~8 ms: the earlier one's item is stored in the later one's channel",
  install(app) {
    let pending: string | null = null
    aroundHandler(app, 'items.publish', async (request, reply, next) => {
      const params = request.params as { channel: string }
      pending = params.channel
      await sleep(8)
      if (pending !== null) params.channel = pending
      return next()
    })
  },
}

/** Strings as a MySQL `utf8` (3-byte, utf8mb3) column in non-strict mode keeps them: characters beyond the BMP become '?'. */
function utf8mb3(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/[\u{10000}-\u{10FFFF}]/gu, '?')
  if (Array.isArray(value)) return value.map(utf8mb3)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [utf8mb3(k), utf8mb3(v)]))
  return value
}

/**
 * §2.6 Published item: "content | object | key/value map of the message content" (an item comes back with the content
 * it was published with). Item content is stored in a 3-byte UTF-8 column: an emoji or any other character outside
 * the Basic Multilingual Plane comes back as '?', while accents, CJK and every ASCII text come back intact.
 */
const itemsContentUtf8mb3: CatalogFault = {
  name: 'r13a-items-content-utf8mb3',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'item content is stored as 3-byte UTF-8: characters beyond the BMP (emoji) come back as "?"',
  wrapStore: (store) =>
    overrideStore(store, {
      addItem: (inner) => (item, maxItems) => inner.addItem({ ...item, content: utf8mb3(item.content) as Record<string, unknown> }, maxItems),
    }),
}

export const BLIND_ITEM_CONTENT_FAULTS: readonly CatalogFault[] = [
  contentAstralReplaced,
  sharedDevicePublisher,
  itemsDottedKey,
  contentDollarKeyDropped,
  racePublishSameItemId,
  hashPublishPublisherOwner(),
  r11ItemsContentTrimmed,
  r11RacePublishPublisherCrossed,
  itemsContentEmptyString,
  itemsContentUtf8mb3,
]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_ITEM_CONTENT_OPEN: readonly OpenFault[] = [
  {
    fault: contentNullValuesDropped,
    why: 'content is "key/value map of the message content" (§2.6); whether null is a value a map keeps is not stated, and a serializer that leaves out null members (a common default) reads the spec too',
    reading: true,
  },
  {
    fault: racePublishChannelCrossed,
    why: 'caught blind, kept out: two publishes a few milliseconds apart land in one channel, and the run publishes at once in every items check, so the set of items clauses that fail (about twenty) varies from run to run',
  },
]
