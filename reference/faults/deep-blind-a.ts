import type { FastifyReply, FastifyRequest } from 'fastify'
import { fail } from '../errors'
import type { MessageRecord } from '../model'
import { addRouteHook, overrideStore, rewriteJson } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults of a second blind red team (sign-in, users, direct messages, push, owner-only and token
 * rules), chosen from the spec's words alone: each shows only for a particular value, state, sequence or
 * race, never on the first ordinary call.
 */

/** The path segment of a channel as the client sent it (`%23` decoded), for faults keyed on the address form. */
const channelParam = (request: FastifyRequest): string => (request.params as { channel?: string }).channel ?? ''

export const DEEP_BLIND_A_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-signin-device-id-charset',
    clause: 'signin.device-id.any-value',
    area: 'signin',
    depth: 'deep',
    description: 'sign-in refuses an MMS-DEVICE-ID holding anything but letters, digits, "-" and "_" (a space, a colon, a dot)',
    install(app) {
      addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
        const value = request.headers['mms-device-id']
        if (typeof value === 'string' && !/^[A-Za-z0-9_-]+$/.test(value)) throw fail('MISSING_DEVICE_ID', 'MMS-DEVICE-ID has invalid characters')
      })
    },
  },
  {
    name: 'deep-signin-repeat-token-type',
    clause: 'signin.session.token-type',
    area: 'signin',
    depth: 'deep',
    description: 'a repeated sign-in of the same user on the same device id answers token_type "Bearer" instead of USER',
    install(app) {
      const seen = new Set<string>()
      rewriteJson(app, 'users.signIn', (body, request) => {
        const key = `${body?.user?.userIdentifier}\n${String(request.headers['mms-device-id'])}`
        const again = seen.has(key)
        seen.add(key)
        return again ? { ...body, token_type: 'Bearer' } : body
      })
    },
  },
  {
    name: 'deep-users-list-drops-multi-device',
    clause: 'users.list.contains-accounts',
    area: 'users',
    depth: 'deep',
    description: 'list all users leaves out every user who has signed in from two or more device ids',
    consequences: [
      {
        clause: 'users.list.shape',
        reason: 'once the accounts have signed in on a second device the list holds none of A, B or C, whose records the shape check judges',
      },
    ],
    install(app, ctx) {
      rewriteJson(app, 'users.list', (body) =>
        Array.isArray(body) ? body.filter((u: { userIdentifier?: string }) => ctx.store.listDevices(String(u.userIdentifier)).length < 2) : body,
      )
    },
  },
  {
    name: 'deep-messages-mixed-requested',
    clause: ['messages.send.unknown-not-matched', 'messages.send.requested'],
    area: 'messages',
    depth: 'deep',
    description: 'a send naming both known and unknown user ids counts every id given as requested (only an all-unknown list counts 0)',
    install(app) {
      rewriteJson(app, 'messages.send', (body, request) => {
        const ids = (request.body as { recipientUserIds?: unknown[] }).recipientUserIds ?? []
        const matched = body?.count?.requested ?? 0
        if (matched > 0 && ids.length > matched) return { ...body, count: { ...body.count, requested: ids.length } }
        return body
      })
    },
  },
  {
    name: 'deep-messages-concurrent-send-race',
    clause: 'messages.status.agrees',
    area: 'messages',
    depth: 'deep',
    description: 'two senders whose messages are queued in the same millisecond share one status record: the earlier message id reads the later message',
    wrapStore(store) {
      const byMillisecond = new Map<number, { messageId: string; senderId: string }>()
      return overrideStore(store, {
        addMessage: (inner) => (message: MessageRecord) => {
          inner.addMessage(message)
          const prior = byMillisecond.get(message.queuedAt)
          // A lost update: the earlier sender's id now points at the later record.
          if (prior && prior.senderId !== message.senderId) inner.addMessage({ ...message, messageId: prior.messageId })
          byMillisecond.set(message.queuedAt, { messageId: message.messageId, senderId: message.senderId })
          if (byMillisecond.size > 1000) byMillisecond.delete(byMillisecond.keys().next().value!)
        },
      })
    },
  },
  {
    name: 'deep-auth-delete-items-explicit-personal',
    clause: 'items.delete-all.owner-only',
    area: 'items',
    depth: 'deep',
    description: 'delete all items checks the owner only when personal is left out: a non-owner sending personal=false empties a public channel',
    install(app, ctx) {
      addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
        if (!/[?&]personal=false(?:&|$)/.test(request.url)) return
        const channel = ctx.store.findPublicChannel(channelParam(request))
        if (!channel || channel.ownerId === (request.caller?.kind === 'USER' ? request.caller.user.userId : '')) return
        const deleted = ctx.store.clearItems(channel.channelId)
        return reply.send({ code: 200, message: `${deleted} item(s) deleted from ${channel.name}` })
      })
    },
  },
  {
    name: 'deep-auth-token-prefix',
    clause: 'auth.token-required',
    area: 'auth',
    depth: 'deep',
    description: 'a bearer token is accepted when its first 16 characters match an issued token: a tampered or extended token still works',
    wrapStore(store) {
      const issued: string[] = []
      return overrideStore(store, {
        addToken: (inner) => (token) => {
          issued.push(token.token)
          if (issued.length > 5000) issued.shift()
          inner.addToken(token)
        },
        getToken: (inner) => (token: string) => {
          const exact = inner.getToken(token)
          if (exact || token.length < 16) return exact
          const match = issued.find((t) => t.slice(0, 16) === token.slice(0, 16))
          return match === undefined ? undefined : inner.getToken(match)
        },
      })
    },
  },
]
