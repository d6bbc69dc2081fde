import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { parseChannelRef } from '../channel-address'
import { fail } from '../errors'
import { newId } from '../ids'
import type { ChannelRecord, ItemRecord } from '../model'
import { channelByNameView, subscriptionView, summaryView } from '../views'
import { callerId, channelParam, hashRef, plainName, splitHash } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, rewriteJson } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Deep faults of private channels and their addresses (§2.3: plain name, <user_id>#<name>, personal), written in
 * the blind rounds 5 to 12 from the spec's words only (docs/detection.md): each shows only for a particular input,
 * state, address, pair of users, device or concurrent pair of requests. The comment on each names the spec words it
 * breaks; its name says its round. The catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as
 * BLIND_OPEN; the earlier deep faults of the area are in deep-channels.ts.
 */

/** §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>" (private.other-user-address). */
const hashResolvesCallersTwin: CatalogFault = {
  name: 'r5-hash-resolves-callers-twin',
  area: 'private',
  depth: 'deep',
  clause: 'private.other-user-address',
  consequences: [
    {
      clause: 'channels.summary.count',
      reason: "B's summary through <A's id>#n reaches B's own private channel of that name, so it counts B's items, not A's",
    },
    {
      clause: 'items.fetch.range',
      reason: "B's fetch through <A's id>#n reaches B's own private channel of that name, so its totalCount counts B's items, not A's",
    },
  ],
  description: "<user_id>#<name> sent by another user who has a private channel of the same name reaches the caller's own channel, not the owner's",
  install(app, ctx) {
    app.addHook('preHandler', async (request) => {
      const params = request.params as { channel?: string } | undefined
      const raw = params?.channel
      const me = callerId(request)
      if (raw === undefined || me === undefined || !raw.includes('#')) return
      let ref
      try {
        ref = parseChannelRef(raw)
      } catch {
        return
      }
      if (ref.ownerId !== null && ref.ownerId !== me && ctx.store.findPrivateChannel(me, ref.name)) params!.channel = ref.name
    })
  },
}

/** §4.2 delete all tags "?personal=<boolean>" with personal true: the caller's own private channel (private.tags-personal). */
const tagsClearPersonalPublicFirst: CatalogFault = {
  name: 'r5-tags-clear-personal-public-first',
  area: 'private',
  depth: 'deep',
  clause: 'private.tags-personal',
  description:
    "delete all tags with personal=true clears the caller's public channel of that name when the caller owns one, and leaves the private channel's tags",
  install(app, ctx) {
    addRouteHook(app, 'tags.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const q = request.query as { personal?: boolean }
      const me = callerId(request)
      const raw = channelParam(request)
      if (q.personal !== true || me === undefined || raw.includes('#')) return
      const pub = ctx.store.findPublicChannel(raw)
      if (pub && pub.ownerId === me) q.personal = false
    })
  },
}

/** §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>": summary drops the owner part and resolves the bare name for the caller. */
const summaryHashAddress: CatalogFault = {
  name: 'r6-summary-hash-address',
  area: 'private',
  depth: 'deep',
  clause: 'private.other-user-address',
  consequences: [
    {
      clause: 'channels.summary.count',
      reason: "B's summary through <A's id>#n resolves the plain name as B would, to another channel of that name, so it counts that channel's items",
    },
  ],
  description: 'channel summary ignores the <user_id># part of the address and resolves the plain name as the caller would (404, or another channel)',
  install(app) {
    addRouteHook(app, 'channels.summary', 'preHandler', async (request: FastifyRequest) => {
      const params = request.params as { channel: string }
      const hash = params.channel.indexOf('#')
      if (hash >= 0) params.channel = params.channel.slice(hash + 1)
    })
  },
}

/** §2.3 "the caller's own private channel is addressed by its plain name": get-by-name and summary look among public channels first. */
const privatePlainPublicFirst: CatalogFault = {
  name: 'r6-private-plain-public-first',
  area: 'private',
  depth: 'deep',
  clause: 'private.own-plain-name',
  description: "when a public channel has the same name as the caller's own private channel, get-by-name and summary by the plain name answer the public one",
  install(app, ctx) {
    const publicTwin = (request: FastifyRequest): Readonly<ChannelRecord> | undefined => {
      const raw = channelParam(request)
      if (raw.includes('#')) return undefined
      const { user } = callerOf(request)
      return ctx.store.findPrivateChannel(user.userId, raw) ? ctx.store.findPublicChannel(raw) : undefined
    }
    aroundHandler(app, 'channels.getByName', async (request, reply, next) => {
      const twin = publicTwin(request)
      return twin ? channelByNameView(ctx, twin) : next()
    })
    aroundHandler(app, 'channels.summary', async (request, reply, next) => {
      const twin = publicTwin(request)
      return twin ? summaryView(twin, ctx.store.listItems(twin.channelId).length) : next()
    })
  },
}

