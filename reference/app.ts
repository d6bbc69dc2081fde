import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { authenticate } from './auth'
import { systemClock, type Clock, type ServerContext } from './context'
import { resolveFaults, type Fault } from './faults'
import { clientErrorHandler, errorHandler, notFoundHandler } from './http-errors'
import { hashPassword, newId } from './ids'
import { openApiRoute } from './openapi'
import { RecordingPushGateway, type PushGateway } from './push-gateway'
import channelRoutes from './routes/channels'
import itemRoutes from './routes/items'
import messageRoutes from './routes/messages'
import pushRoutes from './routes/push'
import registrationRoutes from './routes/registration'
import subscriptionRoutes from './routes/subscriptions'
import tagRoutes from './routes/tags'
import userRoutes from './routes/users'
import { CHANNEL_NAMES, validatorCompiler } from './schemas'
import { loadSeed, type Seed } from './seed'
import { MemoryStore, type Store } from './store'
import { resolveVariants, type Variant } from './variants'

export const DEFAULT_USER_API_PATH = '/mobile/api/com.vendor.server'
export const DEFAULT_MESSAGE_API_PATH = '/message/api/v2'
/** Well above the 2 MiB maxPayloadSize, so an over-limit publish reaches the handler and gets its own 413. */
export const BODY_LIMIT = 8 * 1024 * 1024

export interface BuildServerOptions {
  userApiPath?: string
  messageApiPath?: string
  /** Application and accounts to start with; default: those of the repo's .env.example (see seed.ts). */
  seed?: Seed
  clock?: Clock
  pushGateway?: PushGateway
  /** Seconds; default 7200. */
  tokenLifetimeSeconds?: number
  /** Names from the fault catalogue (faults/index.ts; an unknown name throws), or uncatalogued Fault objects. */
  faults?: readonly (string | Fault)[]
  /** Names from the variant catalogue (variants/index.ts): correct behaviours other than the reference's own. */
  variants?: readonly (string | Variant)[]
  /** Fastify's logger; off by default. Logged requests show the path only, never the query or headers. */
  logger?: FastifyServerOptions['logger']
  /**
   * PEM key and certificate: serve HTTPS instead of HTTP (the suite's self-tests of CA_FILE, client
   * certificates and proxies). With `ca` and `requestCert`, only clients with a certificate from `ca` get in.
   */
  https?: { key: string; cert: string; ca?: string; requestCert?: boolean }
}

/** Builds the reference server without listening; call `listen` (or `inject`) on the result. */
export function buildServer(options: BuildServerOptions = {}): FastifyInstance {
  const faults = resolveFaults(options.faults ?? [])
  // Variants first: a fault then breaks the variant server as it would break any other correct server.
  const changes: readonly (Fault | Variant)[] = [...resolveVariants(options.variants ?? []), ...faults]
  const clock = options.clock ?? systemClock
  // A variant may change the data the server starts with (faults never do: they break behaviour, not data).
  const seed = changes.reduce((s, change) => ('wrapSeed' in change && change.wrapSeed ? change.wrapSeed(s) : s), options.seed ?? loadSeed())

  let store: Store = new MemoryStore()
  seedStore(store, seed, clock.now())
  let gateway: PushGateway = options.pushGateway ?? new RecordingPushGateway()
  for (const change of changes) {
    store = change.wrapStore?.(store) ?? store
    gateway = change.wrapGateway?.(gateway) ?? gateway
  }
  const ctx: ServerContext = {
    store,
    application: seed.application,
    clock,
    gateway,
    tokenLifetimeSeconds: options.tokenLifetimeSeconds ?? 7200,
    channelNames: CHANNEL_NAMES,
  }

  const app = Fastify({
    // The instance's type stays the HTTP one: no route or hook here depends on the transport.
    ...(options.https ? ({ https: options.https } as object) : {}),
    logger: withoutSecrets(options.logger ?? false),
    bodyLimit: BODY_LIMIT,
    // A `<userId>#<name>` reference is at most 83 characters; longer segments still reach the handlers so
    // they are refused as bad names (400) rather than as unknown routes.
    routerOptions: { maxParamLength: 2000, ignoreTrailingSlash: true },
    // Errors Fastify raises before routing (bad percent-encoding, over-long path segments).
    frameworkErrors: errorHandler,
    clientErrorHandler,
  })
  app.decorate('reference', ctx)
  app.decorateRequest('caller', null)
  app.setValidatorCompiler(validatorCompiler)
  setBodyParsers(app)
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler(notFoundHandler)
  app.addHook('onRequest', authenticate(ctx))

  // Variants and faults install their hooks before the routes exist, so onRoute hooks see every route.
  for (const change of changes) change.install?.(app, ctx)

  const userPrefix = normalizePrefix(options.userApiPath ?? DEFAULT_USER_API_PATH)
  const messagePrefix = normalizePrefix(options.messageApiPath ?? DEFAULT_MESSAGE_API_PATH)
  for (const plugin of [userRoutes, registrationRoutes]) app.register(plugin, { prefix: userPrefix, ctx })
  for (const plugin of [channelRoutes, subscriptionRoutes, tagRoutes, itemRoutes, messageRoutes, pushRoutes]) {
    app.register(plugin, { prefix: messagePrefix, ctx })
  }
  openApiRoute(app, { userApiPath: userPrefix, messageApiPath: messagePrefix })
  return app
}

/**
 * Bodies are JSON (and, for sign-in only, a form: see routes/users.ts). Fastify's text/plain parser is
 * dropped, so a text body is a 415 rather than a string the schemas then refuse.
 *
 * Clients commonly send `Content-Type: application/json` on a PUT or DELETE without a body; that is read
 * as no body rather than refused. Everything else goes to Fastify's own (prototype-poisoning-safe) parser.
 */
function setBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser(['application/json', 'text/plain'])
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') done(null, undefined)
    else parseJson(request, body as string, done)
  })
}

function seedStore(store: Store, seed: Seed, now: number): void {
  for (const u of seed.users) {
    const salt = newId()
    const added = store.addUser({
      userId: u.userId,
      clientId: seed.application.clientId,
      userName: u.userName,
      passwordHash: hashPassword(u.password, salt),
      passwordSalt: salt,
      firstName: u.firstName,
      lastName: u.lastName,
      email: u.email,
      userRealm: u.userRealm,
      userStatus: 'ACTIVE',
      roles: ['USER'],
      userAccountData: {},
      createdAt: now,
    })
    if (!added) throw new Error(`seed: user name ${u.userName} appears twice`)
    for (const deviceId of u.devices ?? []) store.registerDevice(u.userId, deviceId, now)
  }
}

/**
 * Fastify logs each request's URL; a sign-in may carry the password in its query string, so logged
 * requests keep only method and path. Bodies and headers are never logged.
 */
function withoutSecrets(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (!logger) return false
  const base = logger === true ? {} : logger
  return {
    ...base,
    serializers: {
      ...base.serializers,
      req: (request: { method: string; url: string }) => ({ method: request.method, path: request.url.split('?')[0] }),
    },
  }
}

function normalizePrefix(path: string): string {
  const trimmed = path.trim().replace(/\/+$/, '')
  if (trimmed === '') return '' // '/': the API at the root
  if (!/^\/[\w.~%!$&'()*+,;=:@/-]*$/.test(trimmed)) throw new Error(`invalid API path: ${JSON.stringify(path)}`)
  return trimmed
}
