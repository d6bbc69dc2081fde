import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import { addRouteHook, overrideStore, replaceSearchRules, rewriteJson, wrapHandler } from '../faults/kit'
import { hashPassword, newId } from '../ids'
import type { ChannelRecord, UserRecord } from '../model'
import { formatUtcTime } from '../time'
import { channelSearchView } from '../views'
import { channelOf, type Handler, replaceSearch, searchReversed, tokens } from './common'
import type { Variant } from './types'

/** Channels (§4.2 create, search, summary): choices the spec leaves open, and a busy shared server. */

/** Another user of the same application, made by a variant (never one of the suite's accounts). */
export function addBystander(ctx: ServerContext, userName: string): Readonly<UserRecord> {
  const existing = ctx.store.findUserByName(ctx.application.clientId, userName)
  if (existing) return existing
  const salt = newId()
  const user: UserRecord = {
    userId: newId(),
    clientId: ctx.application.clientId,
    userName,
    passwordHash: hashPassword(newId(), salt),
    passwordSalt: salt,
    firstName: userName,
    lastName: 'Bystander',
    email: `${userName}@bystander.example.invalid`,
    userRealm: 'default',
    userStatus: 'ACTIVE',
    roles: ['USER'],
    userAccountData: {},
    createdAt: ctx.clock.now(),
  }
  ctx.store.addUser(user)
  return user
}

/** A channel of someone else, as another client would have made it. */
function otherChannel(owner: Readonly<UserRecord>, name: string, at: number, extra: Partial<ChannelRecord> = {}): ChannelRecord {
  return {
    channelId: newId(),
    name,
    ownerId: owner.userId,
    ownerDeviceId: `${owner.userName}-phone`,
    description: '',
    privateChannel: false,
    maxItems: -1,
    publishPermission: 'anyone',
    createdAt: at,
    modifiedAt: at,
    lastPublishedAt: null,
    tags: [],
    ...extra,
  }
}

/** A small deterministic generator, so the busy server is the same at every start. */
function generator(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

const WORDS = ['alpha', 'news', 'sport', 'ct', 'conformance', 'test', 'channel', 'run', 'weather', 'alerts', 'team', 'ops', 'daily', 'chat', 'ct-run']

/**
 * A shared staging server: other users own hundreds of channels, among them old `ct-…` channels of other
 * runs (by other accounts), `ct…` names of the new form, private ones, and names and descriptions made of
 * the same words the suite uses. While the run goes, another client mirrors each new public channel with a
 * look-alike of its own (same description, the name with a suffix) and deletes it with the original.
 */
const busySharedServer: Variant = {
  name: 'busy-shared-server',
  area: 'channels',
  description: "hundreds of other users' channels (old ct- ones of other runs among them) and a client that makes a look-alike of each new public channel",
  reading: "the spec describes one shared service; nothing says the suite's channels are the only ones, or that names and descriptions are unique to it",
  install: (app, ctx) => {
    const now = ctx.clock.now()
    const owners = Array.from({ length: 12 }, (_, i) => addBystander(ctx, `other.user${i}`))
    const random = generator(0xc4a77e1)
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!
    const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('')
    for (let i = 0; i < 320; i++) {
      const owner = pick(owners)
      const ago = Math.floor(random() * 30 * 86_400_000)
      const kind = i % 4
      const name =
        kind === 0
          ? `ct-${hex(6)}-${hex(4)}-${i}` // the old form, of other runs
          : kind === 1
            ? `ct${hex(6)}${hex(3)}${i}` // the new form, of other runs
            : kind === 2
              ? `${pick(WORDS)}-${pick(WORDS)}-${i}`
              : `${pick(WORDS)}${i}`
      const description = `${pick(WORDS)} ${pick(WORDS)} ${hex(4)}`
      const tags = random() < 0.3 ? [pick(WORDS), hex(4)] : []
      ctx.store.addChannel(otherChannel(owner, name, now - ago, { description, tags, privateChannel: random() < 0.1 }))
    }
    const mirror = owners[0]!
    const mirrors = new Map<string, string>()
    app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.routeOptions.config.id === 'channels.delete') return dropMirrors(reply)
      if (request.routeOptions.config.id !== 'channels.create') return
      const body = request.body as { channelName?: string; privateChannel?: boolean; description?: string } | undefined
      if (reply.statusCode >= 300 || !body?.channelName || body.privateChannel) return
      const original = ctx.store.findPublicChannel(body.channelName)
      if (!original || original.ownerId === mirror.userId) return
      const copy = otherChannel(mirror, `${original.name}mirror`, ctx.clock.now(), { description: original.description })
      if (ctx.store.addChannel(copy)) mirrors.set(original.channelId, copy.channelId)
    })
    // The look-alike goes with its original, so a run that cleans up after itself leaves nothing of its own.
    function dropMirrors(reply: FastifyReply): void {
      if (reply.statusCode >= 300) return
      for (const [original, copy] of mirrors) {
        if (ctx.store.getChannel(original)) continue
        ctx.store.deleteChannel(copy)
        mirrors.delete(original)
      }
    }
  },
}

