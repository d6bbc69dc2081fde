import { callerOf } from '../auth'
import { rewriteJson, wrapHandler } from '../faults/kit'
import { channelSearchView } from '../views'
import type { Variant } from './types'

/**
 * Blind round 12: correct servers that choose differently from the reference where the spec leaves the
 * choice open. The suite must pass each of them (a failure is a false alarm).
 */

/** Channel search newest first (the reference: oldest first). */
const searchNewestFirst: Variant = {
  name: 'r12v-search-newest-first',
  area: 'channels',
  description: 'channel search orders its matches newest first (by creation time, then name), and pages over that order',
  reading: '§4.2 Search public channels gives offset ("the number of results to skip") and size but states no order of results; "Matching rules … not shown".',
  install(app, ctx) {
    wrapHandler(
      app,
      'channels.search',
      () =>
        async function (request) {
          callerOf(request)
          const {
            channelName,
            description,
            tag = [],
            offset,
            size,
          } = request.query as {
            channelName?: string
            description?: string
            tag?: string[]
            offset: number
            size: number
          }
          const nameText = channelName?.toLowerCase()
          const descriptionText = description?.toLowerCase()
          const matches = ctx.store
            .listPublicChannels()
            .filter(
              (c) =>
                (nameText === undefined || c.name.toLowerCase().includes(nameText)) &&
                (descriptionText === undefined || c.description.toLowerCase().includes(descriptionText)) &&
                tag.every((t) => c.tags.includes(t)),
            )
            .sort((a, b) => b.createdAt - a.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          return { total: matches.length, results: matches.slice(offset, offset + size).map((c) => channelSearchView(ctx, c)) }
        },
    )
  },
}

/** Subscribers listed newest first. */
const subscribersNewestFirst: Variant = {
  name: 'r12v-subscribers-newest-first',
  area: 'subscriptions',
  description: 'list subscribers answers the most recent subscription first',
  reading: '§4.2 List subscribers: "Response 200: array of Subscription"; no order is stated.',
  install(app) {
    rewriteJson(app, 'subscriptions.list', (body) => (Array.isArray(body) ? [...body].reverse() : body))
  },
}

/** Tags answered in alphabetical order. */
const tagsSorted: Variant = {
  name: 'r12v-tags-sorted',
  area: 'tags',
  description: 'get tags answers the tags sorted by code point, not in the order added',
  reading: '§4.2 Get tags: "{channelName (string), tags (array of string)}"; no order of the tags is stated.',
  install(app) {
    rewriteJson(app, 'tags.get', (body) => (Array.isArray(body?.tags) ? { ...body, tags: [...body.tags].sort() } : body))
  },
}

/** Error bodies with a nested error object. */
const errorBodyNested: Variant = {
  name: 'r12v-error-body-nested',
  area: 'http',
  description: 'every error answer is {"status": <http status>, "error": {"code", "message"}} instead of {code, message}',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)".',
  install(app) {
    app.addHook('onSend', async (_request, reply, payload) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload
      try {
        const body = JSON.parse(payload) as { code?: unknown; message?: unknown }
        if (body && typeof body === 'object' && 'code' in body && 'message' in body) {
          return JSON.stringify({ status: reply.statusCode, error: { code: body.code, message: body.message } })
        }
      } catch {
        // not JSON: left as it is
      }
      return payload
    })
  },
}

/** Summary time with a numeric zero offset. */
const summaryTimeOffset: Variant = {
  name: 'r12v-summary-time-offset',
  area: 'channels',
  description: 'the summary lastPublishedTime is written with "+00:00" instead of "Z" (e.g. 2015-11-10T19:22:54.123+00:00)',
  reading: '§2.4 lastPublishedTime is a "timestamp (UTC)" and §2 "Timestamps are ISO 8601 strings"; +00:00 is the ISO 8601 notation of UTC as much as Z.',
  install(app) {
    rewriteJson(app, 'channels.summary', (body) =>
      typeof body?.lastPublishedTime === 'string' ? { ...body, lastPublishedTime: body.lastPublishedTime.replace(/Z$/, '+00:00') } : body,
    )
  },
}

/** Users listed newest first. */
const usersNewestFirst: Variant = {
  name: 'r12v-users-newest-first',
  area: 'users',
  description: 'list all users answers the users in reverse creation order (the most recently enrolled first)',
  reading: '§4.1 List all users: "Response: array of User"; no order is stated.',
  install(app) {
    rewriteJson(app, 'users.list', (body) => (Array.isArray(body) ? [...body].reverse() : body))
  },
}

export const R12_VARIANTS: readonly Variant[] = [searchNewestFirst, subscribersNewestFirst, tagsSorted, errorBodyNested, summaryTimeOffset, usersNewestFirst]
