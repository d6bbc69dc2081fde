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

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const DEEP_BLIND_B_FAULTS: readonly CatalogFault[] = [
  {
    name: 'deep-search-total-minus-offset',
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
    name: 'deep-unsubscribe-drops-next-in-crowd',
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
    name: 'deep-delete-last-tag-removes-first',
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
    name: 'deep-fields-reset-after-tagging',
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
    name: 'deep-small-max-items-keeps-one-more',
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
    name: 'deep-delete-all-items-hash-address-skips-owner',
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
    name: 'deep-concurrent-publish-lost',
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
