import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { fail } from '../errors'
import { setQuery } from '../faults/common'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import { newId } from '../ids'
import { parseTimestamp } from '../time'
import { before, callOriginal, channelOf } from './common'
import type { Variant } from './types'

/**
 * Items (§4.2, §2.6) where the spec leaves the choice open: "Defaults and requiredness of since, until,
 * sort_order, offset and size: not shown"; "Behaviour for unknown ids: not shown"; no precision for item
 * times (items carry none on the wire); content is a "key/value map", values untyped.
 */

const FETCH_PARAMS = ['since', 'until', 'sort_order', 'offset', 'size'] as const
type Query = Record<string, unknown>

/** A query parameter as given (a repeated one counts as given). */
const given = (request: FastifyRequest, name: string): boolean => (request.query as Query)[name] !== undefined

/** How long the window-limited server keeps items: a fetch may not reach further back. */
const KEPT_MS = 3_600_000
/** PostgreSQL jsonb key order: shorter keys first, then bytewise; nested objects alike. */
function jsonbOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(jsonbOrder)
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(keys.map((k) => [k, jsonbOrder((value as Record<string, unknown>)[k])]))
}

// Written blind, round 4 (docs/detection.md, "Round 4"): correct servers by an author who had not read the suite; listed in the array below.

const isScalar = (v: unknown): boolean => v === null || ['string', 'number', 'boolean'].includes(typeof v)

function assertFlat(map: unknown, field: string): void {
  if (map === null || typeof map !== 'object') return // the route's schema refuses it
  const nested = Object.entries(map as Record<string, unknown>).find(([, v]) => !isScalar(v))
  if (nested) throw fail('BAD_REQUEST', `${field}.${nested[0]}: values of ${field} are strings, numbers, booleans or null`)
}

const contentFlatMap: Variant = {
  name: 'content-flat-map',
  area: 'items',
  description: 'item content, message content and push payload are flat maps: a value that is an object or an array is refused (400)',
  reading:
    '§2.6 content is a "key/value map of the message content"; §4.2, §4.3 "content (object of key/value pairs)", §4.4 "payload (object of key/value pairs)": pairs, with no nesting described',
  install: (app) => {
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => assertFlat((request.body as any).content, 'content'))
    addRouteHook(app, 'messages.send', 'preHandler', async (request: FastifyRequest) => assertFlat((request.body as any).content, 'content'))
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => assertFlat((request.body as any).payload, 'payload'))
  },
}

const publishTypesRequired: Variant = {
  name: 'publish-types-required',
  area: 'items',
  description: 'publish refuses (400) an item without messageType or without contentType',
  reading: '§4.2 publish item: "Requiredness of messageType and contentType: not shown"',
  install: (app) =>
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { messageType?: string; contentType?: string }
      const missing = (['messageType', 'contentType'] as const).filter((k) => body[k] === undefined)
      if (missing.length > 0) throw fail('BAD_REQUEST', `missing ${missing.join(' and ')}`)
    }),
}

const publishMessageIdDistinct: Variant = {
  name: 'publish-message-id-distinct',
  area: 'items',
  description: "publish answers a messageId of its own (a receipt for the publish), not the stored item's itemId; items are found by itemId via fetch",
  reading:
    '§4.2 publish answers "messageId (string)"; §2.6 items carry "itemId" and get/delete by id take `<item_id>`; the spec never says the two are the same value',
  install: (app) => rewriteJson(app, 'items.publish', (body) => ({ ...body, messageId: newId() })),
}

