import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { personal, resolveChannel } from '../channel-address'
import { fail } from '../errors'
import { addRouteHook, overrideStore, rewriteJson } from '../faults/kit'
import { replaceSearch, substring } from './common'
import type { Variant } from './types'

/** Tags (§4.2 add, get, delete one, delete all): choices the spec leaves open. */

const tagsSorted: Variant = {
  name: 'tags-sorted',
  area: 'tags',
  description: 'get tags answers the tags sorted alphabetically rather than in the order added',
  reading: '§4.2 get tags: "tags (array of string)", no order stated',
  install: (app) => rewriteJson(app, 'tags.get', (body) => ({ ...body, tags: [...body.tags].sort().reverse() })),
}

const tagsDeleteMissingOk: Variant = {
  name: 'tags-delete-missing-ok',
  area: 'tags',
  description: 'deleting a tag the channel does not carry answers 200 (nothing to do) rather than 404',
  reading: '§4.2 delete one tag shows success only; §7 shows no error',
  install: (app) =>
    addRouteHook(app, 'tags.deleteOne', 'onSend', async (_request: FastifyRequest, reply, payload: unknown) => {
      if (reply.statusCode !== 404 || typeof payload !== 'string' || !payload.includes('has no tag')) return payload
      reply.code(200)
      return JSON.stringify({ code: 200, message: 'no such tag; nothing removed' })
    }),
}

/** Any signed-in user may change a public channel's tags (the reference lets only the owner). */
const tagsAnyUser: Variant = {
  name: 'tags-any-user',
  area: 'tags',
  description: 'any user may add and delete tags of a public channel, not only its owner',
  reading: '§5.5 names only deleting a channel and deleting all items as owner-only; tags are not among them',
  install: (app, ctx) => {
    for (const id of ['tags.add', 'tags.deleteOne', 'tags.deleteAll']) {
      addRouteHook(app, id, 'preHandler', async (request: FastifyRequest) => {
        const { user } = callerOf(request)
        const query = (request.query ?? {}) as { personal?: boolean }
        const body = (request.body ?? {}) as { personal?: boolean }
        const isPersonal = id === 'tags.add' ? (body.personal ?? false) : (query.personal ?? false)
        if (isPersonal) return
        const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel, personal(false))
        if (channel.privateChannel || channel.ownerId === user.userId) return
        // The route's own owner check then passes: the caller acts for the owner on this one request.
        const owner = ctx.store.getUser(channel.ownerId)
        if (owner) request.caller = { kind: 'USER', user: owner, deviceId: request.caller?.deviceId ?? 'unknown' }
      })
    }
  },
}

// Written blind, round 4 (docs/detection.md, "Round 4"): correct servers by an author who had not read the suite; listed in the array below.

const TAG_RE = /^[A-Za-z0-9_-]{1,32}$/

const tagsRestricted: Variant = {
  name: 'tags-restricted-alphabet',
  area: 'tags',
  description: 'add tags refuses (400) the whole request if any tag is not 1-32 of A-Z, a-z, 0-9, "_" and "-" (a tag travels as a path segment)',
  reading: '§4.2 add tags: "tags (array of string)"; no length or alphabet is stated for a tag, and §7 leaves refusals open',
  install: (app) =>
    addRouteHook(app, 'tags.add', 'preHandler', async (request: FastifyRequest) => {
      const { tags } = request.body as { tags: string[] }
      const bad = tags.find((t) => !TAG_RE.test(t))
      if (bad !== undefined) throw fail('BAD_REQUEST', 'tags are 1-32 letters, digits, "_" or "-"')
    }),
}

const tagIndex = (tags: readonly string[], tag: string): number => tags.findIndex((t) => t.toLowerCase() === tag.toLowerCase())

const tagsCaseInsensitive: Variant = {
  name: 'tags-case-insensitive',
  area: 'tags',
  description:
    'tags are labels compared ignoring case: adding "News" to a channel tagged "news" adds nothing (first spelling kept), deleting "NEWS" removes "news", search tag=NEWS finds it',
  reading: '§4.2 tags are "array of string"; whether two tags differing only in case are one tag is not stated (§2.3 states nothing of tags at all)',
  wrapStore: (store) =>
    overrideStore(store, {
      addTags: (inner) => (channelId, tags, at) => {
        const channel = inner.getChannel(channelId)
        if (!channel) return 0
        const fresh: string[] = []
        for (const t of tags) if (tagIndex(channel.tags, t) < 0 && tagIndex(fresh, t) < 0) fresh.push(t)
        return fresh.length === 0 ? 0 : inner.addTags(channelId, fresh, at)
      },
      removeTag: (inner) => (channelId, tag, at) => {
        const channel = inner.getChannel(channelId)
        const i = channel ? tagIndex(channel.tags, tag) : -1
        return i < 0 ? false : inner.removeTag(channelId, channel!.tags[i]!, at)
      },
    }),
  install: (app, ctx) =>
    replaceSearch(app, ctx, {
      score: (c, q) => (substring(c.name, q.channelName) && substring(c.description, q.description) ? 1 : 0),
      tagMatch: (channelTags, wanted) => tagIndex(channelTags, wanted) >= 0,
    }),
}

export const TAG_VARIANTS: readonly Variant[] = [
  tagsSorted,
  tagsDeleteMissingOk,
  tagsAnyUser,
  // written blind, round 4 (docs/detection.md, "Round 4")
  tagsRestricted,
  tagsCaseInsensitive,
]

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

const r9vTagsSorted: Variant = {
  name: 'r9v-tags-sorted',
  area: 'tags',
  description: "get tags answers the channel's tags in code-point order instead of the order they were added",
  reading: '§4.2 get tags: "{channelName (string), tags (array of string)}"; the order of tags is not stated.',
  install(app) {
    rewriteJson(app, 'tags.get', (body) => (Array.isArray(body?.tags) ? { ...body, tags: [...body.tags].sort() } : body))
  },
}

/** Tags answered in alphabetical order. */
const r12vTagsSorted: Variant = {
  name: 'r12v-tags-sorted',
  area: 'tags',
  description: 'get tags answers the tags sorted by code point, not in the order added',
  reading: '§4.2 Get tags: "{channelName (string), tags (array of string)}"; no order of the tags is stated.',
  install(app) {
    rewriteJson(app, 'tags.get', (body) => (Array.isArray(body?.tags) ? { ...body, tags: [...body.tags].sort() } : body))
  },
}

/** Tags come back sorted (by code point), not in the order they were added. */
const r13bvTagsSorted: Variant = {
  name: 'r13bv-tags-sorted',
  area: 'tags',
  description: "get tags answers the channel's tags sorted by code point, whatever the order they were added in",
  reading:
    '§4.2 "Get tags … Response 200: {channelName (string), tags (array of string)}": the order of the array is not stated; a server keeping tags in a sorted set is as correct as one keeping insertion order',
  install(app) {
    rewriteJson(app, 'tags.get', (body: { channelName: string; tags: string[] }) => ({ ...body, tags: [...body.tags].sort() }))
  },
}

export const BLIND_TAG_VARIANTS: readonly Variant[] = [r9vTagsSorted, r12vTagsSorted, r13bvTagsSorted]