/** Channel names of lowercase letters and digits only; anything else is refused at create. */
const channelNamesLowerAlnum: Variant = {
  name: 'channel-names-lower-alnum',
  area: 'channels',
  description: 'create refuses channel names with anything but lowercase letters and digits (400)',
  reading: '§2.3: "Constraints on channel names (length, allowed characters): not shown"',
  install: (app) =>
    addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
      const name = (request.body as { channelName?: unknown } | undefined)?.channelName
      if (typeof name !== 'string' || !/^[a-z0-9]{1,50}$/.test(name)) {
        throw fail('INVALID_CHANNEL_NAME', 'channel names are 1-50 lowercase letters and digits')
      }
    }),
}

/** The names a server of wide names accepts: 1-256 characters of any kind but "#" (the address's separator), "/" and control characters. */
export const WIDE_CHANNEL_NAMES = {
  // eslint-disable-next-line no-control-regex
  pattern: /^[^#/\u0000-\u001f\u007f]{1,256}$/u,
  rule: 'channel names are 1-256 characters without "#", "/" or control characters',
}

/** Any name a path can carry: spaces, "+", ",", non-ASCII letters, emoji, up to 256 characters. */
const channelNamesWide: Variant = {
  name: 'channel-names-wide',
  area: 'channels',
  description:
    'accepts channel names of 1-256 characters of any kind but "#", "/" and control characters (the reference allows 50 of letters, digits, "_", "." and "-")',
  reading: '§2.3: "Constraints on channel names (length, allowed characters): not shown"',
  install: (_app, ctx) => {
    ctx.channelNames = WIDE_CHANNEL_NAMES
  },
}

/** Create answers 200 (and code 200) rather than 201. */
const createAnswers200: Variant = {
  name: 'create-answers-200',
  area: 'channels',
  description: 'create channel answers 200 with code 200 instead of 201',
  reading: '§4.2 create: "Response: {code (integer), message (string)}", no status given',
  install: (app) =>
    rewriteJson(app, 'channels.create', (body, _request, reply) => {
      reply.code(200)
      return { ...body, code: 200 }
    }),
}

/** A second create of a name the caller already owns answers success and changes nothing. */
const duplicateCreateIdempotent: Variant = {
  name: 'duplicate-create-idempotent',
  area: 'channels',
  description: 'a second create of a channel the caller already owns answers 200 and leaves the first as it is',
  reading: '§4.2 create shows no failure, and §7 no error; what a repeated create does is not shown',
  install: (app, ctx) =>
    wrapHandler(
      app,
      'channels.create',
      (original) =>
        async function createOnce(this: unknown, request, reply) {
          const body = request.body as { channelName: string; privateChannel?: boolean }
          const { caller } = request
          const userId = caller?.kind === 'USER' ? caller.user.userId : ''
          const existing = body.privateChannel ? ctx.store.findPrivateChannel(userId, body.channelName) : ctx.store.findPublicChannel(body.channelName)
          if (existing && existing.ownerId === userId) return reply.code(200).send({ code: 200, message: `channel ${existing.name} exists` })
          return (original as (...a: unknown[]) => unknown).call(this, request, reply)
        },
    ),
}

/** The summary of a channel nobody published to gives the current time as lastPublishedTime. */
const summaryNowWhenEmpty: Variant = {
  name: 'summary-now-when-empty',
  area: 'channels',
  description: 'the summary of a channel with no items gives the current time as lastPublishedTime',
  reading: '§2.4 types lastPublishedTime as a timestamp and says nothing of a channel never published to',
  install: (app, ctx) =>
    rewriteJson(app, 'channels.summary', (body) => (body.publishedItemCount === 0 ? { ...body, lastPublishedTime: formatUtcTime(ctx.clock.now()) } : body)),
}

/** lastPublishedTime kept in whole seconds (a seconds column) but written by a millisecond formatter: `…:54.000Z`. */
const summarySecondsPadded: Variant = {
  name: 'summary-seconds-padded',
  area: 'channels',
  description: 'lastPublishedTime is kept in whole seconds and written with a zero fraction (2026-01-01T10:00:54.000Z): publishes within one second share it',
  reading: '§2.4 lastPublishedTime is "timestamp (UTC)": its precision is not stated (§2.3 states milliseconds for channel timestamps only)',
  install: (app) =>
    rewriteJson(app, 'channels.summary', (body) => {
      const ms = typeof body.lastPublishedTime === 'string' ? Date.parse(body.lastPublishedTime) : NaN
      return Number.isFinite(ms) ? { ...body, lastPublishedTime: formatUtcTime(Math.floor(ms / 1000) * 1000) } : body
    }),
}

/**
 * A delete of a channel the caller does not have is refused otherwise than with 404: 410 Gone for a name whose
 * channel the caller deleted before, 400 for a name it never had.
 */
function deletesGoneRefused(): Variant {
  const deleted = new Set<string>()
  const key = (ownerId: string, name: string) => `${ownerId}|${name.toLowerCase()}`
  return {
    name: 'deletes-gone-refused',
    area: 'channels',
    description: "delete of a channel the caller has not (or no longer) answers 410 Gone when the caller's channel of that name was deleted, 400 otherwise",
    reading: '§7: "Error responses: not shown (no error codes, no error body shape, no failure status codes)": 404 is a convention, not stated',
    wrapStore: (store) =>
      overrideStore(store, {
        deleteChannel: (inner) => (channelId) => {
          const channel = inner.getChannel(channelId)
          if (channel) deleted.add(key(channel.ownerId, channel.name))
          return inner.deleteChannel(channelId)
        },
      }),
    install: (app) =>
      // Its own onSend (not rewriteJson): an earlier variant may have emptied a success body (deletes-empty-body).
      addRouteHook(app, 'channels.delete', 'onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode !== 404 || request.caller?.kind !== 'USER') return payload
        const raw = (request.params as { channel: string }).channel
        const gone = deleted.has(key(request.caller.user.userId, raw.slice(raw.indexOf('#') + 1)))
        reply.code(gone ? 410 : 400)
        return JSON.stringify({ code: gone ? 4010 : 1009, message: gone ? `channel ${raw} was deleted` : `no channel ${raw} to delete` })
      }),
  }
}

