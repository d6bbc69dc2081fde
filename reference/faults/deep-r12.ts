import type { FastifyReply, FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { newId } from '../ids'
import { platformOf } from '../push-gateway'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Blind round 12: faults written from the spec's words only, without reading the suite, to measure how
 * well the suite catches faults it has never seen. Each shows only for a particular input, state,
 * sequence, pair of users, second device or race, never on the first ordinary call. Each comment names
 * the spec words it breaks.
 */

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The signed-in user id of a request (set by the authentication hook), or undefined. */
function callerId(request: FastifyRequest): string | undefined {
  return request.caller?.kind === 'USER' ? request.caller.user.userId : undefined
}

/** The plain name of a channel path segment (`<user>#<name>` gives `<name>`). */
function plainName(raw: string): string {
  const hash = raw.indexOf('#')
  return hash < 0 ? raw : raw.slice(hash + 1)
}

// ───────────── signin ─────────────

/**
 * §4.1 / §5.2 "Header: MMS-DEVICE-ID (required, any value)" / "any value is accepted": a device id with a
 * colon (a MAC address `AA:BB:CC:…`, `ios:…`) is read as `<platform>:<token>` and refused unless the part
 * before the first colon is a known platform.
 */
const signinDeviceIdColon: CatalogFault = {
  name: 'r12-signin-device-id-colon',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'an MMS-DEVICE-ID holding a colon is parsed as <platform>:<token> and refused (400) unless the platform is ios, android or web',
  install(app) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const value = request.headers['mms-device-id']
      if (typeof value !== 'string') return
      const colon = value.indexOf(':')
      if (colon < 0) return
      const platform = value.slice(0, colon).toLowerCase()
      if (!['ios', 'android', 'web'].includes(platform)) throw fail('MISSING_DEVICE_ID', `unknown device platform "${value.slice(0, colon)}"`)
    })
  },
}

/**
 * §4.1 / §5.2 "MMS-DEVICE-ID … any value is accepted": the device table is unique on the device id, so a
 * second user who signs in on a device id another user signed in on first is refused (two users, one device).
 */
const signinDeviceOfOtherUser: CatalogFault = {
  name: 'r12-signin-device-of-other-user-refused',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'a sign-in on a device id another user signed in on before is refused (401): device ids are unique across users',
  consequences: [
    {
      clause: 'signin.session.shape',
      reason: 'the set-up sign-ins of other checks on a device id another user signed in with first are refused, so they answer no Session',
    },
  ],
  wrapStore(store) {
    const ownerOf = new Map<string, string>()
    return overrideStore(store, {
      registerDevice: (inner) => (userId, deviceId, at) => {
        const owner = ownerOf.get(deviceId)
        if (owner !== undefined && owner !== userId) throw fail('INVALID_CREDENTIALS', 'this device is registered to another user')
        ownerOf.set(deviceId, userId)
        inner.registerDevice(userId, deviceId, at)
      },
    })
  },
}

// ───────────── users ─────────────

/**
 * §4.1 "property is one of … userIdentifier" and "Search users … Response: array of User": a search by
 * userIdentifier answers only the caller's own record (a "me" lookup); another user's exact id finds nothing.
 */
const usersIdSearchSelfOnly: CatalogFault = {
  name: 'r12-users-id-search-self-only',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: "an exact userIdentifier search finds only the caller's own record; another user's id returns []",
  consequences: [
    {
      clause: 'users.search.shape',
      reason: "the shape check reads A's record through a userIdentifier search made by another user, which the fault answers []",
    },
  ],
  install(app) {
    rewriteJson(app, 'users.query', (body, request) => {
      const q = String((request.query as { q?: string }).q ?? '')
      const colon = q.indexOf(':')
      if (colon < 0 || q.slice(0, colon).toLowerCase() !== 'useridentifier') return body
      const value = q.slice(colon + 1)
      if (value.includes('*')) return body
      return value === callerId(request) ? body : []
    })
  },
}

// ───────────── channels ─────────────

