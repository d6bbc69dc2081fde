import { randomUUID } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import { addRouteHook, overrideStore, rewriteJson } from '../faults/kit'
import type { Variant } from './types'

/**
 * Blind round 5: correct servers written from the spec's words only (the suite unread). Each chooses
 * differently from the reference where the spec leaves the choice open; `reading` quotes the words.
 */

/** `2015-11-10T19:22:54.123+0000` → the same instant at +05:30, with milliseconds. */
function atPlus0530(text: unknown): unknown {
  if (typeof text !== 'string') return text
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
  if (Number.isNaN(ms)) return text
  return new Date(ms + 330 * 60_000).toISOString().replace(/Z$/, '+05:30')
}

const searchDefaultSize10: Variant = {
  name: 'r5v-search-default-size-10',
  area: 'channels',
  description: 'channel search without size answers at most 10 results (total still counts every match)',
  reading: '§4.2 search: "the defaults and maximum of size: not shown"',
  install(app) {
    addRouteHook(app, 'channels.search', 'preValidation', async (request: FastifyRequest) => {
      const q = request.query as Record<string, unknown>
      if (q.size === undefined) q.size = '10'
    })
  },
}

const fetchDefaultDesc: Variant = {
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

const itemIdUuid: Variant = {
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

const channelTimesPlus0530: Variant = {
  name: 'r5v-channel-times-plus0530',
  area: 'channels',
  description: "channel creationDate and modifiedDate are given in the server's zone, +05:30, with milliseconds (e.g. 2026-11-27T07:02:03.456+05:30)",
  reading: '§2.3 creationDate "with millisecond precision and a numeric UTC offset": +05:30 is a numeric UTC offset; only lastPublishedTime is said to be UTC',
  install(app) {
    const shift = (c: any) => ({ ...c, creationDate: atPlus0530(c.creationDate), modifiedDate: atPlus0530(c.modifiedDate) })
    rewriteJson(app, 'channels.getByName', (body) => shift(body))
    rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map(shift) }))
  },
}

const errorProblemJson: Variant = {
  name: 'r5v-error-problem-json',
  area: 'http',
  description: 'error answers are RFC 9457 problem details (application/problem+json: type, title, status, detail)',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"; problem+json is JSON (§4 "bodies are JSON")',
  install(app) {
    app.addHook('onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload
      let body: any
      try {
        body = JSON.parse(payload)
      } catch {
        return payload
      }
      reply.header('content-type', 'application/problem+json; charset=utf-8')
      return JSON.stringify({ type: 'about:blank', title: String(body?.message ?? 'error'), status: reply.statusCode, detail: body?.message ?? null })
    })
  },
}

const summaryUserIdAlways: Variant = {
  name: 'r5v-summary-userid-owner',
  area: 'channels',
  description: "the channel summary's userId is the owner's id for public channels too",
  reading: '§2.4 "userId | string or null": nothing ties null to public channels',
  install(app, ctx) {
    rewriteJson(app, 'channels.summary', (body, request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
      return { ...body, userId: channel.ownerId }
    })
  },
}

const pushRequestedOne: Variant = {
  name: 'r5v-push-requested-one',
  area: 'push',
  description: 'push count.requested is 1 (the one user the push was requested for); sent and unsent count devices',
  reading: '§4.4 "Here sent and unsent count devices": the meaning of requested in a push is not stated',
  install(app) {
    rewriteJson(app, 'push.user', (body) => ({ ...body, count: { ...body.count, requested: 1 } }))
  },
}

const deleteEmptyBody: Variant = {
  name: 'r5v-delete-empty-body',
  area: 'channels',
  description: 'the four deletes without a described body answer 200 with an empty body (no content type)',
  reading: '§4.2 "Success of the four delete operations ... is status 200. Success body: not shown"',
  install(app) {
    for (const id of ['channels.delete', 'tags.deleteOne', 'tags.deleteAll', 'items.deleteAll']) {
      addRouteHook(app, id, 'onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode !== 200) return payload
        reply.removeHeader('content-type')
        return ''
      })
    }
  },
}

const itemsAllUnknown404: Variant = {
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

export const R5_VARIANTS: readonly Variant[] = [
  searchDefaultSize10,
  fetchDefaultDesc,
  itemIdUuid,
  channelTimesPlus0530,
  errorProblemJson,
  summaryUserIdAlways,
  pushRequestedOne,
  deleteEmptyBody,
  itemsAllUnknown404,
]
