import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { callerOf, deviceIdOf, issueToken } from '../auth'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { hashPassword, safeEqual } from '../ids'
import type { UserRecord } from '../model'
import { MAX_OFFSET, MAX_PAGE_SIZE } from '../schemas'
import { userView } from '../views'

/** User service (§4.1): sign-in, list all users, search users. */

const SIGN_IN_PARAMS = ['grant_type', 'username', 'password', 'client_id', 'scope'] as const
type SignInParams = Partial<Record<(typeof SIGN_IN_PARAMS)[number], string>>

/** Properties a user query may filter and sort on; userIdentifier is the user id. */
export const USER_PROPERTIES = ['userName', 'firstName', 'lastName', 'email', 'userRealm', 'userStatus', 'userIdentifier'] as const
export type UserProperty = (typeof USER_PROPERTIES)[number]

const userQuerySchema = {
  type: 'object',
  required: ['q'],
  properties: {
    q: { type: 'string' },
    take: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 100 },
    skip: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
    sort: { type: 'string' },
  },
} as const

interface UserQuery {
  q: string
  take: number
  skip: number
  sort?: string
}

const userRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, application, clock } = ctx

  // Sign-in takes a form body (§4.1); only this plugin accepts one, elsewhere a form body is a 415.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const form: Record<string, string | string[]> = {}
    for (const [k, v] of new URLSearchParams(body as string)) {
      const prior = form[k]
      form[k] = prior === undefined ? v : [...(Array.isArray(prior) ? prior : [prior]), v]
    }
    done(null, form)
  })

  app.post('/user/session', { config: { id: 'users.signIn', auth: 'none' } }, async (request, reply) => {
    const deviceId = deviceIdOf(request)
    const params = signInParams(request)
    const absent = SIGN_IN_PARAMS.filter((p) => p !== 'scope' && !params[p])
    if (absent.length > 0) throw fail('BAD_REQUEST', `missing parameter(s): ${absent.join(', ')}`)
    if (params.grant_type !== 'password') throw fail('UNSUPPORTED_GRANT_TYPE')
    // The spec shows only scope=public; an absent scope means public, any other value is refused.
    if (params.scope !== undefined && params.scope !== 'public') throw fail('INVALID_SCOPE')
    if (params.client_id !== application.clientId) throw fail('INVALID_CLIENT')
    const user = store.findUserByName(application.clientId, params.username!)
    // Hash even for an unknown user name, so the answer takes the same time either way.
    const hash = hashPassword(params.password!, user?.passwordSalt ?? '')
    if (!user || !safeEqual(hash, user.passwordHash)) throw fail('INVALID_CREDENTIALS')

    store.registerDevice(user.userId, deviceId, clock.now())
    const accessToken = issueToken(ctx, 'USER', user.userId, deviceId)
    reply.header('cache-control', 'no-store')
    return {
      token_type: 'USER',
      expires_in: ctx.tokenLifetimeSeconds,
      access_token: accessToken,
      user: userView(user, false),
    }
  })

  app.get('/user/all', { config: { id: 'users.list', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    return store.listUsers(user.clientId).map((u) => userView(u, true))
  })

  app.get<{ Querystring: UserQuery }>(
    '/user/query',
    { config: { id: 'users.query', auth: 'user' }, schema: { querystring: userQuerySchema } },
    async (request) => {
      const { user } = callerOf(request)
      const { q, take, skip, sort } = request.query
      const [property, value] = splitPair(q, 'q must be <property>:<value>')
      if (value === '') throw fail('INVALID_USER_QUERY', 'q must be <property>:<value> with a non-empty value')
      const matches = matcher(value)
      let users = store.listUsers(user.clientId).filter((u) => matches(userValue(u, property)))
      if (sort !== undefined) users = sorted(users, sort)
      return users.slice(skip, skip + take).map((u) => userView(u, true))
    },
  )
}

export default userRoutes

/** Parameters from the query string and the body (a form or a JSON object); the body wins. */
function signInParams(request: FastifyRequest): SignInParams {
  const body: unknown = request.body
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw fail('BAD_REQUEST', 'the sign-in body must be a form or a JSON object')
  }
  const params: SignInParams = {}
  for (const source of [request.query as Record<string, unknown>, body as Record<string, unknown> | undefined]) {
    for (const name of SIGN_IN_PARAMS) {
      const value = source?.[name]
      if (value === undefined) continue
      if (typeof value !== 'string') throw fail('BAD_REQUEST', `${name} must be given once, as a string`)
      params[name] = value
    }
  }
  return params
}

/** `<property>:<rest>` with a known property (names match ignoring case), else undefined; faults and variants read q so too. */
export function userQueryPair(text: string): { property: UserProperty; value: string } | undefined {
  const colon = text.indexOf(':')
  if (colon < 0) return undefined
  const name = text.slice(0, colon).toLowerCase()
  const property = USER_PROPERTIES.find((p) => p.toLowerCase() === name)
  return property ? { property, value: text.slice(colon + 1) } : undefined
}

/** `<property>:<rest>` with a known property (names match ignoring case); 400 otherwise. */
function splitPair(text: string, usage: string): [UserProperty, string] {
  const colon = text.indexOf(':')
  if (colon < 0) throw fail('INVALID_USER_QUERY', usage)
  const pair = userQueryPair(text)
  if (!pair) throw fail('INVALID_USER_QUERY', `unknown property "${text.slice(0, colon)}"; one of ${USER_PROPERTIES.join(', ')}`)
  return [pair.property, pair.value]
}

/** A user's value of a query property, as the search matches it. */
export function userValue(user: Readonly<UserRecord>, property: UserProperty): string {
  return property === 'userIdentifier' ? user.userId : user[property]
}

/**
 * Case-insensitive equality; a leading and/or trailing `*` makes it a suffix, prefix or contains match
 * (`*` alone matches everything). An inner `*` is an ordinary character.
 */
function matcher(pattern: string): (value: string) => boolean {
  return wildcardMatcher(pattern.toLowerCase(), (v) => v.toLowerCase())
}

/**
 * Equality with `pattern` as given, or with a leading and/or trailing `*` a suffix, prefix or contains match; each
 * value is compared as `prepare` makes it (the search folds case on both sides; a variant or a fault may not).
 */
export function wildcardMatcher(pattern: string, prepare: (value: string) => string = (v) => v): (value: string) => boolean {
  let core = pattern
  const leading = core.startsWith('*')
  if (leading) core = core.slice(1)
  const trailing = core.endsWith('*')
  if (trailing) core = core.slice(0, -1)
  if (leading && trailing) return (v) => prepare(v).includes(core)
  if (leading) return (v) => prepare(v).endsWith(core)
  if (trailing) return (v) => prepare(v).startsWith(core)
  return (v) => prepare(v) === core
}

/** `sort=<property>[:asc|:desc]`, ignoring case; ties keep creation order. */
function sorted(users: readonly Readonly<UserRecord>[], sort: string): Readonly<UserRecord>[] {
  const [property, direction] = sort.includes(':')
    ? splitPair(sort, 'sort must be <property>:asc|desc')
    : splitPair(`${sort}:asc`, 'sort must be <property>:asc|desc')
  const sign = { asc: 1, desc: -1 }[direction.toLowerCase()]
  if (sign === undefined) throw fail('INVALID_USER_QUERY', 'sort direction must be asc or desc')
  const key = (u: Readonly<UserRecord>) => userValue(u, property).toLowerCase()
  return [...users].sort((a, b) => (key(a) < key(b) ? -sign : key(a) > key(b) ? sign : 0))
}
