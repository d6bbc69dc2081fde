import { AsyncLocalStorage } from 'node:async_hooks'
import { createHmac, randomUUID } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { callerOf } from '../auth'
import { resolveChannel } from '../channel-address'
import type { ServerContext } from '../context'
import { wrapHandler } from '../faults/kit'
import type { ChannelRecord } from '../model'
import { MAX_PAGE_SIZE } from '../schemas'
import { MemoryStore, type Store } from '../store'
import { channelSearchView } from '../views'
import type { Variant } from './types'

/**
 * Realities and choices of deployments that touch every area: reads served by a replica that lags behind, a
 * gateway in front, strict routing. And pieces several variant files share.
 */

/** Pieces several variant files share. */

/** A route handler as Fastify's route options hold it. */
export type Handler = RouteOptions['handler']
type App = Parameters<NonNullable<Variant['install']>>[0]

/**
 * Puts `handler` in front of a route's handler; it may answer itself or pass on to `next`, so the route
 * keeps what other variants did to it.
 */
export function before(app: App, id: string, handler: (request: FastifyRequest, next: () => Promise<unknown>) => unknown): void {
  wrapHandler(
    app,
    id,
    (original) =>
      async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        return handler(request, async () => (original as any).call(this, request, reply))
      } as Handler,
  )
}

/** The channel a request's path names, or undefined where another variant's server would not find it now. */
export function channelOf(ctx: ServerContext, request: FastifyRequest): Readonly<ChannelRecord> | undefined {
  try {
    return resolveChannel(ctx, callerOf(request).user.userId, (request.params as { channel: string }).channel)
  } catch {
    return undefined
  }
}

/** Lowercase word tokens, split on anything that is not a letter or a digit (a standard full-text analyzer). */
export function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t !== '')
}

interface SearchQuery {
  channelName?: string
  description?: string
  tag?: string[]
  offset: number
  size: number
}

/** The search route computed with other matching and ordering rules; paging as validated by the route. */
export function replaceSearch(
  app: App,
  ctx: ServerContext,
  rules: {
    /** A score > 0 when the channel matches the query (tags aside); higher ranks first. */
    score: (channel: Readonly<ChannelRecord>, query: SearchQuery) => number
    tagMatch: (channelTags: readonly string[], wanted: string) => boolean
  },
): void {
  wrapHandler(
    app,
    'channels.search',
    () =>
      async function search(request: FastifyRequest) {
        const query = request.query as SearchQuery
        const wanted = query.tag ?? []
        const scored = ctx.store
          .listPublicChannels()
          .filter((c) => wanted.every((t) => rules.tagMatch(c.tags, t)))
          .map((c) => ({ c, score: rules.score(c, query) }))
          .filter((s) => s.score > 0)
          .sort((a, b) => b.score - a.score || a.c.createdAt - b.c.createdAt)
        return {
          total: scored.length,
          results: scored.slice(query.offset, query.offset + query.size).map((s) => channelSearchView(ctx, s.c)),
        }
      } as Handler,
  )
}

/** Runs a route's original handler with Fastify's `this`, for a variant that wraps it. */
export const callOriginal = (original: unknown, self: unknown, request: FastifyRequest, reply: FastifyReply): unknown =>
  (original as (this: unknown, rq: FastifyRequest, rp: FastifyReply) => unknown).call(self, request, reply)

/** Lower case, as names and texts are compared. */
export const lower = (s: string) => s.toLowerCase()

/** Channel search answering the reference's matches in reverse order (newest first), paged over that order. */
export function searchReversed(app: App): void {
  wrapHandler(
    app,
    'channels.search',
    (original) =>
      async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        const query = request.query as { offset: number; size: number }
        const { offset, size } = query
        request.query = { ...query, offset: 0, size: MAX_PAGE_SIZE }
        const all = (await callOriginal(original, this, request, reply)) as { total: number; results: unknown[] }
        return { total: all.total, results: [...all.results].reverse().slice(offset, offset + size) }
      } as Handler,
  )
}

/**
 * Rewrites every JSON error answer (status 400 and above): `rewrite` gets the parsed body and the reply (to set a
 * header) and returns the body to send; an answer that is not JSON passes unchanged.
 */
