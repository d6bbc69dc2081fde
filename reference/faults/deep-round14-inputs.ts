/** Blind round 14 (docs/detection.md), inputs (input classes × fields): deep faults written from the spec alone, without reading the suite. */
import type { FastifyRequest } from 'fastify'
import type { ChannelRecord } from '../model'
import { parseTimestamp } from '../time'
import { setQuery } from './common'
import { addRouteHook, overrideStore, rewriteJson } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * A tag batch is checked against the channel's stored tags only, not against itself (the `Set` was left
 * out): a tag repeated in one add is stored twice, and delete one tag then removes one of the copies.
 */
function tagsBatchDuplicates(): CatalogFault {
  return {
    name: 'r14a-tags-batch-duplicates',
    area: 'tags',
    depth: 'deep',
    /**
     * §4.2 "Delete one tag: DELETE /channels/{channel_name}/tags/{tag}": after it the channel no longer has that
     * tag. Here a tag that was sent twice in one add-tags body (`tags: ["x", "x"]`) is kept twice, and a
     * delete of it removes one copy: get tags still lists it.
     */
    clause: 'tags.delete-one.removes',
    description:
      'add tags de-duplicates a batch only against the tags already stored: a tag repeated within one body is stored twice, so delete one tag leaves a copy and get tags still lists it',
    wrapStore: (store) =>
      overrideStore(store, {
        addTags: (inner) => (channelId, tags, at) => {
          const channel = inner.getChannel(channelId) as ChannelRecord | undefined
          if (!channel) return 0
          const fresh = tags.filter((t) => !channel.tags.includes(t))
          if (fresh.length > 0) {
            channel.tags.push(...fresh)
            channel.modifiedAt = at
          }
          return fresh.length
        },
      }),
  }
}

/**
 * Item content is kept in a key/value table whose value column is text: every top-level value that is not a
 * string is written as its JSON text and read back as that string.
 */