/**
 * §2.3 creationDate (with §4.2's channel records): a channel's creationDate is when it was created. Clearing
 * all its tags saves the channel with "now" in both creationDate and modifiedDate.
 */
const channelsClearTagsResetsCreation: CatalogFault = {
  name: 'r12-channels-clear-tags-resets-creation',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.record.fixed',
  description: 'delete all tags of a channel that has tags sets its creationDate to the time of the delete',
  wrapStore(store) {
    return overrideStore(store, {
      clearTags: (inner) => (channelId, at) => {
        const n = inner.clearTags(channelId, at)
        const channel = inner.getChannel(channelId) as { createdAt: number } | undefined
        if (n > 0 && channel) channel.createdAt = at
        return n
      },
    })
  },
}

/**
 * §4.2 "Only the channel owner may delete a channel" (§5.5): a DELETE that says `?personal=false` outright
 * takes a "public channel" code path that skips the owner check, so any user deletes another's public channel.
 */
const channelsDeleteExplicitPublic: CatalogFault = {
  name: 'r12-channels-delete-explicit-public-any-user',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.delete.owner-only',
  description: 'DELETE /channels/{name}?personal=false (given explicitly) deletes the public channel whoever calls',
  install(app, ctx) {
    wrapHandler(app, 'channels.delete', (original) => {
      const handler = original as Handler
      return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const explicit = /[?&]personal=false(?:&|$)/.test(request.url)
        const raw = (request.params as { channel: string }).channel
        if (explicit && !raw.includes('#')) {
          const channel = ctx.store.findPublicChannel(raw)
          if (channel) {
            ctx.store.deleteChannel(channel.channelId)
            return { code: 200, message: `channel ${channel.name} deleted` }
          }
        }
        return handler.call(this, request, reply)
      } as never
    })
  },
}

/**
 * §4.2 Create channel with subscribeOnCreate "default true; subscribes the creator": the creator's
 * subscriptions are kept as one document per user, read at the start of a create and written back after it;
 * two creates by one user within a few milliseconds lose the earlier channel's creator subscription.
 */
const raceCreateSubscribeLost: CatalogFault = {
  name: 'r12-race-create-subscribe-lost',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.create.default-subscribe',
  description: "two creates by the same user within ~8 ms: the earlier channel's creator subscription is lost (read-modify-write of the user's subscriptions)",
  install(app, ctx) {
    const version = new Map<string, number>()
    wrapHandler(app, 'channels.create', (original) => {
      const handler = original as Handler
      return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const user = callerId(request)!
        const mine = (version.get(user) ?? 0) + 1
        version.set(user, mine)
        await sleep(8)
        const result = await handler.call(this, request, reply)
        const body = request.body as { channelName?: string; privateChannel?: boolean; subscribeOnCreate?: boolean }
        if (version.get(user) !== mine && reply.statusCode < 300 && body.subscribeOnCreate !== false && body.channelName) {
          const channel = body.privateChannel ? ctx.store.findPrivateChannel(user, body.channelName) : ctx.store.findPublicChannel(body.channelName)
          if (channel && channel.ownerId === user) ctx.store.removeSubscriptions(channel.channelId, user)
        }
        return result
      } as never
    })
  },
}

// ───────────── search ─────────────

/**
 * §4.2 Search "tag may repeat": a channel matches when the number of its tags among the tag parameters
 * equals the number of tag parameters; with one tag given twice no channel ever matches.
 */
const searchRepeatedTag: CatalogFault = {
  name: 'r12-search-repeated-tag-empty',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-tag',
  description: 'a search that repeats one tag value (tag=a&tag=a) matches no channel',
  install(app) {
    rewriteJson(app, 'channels.search', (body, request) => {
      const tags = (request.query as { tag?: string[] }).tag ?? []
      return new Set(tags).size < tags.length ? { total: 0, results: [] } : body
    })
  },
}

/**
 * §4.2 Search response `{total (integer), results}` with `offset`/`size`: total counts every match. The tag
 * search path reports as total the number of results on the page.
 */
