import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import { channelSearchView } from '../views'
import type { Variant } from './types'

/**
 * Blind round 11: correct servers written from the spec's words alone, each choosing differently from the
 * reference where the spec leaves the choice open. The suite must not fail any of them.
 */
export const R11_VARIANTS: readonly Variant[] = [
  {
    name: 'r11v-search-newest-first',
    area: 'channels',
    description: 'channel search answers the matches newest first (by creation time, descending); offset and size page through that order',
    reading:
      '§4.2 search: "offset is the number of results to skip; size is the number of results requested. Matching rules …: not shown." No order of the results is stated.',
    install(app, ctx) {
      wrapHandler(
        app,
        'channels.search',
        () =>
          async function (request: FastifyRequest) {
            const {
              channelName,
              description,
              tag = [],
              offset,
              size,
            } = request.query as {
              channelName?: string
              description?: string
              tag?: string[]
              offset: number
              size: number
            }
            const nameText = channelName?.toLowerCase()
            const descriptionText = description?.toLowerCase()
            const matches = ctx.store
              .listPublicChannels()
              .filter(
                (c) =>
                  (nameText === undefined || c.name.toLowerCase().includes(nameText)) &&
                  (descriptionText === undefined || c.description.toLowerCase().includes(descriptionText)) &&
                  tag.every((t) => c.tags.includes(t)),
              )
              .sort((a, b) => b.createdAt - a.createdAt || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0))
            return { total: matches.length, results: matches.slice(offset, offset + size).map((c) => channelSearchView(ctx, c)) }
          } as never,
      )
    },
  },
  {
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
  },
  {
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
  },
  {
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
  },
]
