import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { addRouteHook, aroundHandler } from '../faults/kit'
import { MAX_PAGE_SIZE } from '../schemas'
import type { Variant } from './types'

/** Blind round 13 (a): correct servers that choose differently where the spec leaves the choice open. */

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

const USER_FIELDS = ['userName', 'firstName', 'lastName', 'email', 'userRealm', 'userStatus', 'userIdentifier'] as const

/** The reference's matcher (exact, or prefix/suffix/contains with a leading and/or trailing `*`), with case kept. */
function exactCaseMatcher(pattern: string): (value: string) => boolean {
  let core = pattern
  const leading = core.startsWith('*')
  if (leading) core = core.slice(1)
  const trailing = core.endsWith('*')
  if (trailing) core = core.slice(0, -1)
  if (leading && trailing) return (v) => v.includes(core)
  if (leading) return (v) => v.endsWith(core)
  if (trailing) return (v) => v.startsWith(core)
  return (v) => v === core
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
    const held = (u: Record<string, unknown>, property: (typeof USER_FIELDS)[number]): string => {
      const stored = typeof u.userIdentifier === 'string' ? ctx.store.getUser(u.userIdentifier) : undefined
      if (!stored) return String(u[property])
      return property === 'userIdentifier' ? stored.userId : stored[property]
    }
    aroundHandler(app, 'users.query', async (request, _reply, next) => {
      const query = request.query as { q: string; take: number; skip: number }
      const colon = query.q.indexOf(':')
      const value = colon < 0 ? '' : query.q.slice(colon + 1)
      const property = USER_FIELDS.find((p) => p.toLowerCase() === query.q.slice(0, Math.max(colon, 0)).toLowerCase())
      if (value === '' || !property) return next()
      const { take, skip } = query
      const matches = exactCaseMatcher(value)
      const q = request.query as Record<string, unknown>
      q.skip = 0
      q.take = MAX_PAGE_SIZE
      // The reference's case-insensitive matches (in its order, sorted if asked), narrowed to those of the same case.
      const all = (await next()) as Record<string, unknown>[]
      return all.filter((u) => matches(held(u, property))).slice(skip, skip + take)
    })
  },
}

export const R13A_VARIANTS: readonly Variant[] = [signinUsernameExactCase, usersSearchCaseSensitive]