export function rewriteErrorBodies(app: App, rewrite: (body: any, reply: FastifyReply) => unknown): void {
  app.addHook('onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode < 400 || typeof payload !== 'string') return payload
    let body: unknown
    try {
      body = JSON.parse(payload)
    } catch {
      return payload
    }
    return JSON.stringify(rewrite(body, reply))
  })
}

/** The reference's own matching: substring ignoring case. */
export const substring = (text: string, wanted: string | undefined): boolean => wanted === undefined || text.toLowerCase().includes(wanted.toLowerCase())

/** How long a write takes to reach the replica GETs read from. */
export const REPLICA_LAG_MS = 400

/** Channel data is replicated; users, devices and tokens are not (a sign-in must work at once). */
const REPLICATED_WRITES = [
  'addChannel',
  'deleteChannel',
  'addTags',
  'removeTag',
  'clearTags',
  'addSubscription',
  'removeSubscriptions',
  'addItem',
  'deleteItem',
  'clearItems',
  'addMessage',
] as const satisfies readonly (keyof Store)[]

const REPLICATED_READS = [
  'getChannel',
  'findPublicChannel',
  'findPrivateChannel',
  'listPublicChannels',
  'findSubscription',
  'listSubscriptions',
  'getItem',
  'listItems',
  'getMessage',
] as const satisfies readonly (keyof Store)[]

/**
 * Actions run `lagMs` after they were added, strictly in the order they were added. (One timer per action does
 * not keep that order: timers of different lengths set in one turn of a busy event loop can fire out of order,
 * and a replica that got a channel's first item before the channel itself lost that item for good.)
 */
export class InOrderLater {
  private readonly queue: { at: number; act: () => void }[] = []
  private timer: NodeJS.Timeout | undefined

  constructor(private readonly lagMs: number) {}

  add(act: () => void): void {
    // Never before the action added last: the queue stays in time order whatever the clock does.
    const at = Math.max(Date.now() + this.lagMs, this.queue.at(-1)?.at ?? 0)
    this.queue.push({ at, act })
    if (!this.timer) this.wake()
  }

  private wake(): void {
    const head = this.queue[0]
    this.timer = head ? setTimeout(() => this.due(), Math.max(0, head.at - Date.now())).unref() : undefined
  }

  private due(): void {
    try {
      while (this.queue.length > 0 && this.queue[0]!.at <= Date.now()) this.queue.shift()!.act()
    } finally {
      this.wake()
    }
  }
}

/**
 * A primary that takes the writes and a replica that receives each one REPLICA_LAG_MS later, in order.
 * A GET is answered inside the replica's context from its first hook on, so what it reads is the replica; every
 * other method (the writes' own look-ups included) reads the primary, as a write path on a real primary does.
 */
function laggingReads(): Variant {
  const replica = new AsyncLocalStorage<true>()
  return {
    name: 'lagging-reads',
    area: 'http',
    description: `GETs read a replica that receives each write of channel data ${REPLICA_LAG_MS} ms after it was made`,
    reading: 'the spec promises no read-after-write consistency anywhere; a read replica or a cache in front of the reads is a common deployment',
    wrapStore: (primary) => {
      const copy = new MemoryStore()
      const replication = new InOrderLater(REPLICA_LAG_MS)
      const writes = new Map<PropertyKey, (...args: unknown[]) => unknown>()
      for (const name of REPLICATED_WRITES) {
        const write = (primary[name] as (...args: unknown[]) => unknown).bind(primary)
        writes.set(name, (...args: unknown[]) => {
          // The replica gets its own copies: the primary's records are changed in place by later writes.
          const later = structuredClone(args)
          replication.add(() => (copy[name] as (...a: unknown[]) => unknown)(...later))
          return write(...args)
        })
      }
      const reads = new Set<PropertyKey>(REPLICATED_READS)
      return new Proxy(primary, {
        get(target, prop, receiver) {
          const write = writes.get(prop)
          if (write) return write
          const from = reads.has(prop) && replica.getStore() ? copy : target
          const value = Reflect.get(from, prop, from === target ? receiver : from)
          return typeof value === 'function' ? value.bind(from) : value
        },
      })
    },
    install: (app) => {
      // From the request's first hook on: every layer of a GET reads the replica, a handler another variant put in
      // place of the route's own included (wrapping the route's handler reached only the handler it found).
      app.addHook('onRequest', (request, _reply, done) => {
        if (request.method === 'GET' || request.method === 'HEAD') replica.run(true, done)
        else done()
      })
    },
  }
}

