import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { MAX_PAGE_SIZE } from '../schemas'
import { addRouteHook, aroundHandler, overrideStore } from './kit'
import { setQuery } from './common'
import type { CatalogFault, OpenFault } from './types'

/**
 * Blind round 13 (a): faults written from the spec's words only. Region: inputs — valid but less ordinary values
 * (non-ASCII and special characters, long texts, time-zone offsets, nested shapes) that an ordinary call never sends.
 */

/**
 * §4.1 Sign in: "Parameters, sent as query string or form body: `grant_type` (the value password), `username`,
 * `password`, `client_id` …". A form body is decoded with a hand-rolled `unescape()`-style decoder, byte by byte as
 * Latin-1: a password with a non-ASCII character (sent percent-encoded as UTF-8) arrives mangled and the sign-in is
 * refused, while the same parameters in the query string (parsed by the framework) sign in.
 */
const signinFormLatin1: CatalogFault = {
  name: 'r13a-signin-form-latin1',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.params.form',
  description: 'the sign-in form body is percent-decoded as Latin-1 bytes: a non-ASCII password sent as a form is refused (the query string works)',
  install(app) {
    addRouteHook(app, 'users.signIn', 'preValidation', async (request: FastifyRequest) => {
      const type = String(request.headers['content-type'] ?? '')
      if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return
      const form = request.body as Record<string, unknown> | undefined
      if (!form || typeof form !== 'object') return
      for (const [k, v] of Object.entries(form)) {
        // What unescape() gives for %XX sequences of UTF-8: one Latin-1 character per byte.
        if (typeof v === 'string') form[k] = Buffer.from(v, 'utf8').toString('latin1')
      }
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
      const colon = query.q.indexOf(':')
      const value = colon < 0 ? '' : query.q.slice(colon + 1)
      const property = USER_FIELDS.find((p) => p.toLowerCase() === query.q.slice(0, Math.max(colon, 0)).toLowerCase())
      if (value === '' || !property) return next()
      const pattern = new RegExp(`^${value.replace(/^\*/, '.*').replace(/\*$/, '.*')}$`, 'i')
      const { take, skip } = query
      setQuery(request, 'q', `${query.q.slice(0, colon)}:*`)
      setQuery(request, 'skip', 0)
      setQuery(request, 'take', MAX_PAGE_SIZE)
      const all = (await next()) as Record<string, unknown>[]
      return all.filter((u) => pattern.test(String(u[property]))).slice(skip, skip + take)
    })
  },
}

const USER_FIELDS = ['userName', 'firstName', 'lastName', 'email', 'userRealm', 'userStatus', 'userIdentifier'] as const

/**
 * §4.2 "Delete one tag: `DELETE /channels/{channel_name}/tags/{tag}?personal=<boolean>`". The tag is taken from the
 * raw request path (its last segment) rather than from the decoded path parameter: a tag with a space, a non-ASCII
 * letter or any other character a client must percent-encode is looked for in its encoded form, is not found, and
 * stays on the channel.
 */
const tagsDeleteRawSegment: CatalogFault = {
  name: 'r13a-tags-delete-raw-segment',
  area: 'tags',
  depth: 'deep',
  clause: ['tags.delete-one.removes', 'tags.delete-one.status'],
  description:
    'delete one tag compares the still percent-encoded path segment with the stored tags: a tag with a space or a non-ASCII letter cannot be deleted',
  install(app) {
    addRouteHook(app, 'tags.deleteOne', 'preHandler', async (request: FastifyRequest) => {
      const path = request.url.split('?')[0]!.replace(/\/+$/, '')
      ;(request.params as { tag: string }).tag = path.slice(path.lastIndexOf('/') + 1)
    })
  },
}

/** Strings as a MySQL `utf8` (3-byte, utf8mb3) column in non-strict mode keeps them: characters beyond the BMP become '?'. */
function utf8mb3(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/[\u{10000}-\u{10FFFF}]/gu, '?')
  if (Array.isArray(value)) return value.map(utf8mb3)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [utf8mb3(k), utf8mb3(v)]))
  return value
}

/**
 * §2.6 Published item: "content | object | key/value map of the message content" (an item comes back with the content
 * it was published with). Item content is stored in a 3-byte UTF-8 column: an emoji or any other character outside
 * the Basic Multilingual Plane comes back as '?', while accents, CJK and every ASCII text come back intact.
 */
const itemsContentUtf8mb3: CatalogFault = {
  name: 'r13a-items-content-utf8mb3',
  area: 'items',
  depth: 'deep',
  clause: 'items.content-intact',
  description: 'item content is stored as 3-byte UTF-8: characters beyond the BMP (emoji) come back as "?"',
  wrapStore: (store) =>
    overrideStore(store, {
      addItem: (inner) => (item, maxItems) => inner.addItem({ ...item, content: utf8mb3(item.content) as Record<string, unknown> }, maxItems),
    }),
}

/**
 * §4.3 Send to user ids: "Body: `receipt` (boolean …), `recipientUserIds` (array of string), `content` (object of
 * key/value pairs), `metadata` (object, optional)". metadata is bound to a map of strings: a metadata object whose
 * values are themselves objects or arrays cannot be bound and the send is refused 400 (flat metadata and metadata
 * left out work).
 */
const messagesMetadataFlat: CatalogFault = {
  name: 'r13a-messages-metadata-flat-only',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.send.options',
  description: 'a send whose metadata holds a nested object or an array is refused 400 (metadata is bound to a map of strings)',
  install(app) {
    addRouteHook(app, 'messages.send', 'preHandler', async (request: FastifyRequest) => {
      const { metadata } = request.body as { metadata?: Record<string, unknown> }
      if (metadata && Object.values(metadata).some((v) => v !== null && typeof v === 'object')) {
        throw fail('BAD_REQUEST', 'body/metadata values must be strings, numbers or booleans')
      }
    })
  },
}

export const R13A_FAULTS: readonly CatalogFault[] = [usersSearchRegexUnescaped, tagsDeleteRawSegment, itemsContentUtf8mb3]

/** The round's faults the fixed run does not catch, with why (docs/detection.md, round 13). */
export const R13A_OPEN: readonly OpenFault[] = [
  {
    fault: signinFormLatin1,
    why: "needs an account whose password holds a character outside ASCII: the accounts are the deployment's, and the suite enrols users only when none are configured",
  },
  {
    fault: messagesMetadataFlat,
    why: 'not a deviation the spec states: §4.3 gives metadata as "object, optional" and no type for its values, so a server may take string values only (as r11-msg-metadata-non-string-refused, a reading already)',
    reading: true,
  },
]
