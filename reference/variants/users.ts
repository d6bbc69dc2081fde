import { AsyncLocalStorage } from 'node:async_hooks'
import { createHmac, randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { addRouteHook, overrideStore, rewriteJson, wrapHandler, aroundHandler } from '../faults/kit'
import { newId } from '../ids'
import type { UserRecord } from '../model'
import { type Handler, lower, tokens } from './common'
import type { Variant } from './types'
import { fail } from '../errors'
import { MAX_PAGE_SIZE } from '../schemas'
import { userQueryPair, userValue, wildcardMatcher, type UserProperty } from '../routes/users'

/**
 * Users (§4.1, §2.1) and sign-in (§2.2, §5) where the spec leaves the choice open, and the data of a busy
 * shared deployment: many users whose names look like the test accounts'.
 */

/** Name endings of the look-alike users: other teams' accounts, old runs, typos. */
const LOOKALIKE_SUFFIXES = ['2', '.old', '-archive', '_x', '.ct', '.test', '-qa', '.bak', '1', '.staging']

export const BYSTANDER_COUNT = 300

/** How many matches the first-page-only search answers. */
const FIRST_PAGE = 5

/** ~300 users named like the seeded accounts (alice.ct2, alice.ct.old, …), same first and last names and realm. */
function addLookalikes(users: readonly Readonly<UserRecord>[], add: (u: UserRecord) => boolean, now: number): void {
  const per = Math.ceil(BYSTANDER_COUNT / users.length)
  for (const base of users) {
    for (let i = 0; i < per; i++) {
      const suffix = LOOKALIKE_SUFFIXES[i % LOOKALIKE_SUFFIXES.length]!
      const userName = `${base.userName}${suffix}${i >= LOOKALIKE_SUFFIXES.length ? Math.floor(i / LOOKALIKE_SUFFIXES.length) : ''}`
      add({
        ...base,
        userId: newId(),
        userName,
        // Nobody signs in as a bystander: a hash of nothing matches no password.
        passwordHash: newId(),
        passwordSalt: newId(),
        email: i % 7 === 0 ? '' : `${userName}@example.org`,
        roles: i % 5 === 0 ? ['USER', 'ADMIN'] : ['USER'],
        userAccountData: i % 3 === 0 ? { team: `t${i}` } : {},
        createdAt: now + i,
      })
    }
  }
}

interface SearchQuery {
  q: string
  from?: string
  size?: string
}

// Written blind, round 4 (docs/detection.md, "Round 4"): correct servers by an author who had not read the suite; listed in the array below.

function usersQueryAnalyzed(): Variant {
  const only = new AsyncLocalStorage<(u: Readonly<UserRecord>) => boolean>()
  return {
    name: 'users-query-analyzed',
    area: 'users',
    description:
      'user search without asterisks matches as full text: the value is split into words (at non-alphanumerics, case ignored) and a user matches when each word is a word of the property (userName:alice finds alice.ct)',
    reading:
      '§4.1: "value is the search text"; "Filtering, sorting and pagination follow URI search conventions of a full-text search engine"; only the asterisk form is specified',
    wrapStore: (store) =>
      overrideStore(store, {
        listUsers: (inner) => (clientId) => {
          const filter = only.getStore()
          const all = inner.listUsers(clientId)
          return filter ? all.filter(filter) : all
        },
      }),
    install: (app) =>
      wrapHandler(
        app,
        'users.query',
        (original) =>
          function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const query = request.query as { q: string }
            const pair = userQueryPair(query.q)
            const words = tokens(pair?.value ?? '')
            // The asterisk forms, an unknown property and an empty value: the server's own answer.
            if (!pair || pair.value.startsWith('*') || pair.value.endsWith('*') || words.length === 0) {
              return (original as any).call(this, request, reply)
            }
            const { property } = pair
            const filter = (u: Readonly<UserRecord>) => {
              const have = tokens(userValue(u, property))
              return words.every((w) => have.includes(w))
            }
            // The route's own filter then keeps every user this one let through.
            query.q = `${property}:*`
            return only.run(filter, () => (original as any).call(this, request, reply))
          } as Handler,
      ),
  }
}