const searchTagTotalIsPage: CatalogFault = {
  name: 'r12-search-tag-total-is-page',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.total',
  description: 'a search with a tag filter answers total = the number of results on the page (wrong when size or offset cut the matches)',
  install(app) {
    rewriteJson(app, 'channels.search', (body, request) => {
      const tags = (request.query as { tag?: string[] }).tag ?? []
      return tags.length > 0 && Array.isArray(body.results) ? { ...body, total: body.results.length } : body
    })
  },
}

// ───────────── private ─────────────

/**
 * §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>" (names of private
 * channels are per owner) with §4.2 `privateChannel`: the uniqueness check of private names ignores the
 * owner, so a user cannot create a private channel whose name another user's private channel has.
 */
const privateNameUniqueAcrossOwners: CatalogFault = {
  name: 'r12-private-name-unique-across-owners',
  area: 'private',
  depth: 'deep',
  clause: 'private.create',
  description: 'creating a private channel is refused (409) when another user owns a private channel of that name',
  install(app, ctx) {
    addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { channelName?: string; privateChannel?: boolean }
      const me = callerId(request)
      if (!body?.privateChannel || typeof body.channelName !== 'string' || !me) return
      const clientId = request.caller?.kind === 'USER' ? request.caller.user.clientId : ''
      for (const user of ctx.store.listUsers(clientId)) {
        if (user.userId !== me && ctx.store.findPrivateChannel(user.userId, body.channelName)) {
          throw fail('CHANNEL_EXISTS', `a private channel ${body.channelName} already exists`)
        }
      }
    })
  },
}

/**
 * §4.2 Delete channel `personal` ("defaults to false, meaning a public channel"; true: the caller's private
 * one): a delete with personal=true removes the caller's private channel and also the public channel of the
 * same name when the caller owns it too.
 */
const privateDeletePersonalDropsTwin: CatalogFault = {
  name: 'r12-private-delete-personal-drops-public-twin',
  area: 'private',
  depth: 'deep',
  clause: ['private.delete-personal', 'channels.delete.only-named'],
  description: 'DELETE ?personal=true also deletes the public channel of the same name when the caller owns it',
  install(app, ctx) {
    wrapHandler(app, 'channels.delete', (original) => {
      const handler = original as Handler
      return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const result = await handler.call(this, request, reply)
        const me = callerId(request)
        if ((request.query as { personal?: boolean }).personal === true && me) {
          const twin = ctx.store.findPublicChannel(plainName((request.params as { channel: string }).channel))
          if (twin && twin.ownerId === me) ctx.store.deleteChannel(twin.channelId)
        }
        return result
      } as never
    })
  },
}

// ───────────── subscriptions ─────────────

/**
 * §4.2 Unsubscribe: "the message states the number of subscriptions cancelled". The creator's subscription
 * made by subscribeOnCreate is kept apart; unsubscribe removes it but counts only ordinary ones: "0".
 */
const unsubscribeCreatorCountsZero: CatalogFault = {
  name: 'r12-unsubscribe-creator-counts-zero',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.unsubscribe.count',
  description: 'unsubscribing the creator subscription made by subscribeOnCreate removes it but the message says 0 subscription(s) cancelled',
  install(app, ctx) {
    wrapHandler(app, 'subscriptions.unsubscribe', (original) => {
      const handler = original as Handler
      return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const me = callerId(request)
        let creatorSubscription = false
        const raw = (request.params as { channel: string }).channel
        if (me && !raw.includes('#')) {
          const channel = ctx.store.findPrivateChannel(me, raw) ?? ctx.store.findPublicChannel(raw)
          const sub = channel && ctx.store.findSubscription(channel.channelId, me)
          creatorSubscription = !!channel && !!sub && channel.ownerId === me && sub.createdAt === channel.createdAt
        }
        const result = (await handler.call(this, request, reply)) as { message: string; code: number }
        if (creatorSubscription && result && typeof result.message === 'string') {
          return { ...result, message: result.message.replace(/^\d+/, '0') }
        }
        return result
      } as never
    })
  },
}

