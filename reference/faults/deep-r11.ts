import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import { newId } from '../ids'
import type { ChannelRecord, ItemRecord, MessageRecord } from '../model'
import { formatOffsetTime } from '../time'
import { creatorOf, deliveryViews, subscriptionView } from '../views'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Blind round 11: twenty deep faults written from the spec's words alone (without reading the suite or the
 * earlier rounds' faults), spread over the ten areas: six behind a particular input value, five behind a state
 * or a sequence of calls, three behind an address form and a caller, two isolation faults, two of devices and
 * two races. Each comment quotes the spec's words the fault breaks.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown

interface ChannelParams {
  channel: string
}

/** `<owner>#<name>` split, or null for a plain name. */
function hashRef(raw: string): { ownerId: string; name: string } | null {
  const hash = raw.indexOf('#')
  return hash < 0 ? null : { ownerId: raw.slice(0, hash), name: raw.slice(hash + 1) }
}

/** Replaces ctx.store (the route plugins take it from ctx when they register, after install). */
function overrideCtxStore(ctx: ServerContext, overrides: Parameters<typeof overrideStore>[1]): void {
  ctx.store = overrideStore(ctx.store, overrides)
}

/** Why a sign-in check other than the race's own meets r11-race-signin-new-device-500 in some runs only. */
const WHY_RACED =
  "the run's sign-in checks share a few device ids per run, and those that meet a new one at the same moment as another get the 500 under their own clause; which ones race depends on how the concurrent checks interleave"