/** The four deletes whose success body the spec does not show answer 200 with no body at all. */
const deletesEmptyBody: Variant = {
  name: 'deletes-empty-body',
  area: 'channels',
  description: 'delete channel, delete one tag, delete all tags and delete all items answer 200 with an empty body',
  reading: '§4.2: "Success of the four delete operations that carry no body in their description … is status 200. Success body: not shown."',
  install: (app) => {
    for (const id of ['channels.delete', 'tags.deleteOne', 'tags.deleteAll', 'items.deleteAll']) {
      addRouteHook(app, id, 'onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode >= 300) return payload
        reply.removeHeader('content-type')
        return ''
      })
    }
  },
}

interface SearchRules {
  /** How a channelName or description parameter matches the channel's text. */
  match: (text: string, wanted: string) => boolean
  /** Several tag parameters: the channel carries all of them, or any. */
  tags: 'all' | 'any'
  /** Page size when none is asked for, and the most one page holds (larger sizes are cut to it). */
  defaultSize: number
  maxSize: number
  newestFirst: boolean
}

/** The search route with other matching and paging rules (the reference's: substring ignoring case, all tags, 200, 1000). */
function searchVariant(name: string, description: string, reading: string, rules: SearchRules): Variant {
  return {
    name,
    area: 'channels',
    description,
    reading,
    install: (app, ctx) =>
      wrapHandler(
        app,
        'channels.search',
        () =>
          async function search(request) {
            const query = request.query as { channelName?: string; description?: string; tag?: string[]; offset: number; size: number }
            const asked = new URLSearchParams(request.url.split('?')[1] ?? '').has('size')
            const size = Math.min(asked ? query.size : rules.defaultSize, rules.maxSize)
            const tags = query.tag ?? []
            const matches = ctx.store
              .listPublicChannels()
              .filter(
                (c) =>
                  (query.channelName === undefined || rules.match(c.name, query.channelName)) &&
                  (query.description === undefined || rules.match(c.description, query.description)) &&
                  (tags.length === 0 || (rules.tags === 'all' ? tags.every((t) => c.tags.includes(t)) : tags.some((t) => c.tags.includes(t)))),
              )
              .sort((a, b) => (rules.newestFirst ? b.createdAt - a.createdAt : a.createdAt - b.createdAt))
            return { total: matches.length, results: matches.slice(query.offset, query.offset + size).map((c) => channelSearchView(ctx, c)) }
          },
      ),
  }
}

// Written blind (docs/detection.md, "Faults written blind"): correct servers by implementers who had not read the suite.