const r8SubscribeHashGoesPublic: CatalogFault = {
  // §2.3: "Another user's private channel is addressed as <user_id>#<channel_name>".
  name: 'r8-subscribe-hash-goes-public',
  depth: 'deep',
  area: 'private',
  // Shows as the public channel of the name gaining the subscriber (the neighbours model charges a change that
  // reaches another channel to the clause of that change: subscriptions.subscribe.listed).
  clause: ['private.other-user-address', 'subscriptions.subscribe.listed'],
  description: 'subscribe to <owner>#<name> subscribes to the PUBLIC channel <name> when one of that name also exists',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.subscribe', async (request, reply, next) => {
      const params = request.params as { channel: string }
      const hash = params.channel.indexOf('#')
      if (hash >= 0) {
        const name = params.channel.slice(hash + 1)
        if (ctx.store.findPublicChannel(name)) params.channel = name
      }
      return next()
    })
  },
}

/** §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>". */
const tagsGetHashGoesPublic: CatalogFault = {
  name: 'r9-tags-get-hash-goes-public',
  area: 'private',
  depth: 'deep',
  clause: 'private.other-user-address',
  consequences: [
    {
      clause: 'tags.add.visible',
      reason:
        "B's tags of <A's id>#n are the public twin's, so the tags added to A's private twin do not show through its address (a set-up step of the twins' personal checks)",
    },
  ],
  description:
    'get tags addressed by another user as <owner_id>#<name> answers the tags of the PUBLIC channel <name> when one of that name exists (the owner part is dropped)',
  install(app, ctx) {
    aroundHandler(app, 'tags.get', async (request, reply, next) => {
      const { user } = callerOf(request)
      const ref = parseChannelRef(channelParam(request))
      if (ref.ownerId !== null && ref.ownerId !== user.userId) {
        const twin = ctx.store.findPublicChannel(ref.name)
        if (twin) return { channelName: twin.name, tags: [...twin.tags] }
      }
      return next()
    })
  },
}

/** §2.3 "a public channel or the caller's own private channel is addressed by its plain name": the owner's plain name reaches its private channel. */
const publishPlainPublicFirst: CatalogFault = {
  name: 'r9-publish-plain-name-public-first',
  area: 'private',
  depth: 'deep',
  clause: ['private.own-plain-name'],
  description:
    'publish to a plain name looks among public channels first: the owner publishing to its private channel by plain name while a public channel of that name exists publishes into the public one',
  install(app, ctx) {
    aroundHandler(app, 'items.publish', async (request, reply, next) => {
      const { user, deviceId } = callerOf(request)
      const raw = channelParam(request)
      const ref = parseChannelRef(raw)
      const twin = ref.ownerId === null ? ctx.store.findPublicChannel(ref.name) : undefined
      if (!twin || !ctx.store.findPrivateChannel(user.userId, ref.name)) return next()
      const permitted =
        twin.publishPermission === 'anyone' ||
        twin.ownerId === user.userId ||
        (twin.publishPermission === 'subscribers' && ctx.store.findSubscription(twin.channelId, user.userId) !== undefined)
      if (!permitted) throw fail('PUBLISH_FORBIDDEN')
      const body = request.body as { content: Record<string, unknown>; messageType?: string; contentType?: string }
      const item: ItemRecord = {
        itemId: newId(),
        channelId: twin.channelId,
        publisherId: user.userId,
        publisherDeviceId: deviceId,
        content: body.content,
        messageType: body.messageType ?? null,
        contentType: body.contentType ?? null,
        publishedAt: ctx.clock.now(),
      }
      ctx.store.addItem(item, twin.maxItems)
      return reply.code(201).send({ message: `item published to ${twin.name}`, status: 'OK', messageId: item.itemId })
    })
  },
}

/**
 * §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>". Get items by id drops the
 * owner part and resolves the plain name for the caller (its own private channel or the public one).
 */
const hashGetItemsByIdDropsOwner: CatalogFault = {
  name: 'r10-hash-get-items-drops-owner',
  area: 'private',
  depth: 'deep',
  clause: ['private.other-user-address', 'items.get.by-ids'],
  description:
    'get items by id addressed as <owner_id>#<name> by another user drops the owner part and looks the ids up in the channel the plain name gives the caller (404 or no items)',
  install(app) {
    aroundHandler(app, 'items.getById', async (request, reply, next) => {
      const params = request.params as { channel: string }
      const ref = hashRef(params.channel)
      if (ref !== null && ref.ownerId !== callerId(request)) params.channel = ref.name
      return next()
    })
  },
}

/**
 * §2.3 "a public channel or the caller's own private channel is addressed by its plain name". Publish looks
 * a plain name up among all private channels of that name, oldest first: when another user made a private
 * channel of the same name earlier, the caller's item goes into that user's channel.
 */
