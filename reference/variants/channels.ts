import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import { hashPassword, newId } from '../ids'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import type { ChannelRecord, UserRecord } from '../model'
import { formatUtcTime } from '../time'
import { channelSearchView } from '../views'
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

const SEARCH_SILENT = '§4.2 search: "Matching rules for channelName and description, and the defaults and maximum of size: not shown"'

export const CHANNEL_VARIANTS: readonly Variant[] = [
  busySharedServer,
  channelNamesLowerAlnum,
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
]