export const ITEM_VARIANTS: readonly Variant[] = [
  {
    name: 'items-fetch-window-limited',
    area: 'items',
    description: 'items are kept for an hour: fetch refuses (400) a since more than an hour before now (since=epoch, a day ago)',
    reading:
      '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown"; the spec states no range a fetch must accept, and §7 shows no failure status codes',
    install: (app, ctx) =>
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        const since = (request.query as Query).since
        const at = typeof since === 'string' ? parseTimestamp(since) : undefined
        if (at !== undefined && at < ctx.clock.now() - KEPT_MS) throw fail('BAD_REQUEST', 'since is before the oldest item kept (items are kept for one hour)')
      }),
  },
  {
    name: 'items-fetch-params-required',
    area: 'items',
    description: 'fetch refuses (400) a request that leaves out any of since, until, sort_order, offset and size',
    reading: '§4.2: requiredness of the five fetch parameters is not shown, so all five may be required',
    install: (app) =>
      addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest) => {
        const missing = FETCH_PARAMS.filter((p) => !given(request, p))
        if (missing.length > 0) throw fail('BAD_REQUEST', `missing parameter(s): ${missing.join(', ')}`)
      }),
  },
  {
    name: 'items-fetch-other-defaults',
    area: 'items',
    description: 'fetch defaults: size 10 (at most 50), sort_order DESC, since one day ago',
    reading: '§4.2: the defaults of since, until, sort_order, offset and size are not shown; §8: maximum page size not shown',
    install: (app, ctx) => {
      addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest) => {
        if (!given(request, 'size')) setQuery(request, 'size', '10')
        if (!given(request, 'sort_order')) setQuery(request, 'sort_order', 'DESC')
        if (!given(request, 'since')) setQuery(request, 'since', new Date(ctx.clock.now() - 86_400_000).toISOString())
      })
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        const size = (request.query as Query).size as number
        if (size > 50) setQuery(request, 'size', 50)
      })
    },
  },
  {
    name: 'items-fetch-bounds-exclusive',
    area: 'items',
    description: 'fetch leaves out items published exactly at since or at until (both bounds exclusive)',
    reading: '§4.2 names since and until but does not say whether the bounds are included',
    install: (app) =>
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        // Item times are whole milliseconds: (since, until) exclusive is [floor(since)+1, ceil(until)-1].
        const q = request.query as Query
        const since = typeof q.since === 'string' ? parseTimestamp(q.since) : undefined
        const until = typeof q.until === 'string' ? parseTimestamp(q.until) : undefined
        if (since !== undefined) setQuery(request, 'since', new Date(Math.floor(since) + 1).toISOString())
        if (until !== undefined) setQuery(request, 'until', new Date(Math.ceil(until) - 1).toISOString())
      }),
  },
  {
    name: 'items-time-seconds',
    area: 'items',
    description: 'item times are kept in whole seconds: items of the same second sort by item id, not by publish order',
    reading: 'the spec states no precision for item times (§2.6 items carry none); only channel timestamps have milliseconds (§2.3)',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem({ ...item, publishedAt: Math.floor(item.publishedAt / 1000) * 1000 }, maxItems),
        listItems: (inner) => (channelId) => [...inner.listItems(channelId)].sort((x, y) => x.publishedAt - y.publishedAt || (x.itemId < y.itemId ? -1 : 1)),
      }),
    // The summary shows the same whole-second time, so it is never before the channel's creation second.
    install: (app) =>
      rewriteJson(app, 'channels.summary', (sum) => ({
        ...sum,
        lastPublishedTime: typeof sum.lastPublishedTime === 'string' ? sum.lastPublishedTime.replace(/\.\d+Z$/, 'Z') : sum.lastPublishedTime,
      })),
  },
  {
    name: 'items-unknown-ids-404',
    area: 'items',
    description: 'get items by id answers 404 when any id asked for is not an item of the channel',
    reading: '§4.2 get items by id: "Behaviour for unknown ids: not shown"',
    install: (app) =>
      rewriteJson(app, 'items.getById', (page, request, reply) => {
        const asked = new Set((request.query as { id: string[] }).id)
        if (page.items.length === asked.size) return page
        reply.code(404)
        return { code: 4005, message: 'item(s) not found' }
      }),
  },
  {
    name: 'items-unknown-ids-all-or-nothing',
    area: 'items',
    description: 'get by id answers an empty page if any id is unknown and one item per id asked (repeats kept); delete by id gives 200 for an unknown id',
    reading:
      '§4.2: "Behaviour for unknown ids: not shown"; "id repeats once per item" says nothing of an id given twice; the delete map only needs an integer per id',
    install: (app) => {
      rewriteJson(app, 'items.getById', (page, request) => {
        const asked = (request.query as { id: string[] }).id
        const byId = new Map<string, unknown>(page.items.map((i: { itemId: string }) => [i.itemId, i]))
        const items = asked.every((id) => byId.has(id)) ? asked.map((id) => byId.get(id)) : []
        return { totalCount: items.length, items }
      })
      rewriteJson(app, 'items.deleteById', (result: Record<string, number>) =>
        Object.fromEntries(Object.entries(result).map(([id, code]) => [id, code === 404 ? 200 : code])),
      )
    },
  },
  {
    name: 'items-content-strings',
    area: 'items',
    description: 'content is stored as a map of strings: numbers, booleans and null come back as text, objects as JSON text',
    reading: '§2.6 content is a "key/value map of the message content"; §4.2 "object of key/value pairs": the value type is not stated',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) =>
          inner.addItem(
            {
              ...item,
              content: Object.fromEntries(Object.entries(item.content).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
            },
            maxItems,
          ),
      }),
  },
  // // written blind (docs/detection.md, "Faults written blind"): correct servers by implementers who had not read the suite
  {
    name: 'subscribers-literal',
    area: 'items',
    description:
      'publishPermission `subscribers` admits subscribers only: an owner who unsubscribed (or created with subscribeOnCreate false) may not publish (403)',
    reading: '§2.3 publishPermission is "one of anyone, owner, subscribers"; whether the owner counts as a subscriber is not stated',
    install(app, ctx) {
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const channel = channelOf(ctx, request)
        if (channel?.publishPermission === 'subscribers' && !ctx.store.findSubscription(channel.channelId, user.userId)) {
          throw fail('PUBLISH_FORBIDDEN', 'only subscribers may publish to this channel')
        }
      })
    },
  },
  {
    name: 'item-delete-owner-only',
    area: 'items',
    description: 'delete items by id: only the channel owner deletes (200); a publisher who is not the owner gets 403 for each of its items',
    reading:
      '§4.2 delete items by id states no permission rule; §5.5 names the owner-only operations, and a server may keep item deletion to the owner as well',
    install(app, ctx) {
      before(app, 'items.deleteById', async (request, next) => {
        const channel = channelOf(ctx, request)
        if (!channel || channel.ownerId === callerOf(request).user.userId) return next()
        // Not the owner: each item of the channel is refused; the other ids get the server's own answer.
        const query = request.query as { id: string[] }
        const items = query.id.filter((id) => ctx.store.getItem(channel.channelId, id) !== undefined)
        const refused = Object.fromEntries(items.map((id) => [id, 403]))
        query.id = query.id.filter((id) => !items.includes(id))
        return query.id.length === 0 ? refused : { ...((await next()) as object), ...refused }
      })
    },
  },
  {
    name: 'jsonb-content',
    area: 'items',
    description: 'item content is kept as PostgreSQL jsonb: it comes back with its keys reordered (shorter first), nested objects too',
    reading: '§2.6 content is a "key/value map of the message content": a map, whose key order JSON does not fix (RFC 8259: objects are unordered)',
    install(app) {
      const reorder = (body: any) => ({ ...body, items: body.items.map((i: any) => ({ ...i, content: jsonbOrder(i.content) })) })
      rewriteJson(app, 'items.getById', reorder)
      rewriteJson(app, 'items.fetch', reorder)
    },
  },
  // written blind, round 4 (docs/detection.md, "Round 4")
  contentFlatMap,
  publishTypesRequired,
  publishMessageIdDistinct,
]

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

