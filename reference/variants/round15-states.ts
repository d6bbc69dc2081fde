/** Blind round 15 (docs/detection.md), states and sequences: correct servers that choose differently where the spec leaves the choice open. */
import { createHash } from 'node:crypto'
import { rewriteJson } from '../faults/kit'
import { overrideCtxStore, pairKey, tryResolve } from '../faults/deep-common'
import { callerOf } from '../auth'
import type { Variant } from './types'

/**
 * A subscription id names the (channel, user) pair: it is derived from the two, so a user who unsubscribes and
 * subscribes again gets the same subId (and the listed subscription carries it) instead of a fresh one.
 */
const stableSubscriptionId: Variant = {
  name: 'r15bv-subscriptions-stable-subid',
  area: 'subscriptions',
  description:
    'subscription ids are derived from (channel, user): a user who unsubscribes and subscribes again is answered (and listed with) the same subId as before',
  reading:
    '§4.2 Subscribe: "Response 200: {code (integer), subId (string), msg (string)}" and §2.5 "subscriptionId | string": the spec gives the id only as a string; it does not say that a new subscription gets an id never used before, so an id that identifies the user\'s membership of the channel is allowed.',
  install(app, ctx) {
    const derive = (channelId: string, userId: string) => createHash('sha256').update(pairKey(channelId, userId)).digest('hex').slice(0, 32)
    overrideCtxStore(ctx, {
      addSubscription: (inner) => (subscription) =>
        inner.addSubscription({ ...subscription, subscriptionId: derive(subscription.channelId, subscription.userId) }),
    })
    rewriteJson(app, 'subscriptions.subscribe', (body, request) => {
      const channel = tryResolve(ctx, request)
      const stored = channel ? ctx.store.findSubscription(channel.channelId, callerOf(request).user.userId) : undefined
      return stored ? { ...body, subId: stored.subscriptionId } : body
    })
  },
}

/**
 * Delete items by id answers 410 Gone (not 404) for an id of an item this channel held and that is gone now
 * (deleted by id, deleted with all items, or evicted by maxItems); ids it never held still get 404.
 */
const deletedItemGone: Variant = {
  name: 'r15bv-items-delete-gone-410',
  area: 'items',
  description: 'delete items by id answers 410 for an id of an item the channel held and that was deleted or evicted since (404 stays for ids it never held)',
  reading:
    '§4.2 Delete items by id: "Response: object whose keys are item ids and whose values are integer status codes, one per id", and §7 "Error responses: not shown (no error codes ...)": the code for an id that is no longer there is not given; 410 Gone is an integer status code that says so more precisely.',
  install(app, ctx) {
    const gone = new Set<string>()
    overrideCtxStore(ctx, {
      deleteItem: (inner) => (channelId, itemId) => {
        const deleted = inner.deleteItem(channelId, itemId)
        if (deleted) gone.add(pairKey(channelId, itemId))
        return deleted
      },
      clearItems: (inner) => (channelId) => {
        for (const item of inner.listItems(channelId)) gone.add(pairKey(channelId, item.itemId))
        return inner.clearItems(channelId)
      },
      addItem: (inner) => (item, maxItems) => {
        const evicted = inner.addItem(item, maxItems)
        for (const id of evicted) gone.add(pairKey(item.channelId, id))
        return evicted
      },
    })
    rewriteJson(app, 'items.deleteById', (body: Record<string, number>, request) => {
      const channel = tryResolve(ctx, request)
      if (!channel) return body
      const out: Record<string, number> = {}
      for (const [id, status] of Object.entries(body)) out[id] = status === 404 && gone.has(pairKey(channel.channelId, id)) ? 410 : status
      return out
    })
  },
}

export const ROUND15_STATE_VARIANTS: readonly Variant[] = [stableSubscriptionId, deletedItemGone]
