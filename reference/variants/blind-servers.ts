import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { overrideStore, wrapHandler } from '../faults/kit'
import type { UserRecord } from '../model'
import { before, tokens, type Handler } from './common'
import type { Variant } from './types'

/**
 * Correct servers written from the spec alone, each choosing differently from the
 * reference where the spec's words or its silence allow it. Written without looking at the suite: any
 * check that fails one of them is a candidate false alarm.
 */

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

export const BLIND_SERVER_VARIANTS: readonly Variant[] = [usersQueryAnalyzed(), unknownTargetsEmpty]