/** Owner id, domain and device from the reference's `<userId>%<appId>@<domain>/<deviceId>`. */
function parseCreator(creator: string): { ownerId: string; domain: string; deviceId: string } | undefined {
  const m = /^([^%]+)%[^@]*@([^/]*)\/(.*)$/.exec(creator)
  return m ? { ownerId: m[1]!, domain: m[2]!, deviceId: m[3]! } : undefined
}

const LAG_MS = 700

/** What the search index still holds of channels deleted less than LAG_MS ago. */
function laggingIndex(): Variant {
  return {
    name: 'search-index-lag',
    area: 'channels',
    description: `channel search reads a separate index refreshed every ${LAG_MS} ms: a new channel shows in search only after that, a deleted one lingers as long`,
    reading:
      '§4.2 search says nothing of when a change becomes searchable, and §4.1 "Filtering, sorting and pagination follow URI search conventions of a full-text search engine" names the kind of back end whose index refreshes on an interval',
    wrapStore: (store) => {
      // One index per server built: several servers may share this variant in one process.
      const seen = new Map<string, number>()
      const ghosts: { channel: ChannelRecord; until: number }[] = []
      return overrideStore(store, {
        addChannel: (inner) => (channel) => {
          const added = inner.addChannel(channel)
          if (added) seen.set(channel.channelId, Date.now())
          return added
        },
        deleteChannel: (inner) => (channelId) => {
          const channel = inner.getChannel(channelId)
          if (channel && !channel.privateChannel) ghosts.push({ channel: structuredClone(channel) as ChannelRecord, until: Date.now() + LAG_MS })
          seen.delete(channelId)
          return inner.deleteChannel(channelId)
        },
        listPublicChannels: (inner) => () => {
          const now = Date.now()
          while (ghosts.length > 0 && ghosts[0]!.until <= now) ghosts.shift()
          const live = inner.listPublicChannels().filter((c) => now - (seen.get(c.channelId) ?? 0) >= LAG_MS)
          // A store under this one that still holds a deleted channel (a lagging replica) lists it too: once is enough.
          const listed = new Set(live.map((c) => c.channelId))
          const lingering = ghosts.filter((g) => !listed.has(g.channel.channelId)).map((g) => g.channel)
          return [...live, ...lingering].sort((a, b) => a.createdAt - b.createdAt)
        },
      })
    },
  }
}

/** Owner-centred channel fields: `creator` as `<userId>:<userName>@<domain>/<deviceId>`, userId always the owner. */
function ownerFields(ctx: ServerContext, channel: any): any {
  const parsed = parseCreator(channel.creator)
  if (!parsed) return channel
  const userName = ctx.store.getUser(parsed.ownerId)?.userName ?? parsed.ownerId
  return { ...channel, creator: `${parsed.ownerId}:${userName}@${parsed.domain}/${parsed.deviceId}`, userId: parsed.ownerId }
}

/** Counts of every publish a channel has had, deletes and evictions notwithstanding. */
function lifetimeSummary(): Variant {
  const published = new Map<string, number>()
  return {
    name: 'summary-lifetime',
    area: 'channels',
    description:
      'summary publishedItemCount counts every publish the channel ever had (deletes and evictions do not lower it); lastPublishedTime before any publish is the epoch; modifiedDate moves on each publish',
    reading:
      '§2.4 names publishedItemCount and lastPublishedTime with types only: what they count and their value before a first publish are not stated; §2.3 modifiedDate is "same format", when it moves is not stated',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          published.set(item.channelId, (published.get(item.channelId) ?? 0) + 1)
          return inner.addItem(item, maxItems)
        },
      }),
    install(app, ctx) {
      rewriteJson(app, 'channels.summary', (body, request) => {
        const channel = channelOf(ctx, request)
        if (!channel) return body
        return {
          ...body,
          publishedItemCount: published.get(channel.channelId) ?? 0,
          lastPublishedTime: new Date(channel.lastPublishedAt ?? 0).toISOString(),
        }
      })
      rewriteJson(app, 'channels.getByName', (body, request) => {
        const channel = channelOf(ctx, request)
        if (!channel) return body
        const modified = Math.max(channel.modifiedAt, channel.lastPublishedAt ?? 0)
        return { ...body, modifiedDate: new Date(modified).toISOString().replace(/Z$/, '+0000') }
      })
    },
  }
}

const SEARCH_SILENT = '§4.2 search: "Matching rules for channelName and description, and the defaults and maximum of size: not shown"'

// Written blind, round 4 (docs/detection.md, "Round 4"): correct servers by an author who had not read the suite; listed in the array below.

const DESCRIPTION_MAX = 100

