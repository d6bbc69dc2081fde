import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServerContext } from '../context'
import { ApiError } from '../errors'
import type { ChannelRecord } from '../model'
import { channelSearchView, summaryView } from '../views'
import { routeScope, withChannelLog } from './common'
import { callerId, channelOf, RACE_WINDOW_MS, scoped, sleep } from './deep-common'
import { overrideStore, rewriteJson, wrapHandler } from './kit'
import type { CatalogFault } from './types'

/**
 * Blind round 4: deep faults written from the spec alone. Each shows only for a particular input, state,
 * address, caller, device or interleaving; an ordinary first call is answered as the reference answers it.
 */

/** Routes that address a channel by a plain name or `<user_id>#<name>` without `personal`. */
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

// ── Inputs ────────────────────────────────────────────────────────────────────────────────────────────

// ── States ────────────────────────────────────────────────────────────────────────────────────────────

/** Search reads tags from an index that add and delete-all maintain, but delete-one forgets. */
function tagIndexStale(): CatalogFault {
  let index = new Map<string, Set<string>>()
  const scope = routeScope()
  return {
    name: 'r4-tag-index-stale-after-delete-one',
    clause: 'channels.search.by-tag',
    area: 'channels',
    depth: 'deep',
    description: 'search by tag reads a tag index that delete-one-tag does not update: a channel is still found by a tag it no longer has',
    wrapStore(store) {
      index = new Map()
      return overrideStore(store, {
        addTags: (inner) => (channelId, tags, at) => {
          const added = inner.addTags(channelId, tags, at)
          const set = index.get(channelId) ?? new Set<string>()
          for (const t of tags) set.add(t)
          index.set(channelId, set)
          return added
        },
        clearTags: (inner) => (channelId, at) => {
          index.delete(channelId)
          return inner.clearTags(channelId, at)
        },
        deleteChannel: (inner) => (channelId) => {
          index.delete(channelId)
          return inner.deleteChannel(channelId)
        },
        listPublicChannels: (inner) => () =>
          scope.active() ? inner.listPublicChannels().map((c) => ({ ...c, tags: [...(index.get(c.channelId) ?? [])] })) : inner.listPublicChannels(),
      })
    },
    install(app) {
      scope.install(app, 'channels.search')
    },
  }
}

// ── Addresses × callers ───────────────────────────────────────────────────────────────────────────────

/** The plain-name resolver looks for the public channel first, then the caller's own private one. */
function plainNamePrefersPublic(): CatalogFault {
  const plain = scoped<true>()
  return {
    name: 'r4-plain-name-prefers-public',
    clause: 'private.own-plain-name',
    area: 'private',
    depth: 'deep',
    description: 'a plain name resolves to the public channel first: an owner whose private channel shares its name with a public one reaches the public one',
    wrapStore(store) {
      return overrideStore(store, {
        findPrivateChannel: (inner) => (ownerId, name) => (plain.get() && inner.findPublicChannel(name) ? undefined : inner.findPrivateChannel(ownerId, name)),
      })
    },
    install(app) {
      for (const id of VISIBLE_ROUTES) {
        plain.install(app, id, (request) => (!(request.params as { channel: string }).channel.includes('#') ? true : undefined))
      }
    },
  }
}

/** The summary is read from a stats table keyed by channel name: a name no visible channel has falls to anyone's private one. */
function summaryAnyPrivate(): CatalogFault {
  let all: () => Readonly<ChannelRecord>[] = () => []
  return {
    name: 'r4-summary-any-private-by-name',
    clause: 'private.plain-name-not-shared',
    area: 'private',
    depth: 'deep',
    description: "the summary route looks a plain name up among every user's private channels when no public or own channel has it",
    wrapStore(store) {
      return withChannelLog(store, (wrapped, list) => {
        all = list
        return wrapped
      })
    },
    install(app, ctx) {
      wrapHandler(
        app,
        'channels.summary',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            try {
              return await (original as Function).call(this, request, reply)
            } catch (error) {
              const raw = (request.params as { channel: string }).channel
              if (!(error instanceof ApiError) || error.status !== 404 || raw.includes('#')) throw error
              const other = all().find((c) => c.privateChannel && c.name.toLowerCase() === raw.toLowerCase())
              if (!other) throw error
              return summaryView(other, ctx.store.listItems(other.channelId).length)
            }
          } as never,
      )
    },
  }
}

