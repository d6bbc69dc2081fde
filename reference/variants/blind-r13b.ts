import type { ServerContext } from '../context'
import type { ChannelRecord } from '../model'
import { overrideStore, rewriteJson } from '../faults/kit'
import type { Variant } from './types'

/** Blind round 13 (b): correct servers that choose differently where the spec leaves the choice open. */

/** Tags come back sorted (by code point), not in the order they were added. */
const tagsSorted: Variant = {
  name: 'r13bv-tags-sorted',
  area: 'tags',
  description: "get tags answers the channel's tags sorted by code point, whatever the order they were added in",
  reading:
    '§4.2 "Get tags … Response 200: {channelName (string), tags (array of string)}": the order of the array is not stated; a server keeping tags in a sorted set is as correct as one keeping insertion order',
  install(app) {
    rewriteJson(app, 'tags.get', (body: { channelName: string; tags: string[] }) => ({ ...body, tags: [...body.tags].sort() }))
  },
}

/**
 * modifiedDate moves on every change to what the channel holds: publishing or deleting items and subscribing or
 * unsubscribing, besides the tag changes that move it in the reference.
 */
const modifiedOnActivity: Variant = {
  name: 'r13bv-channels-modified-on-activity',
  area: 'channels',
  description: 'modifiedDate moves whenever the channel changes: a publish, an item deletion, a subscribe or an unsubscribe (as well as tag changes)',
  reading:
    '§2.3 "modifiedDate | timestamp | same format": what counts as a modification is not stated; a channel whose items or subscribers changed may well count as modified. It is never before creationDate.',
  install(_app, ctx: ServerContext) {
    const touched = new Map<string, number>()
    const touch = (channelId: string, at: number) => touched.set(channelId, Math.max(touched.get(channelId) ?? 0, at))
    const seen = <T extends Readonly<ChannelRecord> | undefined>(c: T): T => {
      const at = c ? touched.get(c.channelId) : undefined
      return (c && at !== undefined && at > c.modifiedAt ? { ...c, modifiedAt: at } : c) as T
    }
    ctx.store = overrideStore(ctx.store, {
      addItem: (inner) => (item, maxItems) => {
        const evicted = inner.addItem(item, maxItems)
        touch(item.channelId, item.publishedAt)
        return evicted
      },
      deleteItem: (inner) => (channelId, itemId) => {
        const deleted = inner.deleteItem(channelId, itemId)
        if (deleted) touch(channelId, ctx.clock.now())
        return deleted
      },
      clearItems: (inner) => (channelId) => {
        const n = inner.clearItems(channelId)
        if (n > 0) touch(channelId, ctx.clock.now())
        return n
      },
      addSubscription: (inner) => (subscription) => {
        inner.addSubscription(subscription)
        touch(subscription.channelId, subscription.createdAt)
      },
      removeSubscriptions: (inner) => (channelId, userId) => {
        const n = inner.removeSubscriptions(channelId, userId)
        if (n > 0) touch(channelId, ctx.clock.now())
        return n
      },
      deleteChannel: (inner) => (channelId) => {
        touched.delete(channelId)
        return inner.deleteChannel(channelId)
      },
      getChannel: (inner) => (channelId) => seen(inner.getChannel(channelId)),
      findPublicChannel: (inner) => (name) => seen(inner.findPublicChannel(name)),
      findPrivateChannel: (inner) => (ownerId, name) => seen(inner.findPrivateChannel(ownerId, name)),
      listPublicChannels: (inner) => () => inner.listPublicChannels().map((c) => seen(c)),
    })
  },
}

export const R13B_VARIANTS: readonly Variant[] = [tagsSorted, modifiedOnActivity]
