import type { FastifyReply, FastifyRequest } from 'fastify'
import { rewriteJson, wrapHandler } from '../faults/kit'
import { MAX_PAGE_SIZE } from '../schemas'
import type { Variant } from './types'

/** Blind round 8: correct servers that choose differently where the spec leaves the choice open. */

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown
const asHandler = (original: unknown) => original as Handler

export const R8_VARIANTS: readonly Variant[] = [
  {
    name: 'r8v-search-newest-first',
    area: 'channels',
    description: 'channel search lists matches newest first (offset and size page through that order)',
    reading: '§4.2 search: "Matching rules … and the defaults and maximum of size: not shown"; no order of results is stated.',
    install(app) {
      wrapHandler(
        app,
        'channels.search',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const query = request.query as { offset: number; size: number }
            const { offset, size } = query
            query.offset = 0
            query.size = MAX_PAGE_SIZE
            const all = (await asHandler(original).call(this, request, reply)) as { total: number; results: unknown[] }
            return { total: all.total, results: [...all.results].reverse().slice(offset, offset + size) }
          } as never,
      )
    },
  },
  {
    name: 'r8v-error-body-nested',
    area: 'http',
    description: 'every error answers {"error":{"status":…,"code":…,"detail":…}} (same statuses, JSON)',
    reading: '§7: "Error responses: not shown (no error codes, no error body shape, no failure status codes)".',
    install(app) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode < 400 || typeof payload !== 'string') return payload
        try {
          const body = JSON.parse(payload) as { code?: unknown; message?: unknown }
          return JSON.stringify({ error: { status: reply.statusCode, code: body.code ?? null, detail: body.message ?? null } })
        } catch {
          return payload
        }
      })
    },
  },
  {
    name: 'r8v-offset-with-colon',
    area: 'channels',
    description: 'channel creationDate / modifiedDate are written with a colon in the offset: 2015-11-10T19:22:54.123+00:00',
    reading: '§2.3: "with millisecond precision and a numeric UTC offset"; +00:00 is ISO 8601 numeric offset as much as +0000.',
    install(app) {
      const fix = (c: Record<string, unknown>) => {
        for (const k of ['creationDate', 'modifiedDate']) {
          if (typeof c[k] === 'string') c[k] = (c[k] as string).replace(/([+-]\d{2})(\d{2})$/, '$1:$2')
        }
        return c
      }
      rewriteJson(app, 'channels.getByName', (body) => fix(body))
      rewriteJson(app, 'channels.search', (body: { results: Record<string, unknown>[] }) => ({ ...body, results: body.results.map(fix) }))
    },
  },
  {
    name: 'r8v-fetch-default-desc',
    area: 'items',
    description: 'fetch by date range without sort_order lists newest first',
    reading: '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown".',
    install(app) {
      wrapHandler(
        app,
        'items.fetch',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const query = request.query as { sort_order?: string }
            if (query.sort_order === undefined) query.sort_order = 'DESC'
            return asHandler(original).call(this, request, reply)
          } as never,
      )
    },
  },
  {
    name: 'r8v-unsent-as-user-ids',
    area: 'messages',
    description: 'send_to_user_ids lists each unsent recipient in unsentList as a bare user id string',
    reading: '§4.3: "Element shape of unsentList: not shown"; §2.8 "unsentList: array".',
    install(app) {
      rewriteJson(app, 'messages.send', (body: { unsentList: { recipientUsername: string }[] }) => ({
        ...body,
        unsentList: body.unsentList.map((e) => e.recipientUsername),
      }))
    },
  },
  {
    name: 'r8v-token-lifetime-3600',
    area: 'signin',
    description: 'tokens live 3600 (seconds) and sign-in answers expires_in 3600',
    reading:
      '§2.2 "expires_in | integer | lifetime of the token"; §5.3 "The sample value of expires_in is 7200; the unit is not stated" — a sample, not a fixed value.',
    install(_app, ctx) {
      ;(ctx as { tokenLifetimeSeconds: number }).tokenLifetimeSeconds = 3600
    },
  },
]
