import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import type { Variant } from './types'

/** Private channels (§2.3 addressing): who may read another user's private channel is the server's choice. */

const privateOwnerOnly: Variant = {
  name: 'private-owner-only',
  area: 'private',
  description: "another user's private channel, addressed as <userId>#<name>, answers 403 to everyone but its owner",
  reading: "§2.3 defines the address <user_id>#<channel_name> of another user's private channel, not who may read it",
  install: (app, ctx) =>
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const ref = (request.params as { channel?: unknown } | undefined)?.channel
      const caller = request.caller
      if (typeof ref !== 'string' || caller?.kind !== 'USER') return
      const hash = ref.indexOf('#')
      if (hash < 0) return
      const ownerId = ref.slice(0, hash)
      if (ownerId !== caller.user.userId && ctx.store.findPrivateChannel(ownerId, ref.slice(hash + 1)))
        throw fail('NOT_OWNER', "this private channel is its owner's")
    }),
}

/** As privateOwnerOnly, but the refusal hides the channel: 404, as for a channel that does not exist. */
const privateHiddenNotFound: Variant = {
  name: 'private-owner-only-404',
  area: 'private',
  description: "another user's private channel, addressed as <userId>#<name>, answers 404 to everyone but its owner (the channel is hidden)",
  reading:
    "§2.3 defines the address <user_id>#<channel_name> of another user's private channel, not who may read it; §7 shows no failure status codes, and RFC 9110 §15.5.4 lets a server answer 404 for a resource it does not want to reveal",
  install: (app, ctx) =>
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const ref = (request.params as { channel?: unknown } | undefined)?.channel
      const caller = request.caller
      if (typeof ref !== 'string' || caller?.kind !== 'USER') return
      const hash = ref.indexOf('#')
      if (hash < 0) return
      const ownerId = ref.slice(0, hash)
      if (ownerId !== caller.user.userId && ctx.store.findPrivateChannel(ownerId, ref.slice(hash + 1))) throw fail('CHANNEL_NOT_FOUND')
    }),
}

export const PRIVATE_VARIANTS: readonly Variant[] = [privateOwnerOnly, privateHiddenNotFound]
