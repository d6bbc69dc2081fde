/** Blind round 14 (docs/detection.md), isolation between channels and users, addresses × callers: deep faults written from the spec alone, without reading the suite. */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { assertOwner, personal, resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import type { Store } from '../store'
import { channelParam, hashRef } from './deep-common'
import { aroundHandler, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * §4.2 Delete channel: "Only the channel owner may delete a channel." (§5.5: "deleting a channel … permitted
 * only to the channel owner.")
 *
 * The owner check resolves the path the way every other route does (the caller's own private channel of that
 * name first, else the public one), while the deletion resolves it by `personal` (false: the public channel).
 * A user who has a private channel of the same name passes the check on its own channel and deletes another
 * user's public channel.
 */
const deleteOwnerCheckedOnVisible: CatalogFault = {
  name: 'r14c-channels-delete-owner-checked-on-visible',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.delete.owner-only',
  description:
    "delete channel checks ownership on the channel the plain name shows the caller (its own private one first) but deletes the one personal selects: a user with a private channel of the same name deletes another user's public channel",
  install(app, ctx) {
    wrapHandler(
      app,
      'channels.delete',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const raw = channelParam(request)
          const query = request.query as { personal: boolean }
          // The "is it yours?" lookup reuses the generic resolver...
          assertOwner(resolveChannel(ctx, user.userId, raw), user.userId)
          // ...the deletion honours personal.
          const channel = resolveChannel(ctx, user.userId, raw, personal(query.personal))
          ctx.store.deleteChannel(channel.channelId)
          return { code: 200, message: `channel ${channel.name} deleted` }
        } as RouteOptions['handler'],
    )
  },
}

/**
 * §2.3 Channel: "maxItems | integer | maximum number of items kept; -1 means unlimited".
 *
 * When a publish stores an item, the channel settings that govern eviction are read by the channel's plain
 * name from the public channels first: a private channel that shares its name with a public one is trimmed to
 * the public channel's maxItems (an unlimited private channel loses items; a small one keeps too many).
 */
const maxItemsByPlainName: CatalogFault = {
  name: 'r14c-items-max-items-by-plain-name',
  area: 'items',
  depth: 'deep',
  clause: ['items.max-items.unlimited', 'items.max-items'],
  description:
    "publish evicts by the maxItems of the public channel of the same name when there is one: a private channel namesake of a public one keeps that channel's maxItems of items, not its own",
  wrapStore: (store: Store) =>
    overrideStore(store, {
      addItem: (inner) => (item, maxItems) => {
        const channel = inner.getChannel(item.channelId)
        const settings = channel?.privateChannel ? inner.findPublicChannel(channel.name) : undefined
        return inner.addItem(item, settings ? settings.maxItems : maxItems)
      },
    }),
}

/**
 * §4.2 List subscribers: "GET /channels/{channel_name}/subscriptions. Response 200: array of Subscription."
 * (a subscriber is listed among the channel's subscriptions).
 *
 * Subscriptions are recorded under the channel address as written in the subscribe call, and the list selects
 * by the address as written: a user who subscribed to another user's private channel through
 * `<owner_id>#<name>` is missing from the owner's list by plain name, and a list through `<owner_id>#<name>`
 * shows only the subscriptions made that way (not the owner's own).
 */
const subscriptionsKeyedByAddressForm: CatalogFault = {
  name: 'r14c-subscriptions-keyed-by-address-form',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description:
    "a subscription made through <owner_id>#<name> is kept under that address form: the owner's list by plain name leaves it out, and a list through <owner_id>#<name> shows only such subscriptions",
  consequences: [
    {
      clause: 'private.other-user-address',
      reason:
        "a list of subscriptions through <owner_id>#<name> answers another set than the channel's own, which is the address resolving to something other than the owner's private channel",
    },
  ],
  install(app) {
    const viaHash = new Set<string>()
    aroundHandler(app, 'subscriptions.subscribe', async (request, _reply, next) => {
      const body = (await next()) as { subId?: string; msg?: string }
      if (hashRef(channelParam(request)) !== null && body?.subId && body.msg?.startsWith('subscribed')) viaHash.add(body.subId)
      return body
    })
    rewriteJson(app, 'subscriptions.list', (body: { subscriptionId: string }[], request) => {
      const hash = hashRef(channelParam(request)) !== null
      return body.filter((s) => viaHash.has(s.subscriptionId) === hash)
    })
  },
}

/**
 * §4.2 Delete all items: "Only the channel owner may delete items this way." (§5.5: "deleting all items of a
 * channel [is] permitted only to the channel owner.")
 *
 * Delete all is written as delete-by-id over every item of the channel, with delete-by-id's rule per item (the
 * channel owner or the item's publisher): a non-owner whose items are the only ones in the channel (or who
 * calls on an empty channel) is let through and empties it.
 */
const deleteAllPerItemRights: CatalogFault = {
  name: 'r14c-items-delete-all-per-item-rights',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete-all.owner-only',
  description:
    "delete all items checks delete-by-id's per-item right (owner or the item's publisher) instead of ownership: a non-owner empties a channel holding only its own items, or an empty one",
  install(app, ctx) {
    wrapHandler(
      app,
      'items.deleteAll',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const query = request.query as { personal: boolean }
          const channel = resolveChannel(ctx, user.userId, channelParam(request), personal(query.personal))
          const items = ctx.store.listItems(channel.channelId)
          if (channel.ownerId !== user.userId && items.some((i) => i.publisherId !== user.userId)) throw fail('NOT_OWNER')
          const deleted = ctx.store.clearItems(channel.channelId)
          return { code: 200, message: `${deleted} item(s) deleted from ${channel.name}` }
        } as RouteOptions['handler'],
    )
  },
}

/**
 * §4.2 Create channel: "subscribeOnCreate (boolean, optional, default true; subscribes the creator)".
 *
 * After storing the channel, create subscribes the creator by looking the new channel up by its plain name
 * with the ordinary resolver, which gives the caller's own private channel of that name first: an owner who
 * already has a private channel of the name and creates the public one is "subscribed" to the private one
 * (already subscribed there, nothing added); the new public channel lists no subscriber.
 */
function createSubscribesVisibleNamesake(): CatalogFault {
  const creating = new AsyncLocalStorage<ServerContext>()
  return {
    name: 'r14c-channels-create-subscribes-visible-namesake',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.create.default-subscribe',
    description:
      "the creator's subscription of subscribeOnCreate goes to the channel the plain name shows the creator: an owner of a private channel who creates the public one of that name is not subscribed to the public one",
    wrapStore: (store: Store) =>
      overrideStore(store, {
        addSubscription: (inner) => (subscription) => {
          const channel = creating.getStore() ? inner.getChannel(subscription.channelId) : undefined
          if (!channel) return inner.addSubscription(subscription)
          const target = inner.findPrivateChannel(subscription.userId, channel.name) ?? inner.findPublicChannel(channel.name) ?? channel
          if (inner.findSubscription(target.channelId, subscription.userId)) return
          inner.addSubscription({ ...subscription, channelId: target.channelId })
        },
      }),
    install(app, ctx) {
      wrapHandler(
        app,
        'channels.create',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            return creating.run(ctx, () => (original as (this: unknown, rq: FastifyRequest, rp: FastifyReply) => unknown).call(this, request, reply))
          } as RouteOptions['handler'],
      )
    },
  }
}

export const ROUND14_ISOLATION_FAULTS: CatalogFault[] = [
  deleteOwnerCheckedOnVisible,
  maxItemsByPlainName,
  subscriptionsKeyedByAddressForm,
  deleteAllPerItemRights,
  createSubscribesVisibleNamesake(),
]
