import type { FastifyRequest } from 'fastify'
import type { ChannelRecord } from '../model'
import type { Store } from '../store'
import { channelSearchView } from '../views'
import { lower, overrideCtxStore, sleep } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, replaceSearchRules, rewriteJson } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults of the channel search (§4.2 GET /channels), written in the blind rounds 5 to 12 from the spec's words
 * only (docs/detection.md): each shows only for a particular input, state, address, pair of users, device or
 * concurrent pair of requests. The comment on each names the spec words it breaks; its name says its round. The
 * catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as BLIND_OPEN; the earlier deep faults of
 * the area are in deep-channels.ts.
 */

/** The description each public channel name was first created with (r9-search-recreated-old-description). */
const firstDescription = new Map<string, string>()

/** §4.2 search: "GET /channels?channelName=<text>" — a channel searched by its exact name is found (channels.search.by-name). */
const searchNameIndex32: CatalogFault = {
  name: 'r5-search-name-index-32',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-name',
  description: 'the search index keeps only the first 32 characters of a channel name: a channel whose name is longer is not found by its exact name',
  install(app, ctx) {
    replaceSearchRules(app, ctx, { nameOf: (c) => c.name.toLowerCase().slice(0, 32) })
  },
}

/** §4.2 "tag may repeat" / delete all tags: search by a tag returns the channels carrying it and no other (channels.search.by-tag). */
const searchTagStaleAfterDeleteAll: CatalogFault = (() => {
  const ghosts = new Map<string, Set<string>>()
  return {
    name: 'r5-search-tag-stale-after-delete-all',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.search.by-tag',
    description: 'the search tag index is updated on add and delete-one but not on delete-all: a channel whose tags were all deleted is still found by them',
    wrapStore(store) {
      return overrideStore(store, {
        clearTags: (inner) => (channelId, at) => {
          const before = inner.getChannel(channelId)?.tags ?? []
          const set = ghosts.get(channelId) ?? new Set<string>()
          for (const t of before) set.add(t)
          ghosts.set(channelId, set)
          return inner.clearTags(channelId, at)
        },
        removeTag: (inner) => (channelId, tag, at) => {
          ghosts.get(channelId)?.delete(tag)
          return inner.removeTag(channelId, tag, at)
        },
        deleteChannel: (inner) => (channelId) => {
          ghosts.delete(channelId)
          return inner.deleteChannel(channelId)
        },
      })
    },
    install(app, ctx) {
      replaceSearchRules(app, ctx, { hasTag: (c, t) => c.tags.includes(t) || (ghosts.get(c.channelId)?.has(t) ?? false) })
    },
  }
})()

/** §4.2 search "total (integer)" counts the matches: deleted public channels (soft-deleted rows) still count in total. */
const searchTotalTombstones: CatalogFault = {
  name: 'r6-search-total-tombstones',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.total',
  description: 'channel search total still counts deleted public channels that match the query (results do not show them)',
  ...(() => {
    const dead: { name: string; description: string; tags: string[] }[] = []
    return {
      wrapStore(store: Store) {
        return overrideStore(store, {
          deleteChannel: (inner) => (channelId) => {
            const c = inner.getChannel(channelId)
            if (c && !c.privateChannel) dead.push({ name: c.name, description: c.description, tags: [...c.tags] })
            return inner.deleteChannel(channelId)
          },
        })
      },
      install(app: any) {
        rewriteJson(app, 'channels.search', (body, request) => {
          const q = request.query as { channelName?: string; description?: string; tag?: string[] }
          const n = dead.filter(
            (c) =>
              (q.channelName === undefined || c.name.toLowerCase().includes(q.channelName.toLowerCase())) &&
              (q.description === undefined || c.description.toLowerCase().includes(q.description.toLowerCase())) &&
              (q.tag ?? []).every((t) => c.tags.includes(t)),
          ).length
          return { ...body, total: body.total + n }
        })
      },
    }
  })(),
}

/** §4.2 search by tag returns the channels carrying it (and no other): delete-all tags does not update the search index. */
const tagsSearchAfterClear: CatalogFault = {
  name: 'r6-tags-search-after-clear',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-tag',
  description: 'after delete-all tags, channel search by one of the removed tags still finds the channel (stale tag index)',
  wrapStore(store) {
    const ghosts = new Map<string, string[]>()
    return overrideStore(store, {
      clearTags: (inner) => (channelId, at) => {
        const c = inner.getChannel(channelId)
        if (c) ghosts.set(channelId, [...new Set([...(ghosts.get(channelId) ?? []), ...c.tags])])
        return inner.clearTags(channelId, at)
      },
      listPublicChannels: (inner) => () =>
        inner.listPublicChannels().map((c) => {
          const g = ghosts.get(c.channelId)
          return g ? { ...c, tags: [...c.tags, ...g.filter((t) => !c.tags.includes(t))] } : c
        }),
    })
  },
}