/**
 * §4.2 Subscribe answers `{code, subId, msg}` and §2.5 lists subscriptions with their subscriptionId: a user
 * already subscribed who subscribes again from another device gets a freshly minted subId that is stored
 * nowhere (the list still shows the first subscription only).
 */
const subscribeSecondDevicePhantom: CatalogFault = {
  name: 'r12-subscribe-second-device-phantom-subid',
  area: 'subscriptions',
  depth: 'deep',
  clause: 'subscriptions.subscribe.listed',
  description: 'a subscribe from a second device of an already subscribed user answers a new subId that no subscription listed carries',
  install(app, ctx) {
    wrapHandler(app, 'subscriptions.subscribe', (original) => {
      const handler = original as Handler
      return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const result = (await handler.call(this, request, reply)) as { code: number; subId: string; msg: string }
        const caller = request.caller
        if (caller?.kind === 'USER' && result && typeof result.subId === 'string') {
          const raw = (request.params as { channel: string }).channel
          const hash = raw.indexOf('#')
          const channel =
            hash >= 0
              ? ctx.store.findPrivateChannel(raw.slice(0, hash), raw.slice(hash + 1))
              : (ctx.store.findPrivateChannel(caller.user.userId, raw) ?? ctx.store.findPublicChannel(raw))
          const sub = channel && ctx.store.findSubscription(channel.channelId, caller.user.userId)
          if (sub && sub.subscriptionId === result.subId && sub.deviceId !== null && sub.deviceId !== caller.deviceId) {
            return { code: 200, subId: newId(), msg: `subscribed to ${channel!.name}` }
          }
        }
        return result
      } as never
    })
  },
}

// ───────────── tags ─────────────

/**
 * §4.2 "Delete one tag: DELETE /channels/{channel_name}/tags/{tag}": the path's last segment goes through
 * suffix matching, so a tag with a dot loses everything from its last dot ("v1.2" is read as "v1").
 */
const tagDeleteDotSuffix: CatalogFault = {
  name: 'r12-tag-delete-dot-suffix',
  area: 'tags',
  depth: 'deep',
  clause: 'tags.delete-one.removes',
  description: 'delete one tag cuts the {tag} segment at its last "." (a format suffix): "v1.2" deletes "v1" or answers 404',
  install(app) {
    addRouteHook(app, 'tags.deleteOne', 'preHandler', async (request: FastifyRequest) => {
      const params = request.params as { tag: string }
      const dot = params.tag.lastIndexOf('.')
      if (dot > 0) params.tag = params.tag.slice(0, dot)
    })
  },
}

/**
 * §4.2 "Delete one tag" removes that tag: the tag list is cached per channel before a delete-one and the
 * next add writes the cached list back with the new tags, so the deleted tag returns.
 */
const tagsDeletedReturnsOnAdd: CatalogFault = {
  name: 'r12-tags-deleted-returns-on-add',
  area: 'tags',
  depth: 'deep',
  clause: 'tags.delete-one.removes',
  description: 'a tag removed by delete-one comes back when tags are next added to the channel (a stale cached list is written back)',
  wrapStore(store) {
    const stale = new Map<string, string[]>()
    return overrideStore(store, {
      removeTag: (inner) => (channelId, tag, at) => {
        const before = inner.getChannel(channelId)?.tags
        const removed = inner.removeTag(channelId, tag, at)
        if (removed && before && !stale.has(channelId))
          stale.set(
            channelId,
            [...before, tag].filter((t, i, a) => a.indexOf(t) === i),
          )
        return removed
      },
      clearTags: (inner) => (channelId, at) => {
        stale.delete(channelId)
        return inner.clearTags(channelId, at)
      },
      deleteChannel: (inner) => (channelId) => {
        stale.delete(channelId)
        return inner.deleteChannel(channelId)
      },
      addTags: (inner) => (channelId, tags, at) => {
        const cached = stale.get(channelId)
        stale.delete(channelId)
        if (!cached) return inner.addTags(channelId, tags, at)
        const fresh = tags.filter((t) => !(inner.getChannel(channelId)?.tags ?? []).includes(t)).length
        inner.addTags(channelId, [...cached, ...tags], at)
        return fresh
      },
    })
  },
}

