/** Blind round 15 (docs/detection.md), inputs: deep faults written from the spec alone, without reading the suite. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import type { UserRecord } from '../model'
import { userQueryPair, userValue, wildcardMatcher, type UserProperty } from '../routes/users'
import { formatUtcTime, parseTimestamp } from '../time'
import { userView } from '../views'
import { call, hashRef } from './deep-common'
import { addRouteHook, wrapHandler } from './kit'
import type { CatalogFault, OpenFault } from './types'

/** The raw value of a query parameter as sent (before the schema coerced it), or null when absent. */
function rawQueryParam(request: FastifyRequest, name: string): string | null {
  return new URL(request.url, 'http://server.invalid').searchParams.get(name)
}

/**
 * §2.3: "Another user's private channel is addressed as `<user_id>#<channel_name>`."
 *
 * Private channels are indexed under the owner id and the lower-cased name. The plain-name path lower-cases
 * the name before its look-up; the `<user_id>#<name>` branch looks the name up as sent. A private channel
 * whose name holds an upper-case letter ("Team-Notes") is therefore never found through its
 * `<user_id>#<channel_name>` address, even spelled exactly as created (404); all-lower-case names work, and the
 * owner still reaches it by its plain name.
 */
const hashAddressNameCase: CatalogFault = {
  name: 'r15a-private-hash-address-name-case',
  area: 'private',
  depth: 'deep',
  clause: 'private.other-user-address',
  description:
    'a <user_id>#<channel_name> address looks the name up as sent in an index keyed by the lower-cased name: a private channel whose name has an upper-case letter is never found that way (404)',
  install(app: FastifyInstance) {
    app.addHook('preHandler', async (request: FastifyRequest) => {
      const raw = (request.params as { channel?: unknown } | undefined)?.channel
      if (typeof raw !== 'string') return
      const ref = hashRef(raw)
      if (ref && ref.name !== ref.name.toLowerCase()) throw fail('CHANNEL_NOT_FOUND', `channel ${raw} not found`)
    })
  },
}

/**
 * §4.2: "Delete all tags: `DELETE /channels/{channel_name}/tags?personal=<boolean>`"; §4: "Boolean query
 * parameters are `true` or `false`."
 *
 * The delete-all-tags handler reads `personal` as `Boolean(query.personal)` on the raw string: any value given,
 * "false" included, is true. An owner sending `personal=false` explicitly has its public channel's tags left
 * in place: the call looks for the caller's private channel of that name (404, or that channel's tags are
 * cleared instead). Leaving `personal` out, or sending true, works.
 */
const deleteAllTagsExplicitFalse: CatalogFault = {
  name: 'r15a-tags-delete-all-explicit-personal-false',
  area: 'tags',
  depth: 'deep',
  clause: 'tags.delete-all.removes',
  consequences: [
    { clause: 'tags.delete-all.status', reason: "the owner's delete of all tags with personal=false written out answers 404 (no private channel of the name)" },
  ],
  description:
    'delete all tags reads personal as Boolean(<raw string>): an explicit personal=false is taken as true, so the public channel keeps its tags (404, or the private namesake is cleared)',
  install(app: FastifyInstance) {
    addRouteHook(app, 'tags.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const raw = rawQueryParam(request, 'personal')
      if (raw !== null && raw !== '') (request.query as { personal: boolean }).personal = true
    })
  },
}

/** Arrays of exactly one element replaced by that element, at any depth. */
function unwrapSingletons(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 1 ? unwrapSingletons(value[0]) : value.map(unwrapSingletons)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, unwrapSingletons(v)]))
  }
  return value
}

/**
 * §2.6: "content | object | key/value map of the message content"; §4.2 Publish item: "Body: content (object
 * of key/value pairs)".
 *
 * The content is turned into the item's stored map by the converter written for multi-valued (form-style)
 * parameters, which unwraps a list of one value into the value. A content value that is an array of exactly
 * one element ({"to":["bob"]}, {"ids":[7]}) comes back as the bare element ({"to":"bob"}), at any depth;
 * arrays of none or of two and more elements, and every other value, are intact.
 */
const singleElementArrays: CatalogFault = {
  name: 'r15a-items-content-single-element-array-unwrapped',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'publish unwraps every array of exactly one element in content into the element ({"to":["bob"]} comes back {"to":"bob"}), at any depth',
  install(app: FastifyInstance) {
    addRouteHook(app, 'items.publish', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { content: Record<string, unknown> }
      body.content = unwrapSingletons(body.content) as Record<string, unknown>
    })
  },
}

const INT32_RANGE = 2 ** 32
const INT32_MAX = 2 ** 31 - 1

/** Epoch seconds kept in a signed 32-bit column: a time past 2038-01-19T03:14:07Z wraps to 1901. */
function wrapInt32Seconds(ms: number): number {
  const seconds = Math.floor(ms / 1000)
  if (seconds <= INT32_MAX) return ms
  const wrapped = ((seconds + 2 ** 31) % INT32_RANGE) - 2 ** 31
  return wrapped * 1000 + (ms - seconds * 1000)
}

