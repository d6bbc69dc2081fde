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
      { clause: 'private.delete-personal', reason: 'the check needs a private channel and gets a public one' },
      { clause: 'private.other-user-address', reason: 'the check needs a private channel and gets a public one' },
      { clause: 'private.own-plain-name', reason: 'the check needs a private channel and gets a public one' },
      { clause: 'private.plain-name-not-shared', reason: 'the check needs a private channel and gets a public one' },
      { clause: 'private.tags-personal', reason: 'the check needs a private channel and gets a public one' },
      { clause: 'tags.add.response', reason: 'the check needs a private channel and gets a public one' },
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
      { clause: 'items.publish.response', reason: 'the check publishes to its own private channel by the plain name before it can judge its own clause' },
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
