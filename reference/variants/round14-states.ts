/** Blind round 14 (docs/detection.md), states and sequences: correct servers that choose differently where the spec leaves the choice open. */
import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import { overrideStore, wrapHandler } from '../faults/kit'
import { summaryView } from '../views'
import { before, channelOf, type Handler } from './common'
import type { Variant } from './types'

/**
 * A user's subscription to a channel is one row, reactivated on a new subscribe: a user who unsubscribed and
 * subscribes again gets back the subscription id it had (answered as subId and listed as subscriptionId).
 */
const resubscribeSameId: Variant = {
  name: 'r14bv-subscriptions-resubscribe-same-id',
  area: 'subscriptions',
  description:
    'unsubscribe keeps the cancelled subscription id; a later subscribe of the same user to the same channel reactivates it: subId and the listed subscriptionId are the old id again',
  reading:
    '§4.2 Subscribe "Response 200: {code (integer), subId (string), msg (string)}" and §2.5 "subscriptionId | string": the spec says nothing of whether a new subscription after an unsubscribe gets a fresh id or the former one',
  install(app, ctx) {
    const cancelled = new Map<string, string>()
    const key = (channelId: string, userId: string) => `${channelId}\n${userId}`
    ctx.store = overrideStore(ctx.store, {
      removeSubscriptions: (inner) => (channelId, userId) => {
        const mine = inner.listSubscriptions(channelId).find((s) => s.userId === userId)
        if (mine) cancelled.set(key(channelId, userId), mine.subscriptionId)
        return inner.removeSubscriptions(channelId, userId)
      },
      addSubscription: (inner) => (subscription) => {
        const k = key(subscription.channelId, subscription.userId)
        const former = cancelled.get(k)
        cancelled.delete(k)
        inner.addSubscription(former === undefined ? subscription : { ...subscription, subscriptionId: former })
      },
      deleteChannel: (inner) => (channelId) => {
        for (const k of [...cancelled.keys()]) if (k.startsWith(`${channelId}\n`)) cancelled.delete(k)
        return inner.deleteChannel(channelId)
      },
    })
    // The route answers the id it drew; answer the one stored.
    before(app, 'subscriptions.subscribe', async (request: FastifyRequest, next) => {
      const answer = (await next()) as { subId?: string } | undefined
      const channel = channelOf(ctx, request)
      if (!answer || typeof answer !== 'object' || !channel) return answer
      const stored = ctx.store.findSubscription(channel.channelId, callerOf(request).user.userId)
      return stored ? { ...answer, subId: stored.subscriptionId } : answer
    })
  },
}

/**
 * The summary is computed from the items the channel holds: publishedItemCount counts them and lastPublishedTime
 * is the publish time of the newest one, or the channel's creation time when it holds none.
 */
const summaryFromItems: Variant = {
  name: 'r14bv-channels-summary-from-items',
  area: 'channels',
  description:
    'lastPublishedTime is the publish time of the newest item the channel holds (the creation time when it holds none): it moves back when the newest item is deleted, and to the creation time after delete all items',
  reading:
    '§2.4 gives lastPublishedTime only as "timestamp (UTC)"; whether it records the last publish ever or describes the items held is not shown. Every publish still moves it to that publish, and it is never before the creation',
  install(app, ctx) {
    wrapHandler(
      app,
      'channels.summary',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
          const items = ctx.store.listItems(channel.channelId)
          const newest = items.reduce<number | null>((t, i) => (t === null || i.publishedAt > t ? i.publishedAt : t), null)
          return summaryView({ ...channel, lastPublishedAt: newest }, items.length)
        } as Handler,
    )
  },
}

export const ROUND14_STATE_VARIANTS: Variant[] = [resubscribeSameId, summaryFromItems]