const descriptionMax100: Variant = {
  name: 'description-max-100',
  area: 'channels',
  description: `create refuses (400) a description longer than ${DESCRIPTION_MAX} characters`,
  reading: '§4.2 create: "description (string, optional)" — no length is stated anywhere; §7 leaves the refusal\'s status and body open',
  install: (app) =>
    addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
      const { description } = request.body as { description?: string }
      if (typeof description === 'string' && description.length > DESCRIPTION_MAX) {
        throw fail('BAD_REQUEST', `description must be at most ${DESCRIPTION_MAX} characters`)
      }
    }),
}

const NAME_MAX = 32

const channelNamesMax32: Variant = {
  name: 'channel-names-max-32',
  area: 'channels',
  description: `create refuses (400) a channel name longer than ${NAME_MAX} characters (the reference allows 50)`,
  reading: '§2.3: "Constraints on channel names (length, allowed characters): not shown"',
  install: (app) =>
    addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
      const { channelName } = request.body as { channelName: string }
      if (channelName.length > NAME_MAX) throw fail('INVALID_CHANNEL_NAME', `channel names are at most ${NAME_MAX} characters`)
    }),
}

/** Share of the text's words the query names (0 when a query word is not one of the text's words). */
function tokenScore(text: string, wanted: string | undefined): number {
  if (wanted === undefined) return 1
  const have = tokens(text)
  const want = [...new Set(tokens(wanted))]
  if (want.length === 0) return 1
  if (!want.every((w) => have.includes(w))) return 0
  return want.length / Math.max(have.length, 1)
}

const searchFullText: Variant = {
  name: 'search-fulltext-tokens',
  area: 'channels',
  description:
    'channelName and description match as full text: each query word must be a whole word of the field (words split at non-alphanumerics, case ignored); results ranked by relevance, not by age',
  reading:
    '§4.2 search: "Matching rules for channelName and description … not shown"; results order is not stated; §4.1 names "a full-text search engine" as the service\'s search convention',
  install: (app, ctx) =>
    replaceSearch(app, ctx, {
      score: (c, q) => tokenScore(c.name, q.channelName) * tokenScore(c.description, q.description),
      tagMatch: (channelTags, wanted) => channelTags.includes(wanted),
    }),
}

const PAGE_DEFAULT = 20
const PAGE_MAX = 100

/** The raw values of a query parameter as sent (repeats kept), whatever validation made of them. */
function rawParams(request: FastifyRequest, name: string): string[] {
  return new URLSearchParams(request.url.split('?')[1] ?? '').getAll(name)
}

function setQuery(request: FastifyRequest, name: string, value: unknown): void {
  ;(request.query as Record<string, unknown>)[name] = value
}

const pageSize1To100: Variant = {
  name: 'page-size-1-to-100',
  area: 'channels',
  description: `search and fetch take size 1-${PAGE_MAX} (default ${PAGE_DEFAULT}); size 0 or above ${PAGE_MAX} is refused (400)`,
  reading:
    '§4.2 search: "the defaults and maximum of size: not shown"; fetch: "Defaults and requiredness of … size: not shown"; §8 "maximum page size: not shown"',
  install: (app) => {
    for (const id of ['channels.search', 'items.fetch']) {
      addRouteHook(app, id, 'preValidation', async (request: FastifyRequest) => {
        const given = rawParams(request, 'size')
        if (given.length === 0) return setQuery(request, 'size', String(PAGE_DEFAULT))
        const n = Number(given[given.length - 1])
        if (!/^\d+$/.test(given[given.length - 1]!) || n < 1 || n > PAGE_MAX) {
          throw fail('BAD_REQUEST', `size must be an integer from 1 to ${PAGE_MAX}`)
        }
      })
    }
  },
}

const SUMMARY_LAG_MS = 1500

