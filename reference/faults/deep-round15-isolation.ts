/** Blind round 15 (docs/detection.md), isolation between channels and users, addresses × callers: deep faults written from the spec alone, without reading the suite. */
import type { FastifyRequest } from 'fastify'
import { channelSearchView } from '../views'
import { withChannelLog } from './common'
import { callerId, lower } from './deep-common'
import { aroundHandler, overrideStore, rewriteJson } from './kit'
import type { CatalogFault } from './types'

export const ROUND15_ISOLATION_FAULTS: readonly CatalogFault[] = [
  /**
   * §4.2 Add tags: "Body: `personal` (boolean), `tags` (array of string)" — personal picks ONE channel, the
   * caller's private one or the public one. The tag write goes by (owner, name) without the private flag: an
   * owner who has both a public and a private channel of one name tags both with one call.
   */
  {
    name: 'r15c-tags-add-owner-namesakes',
    area: 'private',
    depth: 'deep',
    // A tag added with personal=false (or left out) lands on the private twin too: tags.add.visible, as the suite
    // charges an add that shows on a channel it did not name.
    clause: ['private.tags-personal', 'tags.add.visible'],
    consequences: [
      {
        clause: 'private.plain-name-not-shared',
        reason: "another user's read of the public channel by its plain name shows a tag the owner added to its private twin with personal=true",
      },
    ],
    description:
      'add tags writes the tags by (owner, channel name), not by channel: an owner of a public and a private channel of the same name tags both (personal=true also tags the public one, and the reverse)',
    install(app, ctx) {
      aroundHandler(app, 'tags.add', async (request, reply, next) => {
        const answer = await next()
        const user = callerId(request)
        if (reply.statusCode >= 400 || user === undefined) return answer
        const { channel: raw } = request.params as { channel: string }
        const isPersonal = (request.body as { personal?: boolean }).personal ?? false
        const name = raw.slice(raw.indexOf('#') + 1)
        // The channel written by the route, then its namesake of the other kind owned by the same user.
        const other = isPersonal ? ctx.store.findPublicChannel(name) : ctx.store.findPrivateChannel(user, name)
        if (other && other.ownerId === user) ctx.store.addTags(other.channelId, (request.body as { tags: string[] }).tags, ctx.clock.now())
        return answer
      })
    },
  },

  /**
   * §4.2 Delete channel: "DELETE /channels/{channel_name}?personal=<boolean>" deletes the channel addressed —
   * and only it. The channel row is removed by id, but the cascade to its items, subscriptions and tags goes by
   * channel name: deleting one user's private channel empties the public channel of that name (and every other
   * user's private one) of items, subscribers and tags.
   */
  {
    name: 'r15c-channels-delete-cascade-by-name',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.delete.only-named',
    description:
      "delete channel cascades to items, subscriptions and tags by channel name: deleting a private channel also empties the public channel of that name (and other users' private namesakes) of items, subscribers and tags",
    wrapStore: (store) =>
      withChannelLog(store, (wrapped, all) =>
        overrideStore(wrapped, {
          deleteChannel: (inner) => (channelId) => {
            const channel = inner.getChannel(channelId)
            if (channel) {
              for (const other of all()) {
                if (other.channelId === channelId || lower(other.name) !== lower(channel.name)) continue
                inner.clearItems(other.channelId)
                for (const s of [...inner.listSubscriptions(other.channelId)]) inner.removeSubscriptions(other.channelId, s.userId)
                inner.clearTags(other.channelId, Date.now())
              }
            }
            return inner.deleteChannel(channelId)
          },
        }),
      ),
  },

  /**
   * §2.3 "maxItems | integer | maximum number of items kept; -1 means unlimited" — per channel. The capacity
   * check counts the items of every channel of the channel's owner (a COUNT by owner, not by channel) and evicts
   * the excess from this channel: a channel whose owner has items elsewhere loses items while below its maxItems.
   */
  {
    name: 'r15c-items-capacity-counts-owner',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-items',
    consequences: [
      { clause: 'items.fetch.range', reason: 'a channel with maxItems loses items it should keep, so a fetch of its range misses them' },
      { clause: 'items.fetch.offset', reason: 'the pages over the items a full channel keeps are short of the items evicted too early' },
      { clause: 'items.get.by-ids', reason: 'an item evicted too early is not returned by its id' },
    ],
    description:
      "publish checks maxItems against the number of items in all channels of the channel's owner: a channel with maxItems evicts its own items early when the owner's other channels hold items",
    wrapStore: (store) =>
      withChannelLog(store, (wrapped, all) =>
        overrideStore(wrapped, {
          addItem: (inner) => (item, maxItems) => {
            if (maxItems < 0) return inner.addItem(item, maxItems)
            const evicted = inner.addItem(item, -1)
            const channel = inner.getChannel(item.channelId)
            if (!channel) return evicted
            const owned = all().filter((c) => c.ownerId === channel.ownerId)
            let total = owned.reduce((n, c) => n + inner.listItems(c.channelId).length, 0)
            while (total > maxItems) {
              const oldest = inner.listItems(channel.channelId)[0]
              if (!oldest) break
              inner.deleteItem(channel.channelId, oldest.itemId)
              evicted.push(oldest.itemId)
              total--
            }
            return evicted
          },
        }),
      ),
  },

  /**
   * §2.3 "a public channel or the caller's own private channel is addressed by its plain name" and §4.2 "Search
   * public channels". Search matches public channels, then loads each hit's record by its plain name as the
   * caller addresses it: a caller who owns a private channel of a hit's name gets its own private channel's
   * record in the results instead of the public channel.
   */
  {
    name: 'r15c-search-hits-loaded-by-plain-name',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.search.public-only',
    description:
      "search loads each public hit by its plain name for the caller: a caller owning a private channel of the same name sees that private channel's record (privateChannel true, its description) in the results",
    install(app, ctx) {
      rewriteJson(app, 'channels.search', (body: { results?: { name: string }[] }, request: FastifyRequest) => {
        const user = callerId(request)
        if (user === undefined || !Array.isArray(body.results)) return body
        return {
          ...body,
          results: body.results.map((r) => {
            const own = ctx.store.findPrivateChannel(user, r.name)
            return own ? channelSearchView(ctx, own) : r
          }),
        }
      })
    },
  },

  /**
   * §4.2 Unsubscribe: "the message states the number of subscriptions cancelled". The count is taken before the
   * delete with a query that filters on the user only: it is the caller's subscriptions over every channel, so a
   * caller subscribed to other channels too is told more were cancelled than were (also when none were).
   */
  {
    name: 'r15c-subscriptions-unsubscribe-counts-all-channels',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.unsubscribe.count',
    description:
      "unsubscribe counts the caller's subscriptions over all channels, not those of the channel: a user subscribed elsewhere too is told more subscription(s) cancelled than there were",
    wrapStore: (store) =>
      withChannelLog(store, (wrapped, all) =>
        overrideStore(wrapped, {
          removeSubscriptions: (inner) => (channelId, userId) => {
            const counted = all().reduce((n, c) => n + inner.listSubscriptions(c.channelId).filter((s) => s.userId === userId).length, 0)
            inner.removeSubscriptions(channelId, userId)
            return counted
          },
        }),
      ),
  },
]