const R11_WRITTEN: readonly CatalogFault[] = [
  // ---- sign-in -------------------------------------------------------------------------------------------
  {
    // §4.1 / §5.2: "The header MMS-DEVICE-ID must be present on that call; any value is accepted."
    name: 'r11-signin-device-id-equals-sign',
    area: 'signin',
    depth: 'deep',
    clause: 'signin.device-id.any-value',
    description: 'sign-in refuses (400) an MMS-DEVICE-ID containing "=" or ";" (the header is parsed as key=value pairs; base64 push tokens end with "=")',
    install(app) {
      addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
        const value = request.headers['mms-device-id']
        if (typeof value === 'string' && /[=;]/.test(value)) throw fail('MISSING_DEVICE_ID', 'MMS-DEVICE-ID must be a plain device id')
      })
    },
  },
  {
    // §2.2 / §4.1: sign-in "Response: Session (2.2)" for good credentials, and §4: a valid request gets no 5xx.
    name: 'r11-race-signin-new-device-500',
    area: 'signin',
    depth: 'deep',
    clause: ['signin.session.shape', 'http.valid-request-answered'],
    description:
      'sign-in checks that the (user, device id) row is absent, waits ~20 ms, then inserts it: a second sign-in of the same user with the same new device id within that window hits the unique key and is answered 500',
    consequences: [
      { clause: 'signin.params.form', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
      { clause: 'signin.params.query', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
      {
        clause: 'signin.session.token-type',
        reason: 'a sign-in of this check raced another one on a new device id and was answered 500',
        sometimes: WHY_RACED,
      },
      { clause: 'signin.user.status', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
      {
        clause: 'signin.user.password-masked',
        reason: 'a sign-in of this check raced another one on a new device id and was answered 500',
        sometimes: WHY_RACED,
      },
      { clause: 'signin.user.otp-masked', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
      { clause: 'signin.user.no-email', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
      { clause: 'signin.bearer.works', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
    ],
    install(app, ctx) {
      const inFlight = new Set<string>()
      wrapHandler(
        app,
        'users.signIn',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const deviceId = request.headers['mms-device-id']
            const body = (request.body ?? {}) as Record<string, unknown>
            const query = (request.query ?? {}) as Record<string, unknown>
            const userName = typeof body.username === 'string' ? body.username : typeof query.username === 'string' ? query.username : undefined
            const user = userName === undefined ? undefined : ctx.store.findUserByName(ctx.application.clientId, userName)
            if (typeof deviceId === 'string' && user && !ctx.store.listDevices(user.userId).some((d) => d.deviceId === deviceId)) {
              const key = `${user.userId}\n${deviceId}`
              if (inFlight.has(key)) {
                await sleep(20)
                throw new Error('duplicate key value violates unique constraint "user_devices_pkey"')
              }
              inFlight.add(key)
              try {
                await sleep(20)
                return await (original as Handler).call(this, request, reply)
              } finally {
                inFlight.delete(key)
              }
            }
            return (original as Handler).call(this, request, reply)
          } as never,
      )
    },
  },

  // ---- users ----------------------------------------------------------------------------------------------
  {
    // §4.1: "An asterisk at the start and end gives wildcard matching." A fragment at the start or the end of a
    // value (or the whole value) is a fragment of it too.
    name: 'r11-users-wildcard-edge-fragment',
    area: 'users',
    depth: 'deep',
    clause: 'users.search.wildcard',
    description:
      'search users turns *fragment* into the pattern .+fragment.+ (one or more characters each side): a fragment at the start or the end of the value, or the whole value, is not found',
    install(app) {
      rewriteJson(app, 'users.query', (body, request) => {
        const q = (request.query as { q?: string }).q ?? ''
        const colon = q.indexOf(':')
        const value = q.slice(colon + 1)
        if (!Array.isArray(body) || colon < 0 || value.length < 3 || !value.startsWith('*') || !value.endsWith('*')) return body
        const property = q.slice(0, colon).toLowerCase()
        const core = value.slice(1, -1).toLowerCase()
        return body.filter((u: Record<string, unknown>) => {
          const key = Object.keys(u).find((k) => k.toLowerCase() === property)
          const text = String(key === undefined ? '' : u[key]).toLowerCase()
          for (let at = text.indexOf(core); at >= 0; at = text.indexOf(core, at + 1)) {
            if (at > 0 && at + core.length < text.length) return true
          }
          return false
        })
      })
    },
  },
  {
    // §2.1 / §4.1: the sign-in "user | User | record as in 2.1" is the user's own record, the one the user list
    // gives. Two users signing in on one device id each get their own names.
    name: 'r11-users-shared-device-profile',
    area: 'users',
    depth: 'deep',
    clause: 'users.record.agrees',
    description:
      "sign-in keeps a profile per device id (the first user seen on it): a second user signing in on that device id is answered with the first user's firstName and lastName in its user record",
    install(app) {
      const profiles = new Map<string, { userIdentifier: string; firstName: unknown; lastName: unknown }>()
      rewriteJson(app, 'users.signIn', (body, request) => {
        const deviceId = request.headers['mms-device-id']
        const user = body?.user
        if (typeof deviceId !== 'string' || !user) return body
        const profile = profiles.get(deviceId)
        if (!profile) {
          profiles.set(deviceId, { userIdentifier: user.userIdentifier, firstName: user.firstName, lastName: user.lastName })
          return body
        }
        if (profile.userIdentifier === user.userIdentifier) return body
        return { ...body, user: { ...user, firstName: profile.firstName, lastName: profile.lastName } }
      })
    },
  },

  // ---- channels -------------------------------------------------------------------------------------------
  {
    // §4.2 "Get channel by name: GET /channels/{channel_name}. Response 200: Channel." — a channel the server
    // accepted to create under an all-digit name is found by that name.
    name: 'r11-channels-numeric-name-as-id',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.get.matches-create',
    description:
      'get channel by name reads an all-digit name ("2024", "42") as an internal numeric channel id: a channel created under such a name is answered 404',
    install(app) {
      addRouteHook(app, 'channels.getByName', 'preHandler', async (request: FastifyRequest) => {
        const raw = (request.params as ChannelParams).channel
        const name = hashRef(raw)?.name ?? raw
        if (/^\d+$/.test(name)) throw fail('CHANNEL_NOT_FOUND', `no channel with id ${name}`)
      })
    },
  },
  {
    // §2.3 "creator | composite owner identifier: user id, then …" and "creationDate": the channel created
    // anew is the new owner's, made now.
    name: 'r11-channels-recreate-keeps-creator',
    area: 'channels',
    depth: 'deep',
    clause: ['channels.get.creator', 'channels.delete.recreate-fresh'],
    description:
      "delete channel soft-deletes the public channel row and create revives it: a public channel re-created under a deleted name (by anyone) answers the first channel's creator and creationDate in get-by-name and search",
    install(app, ctx) {
      const tombstones = new Map<string, { creator: string; creationDate: string }>()
      const revived = new Map<string, { creator: string; creationDate: string }>()
      overrideCtxStore(ctx, {
        deleteChannel: (inner) => (channelId) => {
          const c = inner.getChannel(channelId)
          if (c && !c.privateChannel && !tombstones.has(c.name.toLowerCase())) {
            tombstones.set(c.name.toLowerCase(), revived.get(c.channelId) ?? { creator: creatorOf(ctx, c), creationDate: formatOffsetTime(c.createdAt) })
          }
          return inner.deleteChannel(channelId)
        },
        addChannel: (inner) => (channel) => {
          const added = inner.addChannel(channel)
          const old = tombstones.get(channel.name.toLowerCase())
          if (added && !channel.privateChannel && old) revived.set(channel.channelId, old)
          return added
        },
      })
      const patch = (view: Record<string, unknown>) => {
        if (view.privateChannel !== false || typeof view.name !== 'string') return view
        const c = ctx.store.findPublicChannel(view.name)
        const old = c ? revived.get(c.channelId) : undefined
        return old ? { ...view, creator: old.creator, creationDate: old.creationDate } : view
      }
      rewriteJson(app, 'channels.getByName', (body) => patch(body))
      rewriteJson(app, 'channels.search', (body) => ({ ...body, results: (body.results ?? []).map(patch) }))
    },
  },
  {
    // §2.4 "publishedItemCount | integer": the count of the channel the summary is asked for, not of every
    // channel that shares its name.
    name: 'r11-channels-summary-count-by-name',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.summary.count',
    description:
      "the summary counts items by channel name: publishedItemCount of a channel adds the items of every other channel of that name (the public one and every user's private one)",
    install(app, ctx) {
      const byName = new Map<string, Set<string>>()
      overrideCtxStore(ctx, {
        addChannel: (inner) => (channel) => {
          const added = inner.addChannel(channel)
          if (added) {
            const k = channel.name.toLowerCase()
            byName.set(k, (byName.get(k) ?? new Set()).add(channel.channelId))
          }
          return added
        },
      })
      rewriteJson(app, 'channels.summary', (body) => {
        if (typeof body?.channelName !== 'string') return body
        let count = 0
        for (const id of byName.get(body.channelName.toLowerCase()) ?? []) {
          if (ctx.store.getChannel(id)) count += ctx.store.listItems(id).length
        }
        return { ...body, publishedItemCount: Math.max(count, body.publishedItemCount) }
      })
    },
  },

  // ---- search ---------------------------------------------------------------------------------------------
  {
    // §4.2 search "…&tag=<tag>&tag=<tag>": a search by tag returns the channels carrying it, also when a
    // channelName or description text is given with it.
    name: 'r11-search-tag-ignored-with-text',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.search.by-tag',
    description:
      'channel search applies the tag filter only when neither channelName nor description is given: with a text filter, channels without the tag come back too',
    install(app) {
      addRouteHook(app, 'channels.search', 'preHandler', async (request: FastifyRequest) => {
        const q = request.query as { channelName?: string; description?: string; tag?: string[] }
        if (q.channelName !== undefined || q.description !== undefined) q.tag = []
      })
    },
  },
  {
    // §4.2 search by "channelName=<text>": a public channel is found by its exact name whatever was done to
    // its tags before.
    name: 'r11-search-name-lost-after-tags-cleared',
    area: 'channels',
    depth: 'deep',
    clause: ['channels.search.by-name', 'channels.search.by-description'],
    description:
      "delete all tags removes the channel's search document instead of emptying its tag field: a channel whose tags were all deleted is no longer found by search (by name, description or anything) until a tag is added again",
    install(app, ctx) {
      const unindexed = new Set<string>()
      overrideCtxStore(ctx, {
        clearTags: (inner) => (channelId, at) => {
          const n = inner.clearTags(channelId, at)
          if (n > 0) unindexed.add(channelId)
          return n
        },
        addTags: (inner) => (channelId, tags, at) => {
          unindexed.delete(channelId)
          return inner.addTags(channelId, tags, at)
        },
        listPublicChannels: (inner) => () => inner.listPublicChannels().filter((c) => !unindexed.has(c.channelId)),
      })
    },
  },

  // ---- private channels and addressing ---------------------------------------------------------------------
  {
    // §2.3 "Another user's private channel is addressed as <user_id>#<channel_name>."
    name: 'r11-hash-subscriptions-list-public-twin',
    area: 'private',
    depth: 'deep',
    clause: 'private.other-user-address',
    description:
      'list subscribers addressed as <owner_id>#<name> by another user answers the subscribers of the PUBLIC channel <name> when one of that name exists',
    install(app, ctx) {
      wrapHandler(
        app,
        'subscriptions.list',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const ref = hashRef((request.params as ChannelParams).channel)
            const { user } = callerOf(request)
            if (ref && ref.ownerId !== user.userId) {
              const pub = ctx.store.findPublicChannel(ref.name)
              if (pub) return ctx.store.listSubscriptions(pub.channelId).map((s) => subscriptionView(pub, s))
            }
            return (original as Handler).call(this, request, reply)
          } as never,
      )
    },
  },
  {
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
        const ref = hashRef((request.params as ChannelParams).channel)
        const caller = request.caller
        if (!ref || caller?.kind !== 'USER' || caller.user.userId === ref.ownerId) return body
        return { ...body, privateChannel: false, userId: null }
      })
    },
  },

  // ---- subscriptions --------------------------------------------------------------------------------------
  {
    // §4.2 "Unsubscribe: PUT /channels/{channel_name}/unsubscribe … the message states the number of
    // subscriptions cancelled": the user's subscription is cancelled, whichever of its devices asks.
    name: 'r11-unsubscribe-device-scoped',
    area: 'subscriptions',
    depth: 'deep',
    clause: ['subscriptions.unsubscribe.removed', 'subscriptions.unsubscribe.count'],
    description:
      'unsubscribe cancels only subscriptions made from the calling device id: a user who subscribed on one device and unsubscribes from another stays listed ("0 subscription(s) cancelled")',
    install(app, ctx) {
      wrapHandler(
        app,
        'subscriptions.unsubscribe',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const { user, deviceId } = callerOf(request)
            const channel = resolveChannel(ctx, user.userId, (request.params as ChannelParams).channel)
            const mine = ctx.store.listSubscriptions(channel.channelId).filter((s) => s.userId === user.userId)
            if (mine.length > 0 && mine.every((s) => s.deviceId !== deviceId)) return { message: '0 subscription(s) cancelled', code: 200 }
            return (original as Handler).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    // §4.2 unsubscribe: "the message states the number of subscriptions cancelled".
    name: 'r11-unsubscribe-none-states-one',
    area: 'subscriptions',
    depth: 'deep',
    clause: 'subscriptions.unsubscribe.count',
    description:
      'unsubscribe counts the channel rows it matched, not the subscriptions it removed: an unsubscribe by a user with no subscription (a second unsubscribe in a row) states "1 subscription(s) cancelled"',
    install(app) {
      rewriteJson(app, 'subscriptions.unsubscribe', (body) =>
        typeof body?.message === 'string' && /^0 /.test(body.message) ? { ...body, message: body.message.replace(/^0 /, '1 ') } : body,
      )
    },
  },

  // ---- tags -----------------------------------------------------------------------------------------------
  {
    // §4.2 "Add tags: POST /channels/{channel_name}/tags": adds; "Get tags" returns the tags added.
    name: 'r11-tags-add-replaces',
    area: 'tags',
    depth: 'deep',
    clause: 'tags.add.visible',
    description: 'add tags on a channel that already has tags replaces them with the new batch (a PUT of the tag list): the tags added earlier are gone',
    consequences: [
      {
        clause: 'tags.delete-one.removes',
        reason: 'in the add × delete-one race, an add that replaces the list can drop the tag the other write deletes, or bring back what it removed',
        sometimes: 'which of the two writes the server runs first depends on how they interleave',
      },

      {
        clause: 'tags.delete-one.status',
        reason: 'in the add × delete-one race, an add that replaces the list can remove the tag about to be deleted, whose delete then answers 404',
        sometimes: 'which of the two writes the server runs first depends on how they interleave',
      },
    ],
    install(app, ctx) {
      overrideCtxStore(ctx, {
        addTags: (inner) => (channelId, tags, at) => {
          inner.clearTags(channelId, at)
          return inner.addTags(channelId, tags, at)
        },
      })
    },
  },
  {
    // §4.2 "Delete one tag: DELETE /channels/{channel_name}/tags/{tag}?personal=<boolean>" with "personal
    // defaults to false, meaning a public channel".
    name: 'r11-tags-delete-one-default-private',
    area: 'tags',
    depth: 'deep',
    clause: ['tags.delete-one.removes', 'private.tags-personal'],
    description:
      "delete one tag without personal=true resolves the plain name as the caller's own private channel first: an owner of a public and a private channel of one name deletes the tag from the private one, the public one keeps it",
    install(app, ctx) {
      wrapHandler(
        app,
        'tags.deleteOne',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const { channel: raw, tag } = request.params as { channel: string; tag: string }
            const { user } = callerOf(request)
            const own =
              hashRef(raw) === null && !(request.query as { personal?: boolean }).personal ? ctx.store.findPrivateChannel(user.userId, raw) : undefined
            if (own) {
              if (!ctx.store.removeTag(own.channelId, tag, ctx.clock.now())) throw fail('TAG_NOT_FOUND', `channel ${own.name} has no tag ${tag}`)
              return { code: 200, message: `tag ${tag} removed from ${own.name}` }
            }
            return (original as Handler).call(this, request, reply)
          } as never,
      )
    },
  },

  // ---- items ----------------------------------------------------------------------------------------------
  {
    // §2.6 "content | object | key/value map of the message content": it comes back as published.
    name: 'r11-items-content-trimmed',
    area: 'items',
    depth: 'deep',
    clause: 'items.content-intact',
    description: 'publish trims leading and trailing whitespace (spaces, tabs, newlines) of every string in content, at any depth (an input "sanitizer")',
    install(app) {
      const trim = (v: unknown): unknown =>
        typeof v === 'string'
          ? v.trim()
          : Array.isArray(v)
            ? v.map(trim)
            : v !== null && typeof v === 'object'
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trim(x)]))
              : v
      addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
        const body = request.body as { content?: unknown }
        if (body && typeof body.content === 'object' && body.content !== null) body.content = trim(body.content)
      })
    },
  },
  {
    // §2.6 "publisher | object | userId (string), deviceId (string or null)": the user who published the item.
    name: 'r11-race-publish-publisher-crossed',
    area: 'items',
    depth: 'deep',
    clause: 'items.publisher',
    description:
      'publish keeps the publisher in a per-channel "current publisher" field across a ~20 ms step: of two publishes to one channel by different users within it, the first item is stored with the second user as publisher',
    install(app, ctx) {
      const current = new Map<string, { userId: string; deviceId: string }>()
      wrapHandler(
        app,
        'items.publish',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const { user, deviceId } = callerOf(request)
            let channel: Readonly<ChannelRecord>
            try {
              channel = resolveChannel(ctx, user.userId, (request.params as ChannelParams).channel)
            } catch {
              return (original as Handler).call(this, request, reply)
            }
            current.set(channel.channelId, { userId: user.userId, deviceId })
            await sleep(20)
            const who = current.get(channel.channelId)!
            const before = new Set(ctx.store.listItems(channel.channelId).map((i) => i.itemId))
            const result = await (original as Handler).call(this, request, reply)
            if (who.userId !== user.userId) {
              const mine = ctx.store.listItems(channel.channelId).filter((i) => !before.has(i.itemId) && i.publisherId === user.userId)
              for (const item of mine as ItemRecord[]) {
                item.publisherId = who.userId
                item.publisherDeviceId = who.deviceId
              }
            }
            return result
          } as never,
      )
    },
  },

  // ---- direct messages ------------------------------------------------------------------------------------
  {
    // §4.3 "metadata (object, optional)": any object, numbers and booleans among its values.
    name: 'r11-msg-metadata-non-string-refused',
    area: 'messages',
    depth: 'deep',
    clause: 'messages.send.options',
    description: 'send refuses (400) metadata holding a value that is not a string (a number, a boolean, an object): metadata is kept as a string map',
    install(app) {
      addRouteHook(app, 'messages.send', 'preHandler', async (request: FastifyRequest) => {
        const metadata = (request.body as { metadata?: unknown })?.metadata
        if (metadata !== null && typeof metadata === 'object' && Object.values(metadata).some((v) => typeof v !== 'string')) {
          throw fail('BAD_REQUEST', 'body/metadata values must be strings')
        }
      })
    },
  },
  {
    // §4.3 "Get delivery status: GET /messages/{messageId}. Response: array of Message delivery status record"
    // — the records of that message: §2.7 messageId, recipient.
    name: 'r11-msg-status-whole-batch',
    area: 'messages',
    depth: 'deep',
    clause: 'messages.status.agrees',
    description:
      "delivery status of one message of a send to several users answers the records of every message of that send (the other recipients' records, with their message ids, come along)",
    install(app, ctx) {
      let batch: string | null = null
      const batchOf = new Map<string, string>()
      const members = new Map<string, MessageRecord[]>()
      overrideCtxStore(ctx, {
        addMessage: (inner) => (message) => {
          inner.addMessage(message)
          if (batch !== null) {
            batchOf.set(message.messageId, batch)
            members.set(batch, [...(members.get(batch) ?? []), message])
          }
        },
      })
      wrapHandler(
        app,
        'messages.send',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            batch = newId()
            try {
              return (original as Handler).call(this, request, reply)
            } finally {
              batch = null
            }
          } as never,
      )
      rewriteJson(app, 'messages.status', (body, request) => {
        const id = (request.params as { messageId: string }).messageId
        const group = members.get(batchOf.get(id) ?? '')
        if (!group || group.length < 2) return body
        return group.flatMap((m) => deliveryViews(m))
      })
    },
  },

  // ---- push -----------------------------------------------------------------------------------------------
  {
    // §4.4 "Pushes to all active devices of the user … Here sent and unsent count devices."
    name: 'r11-push-count-cached-devices',
    area: 'push',
    depth: 'deep',
    clause: 'push.counts',
    description:
      "push caches the count of a recipient's first push and answers it for every later push to that user, while sentList lists the devices of now: once the recipient signed in on another device, count.sent no longer equals the length of sentList",
    install(app) {
      const counts = new Map<string, { requested: number; sent: number; unsent: number }>()
      rewriteJson(app, 'push.user', (body, request) => {
        const recipient = (request.params as { recipientUserId: string }).recipientUserId
        const cached = counts.get(recipient)
        if (!cached) {
          if (body?.count) counts.set(recipient, { ...body.count })
          return body
        }
        return { ...body, count: { ...cached } }
      })
    },
  },
]

/**
 * The round's faults the fixed run did not catch when measured blind (10 of 20), each kept out of the catalogue
 * with the reason until a model cell catches it; the others are in R11_FAULTS.
 */
const OPEN: Readonly<Record<string, string>> = {
  'r11-channels-numeric-name-as-id':
    "missed blind, left open: a name of digits only cannot begin with the run's prefix, which every channel the suite makes carries so that a sweep of a shared server knows it for the suite's own (a check cannot make such a channel safely); names that hold digits after the prefix are the suite's every name",
  'r11-msg-metadata-non-string-refused':
    'not a deviation the spec states: §4.3 gives metadata as "object, optional" and no type for its values; a push service that carries it as a platform data payload takes string values only, so refusing another type is a reading the spec leaves open',
}

export const R11_FAULTS: readonly CatalogFault[] = R11_WRITTEN.filter((f) => !(f.name in OPEN))
export const R11_OPEN: readonly OpenFault[] = R11_WRITTEN.filter((f) => f.name in OPEN).map((fault) => ({ fault, why: OPEN[fault.name]! }))
