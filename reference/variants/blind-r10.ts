import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { rewriteJson, wrapHandler } from '../faults/kit'
import { MAX_PAGE_SIZE } from '../schemas'
import type { Variant } from './types'

/**
 * Blind round 10: correct servers that choose differently where the spec leaves the choice open, written
 * from the spec's words alone. The suite must give each the verdict of the reference server.
 */

/** Channel search results newest first (creation time descending, then name descending), a stable order for paging. */
const searchNewestFirst: Variant = {
  name: 'r10v-search-newest-first',
  area: 'channels',
  description: 'channel search lists matches newest first (the reference order reversed), a stable order, so pages still do not overlap',
  reading: '§4.2 search: "Matching rules for channelName and description, and the defaults and maximum of size: not shown"; no order of results is stated.',
  install(app) {
    wrapHandler(
      app,
      'channels.search',
      (original) =>
        async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
          const query = request.query as { offset: number; size: number }
          const { offset, size } = query
          request.query = { ...query, offset: 0, size: MAX_PAGE_SIZE }
          const body = (await (original as (this: unknown, q: FastifyRequest, r: FastifyReply) => unknown).call(this, request, reply)) as {
            total: number
            results: unknown[]
          }
          return { total: body.total, results: [...body.results].reverse().slice(offset, offset + size) }
        } as RouteOptions['handler'],
    )
  },
}

/** The unsubscribe message names the channel first, then states the count. */
const unsubscribeMessageNameFirst: Variant = {
  name: 'r10v-unsubscribe-message-name-first',
  area: 'subscriptions',
  description: 'the unsubscribe message names the channel before the count: "channel <name>: 1 subscription cancelled" (a name may hold digits)',
  reading: '§4.2 unsubscribe: "the message states the number of subscriptions cancelled"; its wording is not given.',
  install(app) {
    rewriteJson(app, 'subscriptions.unsubscribe', (body, request) => {
      // A message another variant already rewrote (in words, say) is left as it is: this one rewords the plain count.
      const digits = /^(\d+)/.exec(String(body.message))?.[1]
      if (digits === undefined) return body
      const n = Number(digits)
      const channel = (request.params as { channel: string }).channel
      return { message: `channel ${channel}: ${n} subscription${n === 1 ? '' : 's'} cancelled`, code: body.code }
    })
  },
}

/** creationDate / modifiedDate in the server's zone (+05:30), with milliseconds and a numeric offset. */
const channelDatesIndiaOffset: Variant = {
  name: 'r10v-channel-dates-plus-0530',
  area: 'channels',
  description: 'channel creationDate and modifiedDate are given in the server zone +05:30 ("2026-11-27T14:02:03.456+0530"), with milliseconds',
  reading:
    '§2.3 creationDate: "timestamp with millisecond precision and a numeric UTC offset"; which offset is not fixed (only the summary\'s lastPublishedTime is said to be UTC).',
  install(app) {
    const shift = (text: unknown): unknown => {
      if (typeof text !== 'string') return text
      const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
      if (Number.isNaN(ms)) return text
      return new Date(ms + 330 * 60_000).toISOString().replace(/Z$/, '+0530')
    }
    const fix = (c: Record<string, unknown>) => ({ ...c, creationDate: shift(c.creationDate), modifiedDate: shift(c.modifiedDate) })
    rewriteJson(app, 'channels.getByName', (body) => fix(body))
    rewriteJson(app, 'channels.search', (body) => ({ ...body, results: (body.results as Record<string, unknown>[]).map(fix) }))
  },
}

/** Error bodies in the RFC 9457 problem shape (served as application/json). */
const errorBodyProblem: Variant = {
  name: 'r10v-error-body-problem',
  area: 'http',
  description: 'every error body is a problem object {type, title, status, detail} instead of {code, message}, still served as application/json',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)".',
  install(app) {
    app.addHook('onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload
      let body: { code?: unknown; message?: unknown }
      try {
        body = JSON.parse(payload)
      } catch {
        return payload
      }
      return JSON.stringify({
        type: `urn:mms:error:${String(body.code ?? reply.statusCode)}`,
        title: String(body.message ?? 'error'),
        status: reply.statusCode,
        detail: String(body.message ?? ''),
      })
    })
  },
}

export const R10_VARIANTS: readonly Variant[] = [searchNewestFirst, unsubscribeMessageNameFirst, channelDatesIndiaOffset, errorBodyProblem]
