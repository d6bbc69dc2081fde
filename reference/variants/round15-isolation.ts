/** Blind round 15 (docs/detection.md), isolation between channels and users, addresses × callers: correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { deliveryViews } from '../views'
import { before } from './common'
import type { Variant } from './types'

export const ROUND15_ISOLATION_VARIANTS: readonly Variant[] = [
  {
    name: 'r15cv-messages-status-any-user',
    area: 'messages',
    description:
      'the delivery status of a direct message is answered to any signed-in user of the application who has its id, not only to its sender and recipient',
    reading:
      '§4.3 "Get delivery status: GET /messages/{messageId}. Response: array of Message delivery status record." and §5 "All other calls send the header Authorization: Bearer <ACCESS_TOKEN>": the spec names no rule on who may read a status besides holding a token; §7 "Error responses: not shown". Knowing the (unguessable) message id is the only key here.',
    install(app, ctx) {
      before(app, 'messages.status', async (request, next) => {
        const { user } = callerOf(request)
        const message = ctx.store.getMessage((request.params as { messageId: string }).messageId)
        const sender = message ? ctx.store.getUser(message.senderId) : undefined
        if (message && sender && sender.clientId === user.clientId) return deliveryViews(message)
        return next()
      })
    },
  },
  {
    name: 'r15cv-private-owner-by-username',
    area: 'private',
    description:
      "besides <user_id>#<channel_name>, another user's private channel may also be addressed as <user_name>#<channel_name> (the owner's user name, ignoring case); an owner part that is a user id keeps its meaning",
    reading:
      '§2.3 "Another user\'s private channel is addressed as `<user_id>#<channel_name>`" — that form works exactly as stated; the spec forbids no other form, user names are unique within the application (§4.1 search by userName), and "Constraints on channel names (length, allowed characters): not shown" lets a server keep "#" out of names so the form is unambiguous.',
    install(app, ctx) {
      app.addHook('preHandler', async (request: FastifyRequest) => {
        const params = request.params as { channel?: unknown } | undefined
        const caller = request.caller
        if (!params || typeof params.channel !== 'string' || caller?.kind !== 'USER') return
        const hash = params.channel.indexOf('#')
        if (hash <= 0) return
        const owner = params.channel.slice(0, hash)
        if (ctx.store.getUser(owner)) return
        const byName = ctx.store.findUserByName(caller.user.clientId, owner)
        if (byName) params.channel = `${byName.userId}${params.channel.slice(hash)}`
      })
    },
  },
]