function summaryAggregateLag(): Variant {
  /**
   * Per channel id: item count and newest publish time, as the aggregation job has seen them. One aggregate per
   * server built (several servers may share this variant in one process): wrapStore makes it and install, which
   * buildServer calls right after without yielding, takes it.
   */
  type Aggregate = Map<string, { count: number; last: number | null }>
  let built: Aggregate | undefined
  const later = (aggregate: Aggregate, channelId: string, delta: number, publishedAt: number | null): void => {
    setTimeout(() => {
      const a = aggregate.get(channelId) ?? { count: 0, last: null }
      a.count = Math.max(0, a.count + delta)
      if (publishedAt !== null && (a.last === null || publishedAt > a.last)) a.last = publishedAt
      aggregate.set(channelId, a)
    }, SUMMARY_LAG_MS).unref()
  }
  return {
    name: 'summary-aggregate-lag',
    area: 'channels',
    description: `channel summary is served from an aggregate a background job updates: publishedItemCount and lastPublishedTime follow a publish or delete ${SUMMARY_LAG_MS} ms later`,
    reading: '§2.4 gives the summary fields and types only; the spec promises no read-after-write consistency for the summary (or anywhere)',
    wrapStore: (store) => {
      const aggregate: Aggregate = new Map()
      built = aggregate
      return overrideStore(store, {
        addItem: (inner) => (item, maxItems) => {
          const evicted = inner.addItem(item, maxItems)
          if (inner.getChannel(item.channelId)) later(aggregate, item.channelId, 1 - evicted.length, item.publishedAt)
          return evicted
        },
        deleteItem: (inner) => (channelId, itemId) => {
          const deleted = inner.deleteItem(channelId, itemId)
          if (deleted) later(aggregate, channelId, -1, null)
          return deleted
        },
        clearItems: (inner) => (channelId) => {
          const n = inner.clearItems(channelId)
          if (n > 0) later(aggregate, channelId, -n, null)
          return n
        },
      })
    },
    install: (app, ctx) => {
      const aggregate: Aggregate = built ?? new Map()
      built = undefined
      rewriteJson(app, 'channels.summary', (body, request) => {
        const channel = channelOf(ctx, request)
        if (!channel) return body
        const a = aggregate.get(channel.channelId) ?? { count: 0, last: null }
        return { ...body, publishedItemCount: a.count, lastPublishedTime: formatUtcTime(a.last ?? channel.createdAt) }
      })
    },
  }
}

export const CHANNEL_VARIANTS: readonly Variant[] = [
  busySharedServer,
  channelNamesLowerAlnum,
  channelNamesWide,
  createAnswers200,
  duplicateCreateIdempotent,
  summaryNowWhenEmpty,
  summarySecondsPadded,
  deletesEmptyBody,
  deletesGoneRefused(),
  searchVariant('search-exact', 'search matches channelName and description only as the whole text, case-sensitive', SEARCH_SILENT, {
    match: (text, wanted) => text === wanted,
    tags: 'all',
    defaultSize: 20,
    maxSize: 1000,
    newestFirst: false,
  }),
  searchVariant('search-prefix', 'search matches channelName and description as a prefix, ignoring case; newest first', SEARCH_SILENT, {
    match: (text, wanted) => text.toLowerCase().startsWith(wanted.toLowerCase()),
    tags: 'all',
    defaultSize: 20,
    maxSize: 1000,
    newestFirst: true,
  }),
  searchVariant(
    'search-tags-any',
    'several tag parameters match channels carrying any of them',
    '§4.2 search: "tag may repeat", and nothing says whether all or any must match',
    {
      match: (text, wanted) => text.toLowerCase().includes(wanted.toLowerCase()),
      tags: 'any',
      defaultSize: 20,
      maxSize: 1000,
      newestFirst: false,
    },
  ),
  searchVariant('search-pages-10-50', 'search pages hold 10 results by default and at most 50 (a larger size is cut to 50)', SEARCH_SILENT, {
    match: (text, wanted) => text.toLowerCase().includes(wanted.toLowerCase()),
    tags: 'all',
    defaultSize: 10,
    maxSize: 50,
    newestFirst: true,
  }),
  // // written blind (docs/detection.md, "Faults written blind"): correct servers by implementers who had not read the suite
  laggingIndex(),
  {
    name: 'owner-fields',
    area: 'channels',
    description:
      'channel creator is `<userId>:<userName>@<domain>/<deviceId>`; userId is the owner for public channels too (get by name, summary) and search results carry it as well',
    reading:
      '§2.3 creator: "user id, then a separator, then a user-name and domain part, then a slash and device id" (the separator is not named); userId is "string or null" and present in get-by-name, its presence elsewhere not excluded; §2.4 summary userId "string or null"',
    install(app, ctx) {
      rewriteJson(app, 'channels.getByName', (body) => ownerFields(ctx, body))
      rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map((c: any) => ownerFields(ctx, c)) }))
      rewriteJson(app, 'channels.summary', (body, request) => {
        const channel = channelOf(ctx, request)
        return channel ? { ...body, userId: channel.ownerId } : body
      })
    },
  },
  {
    name: 'exact-case-names',
    area: 'channels',
    description: 'a channel is addressed by its name exactly as created: `Demo` does not find `demo` (404); names stay unique ignoring case (409)',
    reading: '§2.3 "Constraints on channel names (length, allowed characters): not shown"; nothing says names match ignoring case',
    wrapStore: (store) =>
      overrideStore(store, {
        findPublicChannel: (inner) => (name) => {
          const found = inner.findPublicChannel(name)
          return found && found.name === name ? found : undefined
        },
        findPrivateChannel: (inner) => (ownerId, name) => {
          const found = inner.findPrivateChannel(ownerId, name)
          return found && found.name === name ? found : undefined
        },
      }),
  },
  lifetimeSummary(),
  // written blind, round 4 (docs/detection.md, "Round 4")
  descriptionMax100,
  channelNamesMax32,
  searchFullText,
  pageSize1To100,
  summaryAggregateLag(),
]

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

