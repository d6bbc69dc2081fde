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

/**
 * The `#` form is only for other users' private channels: with the caller's own user id it names no channel, and a
 * public channel never has one (as in the reference), so the owner's own channels answer 404 through it.
 */
const hashOthersOnly: Variant = {
  name: 'hash-others-only',
  area: 'private',
  description: "a `<userId>#<name>` reference with the caller's own user id is no channel (404), for the caller's public and private channels alike",
  reading:
    "§2.3: \"a public channel or the caller's own private channel is addressed by its plain name. Another user's private channel is addressed as <user_id>#<channel_name>\": the `#` form is defined for another user's private channel only",
  install: (app) =>
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const ref = (request.params as { channel?: unknown } | undefined)?.channel
      const caller = request.caller
      if (typeof ref !== 'string' || caller?.kind !== 'USER') return
      const hash = ref.indexOf('#')
      if (hash >= 0 && ref.slice(0, hash) === caller.user.userId)
        throw fail('CHANNEL_NOT_FOUND', `no channel ${ref}: your own channels go by their plain names`)
    }),
}

export const PRIVATE_VARIANTS: readonly Variant[] = [privateOwnerOnly, hashOthersOnly]
