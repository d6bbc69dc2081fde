import type { FastifyPluginAsync } from 'fastify'
import { callerOf } from '../auth'
import { assertOwner, personal, resolveChannel } from '../channel-address'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { newId } from '../ids'
import type { ChannelRecord, ItemRecord } from '../model'
import { idListQuerySchema, objectSchema, offsetQuery, personalQuerySchema, sizeQuery, type IdListQuery, type PersonalQuery } from '../schemas'
import { parseTimestamp } from '../time'
import { MAX_PAYLOAD_SIZE, payloadSize } from '../limits'
import { itemView } from '../views'
import type { ChannelParams } from './channels'

/** Items (§4.2): publish, get by id, fetch by date range, delete by id, delete all. */

const publishSchema = {
  type: 'object',
  required: ['content'],
  properties: {
    content: objectSchema,
    messageType: { type: 'string', maxLength: 255 },
    contentType: { type: 'string', maxLength: 255, pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\\s*;.*)?$' },
  },
} as const

interface PublishBody {
  content: Record<string, unknown>
  messageType?: string
  contentType?: string
}

const fetchSchema = {
  type: 'object',
  properties: {
    since: { type: 'string' },
    until: { type: 'string' },
    sort_order: { type: 'string' },
    offset: offsetQuery,
    size: sizeQuery(200),
  },
} as const

interface FetchQuery {
  since?: string
  until?: string
  sort_order?: string
  offset: number
  size: number
}

const itemRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, clock } = ctx

  /** publishPermission: anyone; owner: only the owner; subscribers: the owner and subscribed users. */
  function mayPublish(channel: Readonly<ChannelRecord>, userId: string): boolean {
    switch (channel.publishPermission) {
      case 'anyone':
        return true
      case 'owner':
        return channel.ownerId === userId
      case 'subscribers':
        return channel.ownerId === userId || store.findSubscription(channel.channelId, userId) !== undefined
    }
  }

  app.post<{ Params: ChannelParams; Body: PublishBody }>(
    '/channels/:channel/items',
    { config: { id: 'items.publish', auth: 'user' }, schema: { body: publishSchema } },
    async (request, reply) => {
      const { user, deviceId } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, request.params.channel)
      if (!mayPublish(channel, user.userId)) {
        throw fail('PUBLISH_FORBIDDEN', `publishPermission of ${channel.name} is ${channel.publishPermission}`)
      }
      const { content, messageType, contentType } = request.body
      const size = payloadSize(content)
      if (size > MAX_PAYLOAD_SIZE) {
        throw fail('PAYLOAD_TOO_LARGE', `content is ${size} bytes; maxPayloadSize is ${MAX_PAYLOAD_SIZE}`)
      }
      const item: ItemRecord = {
        itemId: newId(),
        channelId: channel.channelId,
        publisherId: user.userId,
        publisherDeviceId: deviceId,
        content,
        messageType: messageType ?? null,
        contentType: contentType ?? null,
        publishedAt: clock.now(),
      }
      store.addItem(item, channel.maxItems)
      return reply.code(201).send({ message: `item published to ${channel.name}`, status: 'OK', messageId: item.itemId })
    },
  )

  app.get<{ Params: ChannelParams; Querystring: IdListQuery }>(
    '/channels/:channel/items',
    { config: { id: 'items.getById', auth: 'user' }, schema: { querystring: idListQuerySchema } },
    async (request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, request.params.channel)
      // In the order asked, each id once; ids not in this channel are left out.
      const items = [...new Set(request.query.id)]
        .map((id) => store.getItem(channel.channelId, id))
        .filter((item) => item !== undefined)
        .map((item) => itemView(channel, item))
      return { totalCount: items.length, items }
    },
  )

  app.get<{ Params: ChannelParams; Querystring: FetchQuery }>(
    '/channels/:channel/items/fetch',
    { config: { id: 'items.fetch', auth: 'user' }, schema: { querystring: fetchSchema } },
    async (request) => {
      const { user } = callerOf(request)
      const { since, until, sort_order: sortOrder = 'ASC', offset, size } = request.query
      const from = since === undefined ? 0 : timestampParam('since', since)
      const to = until === undefined ? clock.now() : timestampParam('until', until)
      if (from > to) throw fail('INVALID_RANGE', 'since must not be after until')
      const order = sortOrder.toUpperCase()
      if (order !== 'ASC' && order !== 'DESC') throw fail('BAD_REQUEST', 'sort_order must be ASC or DESC')
      const channel = resolveChannel(ctx, user.userId, request.params.channel)

      const inRange = store.listItems(channel.channelId).filter((i) => i.publishedAt >= from && i.publishedAt <= to)
      if (order === 'DESC') inRange.reverse()
      return {
        totalCount: inRange.length,
        items: inRange.slice(offset, offset + size).map((item) => itemView(channel, item)),
      }
    },
  )

  app.delete<{ Params: ChannelParams; Querystring: IdListQuery }>(
    '/channels/:channel/items',
    { config: { id: 'items.deleteById', auth: 'user' }, schema: { querystring: idListQuerySchema } },
    async (request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, request.params.channel)
      // The channel owner and the item's publisher may delete an item; anyone else gets 403 for it.
      const result: Record<string, number> = {}
      for (const id of request.query.id) {
        const item = store.getItem(channel.channelId, id)
        if (!item) result[id] = result[id] ?? 404
        else if (item.publisherId !== user.userId && channel.ownerId !== user.userId) result[id] = 403
        else result[id] = store.deleteItem(channel.channelId, id) ? 200 : 404
      }
      return result
    },
  )

  app.delete<{ Params: ChannelParams; Querystring: PersonalQuery }>(
    '/channels/:channel/items/all',
    { config: { id: 'items.deleteAll', auth: 'user' }, schema: { querystring: personalQuerySchema } },
    async (request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, request.params.channel, personal(request.query.personal))
      assertOwner(channel, user.userId)
      const deleted = store.clearItems(channel.channelId)
      return { code: 200, message: `${deleted} item(s) deleted from ${channel.name}` }
    },
  )
}

export default itemRoutes

function timestampParam(name: string, text: string): number {
  const ms = parseTimestamp(text)
  if (ms === undefined) {
    throw fail('INVALID_DATE', `${name} must be an ISO 8601 date-time with a zone, e.g. 2015-11-10T19:22:54.123Z`)
  }
  return ms
}