// ───────────── items ─────────────

/**
 * §2.6 "content: key/value map of the message content" (an item comes back with its content): blank
 * values are stripped on publish, so a key whose value is the empty string is lost.
 */
const itemsContentEmptyString: CatalogFault = {
  name: 'r12-items-content-empty-string-dropped',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'publish drops the top-level content keys whose value is the empty string ""',
  install(app) {
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content?: Record<string, unknown> }
      if (body?.content && typeof body.content === 'object') {
        body.content = Object.fromEntries(Object.entries(body.content).filter(([, v]) => v !== ''))
      }
    })
  },
}

/**
 * §4.2 Publish item to `/channels/{channel_name}/items` (and get items by id in that channel): the target
 * channel is kept in a variable shared by all requests across an await; two publishes to different channels
 * within ~8 ms both land in the later one's channel.
 */
const racePublishChannelCrossed: CatalogFault = {
  name: 'r12-race-publish-channel-crossed',
  area: 'items',
  depth: 'deep',
  clause: ['items.get.by-ids', 'channels.summary.count'],
  description: "two publishes to different channels within ~8 ms: the earlier one's item is stored in the later one's channel",
  install(app) {
    let pending: string | null = null
    wrapHandler(app, 'items.publish', (original) => {
      const handler = original as Handler
      return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const params = request.params as { channel: string }
        pending = params.channel
        await sleep(8)
        if (pending !== null) params.channel = pending
        return handler.call(this, request, reply)
      } as never
    })
  },
}

// ───────────── messages ─────────────

/**
 * §4.3 "`requested` counts matched users": the recipients are matched in a loop that stops at the first
 * id that is no user, so known ids after an unknown one are neither matched nor sent to.
 */
const msgUnknownIdStops: CatalogFault = {
  name: 'r12-msg-unknown-id-stops-matching',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.send.requested',
  description: 'recipient matching stops at the first unknown user id: known ids listed after it are not matched (requested too low)',
  install(app, ctx) {
    addRouteHook(app, 'messages.send', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { recipientUserIds?: string[] }
      const ids = body?.recipientUserIds
      if (!Array.isArray(ids)) return
      const clientId = request.caller?.kind === 'USER' ? request.caller.user.clientId : ''
      const stop = ids.findIndex((id) => {
        const user = ctx.store.getUser(id)
        return !user || user.clientId !== clientId
      })
      if (stop >= 0) body.recipientUserIds = ids.slice(0, stop)
    })
  },
}

/**
 * §2.7 delivery status record `recipient (user id)`: the recipient is looked up from the device registry,
 * keyed by device id alone (the first user who signed in on it), so when two users share a device id a
 * message to the second shows the first as its recipient.
 */
let sharedDeviceRegistry: Map<string, string> | undefined
const msgStatusSharedDevice: CatalogFault = {
  name: 'r12-msg-status-shared-device-recipient',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.status.agrees',
  description: 'delivery records name as recipient the first user who signed in on the device id, not the message recipient (two users on one device)',
  wrapStore(store) {
    const registry = new Map<string, string>()
    sharedDeviceRegistry = registry
    return overrideStore(store, {
      registerDevice: (inner) => (userId, deviceId, at) => {
        if (!registry.has(deviceId)) registry.set(deviceId, userId)
        inner.registerDevice(userId, deviceId, at)
      },
    })
  },
  install(app) {
    // wrapStore runs just before install for the same server (app.ts), so this is that server's registry.
    const registry = sharedDeviceRegistry ?? new Map<string, string>()
    rewriteJson(app, 'messages.status', (body) =>
      Array.isArray(body) ? body.map((r: { deviceId: string; recipient: string }) => ({ ...r, recipient: registry.get(r.deviceId) ?? r.recipient })) : body,
    )
  },
}