const r5vSearchDefaultSize10: Variant = {
  name: 'r5v-search-default-size-10',
  area: 'channels',
  description: 'channel search without size answers at most 10 results (total still counts every match)',
  reading: '§4.2 search: "the defaults and maximum of size: not shown"',
  install(app) {
    addRouteHook(app, 'channels.search', 'preValidation', async (request: FastifyRequest) => {
      const q = request.query as Record<string, unknown>
      if (q.size === undefined) q.size = '10'
    })
  },
}

const r5vSummaryUseridOwner: Variant = {
  name: 'r5v-summary-userid-owner',
  area: 'channels',
  description: "the channel summary's userId is the owner's id for public channels too",
  reading: '§2.4 "userId | string or null": nothing ties null to public channels',
  install(app, ctx) {
    rewriteJson(app, 'channels.summary', (body, request) => {
      const { user } = callerOf(request)
      const channel = resolveChannel(ctx, user.userId, (request.params as { channel: string }).channel)
      return { ...body, userId: channel.ownerId }
    })
  },
}

const r5vDeleteEmptyBody: Variant = {
  name: 'r5v-delete-empty-body',
  area: 'channels',
  description: 'the four deletes without a described body answer 200 with an empty body (no content type)',
  reading: '§4.2 "Success of the four delete operations ... is status 200. Success body: not shown"',
  install(app) {
    for (const id of ['channels.delete', 'tags.deleteOne', 'tags.deleteAll', 'items.deleteAll']) {
      addRouteHook(app, id, 'onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        if (reply.statusCode !== 200) return payload
        reply.removeHeader('content-type')
        return ''
      })
    }
  },
}

const r6vSearchNewestFirst: Variant = {
  name: 'r6v-search-newest-first',
  area: 'channels',
  description: 'channel search lists matches newest first (paging follows that order)',
  reading: '§4.2 search: "Matching rules … not shown"; no order of results is stated, only offset (results to skip) and size',
  install(app) {
    wrapHandler(
      app,
      'channels.search',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const q = request.query as { offset: number; size: number }
          const { offset, size } = q
          q.offset = 0
          q.size = 0
          const { total } = (await (original as any).call(this, request, reply)) as { total: number }
          const end = total - offset
          if (end <= 0 || size === 0) return { total, results: [] }
          const start = Math.max(0, end - size)
          q.offset = start
          q.size = end - start
          const page = (await (original as any).call(this, request, reply)) as { total: number; results: unknown[] }
          return { total: page.total, results: [...page.results].reverse() }
        } as Handler,
    )
  },
}

const r8vSearchNewestFirst: Variant = {
  name: 'r8v-search-newest-first',
  area: 'channels',
  description: 'channel search lists matches newest first (offset and size page through that order)',
  reading: '§4.2 search: "Matching rules … and the defaults and maximum of size: not shown"; no order of results is stated.',
  install(app) {
    searchReversed(app)
  },
}

const r8vOffsetWithColon: Variant = {
  name: 'r8v-offset-with-colon',
  area: 'channels',
  description: 'channel creationDate / modifiedDate are written with a colon in the offset: 2015-11-10T19:22:54.123+00:00',
  reading: '§2.3: "with millisecond precision and a numeric UTC offset"; +00:00 is ISO 8601 numeric offset as much as +0000.',
  install(app) {
    const fix = (c: Record<string, unknown>) => {
      for (const k of ['creationDate', 'modifiedDate']) {
        if (typeof c[k] === 'string') c[k] = (c[k] as string).replace(/([+-]\d{2})(\d{2})$/, '$1:$2')
      }
      return c
    }
    rewriteJson(app, 'channels.getByName', (body) => fix(body))
    rewriteJson(app, 'channels.search', (body: { results: Record<string, unknown>[] }) => ({ ...body, results: body.results.map(fix) }))
  },
}

const r9vSearchNewestFirst: Variant = {
  name: 'r9v-search-newest-first',
  area: 'channels',
  description: 'channel search orders its matches newest channel first (a stable order, so pages still do not overlap)',
  reading: '§4.2 search: "Matching rules ... defaults and maximum of size: not shown"; no order of results is stated anywhere.',
  install(app, ctx) {
    replaceSearchRules(app, ctx, { order: (a, b) => b.createdAt - a.createdAt || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0) })
  },
}

