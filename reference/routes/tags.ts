import type { FastifyPluginAsync } from 'fastify'
import { callerOf } from '../auth'
import { assertOwner, personal, resolveChannel } from '../channel-address'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { personalQuerySchema, tagSchema, type PersonalQuery } from '../schemas'
import type { ChannelParams } from './channels'

/**
 * Tags (§4.2). Tags are case-sensitive strings of 1-50 characters, kept in the order added. Changing
 * them is the owner's (the spec is silent; a channel's tags describe it in search, so only its owner
 * decides them) and moves the channel's modifiedDate.
 */

const addSchema = {
  type: 'object',
  required: ['tags'],
  properties: {
    personal: { type: 'boolean' },
    tags: { type: 'array', minItems: 1, maxItems: 100, items: tagSchema },
  },
} as const

interface AddBody {
  personal?: boolean
  tags: string[]
}

const tagParamsSchema = {
  type: 'object',
  properties: { tag: tagSchema },
} as const

const tagRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, clock } = ctx

  app.post<{ Params: ChannelParams; Body: AddBody }>(
    '/channels/:channel/tags',
    { config: { id: 'tags.add', auth: 'user' }, schema: { body: addSchema } },
    async (request) => {
      const { user } = callerOf(request)
      const { tags, personal: isPersonal = false } = request.body
      const channel = resolveChannel(ctx, user.userId, request.params.channel, personal(isPersonal))
      assertOwner(channel, user.userId)
      const added = store.addTags(channel.channelId, tags, clock.now())
      return { message: `${added} tag(s) added to ${channel.name}`, code: 200 }
    },
  )

  app.get<{ Params: ChannelParams }>('/channels/:channel/tags', { config: { id: 'tags.get', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    const channel = resolveChannel(ctx, user.userId, request.params.channel)
    return { channelName: channel.name, tags: [...channel.tags] }
  })

  app.delete<{ Params: ChannelParams & { tag: string }; Querystring: PersonalQuery }>(
    '/channels/:channel/tags/:tag',
    {
      config: { id: 'tags.deleteOne', auth: 'user' },
      schema: { params: tagParamsSchema, querystring: personalQuerySchema },
    },
    async (request) => {
      const { user } = callerOf(request)
      const { channel: ref, tag } = request.params
      const channel = resolveChannel(ctx, user.userId, ref, personal(request.query.personal))
      assertOwner(channel, user.userId)
      if (!store.removeTag(channel.channelId, tag, clock.now())) {
        throw fail('TAG_NOT_FOUND', `channel ${channel.name} has no tag ${tag}`)
      }
      return { code: 200, message: `tag ${tag} removed from ${channel.name}` }
    },
  )

  app.delete<{ Params: ChannelParams; Querystring: PersonalQuery }>(
    '/channels/:channel/tags',
    { config: { id: 'tags.deleteAll', auth: 'user' }, schema: { querystring: personalQuerySchema } },
    async (request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, request.params.channel, personal(request.query.personal))
      assertOwner(channel, user.userId)
      const removed = store.clearTags(channel.channelId, clock.now())
      return { code: 200, message: `${removed} tag(s) removed from ${channel.name}` }
    },
  )
}

export default tagRoutes
