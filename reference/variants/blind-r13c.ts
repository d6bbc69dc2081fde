import type { FastifyRequest } from 'fastify'
import { AsyncLocalStorage } from 'node:async_hooks'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import { fail } from '../errors'
import { addRouteHook, overrideStore, wrapHandler } from '../faults/kit'
import type { Variant } from './types'

/** Blind round 13 (c): correct servers that choose differently where the spec leaves the choice open. */

/**
 * Subscriptions are per device: a subscribe from the device that already holds the user's subscription answers that
 * one (idempotent), a subscribe from another device of the same user adds a subscription carrying that device id.
 * Unsubscribe still cancels every subscription of the user and says how many; the user is listed once per device.
 */
function subscriptionsPerDevice(): Variant {
  const device = new AsyncLocalStorage<string>()
  return {
    name: 'r13cv-subscriptions-per-device',
    area: 'subscriptions',
    description: "subscribe is idempotent per (user, device): the same user subscribing from a second device gets a second subscription with that device's id",
    reading:
      '§2.5 Subscription carries a `deviceId` of its own besides `userId`; §4.2 Unsubscribe: "the message states the number of subscriptions cancelled" (a user may hold several). Whether one user holds one subscription or one per device is not stated.',
    wrapStore: (store) =>
      overrideStore(store, {
        findSubscription: (inner) => (channelId, userId) => {
          const from = device.getStore()
          if (from === undefined) return inner.findSubscription(channelId, userId)
          return inner.listSubscriptions(channelId).find((s) => s.userId === userId && (s.deviceId === from || s.deviceId === null))
        },
      }),
    install(app) {
      wrapHandler(
        app,
        'subscriptions.subscribe',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: unknown) {
            const caller = request.caller
            const run = () => (original as (this: unknown, rq: FastifyRequest, rp: unknown) => unknown).call(this, request, reply)
            return caller?.kind === 'USER' ? device.run(caller.deviceId, run) : run()
          } as never,
      )
    },
  }
}

/** The reads of a channel's contents that a private channel keeps to its owner and its subscribers. */
const PRIVATE_READS = ['channels.getByName', 'channels.summary', 'subscriptions.list', 'tags.get', 'items.getById', 'items.fetch'] as const

/**
 * A private channel's contents are read only by its owner and its subscribers: another user who addresses it as
 * `<user_id>#<name>` may subscribe (and publish as its publishPermission allows), but a read before subscribing is
 * refused with 403 (the channel was found: not a 404).
 */
const privateReadsForMembers: Variant = {
  name: 'r13cv-private-members-read',
  area: 'private',
  description:
    "another user's private channel, addressed as <user_id>#<name>, can be subscribed to and published to, but its record, summary, tags, subscribers and items are read only by its owner and subscribers (403 before subscribing)",
  reading:
    '§2.3 says only how another user\'s private channel is addressed ("as `<user_id>#<channel_name>`"), not who may read it; §1 calls channels "public or private"; §7 shows no error statuses. Who reads another user\'s private channel is left open.',
  install(app, ctx) {
    for (const id of PRIVATE_READS) {
      addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        let channel
        try {
          channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
        } catch {
          return // the route answers it as it would
        }
        if (!channel.privateChannel || channel.ownerId === user.userId) return
        if (ctx.store.findSubscription(channel.channelId, user.userId)) return
        throw fail('NOT_OWNER', 'only the owner and subscribers of a private channel may read it')
      })
    }
  },
}

export const R13C_VARIANTS: readonly Variant[] = [subscriptionsPerDevice(), privateReadsForMembers]