/** Channel search results newest first (creation time descending, then name descending), a stable order for paging. */
const r10vSearchNewestFirst: Variant = {
  name: 'r10v-search-newest-first',
  area: 'channels',
  description: 'channel search lists matches newest first (the reference order reversed), a stable order, so pages still do not overlap',
  reading: '§4.2 search: "Matching rules for channelName and description, and the defaults and maximum of size: not shown"; no order of results is stated.',
  install(app) {
    searchReversed(app)
  },
}

const r11vSearchNewestFirst: Variant = {
  name: 'r11v-search-newest-first',
  area: 'channels',
  description: 'channel search answers the matches newest first (by creation time, descending); offset and size page through that order',
  reading:
    '§4.2 search: "offset is the number of results to skip; size is the number of results requested. Matching rules …: not shown." No order of the results is stated.',
  install(app, ctx) {
    replaceSearchRules(app, ctx, { order: (a, b) => b.createdAt - a.createdAt || (a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0) })
  },
}

/** Channel search newest first (the reference: oldest first). */
const r12vSearchNewestFirst: Variant = {
  name: 'r12v-search-newest-first',
  area: 'channels',
  description: 'channel search orders its matches newest first (by creation time, then name), and pages over that order',
  reading: '§4.2 Search public channels gives offset ("the number of results to skip") and size but states no order of results; "Matching rules … not shown".',
  install(app, ctx) {
    replaceSearchRules(app, ctx, { order: (a, b) => b.createdAt - a.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) })
  },
}

/**
 * modifiedDate moves on every change to what the channel holds: publishing or deleting items and subscribing or
 * unsubscribing, besides the tag changes that move it in the reference.
 */
const modifiedOnActivity: Variant = {
  name: 'r13bv-channels-modified-on-activity',
  area: 'channels',
  description: 'modifiedDate moves whenever the channel changes: a publish, an item deletion, a subscribe or an unsubscribe (as well as tag changes)',
  reading:
    '§2.3 "modifiedDate | timestamp | same format": what counts as a modification is not stated; a channel whose items or subscribers changed may well count as modified. It is never before creationDate.',
  install(_app, ctx: ServerContext) {
    const touched = new Map<string, number>()
    const touch = (channelId: string, at: number) => touched.set(channelId, Math.max(touched.get(channelId) ?? 0, at))
    const seen = <T extends Readonly<ChannelRecord> | undefined>(c: T): T => {
      const at = c ? touched.get(c.channelId) : undefined
      return (c && at !== undefined && at > c.modifiedAt ? { ...c, modifiedAt: at } : c) as T
    }
    ctx.store = overrideStore(ctx.store, {
      addItem: (inner) => (item, maxItems) => {
        const evicted = inner.addItem(item, maxItems)
        touch(item.channelId, item.publishedAt)
        return evicted
      },
      deleteItem: (inner) => (channelId, itemId) => {
        const deleted = inner.deleteItem(channelId, itemId)
        if (deleted) touch(channelId, ctx.clock.now())
        return deleted
      },
      clearItems: (inner) => (channelId) => {
        const n = inner.clearItems(channelId)
        if (n > 0) touch(channelId, ctx.clock.now())
        return n
      },
      addSubscription: (inner) => (subscription) => {
        inner.addSubscription(subscription)
        touch(subscription.channelId, subscription.createdAt)
      },
      removeSubscriptions: (inner) => (channelId, userId) => {
        const n = inner.removeSubscriptions(channelId, userId)
        if (n > 0) touch(channelId, ctx.clock.now())
        return n
      },
      deleteChannel: (inner) => (channelId) => {
        touched.delete(channelId)
        return inner.deleteChannel(channelId)
      },
      getChannel: (inner) => (channelId) => seen(inner.getChannel(channelId)),
      findPublicChannel: (inner) => (name) => seen(inner.findPublicChannel(name)),
      findPrivateChannel: (inner) => (ownerId, name) => seen(inner.findPrivateChannel(ownerId, name)),
      listPublicChannels: (inner) => () => inner.listPublicChannels().map((c) => seen(c)),
    })
  },
}

export const BLIND_CHANNEL_VARIANTS: readonly Variant[] = [
  r5vSearchDefaultSize10,
  r5vSummaryUseridOwner,
  r5vDeleteEmptyBody,
  r6vSearchNewestFirst,
  r8vSearchNewestFirst,
  r8vOffsetWithColon,
  r9vSearchNewestFirst,
  r10vSearchNewestFirst,
  r11vSearchNewestFirst,
  r12vSearchNewestFirst,
  modifiedOnActivity,
]