/** §4.2 "Search public channels": with a tag filter the query runs on the tag index, which holds private channels too. */
const searchTagIncludesPrivate: CatalogFault = {
  name: 'r6-search-tag-includes-private',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.public-only',
  description: 'channel search with a tag parameter also returns private channels that carry the tag(s)',
  ...(() => {
    const privateIds = new Set<string>()
    return {
      wrapStore(store: Store) {
        return overrideStore(store, {
          addChannel: (inner) => (channel) => {
            const ok = inner.addChannel(channel)
            if (ok && channel.privateChannel) privateIds.add(channel.channelId)
            return ok
          },
        })
      },
      install(app: any, ctx: any) {
        rewriteJson(app, 'channels.search', (body, request) => {
          const q = request.query as { channelName?: string; description?: string; tag?: string[]; offset: number; size: number }
          const tags = q.tag ?? []
          if (tags.length === 0) return body
          const extra = [...privateIds]
            .map((id) => ctx.store.getChannel(id) as ChannelRecord | undefined)
            .filter(
              (c): c is ChannelRecord =>
                c !== undefined &&
                (q.channelName === undefined || c.name.toLowerCase().includes(q.channelName.toLowerCase())) &&
                (q.description === undefined || c.description.toLowerCase().includes(q.description.toLowerCase())) &&
                tags.every((t) => c.tags.includes(t)),
            )
          if (extra.length === 0) return body
          const room = Math.max(0, q.size - body.results.length)
          const skip = Math.max(0, q.offset - body.total)
          return {
            total: body.total + extra.length,
            results: [...body.results, ...extra.slice(skip, skip + room).map((c) => channelSearchView(ctx, c))],
          }
        })
      },
    }
  })(),
}

const r8SearchNameWithDot: CatalogFault = {
  // §4.2 search: channelName=<text>; a search by a channel's exact name finds it. Names with a dot are valid names.
  name: 'r8-search-name-with-dot',
  depth: 'deep',
  area: 'channels',
  clause: 'channels.search.by-name',
  description: 'channel search by a channelName text that contains "." finds nothing (the text is used as a pattern that breaks on the dot)',
  install(app) {
    aroundHandler(app, 'channels.search', async (request, reply, next) => {
      const name = (request.query as { channelName?: string }).channelName
      if (name !== undefined && name.includes('.')) return { total: 0, results: [] }
      return next()
    })
  },
}

const r8SearchExactNameLeaksPrivate: CatalogFault = {
  // §4.2 "Search public channels" — private channels are never search results.
  name: 'r8-search-exact-name-leaks-private',
  depth: 'deep',
  area: 'channels',
  clause: 'channels.search.public-only',
  description: 'a search whose channelName equals a private channel name exactly (ignoring case) adds that private channel to the results',
  install(app, ctx) {
    aroundHandler(app, 'channels.search', async (request, reply, next) => {
      const result = (await next()) as { total: number; results: unknown[] }
      const name = (request.query as { channelName?: string }).channelName
      if (name === undefined || name === '') return result
      const extra = ctx.store
        .snapshot()
        .channels.filter((c) => c.privateChannel && c.name.toLowerCase() === name.toLowerCase())
        .map((c) => channelSearchView(ctx, c))
      return { total: result.total + extra.length, results: [...result.results, ...extra] }
    })
  },
}

/** §4.2 search by description; a re-created channel is a new channel with its own description. */
const searchRecreatedOldDescription: CatalogFault = {
  name: 'r9-search-recreated-old-description',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-description',
  description:
    'the search index keeps the description of a public channel name from its first creation: a channel re-created under a deleted name is searched by the old description, not its own',
  wrapStore(store) {
    firstDescription.clear()
    return overrideStore(store, {
      addChannel: (inner) => (channel) => {
        const ok = inner.addChannel(channel)
        if (ok && !channel.privateChannel && !firstDescription.has(lower(channel.name))) firstDescription.set(lower(channel.name), channel.description)
        return ok
      },
    })
  },
  install(app, ctx) {
    replaceSearchRules(app, ctx, { descriptionOf: (c) => firstDescription.get(lower(c.name)) ?? c.description })
  },
}