// Written blind (docs/detection.md, "Faults written blind"): correct servers by implementers who had not read the suite.

const edgeGateway: Variant = {
  name: 'edge-gateway',
  area: 'http',
  description:
    'a gateway in front: Content-Type `application/json;charset=UTF-8`, X-Request-Id and Via headers, weak ETags on GET with 304 for a matching If-None-Match, gzip when the client accepts it',
  reading:
    '§4 "Request and response bodies are JSON" (a charset parameter is still JSON); ETags, conditional requests, compression and extra headers are HTTP behaviour the spec is silent on',
  install(app) {
    app.addHook('onSend', async (request, reply, payload) => {
      reply.header('x-request-id', randomUUID())
      reply.header('via', '1.1 edge-gateway')
      const type = reply.getHeader('content-type')
      if (typeof type !== 'string' || !type.startsWith('application/json') || typeof payload !== 'string') return payload
      reply.header('content-type', 'application/json;charset=UTF-8')
      if (request.method === 'GET' && reply.statusCode === 200) {
        const etag = `W/"${createHmac('sha1', 'etag').update(payload).digest('hex')}"`
        reply.header('etag', etag)
        if (request.headers['if-none-match'] === etag) {
          reply.code(304)
          return ''
        }
      }
      reply.header('vary', 'Accept-Encoding')
      if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? '')) && payload.length > 0) {
        reply.header('content-encoding', 'gzip')
        return gzipSync(payload)
      }
      return payload
    })
  },
}

const strictRouting: Variant = {
  name: 'strict-routing',
  area: 'http',
  description: 'paths are matched exactly: a trailing slash is a 404; HEAD and OPTIONS answer 405 with an Allow header',
  reading: 'the spec gives every path without a trailing slash and names only GET, POST, PUT and DELETE; HEAD, OPTIONS and trailing slashes are not mentioned',
  install(app) {
    app.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?')[0]!
      if (request.method === 'HEAD' || request.method === 'OPTIONS') {
        await reply.code(405).header('allow', 'GET, POST, PUT, DELETE').send({ code: 405, message: 'method not allowed' })
        return reply
      }
      if (path.length > 1 && path.endsWith('/')) {
        await reply.code(404).send({ code: 404, message: `no route ${request.method} ${path}` })
        return reply
      }
    })
  },
}

/**
 * What stands in front of the whole server. index.ts lists these last, so that switched on with other variants
 * their server-wide hooks run after every other variant's, as a gateway's would: edge-gateway's onSend then
 * compresses the body after refusals-vary's onSend has rewritten it, not before.
 */
export const EDGE_VARIANTS: readonly Variant[] = [edgeGateway, strictRouting]
/** How often the coarse clock of `clock-ticks-16ms` moves (the default timer of some operating systems). */
export const CLOCK_TICK_MS = 16

/** A server whose clock moves in ticks: every time it stamps (creation, items, lastPublishedTime) is a multiple of the tick. */
const clockTicks: Variant = {
  name: 'clock-ticks-16ms',
  area: 'http',
  description: `the server's clock moves in ${CLOCK_TICK_MS} ms ticks: times still show milliseconds, but two publishes (or a publish and a read) within a tick share one time`,
  reading:
    '§2.3 states millisecond precision for how channel timestamps are written, not the resolution of the clock behind them; §2.4 and §2.6 state no precision at all',
  install: (_app, ctx) => {
    const inner = ctx.clock
    ctx.clock = { ...inner, now: () => Math.floor(inner.now() / CLOCK_TICK_MS) * CLOCK_TICK_MS }
  },
}

export const COMMON_VARIANTS: readonly Variant[] = [laggingReads(), clockTicks]