// ───────────── push ─────────────

/**
 * §4.4 Push body `name (string identifying the push)`: the name is validated as an identifier token, so a
 * name with a space ("order shipped") is refused (400) and nothing is pushed.
 */
const pushNameWithSpace: CatalogFault = {
  name: 'r12-push-name-with-space-refused',
  area: 'push',
  depth: 'deep',
  clause: 'push.shape',
  description: 'a push whose name contains whitespace is refused with 400 (name checked as an identifier)',
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { name?: unknown }
      if (typeof body?.name === 'string' && /\s/.test(body.name)) throw fail('BAD_REQUEST', 'body/name must be an identifier')
    })
  },
}

/**
 * §4.4 "Here sent and unsent count devices": sent counts the platform batches (one per APNs/FCM request),
 * so a recipient with several devices on one platform shows fewer sent than its sentList holds.
 */
const pushSentCountsPlatforms: CatalogFault = {
  name: 'r12-push-sent-counts-platforms',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description: 'count.sent is the number of distinct platforms (APNs/FCM) reached, not of devices: wrong for a recipient with two devices on one platform',
  install(app) {
    rewriteJson(app, 'push.user', (body) => {
      if (!Array.isArray(body?.sentList) || !body.count) return body
      const platforms = new Set(body.sentList.map((e: { deviceId: string }) => platformOf(e.deviceId)))
      return { ...body, count: { ...body.count, sent: platforms.size } }
    })
  },
}

const R12_WRITTEN: readonly CatalogFault[] = [
  signinDeviceIdColon,
  signinDeviceOfOtherUser,
  usersIdSearchSelfOnly,
  channelsClearTagsResetsCreation,
  channelsDeleteExplicitPublic,
  raceCreateSubscribeLost,
  searchRepeatedTag,
  searchTagTotalIsPage,
  privateNameUniqueAcrossOwners,
  privateDeletePersonalDropsTwin,
  unsubscribeCreatorCountsZero,
  subscribeSecondDevicePhantom,
  tagDeleteDotSuffix,
  tagsDeletedReturnsOnAdd,
  itemsContentEmptyString,
  racePublishChannelCrossed,
  msgUnknownIdStops,
  msgStatusSharedDevice,
  pushNameWithSpace,
  pushSentCountsPlatforms,
]

/**
 * The round's faults the fixed run did not catch on their own clauses when measured blind (10 of 20), each kept out
 * of the catalogue with the reason until a model cell catches it, and the two that proved not to be deviations; the
 * others are in R12_FAULTS.
 */
const OPEN: Readonly<Record<string, string>> = {
  'r12-race-create-subscribe-lost':
    "caught blind, kept out: two creates by one user a few milliseconds apart lose the first one's creator subscription, and the run's checks create channels at once everywhere, so which subscription checks fail varies from run to run; its consequences cannot be declared as a fixed list",
  'r12-race-publish-channel-crossed':
    'caught blind, kept out: two publishes a few milliseconds apart land in one channel, and the run publishes at once in every items check, so the set of items clauses that fail (about twenty) varies from run to run',
  'r12-private-name-unique-across-owners':
    'not a deviation the spec states: §2.3 leaves constraints on channel names "not shown", uniqueness included; a service whose names are unique across all users, private ones too, answers the second create 409 (the correct variant names-unique-per-caller reads it so)',
  'r12-push-name-with-space-refused':
    'not a deviation the spec states: §4.5 gives name as "string identifying the push", with no alphabet; the suite lets a server refuse a text value the spec leaves open (http.input-refused) and judges what it accepted',
}

export const R12_FAULTS: readonly CatalogFault[] = R12_WRITTEN.filter((f) => !(f.name in OPEN))
export const R12_OPEN: readonly OpenFault[] = R12_WRITTEN.filter((f) => f.name in OPEN).map((fault) => ({ fault, why: OPEN[fault.name]! }))
