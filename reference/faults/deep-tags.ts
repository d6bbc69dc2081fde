import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import { fail } from '../errors'
import type { ChannelRecord } from '../model'
import { callerId, channelParam, overrideCtxStore, SHORT_RACE_MS, sleep, splitHash } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore } from './kit'
import type { CatalogFault } from './types'

/**
 * Deep faults of a channel's tags (§4.2), written in the blind rounds 5 to 12 from the spec's words only
 * (docs/detection.md): each shows only for a particular input, state, address, pair of users, device or concurrent
 * pair of requests. The comment on each names the spec words it breaks; its name says its round. The catalogued
 * ones are gathered as BLIND_FAULTS, the open ones (with why) as BLIND_OPEN; the earlier deep faults of the area
 * are in deep-subscriptions-tags.ts.
 */

/** §4.2 add tags / get tags: added tags are returned by get tags (tags.add.visible). */
const tagTombstone: CatalogFault = (() => {
  const tombs = new Set<string>()
  return {
    name: 'r5-tag-readd-after-delete-ignored',
    area: 'tags',
    depth: 'deep',
    clause: 'tags.add.visible',
    description:
      'deleting one tag leaves a soft-deleted row under a unique key: adding the same tag to that channel again is answered 200 but the tag never comes back',
    wrapStore(store) {
      const k = (c: string, t: string) => `${c}\n${t}`
      return overrideStore(store, {
        removeTag: (inner) => (channelId, tag, at) => {
          const removed = inner.removeTag(channelId, tag, at)
          if (removed) tombs.add(k(channelId, tag))
          return removed
        },
        addTags: (inner) => (channelId, tags, at) =>
          inner.addTags(
            channelId,
            tags.filter((t) => !tombs.has(k(channelId, t))),
            at,
          ),
      })
    },
  }
})()

/** §4.2 "Add tags … tags (array of string)" then get tags returns them: a tag deleted once stays soft-deleted and is hidden when added again. */
const tagsReaddHidden: CatalogFault = {
  name: 'r6-tags-readd-hidden',
  area: 'tags',
  depth: 'deep',
  clause: 'tags.add.visible',
  description: 'a tag removed with delete-one tag and then added again is reported added but never shows in get tags',
  wrapStore(store) {
    const removed = new Set<string>()
    return overrideStore(store, {
      removeTag: (inner) => (channelId, tag, at) => {
        const ok = inner.removeTag(channelId, tag, at)
        if (ok) removed.add(`${channelId}\n${tag}`)
        return ok
      },
      addTags: (inner) => (channelId, tags, at) => {
        const hidden = tags.filter((t) => removed.has(`${channelId}\n${t}`))
        return (
          inner.addTags(
            channelId,
            tags.filter((t) => !hidden.includes(t)),
            at,
          ) + new Set(hidden).size
        )
      },
    })
  },
}

const r8TagDeleteWithSpace: CatalogFault = {
  // §4.2 Delete one tag: DELETE /channels/{channel_name}/tags/{tag}; success is 200 and the tag is gone.
  name: 'r8-tag-delete-with-space',
  depth: 'deep',
  area: 'tags',
  clause: ['tags.delete-one.removes', 'tags.delete-one.status'],
  description: 'deleting one tag whose text has a space (sent as %20) looks up the tag with "+" for the space, so it answers 404 and the tag stays',
  install(app) {
    aroundHandler(app, 'tags.deleteOne', async (request, reply, next) => {
      const params = request.params as { tag: string }
      if (params.tag.includes(' ')) params.tag = params.tag.replace(/ /g, '+')
      return next()
    })
  },
}

const r8TagReaddAfterDeleteIgnored: CatalogFault = {
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
}

const r8RaceTagsAddLostUpdate: CatalogFault = {
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
    aroundHandler(app, 'tags.add', async (request, reply, next) => {
      const body = request.body as { tags: string[]; personal?: boolean }
      let channel: Readonly<ChannelRecord> | undefined
      try {
        channel = resolveChannel(ctx, callerOf(request).user.userId, channelParam(request), personal(body.personal ?? false))
      } catch {
        channel = undefined
      }
      if (!channel || channel.ownerId !== callerOf(request).user.userId) return next()
      const before = [...channel.tags]
      await sleep(SHORT_RACE_MS)
      const result = await next()
      const now = ctx.clock.now()
      ctx.store.clearTags(channel.channelId, now)
      ctx.store.addTags(channel.channelId, [...before, ...body.tags], now)
      return result
    })
  },
}

/** §4.2 add tags: tags (array of string); get tags answers them. No tag length limit is shown. */
const tagCut32: CatalogFault = {
  name: 'r9-tag-cut-32',
  area: 'tags',
  depth: 'deep',
  clause: 'tags.add.visible',
  description: 'add tags stores a tag longer than 32 characters cut to its first 32 (answering 200): get tags shows the cut tag, not the one added',
  wrapStore(store) {
    return overrideStore(store, {
      addTags: (inner) => (channelId, tags, at) =>
        inner.addTags(
          channelId,
          tags.map((t) => t.slice(0, 32)),
          at,
        ),
    })
  },
}