function contentStringMap(): CatalogFault {
  const asText = (content: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(content).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
  return {
    name: 'r14a-items-content-string-map',
    area: 'items',
    depth: 'deep',
    /**
     * §2.6 "content | object | key/value map of the message content" and §4.2 publish "Body: `content` (object
     * of key/value pairs)": the item carries the content published. Here `{"n": 5, "ok": true, "o": {"a": 1}}`
     * comes back as `{"n": "5", "ok": "true", "o": "{\"a\":1}"}`; string values are intact.
     */
    clause: 'items.content-intact',
    description:
      'publish stores content as a map of strings: a number, boolean, null, array or object value comes back as its JSON text ("5", "true", "{\\"a\\":1}"); string values are intact',
    wrapStore: (store) =>
      overrideStore(store, {
        addItem: (inner) => (item, maxItems) => inner.addItem({ ...item, content: asText(item.content) }, maxItems),
      }),
  }
}

/**
 * The sign-in response builds the user record's userName from the `username` parameter as the caller typed it
 * (the server finds the account ignoring case), not from the stored account.
 */
function signInUserNameAsTyped(): CatalogFault {
  const typedName = (request: FastifyRequest): string | undefined => {
    const body = request.body as Record<string, unknown> | undefined
    const fromBody = body && typeof body === 'object' ? body.username : undefined
    const value = fromBody ?? (request.query as Record<string, unknown>).username
    return typeof value === 'string' ? value : undefined
  }
  return {
    name: 'r14a-signin-username-as-typed',
    area: 'users',
    depth: 'deep',
    /**
     * §2.2 "user | User | record as in 2.1" and §2.1 "userName | string": the sign-in user record is the user's
     * record, with the same userName the user list and search give. Signed in as "ALICE.CT" (the account is
     * found ignoring case), the record says userName "ALICE.CT" while the list says "alice.ct".
     */
    clause: 'users.record.agrees',
    description:
      "the sign-in user record carries userName as the username parameter was typed: a sign-in in another letter case answers that spelling, not the account's (which the user list and search give)",
    install(app) {
      rewriteJson(app, 'users.signIn', (body, request) => {
        const typed = typedName(request)
        if (typed === undefined || !body?.user) return body
        return { ...body, user: { ...body.user, userName: typed } }
      })
    },
  }
}

/**
 * A private channel is created through its own code path, which passes name, description, permission and
 * subscribe flag on but not maxItems: a private channel is always unlimited.
 */
function privateChannelDropsMaxItems(): CatalogFault {
  return {
    name: 'r14a-channels-private-max-items',
    area: 'channels',
    depth: 'deep',
    /**
     * §4.2 create "Body: ... `maxItems` (integer, optional, default -1); `privateChannel` (boolean, optional,
     * default false)" and §2.3 "maxItems | integer | maximum number of items kept": a channel created with
     * both privateChannel true and maxItems 3 reports maxItems -1 and keeps every item; a public channel
     * with maxItems 3 is right.
     */
    clause: ['channels.create.fields-stored', 'items.max-items'],
    description:
      'create ignores maxItems when privateChannel is true (the private path does not pass it on): the private channel reports maxItems -1 and keeps every item; public channels keep their maxItems',
    install(app) {
      addRouteHook(app, 'channels.create', 'preHandler', async (request: FastifyRequest) => {
        const body = request.body as { privateChannel?: boolean; maxItems?: number }
        if (body.privateChannel === true && body.maxItems !== undefined) request.body = { ...body, maxItems: undefined }
      })
    },
  }
}

/**
 * since/until are parsed with the fraction of a second read as a whole number of milliseconds
 * (`+ parseInt(fraction)`), right for exactly three digits only: ".5" is 5 ms, ".123456" is 123456 ms.
 */
function fetchFractionAsMilliseconds(): CatalogFault {
  const FRACTION = /^(.*T\d{2}:\d{2}:\d{2})\.(\d{1,9})(\D.*)$/
  const misread = (text: unknown): unknown => {
    if (typeof text !== 'string') return text
    const m = FRACTION.exec(text)
    if (!m || m[2]!.length === 3) return text
    const whole = parseTimestamp(`${m[1]}${m[3]}`)
    return whole === undefined ? text : new Date(whole + Number(m[2])).toISOString()
  }
  return {
    name: 'r14a-items-fetch-fraction-as-ms',
    area: 'items',
    depth: 'deep',
    /**
     * §4.2 "Fetch items by date range: GET ... ?since=<timestamp>&until=<timestamp>" with §2 "Timestamps are ISO
     * 8601 strings": an ISO 8601 fraction of a second may have any number of digits. Here until=...:05.5Z is
     * read as :05.005 (an item of :05.300 is left out) and until=...:05.123456Z as 123 s later (items
     * published after it come back); three-digit fractions are right.
     */
    clause: 'items.fetch.range',
    description:
      'fetch reads the fraction of a second of since and until as a count of milliseconds: right with three digits, but ".5" is 5 ms and ".123456" (microseconds) is 123456 ms, so the range is wrong',
    install(app) {
      addRouteHook(app, 'items.fetch', 'preHandler', async (request: FastifyRequest) => {
        const query = request.query as Record<string, unknown>
        for (const name of ['since', 'until']) {
          if (query[name] !== undefined) setQuery(request, name, misread(query[name]))
        }
      })
    },
  }
}

/** Blind round 14's input faults (docs/detection.md). */
export const ROUND14_INPUT_FAULTS: CatalogFault[] = [tagsBatchDuplicates(), privateChannelDropsMaxItems(), fetchFractionAsMilliseconds()]

/** Round 14's input faults that proved readings the spec allows: the variant self-test wants each judged conformant. */
export const ROUND14_INPUT_OPEN: OpenFault[] = [
  {
    fault: contentStringMap(),
    reading: true,
    why: 'content is "object of key/value pairs" (§4.2, §2.6), with no type for a value: a server that keeps string values only may give back 5 as "5" and an object as its JSON text; what typed and nested values become is recorded (items.content-types, INFO), as for metadata',
  },
  {
    fault: signInUserNameAsTyped(),
    reading: true,
    why: 'the spec does not say whether user names ignore case (§2.1, §4.1); a server that finds the account without case and answers the name as typed names the same user, whose userName the suite compares without case in every view (users.record.agrees)',
  },
]