/**
 * §4.2 Fetch items by date range: "`GET /channels/{channel_name}/items/fetch?since=<timestamp>&until=<timestamp>…`";
 * §2: "Timestamps are ISO 8601 strings".
 *
 * The range bounds go to the item query as epoch seconds bound to a signed 32-bit parameter. A bound after
 * 2038-01-19T03:14:07Z (an open end such as until=2100-01-01T00:00:00Z or 9999-12-31T23:59:59Z) wraps round to
 * a date in 1901: the range then ends before it starts, and the fetch is refused (400) instead of returning
 * the items published since `since`. Bounds before 2038 work.
 */
const fetchBoundPast2038: CatalogFault = {
  name: 'r15a-items-fetch-bound-past-2038-wraps',
  area: 'items',
  depth: 'deep',
  clause: 'items.fetch.range',
  description:
    'fetch keeps since/until as signed 32-bit epoch seconds: a bound after 2038-01-19 (until=2100-01-01T00:00:00Z) wraps to 1901, so the range is refused or empty instead of holding the items',
  install(app: FastifyInstance) {
    addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
      const query = request.query as { since?: string; until?: string }
      for (const name of ['since', 'until'] as const) {
        const text = query[name]
        const ms = text === undefined ? undefined : parseTimestamp(text)
        if (ms === undefined || !Number.isFinite(ms)) continue
        const wrapped = wrapInt32Seconds(ms)
        if (wrapped !== ms) query[name] = formatUtcTime(wrapped)
      }
    })
  },
}

/** Index-time ASCII folding: letters with diacritics lose them ("Müller" is indexed as "muller"). */
const fold = (text: string): string =>
  text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()

/** `sort=<property>[:asc|:desc]` as the route reads it (400 otherwise). */
function sortRule(sort: string): { property: UserProperty; sign: number } {
  const pair = userQueryPair(sort.includes(':') ? sort : `${sort}:asc`)
  const sign = pair ? { asc: 1, desc: -1 }[pair.value.toLowerCase()] : undefined
  if (!pair || sign === undefined) throw fail('INVALID_USER_QUERY', 'sort must be <property>:asc|desc')
  return { property: pair.property, sign }
}

/**
 * §4.1 Search users: "`GET /user/query?q=<property>:<value>` — property is one of userName, firstName, lastName,
 * email, userRealm, userStatus, userIdentifier. value is the search text. An asterisk at the start and end gives
 * wildcard matching."
 *
 * The user index folds diacritics at index time (an ASCII-folding analyzer) but the query text is only
 * lower-cased, not folded. A value holding an accented letter ("Müller", "José", "Zoë") is not found by its own
 * spelling, exactly or as a *fragment* containing the accented letter (the search answers []); it is found by the
 * unaccented spelling instead. Values in plain ASCII, which every seeded account has, are found as before.
 */
const searchAsciiFolding: CatalogFault = {
  name: 'r15a-users-search-folds-stored-accents-only',
  area: 'users',
  depth: 'deep',
  clause: ['users.search.property', 'users.search.wildcard'],
  description: 'user search folds diacritics of the stored values but not of the query: lastName:Müller (or *ü*) finds nobody, lastName:Muller finds Müller',
  install(app: FastifyInstance, ctx: ServerContext) {
    wrapHandler(
      app,
      'users.query',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const { q, take, skip, sort } = request.query as { q: string; take: number; skip: number; sort?: string }
          const pair = userQueryPair(q)
          // Malformed queries go the route's own way (its refusals).
          if (!pair || pair.value === '') return call(original, this, request, reply)
          const order = sort === undefined ? undefined : sortRule(sort)
          const { user } = callerOf(request)
          const matches = wildcardMatcher(pair.value.toLowerCase()) // compared with values the fault prepared
          let found = ctx.store.listUsers(user.clientId).filter((u) => matches(fold(userValue(u, pair.property))))
          if (order) {
            const key = (u: Readonly<UserRecord>) => userValue(u, order.property).toLowerCase()
            found = [...found].sort((a, b) => (key(a) < key(b) ? -order.sign : key(a) > key(b) ? order.sign : 0))
          }
          return found.slice(skip, skip + take).map((u) => userView(u, true))
        },
    )
  },
}

export const ROUND15_INPUT_FAULTS: readonly CatalogFault[] = [hashAddressNameCase, deleteAllTagsExplicitFalse, searchAsciiFolding]

/** Two of the round's faults proved to be readings the spec allows: the variant self-test wants them judged conformant. */
export const ROUND15_INPUT_OPEN: OpenFault[] = [
  {
    fault: singleElementArrays,
    reading: true,
    why: 'content is a key/value map (§2.6) with no type for a value: what a server makes of a value other than a string (here an array of one element given back as that element, as a form reader does) is recorded (items.content-types, INFO), as round 14 judged string-only content',
  },
  {
    fault: fetchBoundPast2038,
    reading: true,
    why: 'the spec states no range of instants a fetch must accept (§4.2: since and until, their defaults and requiredness not shown): a server that cannot hold a bound past 2038-01-19 refuses it, which is recorded as a refused range is; every answer it gives to a bound it takes is right',
  },
]
