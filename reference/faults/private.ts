import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import type { CatalogFault } from './types'
import { withChannelLog } from './common'
import { addRouteHook, overrideStore } from './kit'

/** Private channels and their addressing (§2.3; §4.2 create, delete with personal). */

/** Every route that takes a channel name in its path. */
const CHANNEL_ROUTES = [
  'channels.getByName',
  'channels.summary',
  'channels.delete',
  'subscriptions.subscribe',
  'subscriptions.unsubscribe',
  'subscriptions.list',
  'tags.add',
  'tags.get',
  'tags.deleteOne',
  'tags.deleteAll',
  'items.publish',
  'items.getById',
  'items.fetch',
  'items.deleteById',
  'items.deleteAll',
]

export const PRIVATE_FAULTS: readonly CatalogFault[] = [
  {
    name: 'private-flag-ignored',
    area: 'private',
    clause: 'private.create',
    description: 'create channel ignores privateChannel true: the channel is public',
    consequences: [
      // Checks that make their private channel through the fixture (or the address model) read it back first and
      // are blocked by private.create; the dotted-name check makes its own, and cannot tell the two apart.
      {
        clause: 'private.other-user-address',
        reason: "the dotted-name check creates its private channel itself and finds A's address unresolved, since the channel is public",
      },
    ],
    install: (app) =>
      addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
        const body = request.body as { privateChannel?: boolean }
        body.privateChannel = false
      }),
  },
  {
    name: 'private-hash-address-unsupported',
    area: 'private',
    clause: 'private.other-user-address',
    description: "<user_id>#<channel_name> is not understood: another user's private channel is never found",
    install: (app) => {
      for (const id of CHANNEL_ROUTES) {
        addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
          const { channel } = request.params as { channel: string }
          if (channel.includes('#')) throw fail('CHANNEL_NOT_FOUND', `channel ${channel} not found`)
        })
      }
    },
  },
  {
    name: 'private-plain-name-shared',
    area: 'private',
    clause: 'private.plain-name-not-shared',
    description: "a plain name with no public channel reaches any user's private channel of that name",
    wrapStore: (store) =>
      withChannelLog(store, (logged, all) =>
        overrideStore(logged, {
          findPublicChannel: (inner) => (name) =>
            inner.findPublicChannel(name) ?? all().find((c) => c.privateChannel && c.name.toLowerCase() === name.toLowerCase()),
        }),
      ),
  },
  {
    name: 'private-own-plain-name-unreachable',
    area: 'private',
    clause: 'private.own-plain-name',
    description: "a plain name never reaches the caller's own private channel (only a public one, or a 404), unless personal=true asks for it",
    consequences: [
      { clause: 'channels.delete.personal-default', reason: 'the check reads its own private channel by the plain name after deleting the public one' },
      {
        clause: 'channels.delete.only-named',
        reason: "the check reads a user's own private channel by the plain name after another user deleted its public namesake",
      },
    ],
    install: (app, ctx) => {
      for (const id of CHANNEL_ROUTES) {
        addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
          const { channel } = request.params as { channel: string }
          // personal=true (in the query, or in the body of add tags) picks the private channel explicitly.
          const personal = (request.query as { personal?: boolean }).personal ?? (request.body as { personal?: boolean } | undefined)?.personal
          const caller = request.caller
          if (channel.includes('#') || personal === true || caller?.kind !== 'USER') return
          if (ctx.store.findPrivateChannel(caller.user.userId, channel) && !ctx.store.findPublicChannel(channel)) {
            throw fail('CHANNEL_NOT_FOUND', `channel ${channel} not found`)
          }
        })
      }
    },
  },
]
