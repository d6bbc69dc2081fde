import type { FastifyPluginAsync } from 'fastify'
import { callerOf } from '../auth'
import { assertOwner, personal, resolveChannel } from '../channel-address'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { newId } from '../ids'
import { PUBLISH_PERMISSIONS, type ChannelRecord, type PublishPermission } from '../model'
import { INT32_MAX, offsetQuery, personalQuerySchema, sizeQuery, type PersonalQuery } from '../schemas'
import { channelByNameView, channelSearchView, summaryView } from '../views'

/** Channels (§4.2): create, search, get by name, summary, delete. */

export interface ChannelParams {
  channel: string
}

const createSchema = {
  type: 'object',
  required: ['channelName'],
  properties: {
    // The server's name rule (ctx.channelNames) is applied by the handler: a variant may widen it.
    channelName: { type: 'string', minLength: 1 },
    maxItems: { type: 'integer', minimum: -1, maximum: INT32_MAX },
    privateChannel: { type: 'boolean' },
    description: { type: 'string', maxLength: 255 },
    subscribeOnCreate: { type: 'boolean' },
    publishPermission: { type: 'string', enum: PUBLISH_PERMISSIONS },
  },
} as const

export interface CreateBody {
  channelName: string
  maxItems?: number
  privateChannel?: boolean
  description?: string
  subscribeOnCreate?: boolean
  publishPermission?: PublishPermission
}

const searchSchema = {
  type: 'object',
  properties: {
    channelName: { type: 'string' },
    description: { type: 'string' },
    tag: { type: 'array', items: { type: 'string' } },
    offset: offsetQuery,
    size: sizeQuery(200),
  },
} as const

interface SearchQuery {
  channelName?: string
  description?: string
  tag?: string[]
  offset: number
  size: number
}

const channelRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, clock } = ctx

  app.post<{ Body: CreateBody }>('/channels', { config: { id: 'channels.create', auth: 'user' }, schema: { body: createSchema } }, async (request, reply) => {
    const { user, deviceId } = callerOf(request)
    const body = request.body
    if (!ctx.channelNames.pattern.test(body.channelName)) throw fail('INVALID_CHANNEL_NAME', ctx.channelNames.rule)
    const maxItems = body.maxItems ?? -1
    if (maxItems === 0) throw fail('BAD_REQUEST', 'body/maxItems must be -1 (unlimited) or at least 1')
    const now = clock.now()
    const channel: ChannelRecord = {
      channelId: newId(),
      name: body.channelName,
      ownerId: user.userId,
      ownerDeviceId: deviceId,
      description: body.description ?? '',
      privateChannel: body.privateChannel ?? false,
      maxItems,
      publishPermission: body.publishPermission ?? 'anyone',
      createdAt: now,
      modifiedAt: now,
      lastPublishedAt: null,
      tags: [],
    }
    if (!store.addChannel(channel)) {
      throw fail('CHANNEL_EXISTS', `a ${channel.privateChannel ? 'private' : 'public'} channel ${channel.name} already exists`)
    }
    if (body.subscribeOnCreate ?? true) {
      store.addSubscription({ subscriptionId: newId(), channelId: channel.channelId, userId: user.userId, deviceId, createdAt: now })
    }
    const ref = channel.privateChannel ? `${user.userId}#${channel.name}` : channel.name
    const collection = request.url.split('?')[0]!.replace(/\/$/, '')
    reply.header('location', `${collection}/${encodeURIComponent(ref)}`)
    return reply.code(201).send({ code: 201, message: `channel ${channel.name} created` })
  })

  app.get<{ Querystring: SearchQuery }>(
    '/channels',
    { config: { id: 'channels.search', auth: 'user' }, schema: { querystring: searchSchema } },
    async (request) => {
      const { channelName, description, tag = [], offset, size } = request.query
      const nameText = channelName?.toLowerCase()
      const descriptionText = description?.toLowerCase()
      const matches = store
        .listPublicChannels()
        .filter(
          (c) =>
            (nameText === undefined || c.name.toLowerCase().includes(nameText)) &&
            (descriptionText === undefined || c.description.toLowerCase().includes(descriptionText)) &&
            tag.every((t) => c.tags.includes(t)),
        )
        .sort((a, b) => a.createdAt - b.createdAt || compareText(a.name, b.name))
      return {
        total: matches.length,
        results: matches.slice(offset, offset + size).map((c) => channelSearchView(ctx, c)),
      }
    },
  )

  app.get<{ Params: ChannelParams }>('/channels/:channel', { config: { id: 'channels.getByName', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    return channelByNameView(ctx, resolveChannel(ctx, user.userId, request.params.channel))
  })

  app.get<{ Params: ChannelParams }>('/channels/:channel/summary', { config: { id: 'channels.summary', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, request.params.channel)
    return summaryView(channel, store.listItems(channel.channelId).length)
  })

  app.delete<{ Params: ChannelParams; Querystring: PersonalQuery }>(
    '/channels/:channel',
    { config: { id: 'channels.delete', auth: 'user' }, schema: { querystring: personalQuerySchema } },
    async (request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, request.params.channel, personal(request.query.personal))
      assertOwner(channel, user.userId)
      store.deleteChannel(channel.channelId)
      return { code: 200, message: `channel ${channel.name} deleted` }
    },
  )
}

export default channelRoutes

/** Names in a stable order: ignoring case first, then exactly. */
function compareText(a: string, b: string): number {
  const la = a.toLowerCase()
  const lb = b.toLowerCase()
  return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0
}
