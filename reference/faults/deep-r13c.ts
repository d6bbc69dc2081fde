import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { parseChannelRef, personal, resolveChannel } from '../channel-address'
import { fail } from '../errors'
import type { ChannelRecord } from '../model'
import { routeScope } from './common'
import { channelOf, channelParam, overrideCtxStore, sleep, tryResolve } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/** Blind round 13 (c): faults written from the spec's words only. */

/**
 * §4.2 Delete channel: "Only the channel owner may delete a channel." §5.5: "Owner-only rules: deleting a channel
 * ... permitted only to the channel owner."
 *
 * The owner check is made against the owner the address names: a plain name stands for the caller's own channel,
 * and a `<user_id>#<name>` address is taken as already naming its owner. So another user who addresses a private
 * channel as `<owner_id>#<name>` passes the check (the id in the address is always the channel's owner) and deletes
 * it. Plain-name deletes by another user are still refused.
 */
const deleteByHashAddressSkipsOwner: CatalogFault = {
  name: 'r13c-channels-delete-hash-owner',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.delete.owner-only',
  description:
    'delete channel checks ownership against the owner named in a `<user_id>#<name>` address, not the caller: another user deletes a private channel through its # address',
  install(app, ctx) {
    wrapHandler(
      app,
      'channels.delete',
      () =>
        async function (request: FastifyRequest) {
          const { user } = callerOf(request)
          const raw = channelParam(request)
          const channel = resolveChannel(ctx, user.userId, raw, personal((request.query as { personal: boolean }).personal))
          const claimedOwner = parseChannelRef(raw, ctx.channelNames).ownerId ?? user.userId
          if (channel.ownerId !== claimedOwner) throw fail('NOT_OWNER')
          ctx.store.deleteChannel(channel.channelId)
          return { code: 200, message: `channel ${channel.name} deleted` }
        } as never,
    )
  },
}

/**
 * §4.2 Delete all items: "Only the channel owner may delete items this way." §4.2: "Success of the four delete
 * operations ... (delete channel, delete one tag, delete all tags, delete all items) is status 200." §2.3 creator:
 * "composite owner identifier: user id, then a separator, then a user-name and domain part, then a slash and device id".
 *
 * The owner check compares the channel's composite `creator` with the same composite built from the caller's
 * session, device id included: the owner signed in on a second device (another MMS-DEVICE-ID) is refused with 403.
 * From the device the channel was created on, and for every other user, the answer is right.
 */
const deleteAllOwnerByCreatorDevice: CatalogFault = {
  name: 'r13c-items-deleteall-creator-device',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete-all.status',
  description: "delete all items compares the channel's creator (user and device) with the caller's session: the owner on a second device gets 403",
  install(app, ctx) {
    addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      const channel = channelOf(ctx, request)
      if (caller?.kind !== 'USER' || !channel) return
      const creator = `${channel.ownerId}/${channel.ownerDeviceId}`
      const session = `${caller.user.userId}/${caller.deviceId}`
      if (channel.ownerId === caller.user.userId && creator !== session) throw fail('NOT_OWNER')
    })
  },
}

/**
 * §4.4 Push to user: "Pushes to all active devices of the user." ... "Here `sent` and `unsent` count devices."
 *
 * The push result is counted as direct messages count theirs (§4.3: users): `sent` is 1 when any device of the
 * user was reached, `unsent` 1 when none was. With one device the numbers are right; a user signed in on two
 * devices gets two sentList entries and `sent` 1.
 */
const pushCountsUsers: CatalogFault = {
  name: 'r13c-push-sent-counts-users',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description: 'push counts users, not devices: a user with two devices reached gets two sentList entries but sent 1',
  install(app) {
    rewriteJson(app, 'push.user', (body: { count: { requested: number; sent: number; unsent: number }; sentList: unknown[]; unsentList: unknown[] }) => {
      const reached = body.sentList.length > 0
      return {
        ...body,
        count: { ...body.count, sent: reached ? 1 : 0, unsent: !reached && body.unsentList.length > 0 ? 1 : 0 },
      }
    })
  },
}

/**
 * §4.3 Send to user ids: "In this operation `requested` counts matched users, `sent` counts users for whom a push
 * was sent". §1: "A caller can send a message to one or many users by user id".
 *
 * A "do not notify yourself" filter is applied to the recipient list before matching instead of to the devices
 * woken: a sender who lists its own user id is dropped from the matched users. Sending to itself alone answers
 * requested 0; to itself and another user, requested 1, and no message id for itself.
 */