/** §4.2 tags belong to a channel: adding a tag to one channel must not take it from another. */
const tagUniqueAcrossChannels: CatalogFault = {
  name: 'r9-tag-unique-across-channels',
  area: 'tags',
  depth: 'deep',
  clause: ['tags.add.visible', 'channels.search.by-tag'],
  description:
    'tags are kept in a table unique by tag text: adding a tag that another public channel carries moves it to this channel (the other channel loses it)',
  consequences: [
    {
      clause: 'channels.search.offset',
      reason: 'a tag added to one channel leaves the others that carried it: a search over several channels of one tag finds fewer',
    },
    {
      clause: 'channels.search.total',
      reason: 'a tag added to one channel leaves the others that carried it: the total of a search by that tag counts fewer',
    },
  ],
  wrapStore(store) {
    return overrideStore(store, {
      addTags: (inner) => (channelId, tags, at) => {
        for (const other of inner.listPublicChannels()) {
          if (other.channelId === channelId) continue
          for (const t of tags) if (other.tags.includes(t)) inner.removeTag(other.channelId, t, at)
        }
        return inner.addTags(channelId, tags, at)
      },
    })
  },
}

/**
 * §4.2 add tags: the tags added are the ones get tags returns. A "hashtag" normaliser strips a leading "#"
 * from each tag: "#news" is stored and returned as "news".
 */
const tagHashStripped: CatalogFault = {
  name: 'r10-tag-leading-hash-stripped',
  area: 'tags',
  depth: 'deep',
  clause: 'tags.add.visible',
  description: 'add tags strips a leading "#" from each tag (hashtag style): "#news" is stored and returned as "news"',
  install(app) {
    addRouteHook(app, 'tags.add', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { tags?: unknown }
      if (Array.isArray(body?.tags)) {
        body.tags = body.tags.map((t) => (typeof t === 'string' && /^#+[^#]/.test(t) ? t.replace(/^#+/, '') : t))
      }
    })
  },
}

/**
 * §4.2 delete one tag removes that tag from the channel named (and the tags of other channels stay, as
 * added). The delete runs `DELETE FROM tags WHERE owner = ? AND tag = ?`: the same tag goes from every
 * public channel of the caller.
 */
const tagDeleteOneAllOwnerChannels: CatalogFault = {
  name: 'r10-tag-delete-one-every-owned-channel',
  area: 'tags',
  depth: 'deep',
  clause: ['tags.delete-one.removes', 'tags.add.visible'],
  consequences: [
    {
      clause: 'private.tags-personal',
      reason: "the owner's delete of a tag on its private channel with personal=true takes the tag off its public channels too",
    },
  ],
  description: 'delete one tag removes that tag from every public channel the caller owns, not only from the channel named',
  install(app, ctx) {
    aroundHandler(app, 'tags.deleteOne', async (request, reply, next) => {
      const result = await next()
      const userId = callerId(request)
      const tag = (request.params as { tag: string }).tag
      if (userId !== undefined && reply.statusCode < 400) {
        for (const c of ctx.store.listPublicChannels()) if (c.ownerId === userId) ctx.store.removeTag(c.channelId, tag, ctx.clock.now())
      }
      return result
    })
  },
}

const r11TagsAddReplaces: CatalogFault = {
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
}

const r11TagsDeleteOneDefaultPrivate: CatalogFault = {
  // §4.2 "Delete one tag: DELETE /channels/{channel_name}/tags/{tag}?personal=<boolean>" with "personal
  // defaults to false, meaning a public channel".
  name: 'r11-tags-delete-one-default-private',
  area: 'tags',
  depth: 'deep',
  clause: ['tags.delete-one.removes', 'private.tags-personal'],
  description:
    "delete one tag without personal=true resolves the plain name as the caller's own private channel first: an owner of a public and a private channel of one name deletes the tag from the private one, the public one keeps it",
  install(app, ctx) {
    aroundHandler(app, 'tags.deleteOne', async (request, reply, next) => {
      const { channel: raw, tag } = request.params as { channel: string; tag: string }
      const { user } = callerOf(request)
      const own = splitHash(raw) === null && !(request.query as { personal?: boolean }).personal ? ctx.store.findPrivateChannel(user.userId, raw) : undefined
      if (own) {
        if (!ctx.store.removeTag(own.channelId, tag, ctx.clock.now())) throw fail('TAG_NOT_FOUND', `channel ${own.name} has no tag ${tag}`)
        return { code: 200, message: `tag ${tag} removed from ${own.name}` }
      }
      return next()
    })
  },
}

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

/**
 * §4.2 "Delete one tag: `DELETE /channels/{channel_name}/tags/{tag}?personal=<boolean>`". The tag is taken from the
 * raw request path (its last segment) rather than from the decoded path parameter: a tag with a space, a non-ASCII
 * letter or any other character a client must percent-encode is looked for in its encoded form, is not found, and
 * stays on the channel.
 */
const tagsDeleteRawSegment: CatalogFault = {
  name: 'r13a-tags-delete-raw-segment',
  area: 'tags',
  depth: 'deep',
  clause: ['tags.delete-one.removes', 'tags.delete-one.status'],
  description:
    'delete one tag compares the still percent-encoded path segment with the stored tags: a tag with a space or a non-ASCII letter cannot be deleted',
  install(app) {
    addRouteHook(app, 'tags.deleteOne', 'preHandler', async (request: FastifyRequest) => {
      const path = request.url.split('?')[0]!.replace(/\/+$/, '')
      ;(request.params as { tag: string }).tag = path.slice(path.lastIndexOf('/') + 1)
    })
  },
}

export const BLIND_TAG_FAULTS: readonly CatalogFault[] = [
  tagTombstone,
  tagsReaddHidden,
  r8TagDeleteWithSpace,
  r8TagReaddAfterDeleteIgnored,
  r8RaceTagsAddLostUpdate,
  tagCut32,
  tagUniqueAcrossChannels,
  tagHashStripped,
  tagDeleteOneAllOwnerChannels,
  r11TagsAddReplaces,
  r11TagsDeleteOneDefaultPrivate,
  tagDeleteDotSuffix,
  tagsDeletedReturnsOnAdd,
  tagsDeleteRawSegment,
]