export const USER_VARIANTS: readonly Variant[] = [
  {
    name: 'users-busy-directory',
    area: 'users',
    description: `${BYSTANDER_COUNT} more users named like the test accounts (alice.ct2, alice.ct.old, …) with the same first and last names`,
    reading: 'a shared deployment has other users; the spec says nothing of who else exists',
    install: (_app, ctx) => {
      const seeded = ctx.store.listUsers(ctx.application.clientId)
      addLookalikes(seeded, (u) => ctx.store.addUser(u), ctx.clock.now())
    },
  },
  {
    name: 'users-search-engine',
    area: 'users',
    description: 'user search pages like a search engine: 10 results by default (from/size), newest users first; take, skip and sort are unknown',
    reading: '§4.1: "pagination follow URI search conventions of a full-text search engine. Names of the sort and pagination parameters: not shown"',
    // The reference filters (given every match); this server then orders newest first and pages with its own names.
    install: (app) =>
      wrapHandler(
        app,
        'users.query',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const q = request.query as SearchQuery & Record<string, unknown>
            const from = Number(q.from ?? 0)
            const size = Number(q.size ?? 10)
            const start = Number.isInteger(from) && from >= 0 ? from : 0
            const count = Number.isInteger(size) && size > 0 ? Math.min(size, 100) : 10
            // take, skip and sort mean nothing to this server.
            Object.assign(q, { take: 1000, skip: 0, sort: undefined })
            const all = await (original as (...a: unknown[]) => Promise<unknown[]>).call(this, request, reply)
            return [...all].reverse().slice(start, start + count)
          } as never,
      ),
  },
  {
    name: 'users-search-first-page-no-status',
    area: 'users',
    description: `${BYSTANDER_COUNT} look-alike users, and user search answers only the first ${FIRST_PAGE} matches, newest first (no paging parameter it honours), without userStatus`,
    reading:
      '§4.1: pagination follows "URI search conventions of a full-text search engine. Names of the sort and pagination parameters: not shown" (nor the page size); §2.1 userStatus is "present in the sign-in response; searchable property", not promised in search results',
    install: (app, ctx) => {
      const seeded = ctx.store.listUsers(ctx.application.clientId)
      addLookalikes(seeded, (u) => ctx.store.addUser(u), ctx.clock.now())
      wrapHandler(
        app,
        'users.query',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            // Every match from the reference (its take, skip and sort mean nothing here), then the first page only.
            Object.assign(request.query as Record<string, unknown>, { take: 100_000, skip: 0, sort: undefined })
            const all = await (original as (...a: unknown[]) => Promise<Record<string, unknown>[]>).call(this, request, reply)
            return [...all]
              .reverse()
              .slice(0, FIRST_PAGE)
              .map(({ userStatus: _, ...u }) => u)
          } as never,
      )
    },
  },
  // written blind, round 4 (docs/detection.md, "Round 4")
  usersQueryAnalyzed(),
]

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** One shared secret per server: tokens are signed, the store keeps the opaque id inside them. */
function jwtTokens(): Variant {
  const key = randomBytes(32)
  const sign = (data: string): string => createHmac('sha256', key).update(data).digest('base64url')
  const wrap = (token: string, sub: string | null, lifetime: number): string => {
    const now = Math.floor(Date.now() / 1000)
    const body = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub, jti: token, iat: now, exp: now + lifetime })}`
    return `${body}.${sign(body)}`
  }
  const unwrap = (jwt: string): string | undefined => {
    const parts = jwt.split('.')
    if (parts.length !== 3 || sign(`${parts[0]}.${parts[1]}`) !== parts[2]) return undefined
    try {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { jti?: unknown }
      return typeof claims.jti === 'string' ? claims.jti : undefined
    } catch {
      return undefined
    }
  }
  return {
    name: 'jwt-tokens',
    area: 'signin',
    description: 'access tokens are signed JWTs (three base64url parts with dots, ~250 characters) that live 3600 s; expires_in says 3600',
    reading:
      '§2.2 access_token is a string (`<ACCESS_TOKEN>`), its form not shown; §5.3 "The sample value of expires_in is 7200; the unit is not stated" and §8 lists 7200 as the value shown: a sample, not a rule',
    wrapStore: (store) =>
      overrideStore(store, {
        getToken: (inner) => (token) => {
          const id = unwrap(token)
          return id === undefined ? undefined : inner.getToken(id)
        },
      }),
    install(app, ctx) {
      ctx.tokenLifetimeSeconds = 3600
      rewriteJson(app, 'users.signIn', (body) => ({
        ...body,
        access_token: wrap(body.access_token, body.user?.userIdentifier ?? null, ctx.tokenLifetimeSeconds),
      }))
      rewriteJson(app, 'registration.appSession', (body) => ({ ...body, access_token: wrap(body.access_token, null, ctx.tokenLifetimeSeconds) }))
    },
  }
}

export const SIGNIN_VARIANTS: readonly Variant[] = [
  {
    name: 'signin-expires-in-3600',
    area: 'signin',
    description: 'tokens live one hour and sign-in says expires_in 3600',
    reading: '§5.3: "The sample value of expires_in is 7200"; a sample, not a requirement',
    install: (_app, ctx) => {
      ctx.tokenLifetimeSeconds = 3600
    },
  },
  {
    name: 'signin-expires-in-ms',
    area: 'signin',
    description: 'expires_in is given in milliseconds (7200000); tokens live 7200 s',
    reading: '§5.3: "the unit is not stated"',
    install: (app) => rewriteJson(app, 'users.signIn', (session) => ({ ...session, expires_in: session.expires_in * 1000 })),
  },
  {
    name: 'signin-extra-fields',
    area: 'signin',
    description: 'the session also carries scope and issued_at, and the user has a non-empty userAccountData',
    reading:
      '§2.2 lists the fields a session carries, not that it carries no others (an extra field is a SHOULD at most); §2.1 userAccountData "may be empty", so may hold data',
    install: (app, ctx) => {
      rewriteJson(app, 'users.signIn', (session) => ({
        ...session,
        scope: 'public',
        issued_at: ctx.clock.now(),
        user: { ...session.user, userAccountData: { locale: 'en-GB', plan: { tier: 'free', seats: 3 }, beta: true } },
      }))
      rewriteJson(app, 'users.list', (list) =>
        Array.isArray(list) ? list.map((u) => ({ ...u, userAccountData: { locale: 'en-GB', plan: { tier: 'free', seats: 3 }, beta: true } })) : list,
      )
    },
  },
  // // written blind (docs/detection.md, "Faults written blind"): correct servers by implementers who had not read the suite
  jwtTokens(),
]

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

const b64url = (text: string | Buffer) => Buffer.from(text).toString('base64url')

/** Signed-token form: the opaque token wrapped as a JWT-like string (header.claims.signature), ~200 characters. */
const jwtToReal = new Map<string, string>()

const ACCOUNT_DATA = { locale: 'en-US', signupSource: 'console', marketingOptIn: false }
const withAccountData = (user: unknown) => (user && typeof user === 'object' ? { ...user, userAccountData: { ...ACCOUNT_DATA } } : user)

const r6vExpires3600: Variant = {
  name: 'r6v-expires-3600',
  area: 'signin',
  description: 'tokens live one hour: sign-in answers expires_in 3600',
  reading: '§5.3 "The sample value of expires_in is 7200; the unit is not stated"; §2.2 expires_in is "lifetime of the token", its value is the server\'s',
  install(_app, ctx) {
    ctx.tokenLifetimeSeconds = 3600
  },
}

const r7vSigninJwtTokens: Variant = {
  name: 'r7v-signin-jwt-tokens',
  area: 'signin',
  description: 'sign-in answers access_token as a long JWT-like string (three base64url segments joined by ".")',
  reading:
    '§2.2 "access_token | string | <ACCESS_TOKEN>, used as bearer token": the token\'s form and length are not shown; §5.6 leaves the rest of token handling open',
  wrapStore(store) {
    return overrideStore(store, { getToken: (inner) => (token) => inner.getToken(jwtToReal.get(token) ?? token) })
  },
  install(app) {
    rewriteJson(app, 'users.signIn', (body) => {
      if (typeof body?.access_token !== 'string') return body
      const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
      const claims = b64url(JSON.stringify({ sub: body.user?.userIdentifier, jti: body.access_token, scope: 'public', iat: Math.floor(Date.now() / 1000) }))
      const signature = createHmac('sha256', 'r7v-demo-key').update(`${header}.${claims}`).digest('base64url')
      const jwt = `${header}.${claims}.${signature}`
      jwtToReal.set(jwt, body.access_token)
      return { ...body, access_token: jwt }
    })
  },
}

const r8vTokenLifetime3600: Variant = {
  name: 'r8v-token-lifetime-3600',
  area: 'signin',
  description: 'tokens live 3600 (seconds) and sign-in answers expires_in 3600',
  reading:
    '§2.2 "expires_in | integer | lifetime of the token"; §5.3 "The sample value of expires_in is 7200; the unit is not stated" — a sample, not a fixed value.',
  install(_app, ctx) {
    ;(ctx as { tokenLifetimeSeconds: number }).tokenLifetimeSeconds = 3600
  },
}

/** A sign-in parameter as the reference reads it: the body (a form or a JSON object) wins over the query string. */
function signInParam(request: FastifyRequest, name: string): string | undefined {
  const body = request.body
  const fromBody = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined
  if (fromBody !== undefined) return typeof fromBody === 'string' ? fromBody : undefined
  const fromQuery = (request.query as Record<string, unknown> | undefined)?.[name]
  return typeof fromQuery === 'string' ? fromQuery : undefined
}

/**
 * Sign-in matches the user name exactly, case included (`Alice.CT` is not `alice.ct`); a user name still cannot
 * be enrolled twice in different cases.
 */
const signinUsernameExactCase: Variant = {
  name: 'r13av-signin-username-exact-case',
  area: 'signin',
  description: 'sign-in compares the user name case-sensitively: the name in another case is refused like a wrong password',
  reading: '§4.1 lists `username` among the sign-in parameters and says nothing of how it is compared; whether user names ignore case is not shown',
  install(app, ctx) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const username = signInParam(request, 'username')
      if (!username || signInParam(request, 'grant_type') !== 'password' || !signInParam(request, 'password')) return
      if (signInParam(request, 'client_id') !== ctx.application.clientId) return
      const scope = signInParam(request, 'scope')
      if (scope !== undefined && scope !== 'public') return
      const user = ctx.store.findUserByName(ctx.application.clientId, username)
      if (user && user.userName !== username) throw fail('INVALID_CREDENTIALS')
    })
  },
}

export const BLIND_SIGNIN_VARIANTS: readonly Variant[] = [r6vExpires3600, r7vSigninJwtTokens, r8vTokenLifetime3600, signinUsernameExactCase]

const r7vUsersAccountData: Variant = {
  name: 'r7v-users-account-data',
  area: 'users',
  description: 'every User record (sign-in, list, search) carries a non-empty userAccountData map',
  reading: '§2.1 "userAccountData | object | account data map; may be empty": may be empty, so it may also hold data',
  install(app) {
    rewriteJson(app, 'users.signIn', (body) => (body?.user ? { ...body, user: withAccountData(body.user) } : body))
    rewriteJson(app, 'users.list', (body) => (Array.isArray(body) ? body.map(withAccountData) : body))
    rewriteJson(app, 'users.query', (body) => (Array.isArray(body) ? body.map(withAccountData) : body))
  },
}

/** Search results newest-name-first: a default sort by userName descending when the caller asks for none. */
const r7vUsersSearchDescOrder: Variant = {
  name: 'r7v-users-search-desc-order',
  area: 'users',
  description: 'search users sorts its results by userName descending (Z first) when no sort is asked for',
  reading:
    '§4.1 "Filtering, sorting and pagination follow URI search conventions ... Names of the sort and pagination parameters: not shown": no default order is stated',
  install(app) {
    addRouteHook(app, 'users.query', 'preHandler', async (request: FastifyRequest) => {
      const query = request.query as { sort?: string }
      if (query.sort === undefined) query.sort = 'userName:desc'
    })
  },
}

const r9vUsersByName: Variant = {
  name: 'r9v-users-by-name',
  area: 'users',
  description: 'list all users and unsorted user searches answer users ordered by userName (ignoring case) instead of creation order',
  reading:
    '§4.1 list all users: "array of User"; search: sorting follows search-engine conventions whose parameter names are not shown; no default order is stated.',
  wrapStore(store) {
    return overrideStore(store, {
      listUsers: (inner) => (clientId) =>
        [...inner.listUsers(clientId)].sort((a, b) => (lower(a.userName) < lower(b.userName) ? -1 : lower(a.userName) > lower(b.userName) ? 1 : 0)),
    })
  },
}

/** Users listed newest first. */
const r12vUsersNewestFirst: Variant = {
  name: 'r12v-users-newest-first',
  area: 'users',
  description: 'list all users answers the users in reverse creation order (the most recently enrolled first)',
  reading: '§4.1 List all users: "Response: array of User"; no order is stated.',
  install(app) {
    rewriteJson(app, 'users.list', (body) => (Array.isArray(body) ? [...body].reverse() : body))
  },
}

/**
 * User search values match case-sensitively, as a keyword field of a search engine does: `firstName:Alice` finds
 * Alice, `firstName:alice` finds nobody. Property names, wildcards and paging are the reference's.
 */
const usersSearchCaseSensitive: Variant = {
  name: 'r13av-users-search-case-sensitive',
  area: 'users',
  description: 'user search matches values case-sensitively (exact and wildcard): a value in another case finds nobody',
  reading:
    '§4.1 "`value` is the search text. An asterisk at the start and end gives wildcard matching. Filtering … follow URI search conventions of a full-text search engine": whether matching ignores case is not shown (a keyword field of such an engine matches case)',
  install(app, ctx) {
    /** The property's value as the server holds it (an answer may leave a property out or show it otherwise). */
    const held = (u: Record<string, unknown>, property: UserProperty): string => {
      const stored = typeof u.userIdentifier === 'string' ? ctx.store.getUser(u.userIdentifier) : undefined
      return stored ? userValue(stored, property) : String(u[property])
    }
    aroundHandler(app, 'users.query', async (request, _reply, next) => {
      const query = request.query as { q: string; take: number; skip: number }
      const pair = userQueryPair(query.q)
      if (!pair || pair.value === '') return next()
      const { property, value } = pair
      const { take, skip } = query
      const matches = wildcardMatcher(value) // the reference's matcher with case kept
      const q = request.query as Record<string, unknown>
      q.skip = 0
      q.take = MAX_PAGE_SIZE
      // The reference's case-insensitive matches (in its order, sorted if asked), narrowed to those of the same case.
      const all = (await next()) as Record<string, unknown>[]
      return all.filter((u) => matches(held(u, property))).slice(skip, skip + take)
    })
  },
}

export const BLIND_USER_VARIANTS: readonly Variant[] = [
  r7vUsersAccountData,
  r7vUsersSearchDescOrder,
  r9vUsersByName,
  r12vUsersNewestFirst,
  usersSearchCaseSensitive,
]