const sendDropsSender: CatalogFault = {
  name: 'r13c-messages-self-not-counted',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.send.requested',
  description: "send_to_user_ids drops the caller's own user id from the recipients before matching: a sender listing itself is not counted nor sent to",
  install(app) {
    addRouteHook(app, 'messages.send', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      if (caller?.kind !== 'USER') return
      const body = request.body as { recipientUserIds: string[] }
      body.recipientUserIds = body.recipientUserIds.filter((id) => id !== caller.user.userId)
    })
  },
}

/** The routes that address a channel by plain name without `personal` (the caller's own private one first, else the public one). */
const VISIBLE_ROUTES = [
  'channels.getByName',
  'channels.summary',
  'subscriptions.subscribe',
  'subscriptions.unsubscribe',
  'subscriptions.list',
  'tags.get',
  'items.publish',
  'items.getById',
  'items.fetch',
  'items.deleteById',
] as const

/**
 * §2.3: "a public channel or the caller's own private channel is addressed by its plain name. Another user's private
 * channel is addressed as `<user_id>#<channel_name>`."
 *
 * On the routes that read or subscribe, a plain name found neither among the caller's private channels nor among the
 * public ones falls back to the private-channel index searched by name alone (the owner part of the key forgotten):
 * another user's private channel is reached by its plain name whenever no public channel and no private channel of
 * the caller carries that name.
 */
function plainNameFallback(): CatalogFault {
  const scope = routeScope()
  return {
    name: 'r13c-private-plain-name-fallback',
    area: 'private',
    depth: 'deep',
    clause: 'private.plain-name-not-shared',
    description: "a plain name that matches no public channel and none of the caller's own falls back to any user's private channel of that name",
    install(app, ctx) {
      for (const id of VISIBLE_ROUTES) scope.install(app, id)
      overrideCtxStore(ctx, {
        findPublicChannel: (inner) => (name) => {
          const found = inner.findPublicChannel(name)
          if (found || !scope.active()) return found
          for (const u of inner.listUsers(ctx.application.clientId)) {
            const other = inner.findPrivateChannel(u.userId, name)
            if (other) return other
          }
          return undefined
        },
      })
    },
  }
}

/** How long a publish to a channel with a limit takes between counting its items and storing the new one. */
const COUNT_WINDOW_MS = 25

/**
 * §2.3 maxItems: "maximum number of items kept; -1 means unlimited".
 *
 * Eviction is decided from a count read before the item is stored (an asynchronous count, then the insert, then
 * "evict count + 1 - maxItems oldest"). One publish at a time keeps the limit; two publishes at once to a channel
 * below its limit both read the same count, neither evicts, and the channel ends with more than maxItems items (two
 * at once to a fresh channel of maxItems 1 keep both; maxItems 3 holding 2 items ends with 4).
 */
function evictFromStaleCount(): CatalogFault {
  const scope = routeScope()
  return {
    name: 'r13c-items-maxitems-race',
    area: 'items',
    depth: 'deep',
    clause: 'items.max-items',
    description: 'publish evicts by an item count read before the insert: two publishes at once to a limited channel leave more than maxItems items',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem(item, scope.active() ? -1 : maxItems),
      }),
    install(app, ctx) {
      scope.install(app, 'items.publish')
      aroundHandler(app, 'items.publish', async (request: FastifyRequest, _reply: FastifyReply, next) => {
        const channel: Readonly<ChannelRecord> | undefined = tryResolve(ctx, request)
        if (!channel || channel.maxItems < 0) return next()
        const before = ctx.store.listItems(channel.channelId).length
        await sleep(COUNT_WINDOW_MS)
        const answer = await next()
        let excess = before + 1 - channel.maxItems
        for (const old of [...ctx.store.listItems(channel.channelId)]) {
          if (excess-- <= 0) break
          ctx.store.deleteItem(channel.channelId, old.itemId)
        }
        return answer
      })
    },
  }
}

export const R13C_FAULTS: readonly CatalogFault[] = [
  deleteByHashAddressSkipsOwner,
  deleteAllOwnerByCreatorDevice,
  pushCountsUsers,
  sendDropsSender,
  plainNameFallback(),
  evictFromStaleCount(),
]
