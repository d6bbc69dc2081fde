import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import { addRouteHook, rewriteJson } from '../faults/kit'
import type { Variant } from './types'

/** Tags (§4.2 add, get, delete one, delete all): choices the spec leaves open. */

const tagsSorted: Variant = {
  name: 'tags-sorted',
  area: 'tags',
  description: 'get tags answers the tags sorted alphabetically rather than in the order added',
  reading: '§4.2 get tags: "tags (array of string)", no order stated',
  install: (app) => rewriteJson(app, 'tags.get', (body) => ({ ...body, tags: [...body.tags].sort().reverse() })),
}

const tagsDeleteMissingOk: Variant = {
  name: 'tags-delete-missing-ok',
  area: 'tags',
  description: 'deleting a tag the channel does not carry answers 200 (nothing to do) rather than 404',
  reading: '§4.2 delete one tag shows success only; §7 shows no error',
  install: (app) =>
    addRouteHook(app, 'tags.deleteOne', 'onSend', async (_request: FastifyRequest, reply, payload: unknown) => {
      if (reply.statusCode !== 404 || typeof payload !== 'string' || !payload.includes('has no tag')) return payload
      reply.code(200)
      return JSON.stringify({ code: 200, message: 'no such tag; nothing removed' })
    }),
}

/** Any signed-in user may change a public channel's tags (the reference lets only the owner). */
const tagsAnyUser: Variant = {
  name: 'tags-any-user',
  area: 'tags',
  description: 'any user may add and delete tags of a public channel, not only its owner',
  reading: '§5.5 names only deleting a channel and deleting all items as owner-only; tags are not among them',
  install: (app, ctx) => {
    for (const id of ['tags.add', 'tags.deleteOne', 'tags.deleteAll']) {
      addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const query = (request.query ?? {}) as { personal?: boolean }
        const body = (request.body ?? {}) as { personal?: boolean }
        const isPersonal = id === 'tags.add' ? (body.personal ?? false) : (query.personal ?? false)
        if (isPersonal) return
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel, personal(false))
        if (channel.privateChannel || channel.ownerId === user.userId) return
        // The route's own owner check then passes: the caller acts for the owner on this one request.
        const owner = ctx.store.getUser(channel.ownerId)
        if (owner) request.caller = { kind: 'USER', user: owner, deviceId: request.caller?.deviceId ?? 'unknown' }
      })
    }
  },
}

export const TAG_VARIANTS: readonly Variant[] = [tagsSorted, tagsDeleteMissingOk, tagsAnyUser]