const r5vFetchDefaultDesc: Variant = {
  name: 'r5v-fetch-default-desc',
  area: 'items',
  description: 'fetch by date range without sort_order answers newest first',
  reading: '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown"',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preValidation', async (request: FastifyRequest) => {
      const q = request.query as Record<string, unknown>
      if (q.sort_order === undefined) q.sort_order = 'DESC'
    })
  },
}

const r5vItemIdUuid: Variant = {
  name: 'r5v-item-id-uuid',
  area: 'items',
  description: 'item ids (publish messageId and itemId) are dashed UUIDs with a prefix, e.g. itm-1b4e28ba-2fa1-11d2-883f-0016d3cca427',
  reading: '§2.6 "itemId | string" and §4.2 publish "messageId (string)": the id form is not shown',
  wrapStore(store) {
    return overrideStore(store, {
      addItem: (inner) => (item, maxItems) => inner.addItem(Object.assign(item, { itemId: `itm-${randomUUID()}` }), maxItems),
    })
  },
}

const r5vItemsGetAllUnknown404: Variant = {
  name: 'r5v-items-get-all-unknown-404',
  area: 'items',
  description: 'get items by id answers 404 (error body) when none of the ids names an item of the channel; a mix answers the known ones',
  reading: '§4.2 get items by id: "Behaviour for unknown ids: not shown"',
  install(app) {
    rewriteJson(app, 'items.getById', (body, _request, reply) => {
      if (body.totalCount !== 0) return body
      reply.code(404)
      return { code: 404, message: 'no item with these ids' }
    })
  },
}