/** §4.2 "offset is the number of results to skip; size is the number of results requested": the last page holds the last match. */
const searchLastPageDropsLast: CatalogFault = {
  name: 'r9-search-last-page-drops-last',
  area: 'channels',
  depth: 'deep',
  clause: ['channels.search.offset-pages', 'channels.search.offset'],
  description: 'channel search with offset > 0 leaves out the last match when the page reaches the end of the matches (an off-by-one on the final page)',
  install(app) {
    rewriteJson(app, 'channels.search', (body, request) => {
      const { offset, size } = request.query as { offset: number; size: number }
      if (offset > 0 && Array.isArray(body.results) && body.results.length > 0 && offset + size >= body.total) {
        return { ...body, results: body.results.slice(0, -1) }
      }
      return body
    })
  },
}

/** §4.2 search by tag: channels carrying the tag (clause: "and no other"). */
const searchTagPrefix: CatalogFault = {
  name: 'r9-search-tag-prefix-match',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-tag',
  description: 'channel search by tag matches tags that start with the tag asked for: tag=news also returns channels tagged news2 or newsroom only',
  install(app, ctx) {
    replaceSearchRules(app, ctx, { hasTag: (c, t) => c.tags.some((have) => have.startsWith(t)) })
  },
}

/**
 * §4.2 search by description: a channel is found by its own description. The search builds SQL text with
 * the quote doubled twice, so a description text holding an apostrophe ("Bob's news") matches nothing.
 */
const searchDescriptionApostrophe: CatalogFault = {
  name: 'r10-search-description-apostrophe',
  area: 'channels',
  depth: 'deep',
  clause: 'channels.search.by-description',
  description: 'channel search by a description text containing an apostrophe ("Bob\'s news") finds nothing (the quote is escaped twice)',
  install(app) {
    rewriteJson(app, 'channels.search', (body, request) => {
      const description = (request.query as { description?: string }).description
      return typeof description === 'string' && description.includes("'") ? { total: 0, results: [] } : body
    })
  },
}

/**
 * §4.2 create: every field given (description) is stored. The create controller is a singleton that keeps
 * the request's description in a field across an awaited uniqueness lookup (~15 ms): of two creates in that
 * window, the first channel is stored with the second one's description.
 */
function raceCreateSharedDescription(): CatalogFault {
  let slot: { description?: string } = {}
  return {
    name: 'r10-race-create-shared-description',
    area: 'channels',
    depth: 'deep',
    clause: 'channels.create.fields-stored',
    consequences: [
      {
        clause: 'channels.get.matches-create',
        reason: 'get-by-name shows the description of the other create',
        sometimes: "a race: two creates within the fault's 15 ms swap descriptions, and which checks' creates overlap changes from run to run",
      },
      {
        clause: 'channels.search.by-description',
        reason: 'a search by the description given finds nothing',
        sometimes: "a race: two creates within the fault's 15 ms swap descriptions, and which checks' creates overlap changes from run to run",
      },
      {
        clause: 'private.own-plain-name',
        reason: "the owner's read of its private channel shows another channel's description",
        sometimes: "a race: two creates within the fault's 15 ms swap descriptions, and which checks' creates overlap changes from run to run",
      },
      {
        clause: 'private.other-user-address',
        reason: "a read through the address shows another channel's description",
        sometimes: "a race: two creates within the fault's 15 ms swap descriptions, and which checks' creates overlap changes from run to run",
      },
    ],
    description:
      "create keeps the description in a field shared by all requests across a ~15 ms await: of two creates within it, the first channel gets the second one's description",
    install(app) {
      aroundHandler(app, 'channels.create', async (request, reply, next) => {
        const body = request.body as { description?: string }
        slot = { description: body.description }
        await sleep(15)
        const mine = { ...body }
        if (slot.description === undefined) delete mine.description
        else mine.description = slot.description
        request.body = mine
        return next()
      })
    },
  }
}

const r11SearchTagIgnoredWithText: CatalogFault = {
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
}

const r11SearchNameLostAfterTagsCleared: CatalogFault = {
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
}

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

export const BLIND_CHANNEL_SEARCH_FAULTS: readonly CatalogFault[] = [
  searchNameIndex32,
  searchTagStaleAfterDeleteAll,
  searchTotalTombstones,
  tagsSearchAfterClear,
  searchTagIncludesPrivate,
  r8SearchNameWithDot,
  r8SearchExactNameLeaksPrivate,
  searchRecreatedOldDescription,
  searchLastPageDropsLast,
  searchTagPrefix,
  searchDescriptionApostrophe,
  raceCreateSharedDescription(),
  r11SearchTagIgnoredWithText,
  r11SearchNameLostAfterTagsCleared,
  searchRepeatedTag,
  searchTagTotalIsPage,
]