function privatePublishOldestTwin(): CatalogFault {
  const privates: ChannelRecord[] = []
  return {
    name: 'r10-private-publish-oldest-twin',
    area: 'private',
    depth: 'deep',
    clause: ['private.own-plain-name', 'private.plain-name-not-shared'],
    description:
      "publish to one's own private channel by its plain name stores the item in the oldest private channel of that name, another user's when that user created its one first",
    consequences: [
      {
        clause: 'items.fetch.range',
        reason:
          "in the two owners' family B's private n is made after A's: B's set-up publish to it by the plain name goes to A's older n, so B's fetch of its own n, a step, misses the item",
      },
    ],
    wrapStore(store) {
      return overrideStore(store, {
        addChannel: (inner) => (channel) => {
          const added = inner.addChannel(channel)
          if (added && channel.privateChannel) privates.push(channel)
          return added
        },
        deleteChannel: (inner) => (channelId) => {
          const i = privates.findIndex((c) => c.channelId === channelId)
          if (i >= 0) privates.splice(i, 1)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app, ctx) {
      aroundHandler(app, 'items.publish', (request, reply, next) => {
        const params = request.params as { channel: string }
        const me = callerId(request)
        if (me !== undefined && !params.channel.includes('#')) {
          const own = ctx.store.findPrivateChannel(me, params.channel)
          const oldest = own && privates.find((c) => c.name.toLowerCase() === own.name.toLowerCase())
          if (oldest && oldest.ownerId !== me) params.channel = `${oldest.ownerId}#${oldest.name}`
        }
        return next()
      })
    },
  }
}

const r11HashSubscriptionsListPublicTwin: CatalogFault = {
  // §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>."
  name: 'r11-hash-subscriptions-list-public-twin',
  area: 'private',
  depth: 'deep',
  clause: 'private.other-user-address',
  description:
    'list subscribers addressed as <owner_id>#<name> by another user answers the subscribers of the PUBLIC channel <name> when one of that name exists',
  install(app, ctx) {
    aroundHandler(app, 'subscriptions.list', async (request, reply, next) => {
      const ref = splitHash(channelParam(request))
      const { user } = callerOf(request)
      if (ref && ref.ownerId !== user.userId) {
        const pub = ctx.store.findPublicChannel(ref.name)
        if (pub) return ctx.store.listSubscriptions(pub.channelId).map((s) => subscriptionView(pub, s))
      }
      return next()
    })
  },
}

const r11HashGetPublicView: CatalogFault = {
  // §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>" and "privateChannel |
  // boolean": what that address reaches is the private channel, and its record says so.
  name: 'r11-hash-get-public-view',
  area: 'private',
  depth: 'deep',
  clause: ['private.other-user-address', 'private.create'],
  description:
    'get channel by name addressed as <owner_id>#<name> by another user answers the record built for public channels: privateChannel false and userId null',
  consequences: [
    {
      clause: 'channels.create.fields-stored',
      reason: 'the record another user reads through <user_id>#<name> shows privateChannel false, not the true it was created with',
    },
  ],
  install(app) {
    rewriteJson(app, 'channels.getByName', (body, request) => {
      const ref = splitHash(channelParam(request))
      const caller = request.caller
      if (!ref || caller?.kind !== 'USER' || caller.user.userId === ref.ownerId) return body
      return { ...body, privateChannel: false, userId: null }
    })
  },
}

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
    aroundHandler(app, 'channels.delete', async (request, reply, next) => {
      const result = await next()
      const me = callerId(request)
      if ((request.query as { personal?: boolean }).personal === true && me) {
        const twin = ctx.store.findPublicChannel(plainName(channelParam(request)))
        if (twin && twin.ownerId === me) ctx.store.deleteChannel(twin.channelId)
      }
      return result
    })
  },
}

export const BLIND_PRIVATE_FAULTS: readonly CatalogFault[] = [
  hashResolvesCallersTwin,
  tagsClearPersonalPublicFirst,
  summaryHashAddress,
  r8SubscribeHashGoesPublic,
  tagsGetHashGoesPublic,
  hashGetItemsByIdDropsOwner,
  privatePublishOldestTwin(),
  r11HashSubscriptionsListPublicTwin,
  r11HashGetPublicView,
  privateDeletePersonalDropsTwin,
]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_PRIVATE_OPEN: readonly OpenFault[] = [
  {
    fault: privatePlainPublicFirst,
    why: "a reading the spec allows: when another user's public channel and the caller's own private channel share a name, §2.3 does not say which one the plain name means (the variant plain-name-public-first reads it so)",
    reading: true,
  },
  {
    fault: publishPlainPublicFirst,
    why: 'which channel a plain name means when the caller owns a private channel and a public one of that name exists is not stated (§2.3; variant plain-name-public-first): a reading, not a deviation',
    reading: true,
  },
  {
    fault: privateNameUniqueAcrossOwners,
    why: 'not a deviation the spec states: §2.3 leaves constraints on channel names "not shown", uniqueness included; a service whose names are unique across all users, private ones too, answers the second create 409 (the correct variant names-unique-per-caller reads it so)',
    reading: true,
  },
]
