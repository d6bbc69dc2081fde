import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseChannelRef, personal, resolveChannel } from '../channel-address'
import { hashPassword } from '../ids'
import type { ChannelRecord, ItemRecord, MessageRecord, SubscriptionRecord } from '../model'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults chosen from the spec's words alone, by someone who had not read the suite: each breaks a
 * MUST statement for one input, state, sequence or race, and leaves the first ordinary call correct.
 */

type Query = Record<string, unknown>
type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown

/** Nested objects for dotted keys, the way a document store that reads `a.b` as a path would keep them. */
function nestDottedKeys(content: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(content)) {
    const parts = k.split('.')
    if (parts.length < 2 || parts.some((p) => p === '')) {
      out[k] = v
      continue
    }
    let at = out
    for (const p of parts.slice(0, -1)) {
      const next = at[p]
      at = (at[p] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}) as Record<string, unknown>
    }
    at[parts[parts.length - 1]!] = v
  }
  return out
}

// The direct-message send running now, if any: its handler runs to the end without awaiting, so a
// module-level slot set around the call cannot see another send's messages.
let currentSend: { firstRecipient: string | undefined } | null = null

export const DEEP_BLIND_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-search-offset-shift',
    clause: 'channels.search.offset',
    area: 'channels',
    depth: 'deep',
    description: 'channel search skips one result too few once offset is 2 or more (offset 0 and 1 are right)',
    install(app) {
      addRouteHook(app, 'channels.search', 'preHandler', async (request: FastifyRequest) => {
        const q = request.query as Query
        if (typeof q.offset === 'number' && q.offset >= 2) q.offset -= 1
      })
    },
  },
  {
    name: 'deep-search-second-tag-ignored',
    clause: 'channels.search.by-tag',
    area: 'channels',
    depth: 'deep',
    description: 'channel search with a repeated tag filters by the first tag only',
    install(app) {
      addRouteHook(app, 'channels.search', 'preHandler', async (request: FastifyRequest) => {
        const q = request.query as Query
        if (Array.isArray(q.tag) && q.tag.length > 1) q.tag = q.tag.slice(0, 1)
      })
    },
  },
  {
    name: 'deep-max-items-clamped',
    clause: 'channels.create.fields-stored',
    area: 'channels',
    depth: 'deep',
    description: 'a maxItems above 65535 is stored (and reported) as 65535, as if kept in 16 bits',
    wrapStore(store) {
      return overrideStore(store, {
        addChannel: (inner) => (channel: ChannelRecord) => inner.addChannel(channel.maxItems > 65_535 ? { ...channel, maxItems: 65_535 } : channel),
      })
    },
  },
  {
    name: 'deep-hash-address-delete-unguarded',
    clause: 'channels.delete.owner-only',
    area: 'channels',
    depth: 'deep',
    description: 'delete channel skips the owner check when the channel is addressed as <user_id>#<name>',
    install(app, ctx) {
      wrapHandler(app, 'channels.delete', (original) => {
        const handler: Handler = function (request, reply) {
          const raw = (request.params as { channel: string }).channel
          const { ownerId, name } = parseChannelRef(raw)
          const channel = ownerId === null ? undefined : ctx.store.findPrivateChannel(ownerId, name)
          if (!channel) return (original as Handler).call(this, request, reply)
          ctx.store.deleteChannel(channel.channelId)
          return { code: 200, message: `channel ${channel.name} deleted` }
        }
        return handler as typeof original
      })
    },
  },
  {
    name: 'deep-resubscribe-not-listed',
    clause: 'subscriptions.subscribe.listed',
    area: 'subscriptions',
    depth: 'deep',
    description: 'a user who unsubscribed and subscribes again is answered a subId but never listed again',
    wrapStore(store) {
      const left = new Set<string>()
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId: string, userId: string) => {
          const n = inner.removeSubscriptions(channelId, userId)
          if (n > 0) left.add(`${channelId}\n${userId}`)
          return n
        },
        addSubscription: (inner) => (subscription: SubscriptionRecord) => {
          if (!left.has(`${subscription.channelId}\n${subscription.userId}`)) inner.addSubscription(subscription)
        },
      })
    },
  },
  {
    name: 'deep-owner-unsubscribe-clears',
    clause: 'subscriptions.unsubscribe.own-only',
    area: 'subscriptions',
    depth: 'deep',
    description: "the channel owner's unsubscribe also cancels every other subscriber's subscription",
    wrapStore(store) {
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId: string, userId: string) => {
          const channel = inner.getChannel(channelId)
          if (channel?.ownerId === userId) {
            for (const s of [...inner.listSubscriptions(channelId)]) if (s.userId !== userId) inner.removeSubscriptions(channelId, s.userId)
          }
          return inner.removeSubscriptions(channelId, userId)
        },
      })
    },
  },
  {
    name: 'deep-tags-mixed-batch-dropped',
    clause: 'tags.add.visible',
    area: 'tags',
    depth: 'deep',
    description: 'an add-tags batch that repeats a tag the channel has is dropped whole, its new tags with it',
    wrapStore(store) {
      return overrideStore(store, {
        addTags: (inner) => (channelId: string, tags: readonly string[], at: number) => {
          const has = inner.getChannel(channelId)?.tags ?? []
          if (tags.some((t) => has.includes(t))) return 0
          return inner.addTags(channelId, tags, at)
        },
      })
    },
  },
  {
    name: 'deep-tags-race-lost-update',
    clause: 'tags.add.visible',
    area: 'tags',
    depth: 'deep',
    description: 'add tags reads the tag list, waits, then writes it back whole: of two racing adds one is lost',
    install(app, ctx) {
      wrapHandler(app, 'tags.add', (original) => {
        const handler: Handler = async function (request, reply) {
          const { user } = request.caller as { user: { userId: string } }
          const body = request.body as { tags: string[]; personal?: boolean }
          const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel, personal(body.personal ?? false))
          const before = [...channel.tags]
          await new Promise((resolve) => setTimeout(resolve, 60))
          const answer = await (original as Handler).call(this, request, reply)
          // Write back what was read plus this request's tags, over whatever others added meanwhile.
          const now = ctx.clock.now()
          ctx.store.clearTags(channel.channelId, now)
          ctx.store.addTags(channel.channelId, [...before, ...body.tags], now)
          return answer
        }
        return handler as typeof original
      })
    },
  },
  {
    name: 'deep-item-dotted-key',
    clause: 'items.content-intact',
    area: 'items',
    depth: 'deep',
    description: 'a content key with a dot ("a.b") is stored as a nested object, so the item comes back changed',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item: ItemRecord, maxItems: number) => inner.addItem({ ...item, content: nestDottedKeys(item.content) }, maxItems),
      })
    },
  },
  {
    name: 'deep-fetch-offset-zone',
    clause: 'items.fetch.range',
    area: 'items',
    depth: 'deep',
    description: 'fetch reads since/until with a non-zero numeric UTC offset as if they were UTC (the offset is dropped)',
    install(app) {
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        const q = request.query as Query
        for (const k of ['since', 'until']) {
          const v = q[k]
          if (typeof v === 'string') q[k] = v.replace(/[+ -]\d{2}:?\d{2}$/, 'Z')
        }
      })
    },
  },
  {
    name: 'deep-wildcard-inner-fragment',
    clause: 'users.search.wildcard',
    area: 'users',
    depth: 'deep',
    description: 'a *fragment* user search matches only values that start with the fragment',
    install(app) {
      addRouteHook(app, 'users.query', 'preHandler', async (request: FastifyRequest) => {
        const q = request.query as Query
        if (typeof q.q !== 'string') return
        const colon = q.q.indexOf(':')
        const value = q.q.slice(colon + 1)
        if (colon >= 0 && value.length > 2 && value.startsWith('*') && value.endsWith('*')) q.q = q.q.slice(0, colon + 1) + value.slice(1)
      })
    },
  },
  {
    name: 'deep-status-first-recipient',
    clause: 'messages.status.agrees',
    area: 'messages',
    depth: 'deep',
    description: 'in a send to several users, every message after the first records the first recipient as its recipient',
    wrapStore(store) {
      return overrideStore(store, {
        addMessage: (inner) => (message: MessageRecord) => {
          if (currentSend) {
            if (currentSend.firstRecipient === undefined) currentSend.firstRecipient = message.recipientId
            else message = { ...message, recipientId: currentSend.firstRecipient }
          }
          inner.addMessage(message)
        },
      })
    },
    install(app) {
      wrapHandler(app, 'messages.send', (original) => {
        const handler: Handler = function (request, reply) {
          currentSend = { firstRecipient: undefined }
          try {
            return (original as Handler).call(this, request, reply)
          } finally {
            currentSend = null
          }
        }
        return handler as typeof original
      })
    },
  },
  {
    name: 'deep-push-multi-device-count',
    clause: 'push.counts',
    area: 'push',
    depth: 'deep',
    description: 'a push to a user with several devices reports sent 1, whatever the length of sentList',
    install(app) {
      rewriteJson(app, 'push.user', (body) => {
        if (Array.isArray(body?.sentList) && body.sentList.length > 1) body.count.sent = 1
        return body
      })
    },
  },
  {
    name: 'deep-password-prefix',
    clause: 'signin.wrong-password.refused',
    area: 'signin',
    depth: 'deep',
    description: 'sign-in accepts a wrong password that is the real password with characters appended',
    install(app, ctx) {
      addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
        for (const source of [request.body, request.query] as unknown[]) {
          if (typeof source !== 'object' || source === null) continue
          const params = source as Record<string, unknown>
          const { username, password } = params
          if (typeof username !== 'string' || typeof password !== 'string') continue
          const user = ctx.store.findUserByName(ctx.application.clientId, username)
          if (!user || hashPassword(password, user.passwordSalt) === user.passwordHash) continue
          // The trailing characters are ignored: a password compared only up to the stored one's end.
          for (let k = password.length - 1; k > 0; k--) {
            if (hashPassword(password.slice(0, k), user.passwordSalt) === user.passwordHash) {
              params.password = password.slice(0, k)
              break
            }
          }
        }
      })
    },
  },
]
