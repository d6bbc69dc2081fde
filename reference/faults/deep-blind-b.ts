import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import { newId } from '../ids'
import type { ChannelRecord } from '../model'
import { overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults chosen from the spec's words alone by a second blind red team (channels, private channels,
 * subscriptions, tags, items): each one hides behind a particular input, state, sequence or race.
 */

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown

// A channel's identity across delete and re-create: its kind, owner (private only) and name ignoring case.
const nameKey = (c: Readonly<ChannelRecord>): string => `${c.privateChannel ? c.ownerId : ''}\n${c.name.toLowerCase()}`

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const DEEP_BLIND_B_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-b-search-total-minus-offset',
    clause: 'channels.search.total',
    area: 'channels',
    depth: 'deep',
    description: 'search total counts only the matches from offset on, so every page after the first reports fewer',
    install(app) {
      rewriteJson(app, 'channels.search', (body, request) => {
        const offset = Number((request.query as { offset?: number }).offset ?? 0)
        return offset > 0 ? { ...body, total: Math.max(0, body.total - offset) } : body
      })
    },
  },
  {
    name: 'deep-b-search-first-tag-only',
    clause: 'channels.search.by-tag',
    area: 'channels',
    depth: 'deep',
    description: 'search with a repeated tag parameter filters by the first tag and ignores the rest',
    install(app) {
      wrapHandler(app, 'channels.search', (original) => {
        const inner = original as Handler
        return function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const query = request.query as { tag?: string[] }
          if (query.tag && query.tag.length > 1) query.tag = query.tag.slice(0, 1)
          return inner.call(this, request, reply)
        } as never
      })
    },
  },
  {
    name: 'deep-b-recreate-restores-tags',
    clause: 'channels.delete.recreate-fresh',
    area: 'channels',
    depth: 'deep',
    description: "a channel re-created under a deleted channel's name comes back with the deleted channel's tags",
    wrapStore(store) {
      const remembered = new Map<string, string[]>()
      return overrideStore(store, {
        deleteChannel: (inner) => (channelId) => {
          const channel = inner.getChannel(channelId)
          if (channel && channel.tags.length > 0) remembered.set(nameKey(channel), [...channel.tags])
          return inner.deleteChannel(channelId)
        },
        addChannel: (inner) => (channel) => {
          if (!inner.addChannel(channel)) return false
          const tags = remembered.get(nameKey(channel))
          if (tags) inner.addTags(channel.channelId, tags, channel.modifiedAt)
          return true
        },
      })
    },
  },
  {
    name: 'deep-b-get-dotted-name-as-extension',
    // The cut applies to <user_id>#<name> too, so another user's address of a dotted private name misses as well.
    clause: ['channels.get.matches-create', 'private.other-user-address'],
    area: 'channels',
    depth: 'deep',
    description: 'get channel by name treats the text after the last dot of a name as a format suffix and looks up the rest',
    install(app) {
      wrapHandler(app, 'channels.getByName', (original) => {
        const inner = original as Handler
        return function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const params = request.params as { channel: string }
          const dot = params.channel.lastIndexOf('.')
          if (dot > 0) params.channel = params.channel.slice(0, dot)
          return inner.call(this, request, reply)
        } as never
      })
    },
  },
  {
    name: 'deep-b-resubscribe-not-stored',
    clause: 'subscriptions.subscribe.listed',
    area: 'subscriptions',
    depth: 'deep',
    description: 'a user who unsubscribed and subscribes again gets a subId but is never listed again',
    wrapStore(store) {
      const left = new Set<string>()
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const n = inner.removeSubscriptions(channelId, userId)
          if (n > 0) left.add(`${channelId}\n${userId}`)
          return n
        },
        addSubscription: (inner) => (subscription) => {
          if (!left.has(`${subscription.channelId}\n${subscription.userId}`)) inner.addSubscription(subscription)
        },
      })
    },
  },
  {
    name: 'deep-b-unsubscribe-drops-next-in-crowd',
    clause: 'subscriptions.unsubscribe.own-only',
    area: 'subscriptions',
    depth: 'deep',
    description: "on a channel with three or more subscriptions, unsubscribe also cancels the one listed after the caller's",
    wrapStore(store) {
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId, userId) => {
          const list = inner.listSubscriptions(channelId)
          const at = list.findIndex((s) => s.userId === userId)
          const next = list.length >= 3 && at >= 0 ? list[at + 1] : undefined
          const n = inner.removeSubscriptions(channelId, userId)
          if (next && next.userId !== userId) inner.removeSubscriptions(channelId, next.userId)
          return n
        },
      })
    },
  },
  {
    name: 'deep-b-delete-last-tag-removes-first',
    clause: 'tags.delete-one.removes',
    area: 'tags',
    depth: 'deep',
    description: 'deleting the last of three or more tags removes the first tag instead',
    wrapStore(store) {
      return overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => {
          const tags = inner.getChannel(channelId)?.tags ?? []
          if (tags.length >= 3 && tags[tags.length - 1] === tag) return inner.removeTag(channelId, tags[0]!, at)
          return inner.removeTag(channelId, tag, at)
        },
      })
    },
  },
  {
    name: 'deep-b-fields-reset-after-tagging',
    clause: 'channels.create.fields-stored',
    area: 'channels',
    depth: 'deep',
    description: 'adding tags to a channel resets its maxItems to -1 and its publishPermission to anyone',
    wrapStore(store) {
      return overrideStore(store, {
        addTags: (inner) => (channelId, tags, at) => {
          const added = inner.addTags(channelId, tags, at)
          const channel = inner.getChannel(channelId) as ChannelRecord | undefined
          if (added > 0 && channel) {
            channel.maxItems = -1
            channel.publishPermission = 'anyone'
          }
          return added
        },
      })
    },
  },
  {
    name: 'deep-b-fetch-desc-offset-pages-from-oldest',
    clause: 'items.fetch.offset',
    area: 'items',
    depth: 'deep',
    description: 'fetch with sort_order DESC and an offset takes the page from the oldest end, then reverses it',
    install(app) {
      wrapHandler(app, 'items.fetch', (original) => {
        const inner = original as Handler
        return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const query = request.query as { sort_order?: string; offset: number }
          if (query.offset > 0 && query.sort_order?.toUpperCase() === 'DESC') {
            query.sort_order = 'ASC'
            const body = (await inner.call(this, request, reply)) as { items?: unknown[] }
            body.items?.reverse()
            return body
          }
          return inner.call(this, request, reply)
        } as never
      })
    },
  },
  {
    name: 'deep-b-small-max-items-keeps-one-more',
    clause: 'items.max-items',
    area: 'items',
    depth: 'deep',
    description: 'a channel with maxItems 1 or 2 keeps one item more than maxItems',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem(item, maxItems >= 1 && maxItems <= 2 ? maxItems + 1 : maxItems),
      })
    },
  },
  {
    name: 'deep-b-delete-all-items-hash-address-skips-owner',
    clause: 'items.delete-all.owner-only',
    area: 'items',
    depth: 'deep',
    description: 'delete all items addressed as <user_id>#<channel_name> skips the owner-only rule',
    install(app, ctx) {
      wrapHandler(app, 'items.deleteAll', (original) => {
        const inner = original as Handler
        return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const raw = (request.params as { channel: string }).channel
          if (!raw.includes('#')) return inner.call(this, request, reply)
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, raw, personal((request.query as { personal: boolean }).personal))
          const deleted = ctx.store.clearItems(channel.channelId)
          return { code: 200, message: `${deleted} item(s) deleted from ${channel.name}` }
        } as never
      })
    },
  },
  {
    name: 'deep-b-concurrent-publish-lost',
    clause: ['items.max-items.unlimited', 'channels.summary.count'],
    area: 'items',
    depth: 'deep',
    description: 'a publish that arrives while another publish to the same channel is in flight is answered 201 but not stored',
    install(app) {
      const inFlight = new Map<string, number>()
      wrapHandler(app, 'items.publish', (original) => {
        const inner = original as Handler
        return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const key = (request.params as { channel: string }).channel.toLowerCase()
          const busy = (inFlight.get(key) ?? 0) > 0
          inFlight.set(key, (inFlight.get(key) ?? 0) + 1)
          try {
            // A short window in which a second publish finds the first one still running.
            await delay(5)
            if (busy) return reply.code(201).send({ message: 'item published', status: 'OK', messageId: newId() })
            return await inner.call(this, request, reply)
          } finally {
            inFlight.set(key, inFlight.get(key)! - 1)
          }
        } as never
      })
    },
  },
]
