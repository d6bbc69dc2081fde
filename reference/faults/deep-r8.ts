import { AsyncLocalStorage } from 'node:async_hooks'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel, VISIBLE } from '../channel-address'
import { fail } from '../errors'
import type { ChannelRecord, ItemRecord, TokenRecord } from '../model'
import { channelSearchView } from '../views'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Blind round 8: faults written from the spec's words only, without reading the suite. Each shows only for
 * a particular input, state, sequence, pair of users, shared device or concurrent pair of requests.
 */

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** The window of the race faults: a read, a slow step (a remote call, a lock wait), then the write. */
const RACE_WINDOW_MS = 25

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown
const asHandler = (original: unknown) => original as Handler
const pairKey = (a: string, b: string) => `${a}\n${b}`

export const R8_FAULTS: readonly CatalogFault[] = [
  // ── inputs ──────────────────────────────────────────────────────────────────────────────────────────
  {
    // §4.1 / §5.2: "Header: MMS-DEVICE-ID (required, any value)" — "any value is accepted".
    name: 'r8-signin-device-id-inner-space',
    depth: 'deep',
    area: 'signin',
    clause: 'signin.device-id.any-value',
    description: 'sign-in refuses (400) an MMS-DEVICE-ID whose value has whitespace inside it ("Pixel 7 Pro")',
    install(app) {
      addRouteHook(app, 'users.signIn', 'onRequest', async (request: FastifyRequest) => {
        const value = request.headers['mms-device-id']
        if (typeof value === 'string' && /\s/.test(value.trim())) throw fail('MISSING_DEVICE_ID', 'MMS-DEVICE-ID must be one token')
      })
    },
  },
  {
    // §4.1: "An asterisk at the start and end gives wildcard matching" — for every listed property, email included.
    name: 'r8-users-wildcard-email',
    depth: 'deep',
    area: 'users',
    clause: 'users.search.wildcard',
    description: 'user search answers [] for a wildcard (*text*) on the email property; exact email and wildcards on other properties work',
    install(app) {
      wrapHandler(
        app,
        'users.query',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const q = String((request.query as { q?: string }).q ?? '')
            const m = /^email:(.*)$/i.exec(q)
            if (m && m[1]!.length > 2 && m[1]!.startsWith('*') && m[1]!.endsWith('*')) return []
            return asHandler(original).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    // §4.2 create: maxItems (integer) is stored as given; §2.3 "maxItems | maximum number of items kept".
    name: 'r8-create-max-items-int16',
    depth: 'deep',
    area: 'channels',
    clause: 'channels.create.fields-stored',
    description: 'a maxItems above 32767 is stored (and answered by get-by-name) as 32767, as if the column were a 16-bit integer',
    wrapStore(store) {
      return overrideStore(store, {
        addChannel: (inner) => (channel: ChannelRecord) => inner.addChannel(channel.maxItems > 32767 ? { ...channel, maxItems: 32767 } : channel),
      })
    },
  },
  {
    // §4.2 search: channelName=<text>; a search by a channel's exact name finds it. Names with a dot are valid names.
    name: 'r8-search-name-with-dot',
    depth: 'deep',
    area: 'channels',
    clause: 'channels.search.by-name',
    description: 'channel search by a channelName text that contains "." finds nothing (the text is used as a pattern that breaks on the dot)',
    install(app) {
      wrapHandler(
        app,
        'channels.search',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const name = (request.query as { channelName?: string }).channelName
            if (name !== undefined && name.includes('.')) return { total: 0, results: [] }
            return asHandler(original).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    // §4.2 Delete one tag: DELETE /channels/{channel_name}/tags/{tag}; success is 200 and the tag is gone.
    name: 'r8-tag-delete-with-space',
    depth: 'deep',
    area: 'tags',
    clause: ['tags.delete-one.removes', 'tags.delete-one.status'],
    description: 'deleting one tag whose text has a space (sent as %20) looks up the tag with "+" for the space, so it answers 404 and the tag stays',
    install(app) {
      wrapHandler(
        app,
        'tags.deleteOne',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const params = request.params as { tag: string }
            if (params.tag.includes(' ')) params.tag = params.tag.replace(/ /g, '+')
            return asHandler(original).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    // §2.4 lastPublishedTime: the time of the LAST publish, so it moves with each publish.
    name: 'r8-summary-keeps-first-publish-time',
    depth: 'deep',
    area: 'channels',
    clause: 'channels.summary.last-published',
    description: 'summary lastPublishedTime is set by the first publish and never moves on later publishes',
    wrapStore(store) {
      return overrideStore(store, {
        addItem: (inner) => (item: ItemRecord, maxItems: number) => {
          const channel = inner.getChannel(item.channelId) as ChannelRecord | undefined
          const before = channel?.lastPublishedAt ?? null
          const evicted = inner.addItem(item, maxItems)
          if (channel && before !== null) channel.lastPublishedAt = before
          return evicted
        },
      })
    },
  },
  {
    // §4.2 Subscribe / List subscribers: a subscriber is listed; an unsubscribe then a resubscribe makes a subscriber again.
    name: 'r8-resubscribe-not-listed',
    depth: 'deep',
    area: 'subscriptions',
    clause: 'subscriptions.subscribe.listed',
    description: 'a user who unsubscribed and subscribes again gets a subId but is never listed among the subscriptions again',
    wrapStore(store) {
      const left = new Set<string>()
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId: string, userId: string) => {
          const n = inner.removeSubscriptions(channelId, userId)
          if (n > 0) left.add(pairKey(channelId, userId))
          return n
        },
        listSubscriptions: (inner) => (channelId: string) => inner.listSubscriptions(channelId).filter((s) => !left.has(pairKey(channelId, s.userId))),
      })
    },
  },
  {
    // §4.2 Add tags / Get tags: added tags are returned by get tags — also a tag that was removed before.
    name: 'r8-tag-readd-after-delete-ignored',
    depth: 'deep',
    area: 'tags',
    clause: 'tags.add.visible',
    description: 'a tag once deleted (one tag or all tags) cannot be added back: the add answers 200 but get tags does not show it',
    wrapStore(store) {
      const ever = new Map<string, Set<string>>()
      return overrideStore(store, {
        addTags: (inner) => (channelId: string, tags: readonly string[], at: number) => {
          const seen = ever.get(channelId) ?? new Set<string>()
          ever.set(channelId, seen)
          const current = inner.getChannel(channelId)?.tags ?? []
          const fresh = tags.filter((t) => !(seen.has(t) && !current.includes(t)))
          for (const t of tags) seen.add(t)
          return fresh.length > 0 ? inner.addTags(channelId, fresh, at) : 0
        },
      })
    },
  },
  {
    // §4.2 Delete items by id: deleted items are gone (every view: get by id, fetch, summary count).
    name: 'r8-deleted-item-still-fetched',
    depth: 'deep',
    area: 'items',
    clause: 'items.delete.removes',
    description: 'delete by id hides the item from get-by-id only; fetch by date range (and the summary count) still list it',
    wrapStore(store) {
      const deleted = new Set<string>()
      return overrideStore(store, {
        getItem: (inner) => (channelId: string, itemId: string) => (deleted.has(itemId) ? undefined : inner.getItem(channelId, itemId)),
        deleteItem: (inner) => (channelId: string, itemId: string) => {
          if (deleted.has(itemId) || !inner.getItem(channelId, itemId)) return false
          deleted.add(itemId)
          return true
        },
      })
    },
  },

  // ── addresses × callers ─────────────────────────────────────────────────────────────────────────────
  {
    // §2.3: "Another user's private channel is addressed as <user_id>#<channel_name>".
    name: 'r8-subscribe-hash-goes-public',
    depth: 'deep',
    area: 'private',
    // Shows as the public channel of the name gaining the subscriber (the neighbours model charges a change that
    // reaches another channel to the clause of that change: subscriptions.subscribe.listed).
    clause: ['private.other-user-address', 'subscriptions.subscribe.listed'],
    description: 'subscribe to <owner>#<name> subscribes to the PUBLIC channel <name> when one of that name also exists',
    install(app, ctx) {
      wrapHandler(
        app,
        'subscriptions.subscribe',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const params = request.params as { channel: string }
            const hash = params.channel.indexOf('#')
            if (hash >= 0) {
              const name = params.channel.slice(hash + 1)
              if (ctx.store.findPublicChannel(name)) params.channel = name
            }
            return asHandler(original).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    // §4.2 Delete all items: DELETE …/items/all?personal=<boolean>; personal=true addresses the caller's private channel.
    name: 'r8-delete-all-items-ignores-personal',
    depth: 'deep',
    area: 'items',
    // Shows as the owner refused its own private channel (private.own-plain-name) and, where the owner also has a
    // public channel of the name, as that channel's items deleted instead (items.delete.removes).
    clause: ['items.delete-all.empties', 'private.own-plain-name', 'items.delete.removes'],
    description: 'delete all items ignores personal=true and addresses the public channel of the name (404 or 403 for an owner of a private channel)',
    install(app) {
      wrapHandler(
        app,
        'items.deleteAll',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            ;(request.query as { personal: boolean }).personal = false
            return asHandler(original).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    // §4.2 "Search public channels" — private channels are never search results.
    name: 'r8-search-exact-name-leaks-private',
    depth: 'deep',
    area: 'channels',
    clause: 'channels.search.public-only',
    description: 'a search whose channelName equals a private channel name exactly (ignoring case) adds that private channel to the results',
    install(app, ctx) {
      wrapHandler(
        app,
        'channels.search',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const result = (await asHandler(original).call(this, request, reply)) as { total: number; results: unknown[] }
            const name = (request.query as { channelName?: string }).channelName
            if (name === undefined || name === '') return result
            const extra = ctx.store
              .snapshot()
              .channels.filter((c) => c.privateChannel && c.name.toLowerCase() === name.toLowerCase())
              .map((c) => channelSearchView(ctx, c))
            return { total: result.total + extra.length, results: [...result.results, ...extra] }
          } as never,
      )
    },
  },

  // ── isolation ──────────────────────────────────────────────────────────────────────────────────────
  {
    // §4.2 Unsubscribe: cancels the caller's own subscriptions only.
    name: 'r8-unsubscribe-without-subscription-drops-last',
    depth: 'deep',
    area: 'subscriptions',
    clause: 'subscriptions.unsubscribe.own-only',
    description: 'an unsubscribe by a user with no subscription removes the most recent subscriber of the channel instead (and answers 0 cancelled)',
    wrapStore(store) {
      return overrideStore(store, {
        removeSubscriptions: (inner) => (channelId: string, userId: string) => {
          const n = inner.removeSubscriptions(channelId, userId)
          if (n > 0) return n
          const list = inner.listSubscriptions(channelId)
          if (list.length > 0) inner.removeSubscriptions(channelId, list[list.length - 1]!.userId)
          return 0
        },
      })
    },
  },

  // ── people and devices ─────────────────────────────────────────────────────────────────────────────
  {
    // §5.4: the access token works as a bearer token — as the user it was issued to.
    name: 'r8-shared-device-token-follows-last-user',
    depth: 'deep',
    area: 'signin',
    clause: 'signin.bearer.works',
    description: "when a second user signs in on the same MMS-DEVICE-ID, the first user's token acts as the second user (session keyed by device)",
    consequences: [
      {
        clause: 'subscriptions.subscribe.listed',
        reason:
          "a token that follows its device acts as the device's last user: of two users who subscribe from one device id, both subscriptions are that user's",
      },
      {
        clause: 'items.publisher',
        reason: "a token that follows its device acts as the device's last user: of two users who publish from one device id, both items are that user's",
      },
      {
        clause: 'channels.get.creator',
        reason: "a token that follows its device acts as the device's last user: of two users who create channels from one device id, both are that user's",
      },
    ],
    wrapStore(store) {
      const lastUserOnDevice = new Map<string, string>()
      return overrideStore(store, {
        addToken: (inner) => (token: TokenRecord) => {
          if (token.kind === 'USER' && token.userId !== null) lastUserOnDevice.set(token.deviceId, token.userId)
          inner.addToken(token)
        },
        getToken: (inner) => (token: string) => {
          const record = inner.getToken(token)
          if (!record || record.kind !== 'USER') return record
          const last = lastUserOnDevice.get(record.deviceId)
          return last !== undefined && last !== record.userId ? { ...record, userId: last } : record
        },
      })
    },
  },
  {
    // §4.4: "Here sent and unsent count devices."
    name: 'r8-push-sent-counts-user',
    depth: 'deep',
    area: 'push',
    clause: 'push.counts',
    description: 'push to a user with two or more active devices lists each device in sentList but answers count.sent 1 (counts the user, as send does)',
    install(app) {
      rewriteJson(app, 'push.user', (body: { count: { sent: number }; sentList: unknown[] }) =>
        body.sentList.length > 1 ? { ...body, count: { ...body.count, sent: 1 } } : body,
      )
    },
  },

  // ── races ──────────────────────────────────────────────────────────────────────────────────────────
  {
    // §4.2 Add tags / Get tags: every added tag is returned — also when two adds run at once.
    name: 'r8-race-tags-add-lost-update',
    depth: 'deep',
    area: 'tags',
    clause: 'tags.add.visible',
    description: 'add tags reads the tag list, waits 25 ms, then writes list+new: a concurrent add on the same channel is lost',
    consequences: [
      {
        clause: 'tags.delete-one.removes',
        reason: 'an add that writes back the list it read before a delete at the same moment brings the deleted tag back',
        sometimes: "a race: the add's read and write must straddle the delete, which a busy machine does not always arrange",
      },
      {
        clause: 'tags.delete-all.removes',
        reason: 'an add that writes back the list it read before a delete of all tags at the same moment brings the deleted tags back',
      },
    ],
    install(app, ctx) {
      wrapHandler(
        app,
        'tags.add',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const body = request.body as { tags: string[]; personal?: boolean }
            let channel: Readonly<ChannelRecord> | undefined
            try {
              channel = resolveChannel(ctx, callerOf(request).user.userId, (request.params as { channel: string }).channel, personal(body.personal ?? false))
            } catch {
              channel = undefined
            }
            if (!channel || channel.ownerId !== callerOf(request).user.userId) return asHandler(original).call(this, request, reply)
            const before = [...channel.tags]
            await sleep(RACE_WINDOW_MS)
            const result = await asHandler(original).call(this, request, reply)
            const now = ctx.clock.now()
            ctx.store.clearTags(channel.channelId, now)
            ctx.store.addTags(channel.channelId, [...before, ...body.tags], now)
            return result
          } as never,
      )
    },
  },
  (() => {
    const als = new AsyncLocalStorage<{ oldest: string[] }>()
    const fault: CatalogFault = {
      // §2.3 maxItems: "maximum number of items kept" — also after two publishes at once.
      name: 'r8-race-max-items-eviction',
      depth: 'deep',
      area: 'items',
      clause: 'items.max-items',
      description:
        'publish picks the items to evict before a 25 ms step: two concurrent publishes evict the same old items and the channel keeps more than maxItems',
      wrapStore(store) {
        return overrideStore(store, {
          addItem: (inner) => (item: ItemRecord, maxItems: number) => {
            const plan = als.getStore()
            if (!plan || maxItems < 0) return inner.addItem(item, maxItems)
            inner.addItem(item, -1)
            const victims = plan.oldest.slice(0, Math.max(0, plan.oldest.length + 1 - maxItems))
            return victims.filter((id) => inner.deleteItem(item.channelId, id))
          },
        })
      },
      install(app, ctx) {
        wrapHandler(
          app,
          'items.publish',
          (original) =>
            async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
              let oldest: string[] | undefined
              try {
                const channel = resolveChannel(ctx, callerOf(request).user.userId, (request.params as { channel: string }).channel, VISIBLE)
                oldest = ctx.store.listItems(channel.channelId).map((i) => i.itemId)
              } catch {
                oldest = undefined
              }
              if (oldest === undefined) return asHandler(original).call(this, request, reply)
              await sleep(RACE_WINDOW_MS)
              return als.run({ oldest }, () => asHandler(original).call(this, request, reply))
            } as never,
        )
      },
    }
    return fault
  })(),
  {
    // §4.2 Subscribe / List subscribers: each subscriber is listed — also two users subscribing at once.
    name: 'r8-race-subscribe-lost-update',
    depth: 'deep',
    area: 'subscriptions',
    clause: 'subscriptions.subscribe.listed',
    description: 'subscribe reads the subscriber list, waits 25 ms, then writes it back with the caller: a concurrent subscribe by another user is lost',
    install(app, ctx) {
      wrapHandler(
        app,
        'subscriptions.subscribe',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            let channel: Readonly<ChannelRecord> | undefined
            const me = callerOf(request).user.userId
            try {
              channel = resolveChannel(ctx, me, (request.params as { channel: string }).channel)
            } catch {
              channel = undefined
            }
            if (!channel) return asHandler(original).call(this, request, reply)
            const before = new Set(ctx.store.listSubscriptions(channel.channelId).map((s) => s.subscriptionId))
            await sleep(RACE_WINDOW_MS)
            const result = await asHandler(original).call(this, request, reply)
            for (const s of [...ctx.store.listSubscriptions(channel.channelId)]) {
              if (!before.has(s.subscriptionId) && s.userId !== me) ctx.store.removeSubscriptions(channel.channelId, s.userId)
            }
            return result
          } as never,
      )
    },
  },
]

/**
 * Round 8's faults the suite does not judge, with the reason each is left (kept out of FAULTS, whose self-test
 * wants every fault caught; index.ts gathers them with the earlier rounds' as BLIND_OPEN).
 */
const contentNullValuesDropped: CatalogFault = {
  // §2.6 content: "key/value map of the message content" — given back as published (items.content-intact).
  name: 'r8-content-null-values-dropped',
  depth: 'deep',
  area: 'items',
  clause: 'items.content-intact',
  description: 'a content key whose value is null is dropped on publish; items with only non-null values are intact',
  wrapStore(store) {
    return overrideStore(store, {
      addItem: (inner) => (item: ItemRecord, maxItems: number) => {
        const values = Object.values(item.content)
        if (!values.some((v) => v === null)) return inner.addItem(item, maxItems)
        const content = Object.fromEntries(Object.entries(item.content).filter(([, v]) => v !== null))
        return inner.addItem({ ...item, content }, maxItems)
      },
    })
  },
}

// ── states and sequences ───────────────────────────────────────────────────────────────────────────

const sendRecipientsSharingDeviceDropped: CatalogFault = {
  // §4.3: "sent counts users for whom a push was sent, unsent counts users for whom it could not be sent" (sent + unsent = requested).
  name: 'r8-send-recipients-sharing-device-dropped',
  depth: 'deep',
  area: 'messages',
  clause: 'messages.send.counts-add-up',
  description:
    'two recipients whose only device id is the same: the second is dropped from sentList and sent (deduplicated by device), neither sent nor unsent',
  install(app, ctx) {
    rewriteJson(app, 'messages.send', (body: { count: { sent: number }; sentList: { recipientUsername: string }[] }) => {
      const claimed = new Set<string>()
      const kept = body.sentList.filter((entry) => {
        const devices = ctx.store.listDevices(entry.recipientUsername).map((d) => d.deviceId)
        if (devices.length > 0 && devices.every((d) => claimed.has(d))) return false
        for (const d of devices) claimed.add(d)
        return true
      })
      return { ...body, count: { ...body.count, sent: kept.length }, sentList: kept }
    })
  },
}

export const R8_OPEN: readonly OpenFault[] = [
  {
    fault: contentNullValuesDropped,
    why: 'content is "key/value map of the message content" (§2.6); whether null is a value a map keeps is not stated, and a serializer that leaves out null members (a common default) reads the spec too',
  },
  {
    fault: sendRecipientsSharingDeviceDropped,
    why: "shows only for two recipients whose every device id is one they share; the run's accounts have signed in on many device ids (earlier runs' too, on a real server), and the suite creates no users of its own",
  },
]
