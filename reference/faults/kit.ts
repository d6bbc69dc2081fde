import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import type { ServerContext } from '../context'
import type { ChannelRecord } from '../model'
import type { Store } from '../store'
import { channelSearchView } from '../views'

/**
 * Tools for writing faults from outside the normal code. Each attaches to the server at build time, and
 * only to what it breaks: a route hook is added to its one route (found by `config.id`), a store method is
 * replaced on a wrapper. With no fault switched on none of this is called, so the clean request path
 * carries no trace of faults.
 */

type RouteMutator = (route: RouteOptions) => void

/**
 * Edits the options of the route whose `config.id` is `id` as it is registered (schema, handler, hooks).
 * A GET route's automatic HEAD twin is registered from the unedited options and edited the same way.
 */
export function onRoute(app: FastifyInstance, id: string, mutate: RouteMutator): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.id === id) mutate(route)
  })
}

function appendHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  return existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook]
}

/**
 * Rewrites the JSON body a route answers. `rewrite` gets the parsed body (and the exchange, to look at or
 * to change the status) and returns the body to send; error bodies are rewritten only if `errors` is set.
 */
export function rewriteJson(
  app: FastifyInstance,
  id: string,
  rewrite: (body: any, request: FastifyRequest, reply: FastifyReply) => unknown,
  { errors = false }: { errors?: boolean } = {},
): void {
  onRoute(app, id, (route) => {
    route.onSend = appendHook(route.onSend, async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (typeof payload !== 'string' || (!errors && reply.statusCode >= 400)) return payload
      return JSON.stringify(rewrite(JSON.parse(payload), request, reply))
    }) as RouteOptions['onSend']
  })
}

/** Replaces a route's handler by one built from the original. */
export function wrapHandler(app: FastifyInstance, id: string, wrap: (original: RouteOptions['handler']) => RouteOptions['handler']): void {
  onRoute(app, id, (route) => {
    route.handler = wrap(route.handler)
  })
}

/**
 * Puts `handler` around a route's handler: it gets the request and reply and `next`, which runs the route's
 * handler as it stood (with Fastify's `this`) at the moment it is called, and answers what the route answers.
 */
export function aroundHandler(app: FastifyInstance, id: string, handler: (request: FastifyRequest, reply: FastifyReply, next: () => unknown) => unknown): void {
  wrapHandler(
    app,
    id,
    (original) =>
      function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
        return handler(request, reply, () => (original as (this: unknown, rq: FastifyRequest, rp: FastifyReply) => unknown).call(this, request, reply))
      } as RouteOptions['handler'],
  )
}

/** A store whose listed methods are replaced; each replacement gets the original store to delegate to. */
export function overrideStore(store: Store, overrides: { [K in keyof Store]?: (inner: Store) => Store[K] }): Store {
  const replaced = new Map<PropertyKey, unknown>()
  for (const [name, make] of Object.entries(overrides)) replaced.set(name, (make as (s: Store) => unknown)(store))
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (replaced.has(prop)) return replaced.get(prop)
      const value = Reflect.get(target, prop, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

type HookName = 'onRequest' | 'preValidation' | 'preHandler' | 'onSend'

/** Adds a hook of the given kind to the route whose `config.id` is `id`, after the route's own hooks. */
export function addRouteHook(app: FastifyInstance, id: string, name: HookName, hook: (...args: any[]) => unknown): void {
  onRoute(app, id, (route) => {
    const options = route as unknown as Record<HookName, unknown>
    options[name] = appendHook(options[name], hook)
  })
}

/** Like `rewriteJson` for error answers only: `rewrite` may change the status (reply.code) and the body. */
export function rewriteError(app: FastifyInstance, id: string, rewrite: (body: any, request: FastifyRequest, reply: FastifyReply) => unknown): void {
  rewriteJson(app, id, (body, request, reply) => (reply.statusCode >= 400 ? rewrite(body, request, reply) : body), { errors: true })
}

/** The parts of the channel search a server built over the reference's may compute otherwise (each defaults to the reference's). */
export interface SearchRules {
  /** The text a `channelName` query is looked for in (ignoring case). */
  nameOf?(channel: Readonly<ChannelRecord>): string
  /** The text a `description` query is looked for in (ignoring case). */
  descriptionOf?(channel: Readonly<ChannelRecord>): string
  /** Whether the channel carries a wanted tag. */
  hasTag?(channel: Readonly<ChannelRecord>, tag: string): boolean
  /** The order of the matches before paging: by default creation order, then name. */
  order?(a: Readonly<ChannelRecord>, b: Readonly<ChannelRecord>): number
}

const lowerName = (c: Readonly<ChannelRecord>) => c.name.toLowerCase()
const byCreation = (a: Readonly<ChannelRecord>, b: Readonly<ChannelRecord>) =>
  a.createdAt - b.createdAt || (lowerName(a) < lowerName(b) ? -1 : lowerName(a) > lowerName(b) ? 1 : 0)

/** Replaces the channel search by the reference's own computation (routes/channels.ts) with some of its rules replaced. */
export function replaceSearchRules(app: FastifyInstance, ctx: ServerContext, rules: SearchRules): void {
  const { nameOf = (c) => c.name, descriptionOf = (c) => c.description, hasTag = (c, t) => c.tags.includes(t), order = byCreation } = rules
  wrapHandler(
    app,
    'channels.search',
    () =>
      async function (request: FastifyRequest) {
        const { channelName, description, tag = [], offset, size } = request.query as SearchQuery
        const nameText = channelName?.toLowerCase()
        const descriptionText = description?.toLowerCase()
        const matches = ctx.store
          .listPublicChannels()
          .filter(
            (c) =>
              (nameText === undefined || nameOf(c).toLowerCase().includes(nameText)) &&
              (descriptionText === undefined || descriptionOf(c).toLowerCase().includes(descriptionText)) &&
              tag.every((t) => hasTag(c, t)),
          )
          .sort(order)
        return { total: matches.length, results: matches.slice(offset, offset + size).map((c) => channelSearchView(ctx, c)) }
      } as RouteOptions['handler'],
  )
}

/** The channel search's query as its schema leaves it (offset and size defaulted). */
interface SearchQuery {
  channelName?: string
  description?: string
  tag?: string[]
  offset: number
  size: number
}