// ── Isolation ─────────────────────────────────────────────────────────────────────────────────────────

/** A "scroll" cursor per user: a first page (offset 0) stores the hits, later pages read them, whatever the query. */
function searchCursorPerUser(): CatalogFault {
  let cursors = new Map<string, Readonly<ChannelRecord>[]>()
  return {
    name: 'r4-search-cursor-per-user',
    clause: 'channels.search.offset',
    area: 'channels',
    depth: 'deep',
    description: "a search with offset > 0 pages through the hits of the same user's last first-page search, whatever its criteria",
    wrapStore(store) {
      cursors = new Map()
      return store
    },
    install(app, ctx) {
      wrapHandler(
        app,
        'channels.search',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const user = callerId(request)
            const query = request.query as { channelName?: string; description?: string; tag?: string[]; offset: number; size: number }
            if (user === undefined) return (original as Function).call(this, request, reply)
            const cursor = cursors.get(user)
            if (query.offset > 0 && cursor) {
              return { total: cursor.length, results: cursor.slice(query.offset, query.offset + query.size).map((c) => channelSearchView(ctx, c)) }
            }
            const name = query.channelName?.toLowerCase()
            const description = query.description?.toLowerCase()
            const tags = query.tag ?? []
            const hits = ctx.store
              .listPublicChannels()
              .filter(
                (c) =>
                  (name === undefined || c.name.toLowerCase().includes(name)) &&
                  (description === undefined || c.description.toLowerCase().includes(description)) &&
                  tags.every((t) => c.tags.includes(t)),
              )
              .sort((a, b) => a.createdAt - b.createdAt || (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1))
            if (query.offset === 0) cursors.set(user, hits)
            return (original as Function).call(this, request, reply)
          } as never,
      )
    },
  }
}

// ── People and devices ────────────────────────────────────────────────────────────────────────────────

// ── Races ─────────────────────────────────────────────────────────────────────────────────────────────

/** publishedItemCount is a counter: read, I/O, write read+1. Publishes that overlap lose increments. */
function racePublishCount(): CatalogFault {
  let inFlight = new Map<string, number>()
  let lost = new Map<string, number>()
  return {
    name: 'r4-race-publish-count',
    clause: 'channels.summary.count',
    area: 'channels',
    depth: 'deep',
    description: 'the published-item counter is read before and written after the insert: concurrent publishes lose increments of publishedItemCount',
    wrapStore(store) {
      inFlight = new Map()
      lost = new Map()
      return overrideStore(store, {
        clearItems: (inner) => (channelId) => {
          lost.delete(channelId)
          return inner.clearItems(channelId)
        },
        deleteChannel: (inner) => (channelId) => {
          lost.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app, ctx) {
      wrapHandler(
        app,
        'items.publish',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const channel = channelOf(ctx, request)
            if (!channel) return (original as Function).call(this, request, reply)
            const id = channel.channelId
            const overlapped = (inFlight.get(id) ?? 0) > 0
            inFlight.set(id, (inFlight.get(id) ?? 0) + 1)
            try {
              await sleep(RACE_WINDOW_MS)
              const result = await (original as Function).call(this, request, reply)
              if (overlapped && reply.statusCode < 400) lost.set(id, (lost.get(id) ?? 0) + 1)
              return result
            } finally {
              inFlight.set(id, (inFlight.get(id) ?? 1) - 1)
            }
          } as never,
      )
      rewriteJson(app, 'channels.summary', (body: { publishedItemCount: number }, request) => {
        const channel = channelOf(ctx, request)
        const n = channel ? (lost.get(channel.channelId) ?? 0) : 0
        return n > 0 ? { ...body, publishedItemCount: Math.max(0, body.publishedItemCount - n) } : body
      })
    },
  }
}

export const BLIND_R4_FAULTS: readonly CatalogFault[] = [
  // inputs
  // states
  tagIndexStale(),
  // addresses × callers
  plainNamePrefersPublic(),
  summaryAnyPrivate(),
  // isolation
  searchCursorPerUser(),
  // people and devices
  // races
  racePublishCount(),
]
