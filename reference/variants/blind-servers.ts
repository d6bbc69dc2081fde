import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { fail } from '../errors'
import { overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import type { UserRecord } from '../model'
import { before, tokens, type Handler } from './common'
import type { Variant } from './types'

/**
 * Correct servers written from the spec alone, each choosing differently from the
 * reference where the spec's words or its silence allow it. Written without looking at the suite: any
 * check that fails one of them is a candidate false alarm.
 */

const privateHidden404: Variant = {
  name: 'private-hidden-404',
  area: 'private',
  description: "another user's private channel, addressed as <userId>#<name>, answers 404 to everyone but its owner, as if it did not exist",
  reading:
    "§2.3 gives the address <user_id>#<channel_name> of another user's private channel but not who may use it; §7 shows no failure status, so hiding it (404) is as open as forbidding it (403)",
  install: (app, ctx) =>
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const ref = (request.params as { channel?: unknown } | undefined)?.channel
      const caller = request.caller
      if (typeof ref !== 'string' || caller?.kind !== 'USER') return
      const hash = ref.indexOf('#')
      if (hash < 0) return
      const ownerId = ref.slice(0, hash)
      if (ownerId !== caller.user.userId && ctx.store.findPrivateChannel(ownerId, ref.slice(hash + 1))) {
        throw fail('CHANNEL_NOT_FOUND', `channel ${ref} not found`)
      }
    }),
}

function privateNamesGlobal(): Variant {
  /** Lowercased name -> number of channels (any owner, public or private) holding it. */
  const names = new Map<string, number>()
  return {
    name: 'private-names-global',
    area: 'private',
    description:
      'channel names are unique across the whole service, ignoring case: creating a channel whose name any channel has (public, or private of any user) is a 409',
    reading:
      '§2.3: "Constraints on channel names (length, allowed characters): not shown" — uniqueness rules included; the <user_id>#<channel_name> address still names which user\'s private channel is meant',
    wrapStore: (store) => {
      // One server per build: start from the channels this store already holds.
      names.clear()
      for (const c of store.snapshot().channels) names.set(c.name.toLowerCase(), (names.get(c.name.toLowerCase()) ?? 0) + 1)
      return overrideStore(store, {
        addChannel: (inner) => (channel) => {
          const key = channel.name.toLowerCase()
          if ((names.get(key) ?? 0) > 0) return false
          const added = inner.addChannel(channel)
          if (added) names.set(key, (names.get(key) ?? 0) + 1)
          return added
        },
        deleteChannel: (inner) => (channelId) => {
          const channel = inner.getChannel(channelId)
          const deleted = inner.deleteChannel(channelId)
          if (deleted && channel) {
            const key = channel.name.toLowerCase()
            const n = (names.get(key) ?? 1) - 1
            if (n <= 0) names.delete(key)
            else names.set(key, n)
          }
          return deleted
        },
      })
    },
  }
}

const unsubscribeNamesChannel: Variant = {
  name: 'unsubscribe-message-names-channel',
  area: 'subscriptions',
  description:
    'the unsubscribe message names the user, the channel and the device before the count: "User <id> on device <d> unsubscribed from <channel>; subscriptions cancelled: N"',
  reading: '§4.2 unsubscribe: "the message states the number of subscriptions cancelled" — its wording and what else it says are not stated',
  install: (app) =>
    rewriteJson(app, 'subscriptions.unsubscribe', (body, request) => {
      const n = Number(/^(\d+)/.exec(String(body.message))?.[1] ?? NaN)
      if (!Number.isInteger(n)) return body
      const { user, deviceId } = callerOf(request)
      const channel = (request.params as { channel: string }).channel
      return { ...body, message: `User ${user.userId} on device ${deviceId} unsubscribed from ${channel}; subscriptions cancelled: ${n}` }
    }),
}

const USER_PROPERTIES = ['userName', 'firstName', 'lastName', 'email', 'userRealm', 'userStatus', 'userIdentifier'] as const
type UserProperty = (typeof USER_PROPERTIES)[number]

function usersQueryAnalyzed(): Variant {
  const only = new AsyncLocalStorage<(u: Readonly<UserRecord>) => boolean>()
  return {
    name: 'users-query-analyzed',
    area: 'users',
    description:
      'user search without asterisks matches as full text: the value is split into words (at non-alphanumerics, case ignored) and a user matches when each word is a word of the property (userName:alice finds alice.ct)',
    reading:
      '§4.1: "value is the search text"; "Filtering, sorting and pagination follow URI search conventions of a full-text search engine"; only the asterisk form is specified',
    wrapStore: (store) =>
      overrideStore(store, {
        listUsers: (inner) => (clientId) => {
          const filter = only.getStore()
          const all = inner.listUsers(clientId)
          return filter ? all.filter(filter) : all
        },
      }),
    install: (app) =>
      wrapHandler(
        app,
        'users.query',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const query = request.query as { q: string }
            const colon = query.q.indexOf(':')
            const name = colon < 0 ? '' : query.q.slice(0, colon).toLowerCase()
            const property = USER_PROPERTIES.find((p) => p.toLowerCase() === name) as UserProperty | undefined
            const value = colon < 0 ? '' : query.q.slice(colon + 1)
            const words = tokens(value)
            // The asterisk forms, an unknown property and an empty value: the server's own answer.
            if (!property || value.startsWith('*') || value.endsWith('*') || words.length === 0) {
              return (original as any).call(this, request, reply)
            }
            const filter = (u: Readonly<UserRecord>) => {
              const have = tokens(property === 'userIdentifier' ? u.userId : u[property])
              return words.every((w) => have.includes(w))
            }
            // The route's own filter then keeps every user this one let through.
            query.q = `${property}:*`
            return only.run(filter, () => (original as any).call(this, request, reply))
          } as Handler,
      ),
  }
}

const unknownTargetsEmpty: Variant = {
  name: 'unknown-targets-empty',
  area: 'push',
  description:
    'push to an unknown user id answers 200 with all counts 0 and empty lists; delivery status of an unknown (or not visible) message id answers 200 []',
  reading:
    '§4.4 "Pushes to all active devices of the user" and counts devices — an unknown id has none; §4.3 delivery status: "Response: array of Message delivery status record" — an unknown id has no records; §7 shows no error for either',
  install: (app, ctx) => {
    before(app, 'push.user', async (request, next) => {
      const { user } = callerOf(request)
      const recipient = ctx.store.getUser((request.params as { recipientUserId: string }).recipientUserId)
      if (recipient && recipient.clientId === user.clientId) return next()
      return { count: { requested: 0, sent: 0, unsent: 0 }, sentList: [], unsentList: [] }
    })
    before(app, 'messages.status', async (request, next) => {
      const { user } = callerOf(request)
      const message = ctx.store.getMessage((request.params as { messageId: string }).messageId)
      if (message && (message.senderId === user.userId || message.recipientId === user.userId)) return next()
      return []
    })
  },
}

export const BLIND_SERVER_VARIANTS: readonly Variant[] = [
  privateHidden404,
  privateNamesGlobal(),
  unsubscribeNamesChannel,
  usersQueryAnalyzed(),
  unknownTargetsEmpty,
]
