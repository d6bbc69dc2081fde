/** Blind round 14 (docs/detection.md), isolation between channels and users, addresses × callers: correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import { fail } from '../errors'
import { wrapHandler } from '../faults/kit'
import type { Variant } from './types'

const channelParam = (request: FastifyRequest): string => (request.params as { channel: string }).channel

/**
 * Tags are open to every signed-in caller who can address the channel (its owner, a subscriber or anyone
 * else): add, delete one and delete all skip the owner check the reference makes. Addressing (plain name,
 * `<user_id>#<name>`, `personal`) is unchanged.
 */
const tagsOpenToAnyCaller: Variant = {
  name: 'r14cv-tags-open-to-any-caller',
  area: 'tags',
  description: 'add tags, delete one tag and delete all tags are allowed to any signed-in caller who can address the channel, not only to its owner',
  reading:
    '§5.5 names the owner-only rules: "deleting a channel and deleting all items of a channel are permitted only to the channel owner." Tags are not among them, and §4.2 (Add tags, Delete one tag, Delete all tags) states no permission: who may change a channel\'s tags is left open.',
  install(app, ctx) {
    wrapHandler(
      app,
      'tags.add',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const { tags, personal: isPersonal = false } = request.body as { tags: string[]; personal?: boolean }
          const channel = resolveChannel(ctx, user.userId, channelParam(request), personal(isPersonal))
          const added = ctx.store.addTags(channel.channelId, tags, ctx.clock.now())
          return { message: `${added} tag(s) added to ${channel.name}`, code: 200 }
        } as RouteOptions['handler'],
    )
    wrapHandler(
      app,
      'tags.deleteOne',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const { tag } = request.params as { tag: string }
          const query = request.query as { personal: boolean }
          const channel = resolveChannel(ctx, user.userId, channelParam(request), personal(query.personal))
          if (!ctx.store.removeTag(channel.channelId, tag, ctx.clock.now())) {
            throw fail('TAG_NOT_FOUND', `channel ${channel.name} has no tag ${tag}`)
          }
          return { code: 200, message: `tag ${tag} removed from ${channel.name}` }
        } as RouteOptions['handler'],
    )
    wrapHandler(
      app,
      'tags.deleteAll',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const query = request.query as { personal: boolean }
          const channel = resolveChannel(ctx, user.userId, channelParam(request), personal(query.personal))
          const removed = ctx.store.clearTags(channel.channelId, ctx.clock.now())
          return { code: 200, message: `${removed} tag(s) removed from ${channel.name}` }
        } as RouteOptions['handler'],
    )
  },
}

/**
 * Delete items by id is the channel owner's: a publisher who is not the owner gets 403 for each id, its own
 * items included (the reference lets an item's publisher delete it). Unknown ids stay 404 for everybody.
 */
const deleteByIdOwnerOnly: Variant = {
  name: 'r14cv-items-delete-by-id-owner-only',
  area: 'items',
  description: "delete items by id deletes only for the channel owner: anyone else, the item's own publisher included, gets 403 for each id it names",
  reading:
    '§4.2 Delete items by id states no permission ("Response: object whose keys are item ids and whose values are integer status codes, one per id"), and §5.5 lists no rule for it either way: which callers may delete an item by id is left open, and a refusal is reported per id as an integer status.',
  install(app, ctx) {
    wrapHandler(
      app,
      'items.deleteById',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, channelParam(request))
          const result: Record<string, number> = {}
          for (const id of (request.query as { id: string[] }).id) {
            const item = ctx.store.getItem(channel.channelId, id)
            if (!item) result[id] = result[id] ?? 404
            else if (channel.ownerId !== user.userId) result[id] = 403
            else result[id] = ctx.store.deleteItem(channel.channelId, id) ? 200 : 404
          }
          return result
        } as RouteOptions['handler'],
    )
  },
}

export const ROUND14_ISOLATION_VARIANTS: Variant[] = [tagsOpenToAnyCaller, deleteByIdOwnerOnly]
