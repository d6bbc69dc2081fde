import type { FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { callerId } from './deep-common'
import { addRouteHook, aroundHandler, rewriteJson } from './kit'
import type { CatalogFault, OpenFault } from './types'
import { MAX_PAGE_SIZE } from '../schemas'
import { setQuery } from './common'
import { userQueryPair } from '../routes/users'

/**
 * Deep faults of the user list and the user search (§4.1), written in the blind rounds 5 to 12 from the spec's
 * words only (docs/detection.md): each shows only for a particular input, state, address, pair of users, device or
 * concurrent pair of requests. The comment on each names the spec words it breaks; its name says its round. The
 * catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as BLIND_OPEN; the earlier deep faults of
 * the area are in deep-users-messages.ts.
 */

/** §4.1 "An asterisk at the start and end gives wildcard matching": for userIdentifier the asterisks are dropped (exact match on an id column). */
const usersIdWildcard: CatalogFault = {
  name: 'r6-users-id-wildcard',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.wildcard',
  description: 'user search by userIdentifier ignores the asterisks: *fragment* is matched as the exact id "fragment"',
  install(app) {
    addRouteHook(app, 'users.query', 'preHandler', async (request: FastifyRequest) => {
      const query = request.query as { q?: string }
      const m = /^useridentifier:(.*)$/i.exec(query.q ?? '')
      if (m && m[1]!.length > 2 && m[1]!.startsWith('*') && m[1]!.endsWith('*')) query.q = `userIdentifier:${m[1]!.slice(1, -1)}`
    })
  },
}

/** §4.1 "Search users" returns the users whose property has the value: the caller is always left out ("other users" only). */
const usersSearchExcludesSelf: CatalogFault = {
  name: 'r6-users-search-excludes-self',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: 'user search never returns the calling user, even when the query matches exactly that user',
  install(app) {
    rewriteJson(app, 'users.query', (body, request) => {
      const { user } = callerOf(request)
      return (body as { userIdentifier: string }[]).filter((u) => u.userIdentifier !== user.userId)
    })
  },
}

/**
 * §4.1 "Search users: GET /user/query?q=<property>:<value>" returns the users whose property has that value
 * (users.search.property). Search results are filtered to the caller's own userRealm (a tenant filter meant for
 * something else): a user of another realm is never found, even by its exact userName or userIdentifier.
 */
const usersSearchCallerRealmOnly: CatalogFault = {
  name: 'r7-users-search-caller-realm-only',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: "search users returns only users of the caller's userRealm: a user of another realm is not found even by exact userName or id",
  install(app) {
    rewriteJson(app, 'users.query', (body, request) => {
      const caller = request.caller
      if (!Array.isArray(body) || caller?.kind !== 'USER') return body
      return body.filter((u: { userRealm?: string }) => u.userRealm === caller.user.userRealm)
    })
  },
}

/**
 * §4.1 "Search users ... Response: array of User": the users whose property has the value, "by userIdentifier only
 * that user" (users.search.property). The query joins users with their devices: a user signed in on two devices
 * is returned twice (once per device id), so a search by userIdentifier answers two records.
 */
const usersSearchRowPerDevice: CatalogFault = {
  name: 'r7-users-search-row-per-device',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: 'search users answers a user once per device it signed in on: a user with two devices is returned twice',
  install(app, ctx) {
    rewriteJson(app, 'users.query', (body) => {
      if (!Array.isArray(body)) return body
      return body.flatMap((u: { userIdentifier: string }) => Array.from({ length: Math.max(1, ctx.store.listDevices(u.userIdentifier).length) }, () => u))
    })
  },
}

/**
 * §4.1 "An asterisk at the start and end gives wildcard matching" (users.search.wildcard). The fragment is
 * lower-cased but the stored values are not: a fragment holding a capital letter ("*Ali*", "*Bak*") no longer
 * matches the value that contains it exactly as written; all-lower-case fragments still work.
 */
const usersWildcardUppercaseFragment: CatalogFault = {
  name: 'r7-users-wildcard-uppercase-fragment',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.wildcard',
  description: 'a *fragment* user search lower-cases the fragment but not the values: a fragment with a capital letter misses the value containing it',
  install(app) {
    rewriteJson(app, 'users.query', (body, request) => {
      const q = (request.query as { q?: string }).q
      if (!Array.isArray(body) || typeof q !== 'string') return body
      const colon = q.indexOf(':')
      const value = q.slice(colon + 1)
      if (colon < 0 || value.length < 3 || !value.startsWith('*') || !value.endsWith('*')) return body
      const property = q.slice(0, colon).toLowerCase()
      const core = value.slice(1, -1).toLowerCase()
      return body.filter((u: Record<string, unknown>) => {
        const key = Object.keys(u).find((k) => k.toLowerCase() === property)
        return key === undefined || String(u[key]).includes(core)
      })
    })
  },
}

/**
 * §4.1 "List all users: GET /user/all. Response: array of User" (users.list.contains-accounts). The list is built
 * from the device registry, where a device id belongs to the user who signed in on it last: a user whose every
 * device id was later used by another user to sign in (two users on one device) drops out of the list.
 */
const usersListSharedDeviceDropped: CatalogFault = {
  name: 'r7-users-list-shared-device-dropped',
  area: 'users',
  depth: 'deep',
  clause: 'users.list.contains-accounts',
  description: 'list all users leaves out a user whose MMS-DEVICE-IDs were all later used by another user to sign in',
  install(app, ctx) {
    rewriteJson(app, 'users.list', (body) => {
      if (!Array.isArray(body)) return body
      const holder = new Map<string, { userId: string; at: number }>()
      for (const u of body as { userIdentifier: string }[]) {
        for (const d of ctx.store.listDevices(u.userIdentifier)) {
          const prior = holder.get(d.deviceId)
          if (!prior || d.registeredAt >= prior.at) holder.set(d.deviceId, { userId: u.userIdentifier, at: d.registeredAt })
        }
      }
      return body.filter((u: { userIdentifier: string }) => {
        const devices = ctx.store.listDevices(u.userIdentifier)
        return devices.length === 0 || devices.some((d) => holder.get(d.deviceId)?.userId === u.userIdentifier)
      })
    })
  },
}

const r8UsersWildcardEmail: CatalogFault = {
  // §4.1: "An asterisk at the start and end gives wildcard matching" — for every listed property, email included.
  name: 'r8-users-wildcard-email',
  depth: 'deep',
  area: 'users',
  clause: 'users.search.wildcard',
  description: 'user search answers [] for a wildcard (*text*) on the email property; exact email and wildcards on other properties work',
  install(app) {
    aroundHandler(app, 'users.query', async (request, reply, next) => {
      const q = String((request.query as { q?: string }).q ?? '')
      const m = /^email:(.*)$/i.exec(q)
      if (m && m[1]!.length > 2 && m[1]!.startsWith('*') && m[1]!.endsWith('*')) return []
      return next()
    })
  },
}

/** §4.1 search: "value is the search text": a value holding "+" (sent as %2B) must match that value. */
const usersSearchPlusAsSpace: CatalogFault = {
  name: 'r9-users-search-plus-as-space',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: 'search users decodes q twice: a "+" in the value (sent %2B, e.g. a plus-address email or user name) is searched as a space and matches nobody',
  install(app) {
    addRouteHook(app, 'users.query', 'preValidation', async (request: FastifyRequest) => {
      const query = request.query as { q?: unknown }
      if (typeof query.q === 'string') query.q = query.q.replace(/\+/g, ' ')
    })
  },
}

/** §4.1 "List all users ... array of User": all users, including those enrolled after the caller first listed. */
const usersListCachedPerToken: CatalogFault = {
  name: 'r9-users-list-cached-per-token',
  area: 'users',
  depth: 'deep',
  clause: 'users.list.contains-accounts',
  description: "list all users is cached per bearer token on its first call and never refreshed: users enrolled later are missing from that token's list",
  install(app) {
    const cache = new Map<string, unknown>()
    aroundHandler(app, 'users.list', async (request, reply, next) => {
      const key = String(request.headers.authorization ?? '')
      if (cache.has(key)) return cache.get(key)
      const answer = await next()
      cache.set(key, answer)
      return answer
    })
  },
}

/**
 * §4.1 "An asterisk at the start and end gives wildcard matching". An n-gram index with a minimum gram of
 * two characters finds nothing for a one-character fragment.
 */
const usersWildcardOneChar: CatalogFault = {
  name: 'r10-users-wildcard-one-char',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.wildcard',
  description: 'search users answers [] for a wildcard whose fragment is one character (*a*): the n-gram index starts at two characters',
  install(app) {
    aroundHandler(app, 'users.query', async (request, reply, next) => {
      const q = (request.query as { q?: string }).q ?? ''
      const value = q.slice(q.indexOf(':') + 1)
      if (/^\*[^*]\*$/.test(value)) return []
      return next()
    })
  },
}

/**
 * §4.1 "Search users: GET /user/query?q=<property>:<value>" returns the users whose property has the value.
 * The search index is fed at sign-in: a user who exists (the user list shows it) but has never signed in is
 * not found by any search.
 */
const usersSearchNeverSignedIn: CatalogFault = {
  name: 'r10-users-search-never-signed-in',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: 'search users leaves out users who have never signed in (the index is fed at sign-in), though the user list has them',
  install(app, ctx) {
    rewriteJson(app, 'users.query', (body) =>
      Array.isArray(body) ? body.filter((u: { userIdentifier?: string }) => ctx.store.listDevices(String(u.userIdentifier)).length > 0) : body,
    )
  },
}

const r11UsersWildcardEdgeFragment: CatalogFault = {
  // §4.1: "An asterisk at the start and end gives wildcard matching." A fragment at the start or the end of a
  // value (or the whole value) is a fragment of it too.
  name: 'r11-users-wildcard-edge-fragment',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.wildcard',
  description:
    'search users turns *fragment* into the pattern .+fragment.+ (one or more characters each side): a fragment at the start or the end of the value, or the whole value, is not found',
  install(app) {
    rewriteJson(app, 'users.query', (body, request) => {
      const q = (request.query as { q?: string }).q ?? ''
      const colon = q.indexOf(':')
      const value = q.slice(colon + 1)
      if (!Array.isArray(body) || colon < 0 || value.length < 3 || !value.startsWith('*') || !value.endsWith('*')) return body
      const property = q.slice(0, colon).toLowerCase()
      const core = value.slice(1, -1).toLowerCase()
      return body.filter((u: Record<string, unknown>) => {
        const key = Object.keys(u).find((k) => k.toLowerCase() === property)
        const text = String(key === undefined ? '' : u[key]).toLowerCase()
        for (let at = text.indexOf(core); at >= 0; at = text.indexOf(core, at + 1)) {
          if (at > 0 && at + core.length < text.length) return true
        }
        return false
      })
    })
  },
}

const r11UsersSharedDeviceProfile: CatalogFault = {
  // §2.1 / §4.1: the sign-in "user | User | record as in 2.1" is the user's own record, the one the user list
  // gives. Two users signing in on one device id each get their own names.
  name: 'r11-users-shared-device-profile',
  area: 'users',
  depth: 'deep',
  clause: 'users.record.agrees',
  description:
    "sign-in keeps a profile per device id (the first user seen on it): a second user signing in on that device id is answered with the first user's firstName and lastName in its user record",
  install(app) {
    const profiles = new Map<string, { userIdentifier: string; firstName: unknown; lastName: unknown }>()
    rewriteJson(app, 'users.signIn', (body, request) => {
      const deviceId = request.headers['mms-device-id']
      const user = body?.user
      if (typeof deviceId !== 'string' || !user) return body
      const profile = profiles.get(deviceId)
      if (!profile) {
        profiles.set(deviceId, { userIdentifier: user.userIdentifier, firstName: user.firstName, lastName: user.lastName })
        return body
      }
      if (profile.userIdentifier === user.userIdentifier) return body
      return { ...body, user: { ...user, firstName: profile.firstName, lastName: profile.lastName } }
    })
  },
}

/**
 * §4.1 "property is one of … userIdentifier" and "Search users … Response: array of User": a search by
 * userIdentifier answers only the caller's own record (a "me" lookup); another user's exact id finds nothing.
 */
const usersIdSearchSelfOnly: CatalogFault = {
  name: 'r12-users-id-search-self-only',
  area: 'users',
  depth: 'deep',
  clause: 'users.search.property',
  description: "an exact userIdentifier search finds only the caller's own record; another user's id returns []",
  consequences: [
    {
      clause: 'users.search.shape',
      reason: "the shape check reads A's record through a userIdentifier search made by another user, which the fault answers []",
    },
  ],
  install(app) {
    rewriteJson(app, 'users.query', (body, request) => {
      const q = String((request.query as { q?: string }).q ?? '')
      const colon = q.indexOf(':')
      if (colon < 0 || q.slice(0, colon).toLowerCase() !== 'useridentifier') return body
      const value = q.slice(colon + 1)
      if (value.includes('*')) return body
      return value === callerId(request) ? body : []
    })
  },
}

/**
 * §4.1 Search users: "`property` is one of `userName`, `firstName`, `lastName`, `email`, … `value` is the search
 * text. An asterisk at the start and end gives wildcard matching." The value is turned into a regular expression
 * (the asterisks into `.*`) without escaping it: a value with `+` (an e-mail `x+tag@…`, a user name `dev+1`) no
 * longer matches itself, and `.` matches any character.
 */
const usersSearchRegexUnescaped: CatalogFault = {
  name: 'r13a-users-search-regex-unescaped',
  area: 'users',
  depth: 'deep',
  // Reached through a value that does not compile as a pattern (a 500): the accounts' own values are the deployment's.
  clause: ['users.search.property', 'http.valid-request-answered'],
  description:
    'user search compiles the value into a regular expression without escaping it: a value containing "+" (or "(", "?") does not find the user who has it, and "*+x*" is a 500',
  install(app) {
    aroundHandler(app, 'users.query', async (request, _reply, next) => {
      const query = request.query as { q: string; take: number; skip: number; sort?: string }
      const pair = userQueryPair(query.q)
      if (!pair || pair.value === '') return next()
      const { property, value } = pair
      const pattern = new RegExp(`^${value.replace(/^\*/, '.*').replace(/\*$/, '.*')}$`, 'i')
      const { take, skip } = query
      setQuery(request, 'q', `${property}:*`)
      setQuery(request, 'skip', 0)
      setQuery(request, 'take', MAX_PAGE_SIZE)
      const all = (await next()) as Record<string, unknown>[]
      return all.filter((u) => pattern.test(String(u[property]))).slice(skip, skip + take)
    })
  },
}

export const BLIND_USER_FAULTS: readonly CatalogFault[] = [
  usersIdWildcard,
  usersSearchExcludesSelf,
  usersSearchCallerRealmOnly,
  usersSearchRowPerDevice,
  usersWildcardUppercaseFragment,
  r8UsersWildcardEmail,
  usersWildcardOneChar,
  r11UsersWildcardEdgeFragment,
  r11UsersSharedDeviceProfile,
  usersIdSearchSelfOnly,
  usersSearchRegexUnescaped,
]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_USER_OPEN: readonly OpenFault[] = [
  {
    fault: usersListSharedDeviceDropped,
    why: "shows only for a user who signed in on one device id that another user then takes over; the run's accounts have signed in on many device ids (earlier runs' too, on a real server), and the suite creates no users of its own",
  },
  {
    fault: usersSearchPlusAsSpace,
    why: "shows only for a searched value that holds a '+' and belongs to a user; the accounts' values are the deployment's, and the suite creates no users",
  },
  {
    fault: usersListCachedPerToken,
    why: 'shows only when a user is added while a token lives; the suite creates no users, and nothing it can do changes the user list',
  },
  {
    fault: usersSearchNeverSignedIn,
    why: "shows only for a user who never signed in: the run's accounts all sign in and the spec gives no call that makes a user; the check that searches by id for each user the list shows catches it on a deployment that has such users (proved with the variant users-busy-directory)",
  },
]