const r6vFetchDefaultDesc: Variant = {
  name: 'r6v-fetch-default-desc',
  area: 'items',
  description: 'fetch by date range without sort_order answers newest first (DESC)',
  reading: '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown"',
  install(app) {
    app.addHook('onRoute', (route) => {
      if (route.config?.id !== 'items.fetch') return
      const hook = async (request: FastifyRequest) => {
        const q = request.query as { sort_order?: string }
        if (q.sort_order === undefined) q.sort_order = 'DESC'
      }
      const existing = route.preValidation
      route.preValidation = (
        existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook]
      ) as RouteOptions['preValidation']
    })
  },
}

const r8vFetchDefaultDesc: Variant = {
  name: 'r8v-fetch-default-desc',
  area: 'items',
  description: 'fetch by date range without sort_order lists newest first',
  reading: '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown".',
  install(app) {
    wrapHandler(
      app,
      'items.fetch',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const query = request.query as { sort_order?: string }
          if (query.sort_order === undefined) query.sort_order = 'DESC'
          return callOriginal(original, this, request, reply)
        } as never,
    )
  },
}

const r11vItemIdsUuid: Variant = {
  name: 'r11v-item-ids-uuid',
  area: 'items',
  description: 'item ids (itemId, and the messageId publish answers) are hyphenated UUIDs instead of 32 hex characters',
  reading: '§2.6 "itemId | string" and §4.2 publish "messageId (string)": the form of an id is not stated.',
  wrapStore(store) {
    return overrideStore(store, {
      addItem: (inner) => (item, maxItems) => {
        ;(item as { itemId: string }).itemId = randomUUID()
        return inner.addItem(item, maxItems)
      },
    })
  },
}

const r11vFetchDefaultDesc: Variant = {
  name: 'r11v-fetch-default-desc',
  area: 'items',
  description: 'fetch by date range without sort_order answers newest first (DESC); ASC and DESC given explicitly are honoured',
  reading: '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown."',
  install(app) {
    addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
      const query = request.query as { sort_order?: string }
      if (query.sort_order === undefined) query.sort_order = 'DESC'
    })
  },
}

export const BLIND_ITEM_VARIANTS: readonly Variant[] = [
  r5vFetchDefaultDesc,
  r5vItemIdUuid,
  r5vItemsGetAllUnknown404,
  r6vFetchDefaultDesc,
  r8vFetchDefaultDesc,
  r11vItemIdsUuid,
  r11vFetchDefaultDesc,
]
