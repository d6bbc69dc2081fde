import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { rewriteJson, wrapHandler } from '../faults/kit'
import type { Variant } from './types'

/** Blind round 6: correct servers that choose differently where the spec leaves the choice open. */

type Handler = RouteOptions['handler']

/** `2015-11-10T20:22:54.123+01:00`: the same instant written in a zone one hour east of UTC. */
function plusOneHour(text: unknown): unknown {
  if (typeof text !== 'string') return text
  const ms = Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'))
  if (Number.isNaN(ms)) return text
  return new Date(ms + 3_600_000).toISOString().replace(/Z$/, '+01:00')
}

function channelTimes<T extends Record<string, unknown>>(c: T): T {
  return { ...c, creationDate: plusOneHour(c.creationDate), modifiedDate: plusOneHour(c.modifiedDate) }
}

export const R6_VARIANTS: readonly Variant[] = [
  {
    name: 'r6v-search-newest-first',
    area: 'channels',
    description: 'channel search lists matches newest first (paging follows that order)',
    reading: '§4.2 search: "Matching rules … not shown"; no order of results is stated, only offset (results to skip) and size',
    install(app) {
      wrapHandler(
        app,
        'channels.search',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const q = request.query as { offset: number; size: number }
            const { offset, size } = q
            q.offset = 0
            q.size = 0
            const { total } = (await (original as any).call(this, request, reply)) as { total: number }
            const end = total - offset
            if (end <= 0 || size === 0) return { total, results: [] }
            const start = Math.max(0, end - size)
            q.offset = start
            q.size = end - start
            const page = (await (original as any).call(this, request, reply)) as { total: number; results: unknown[] }
            return { total: page.total, results: [...page.results].reverse() }
          } as Handler,
      )
    },
  },
  {
    name: 'r6v-error-problem-body',
    area: 'http',
    description: 'error answers carry an RFC 9457-style body {type, title, status, detail} instead of {code, message} (still application/json)',
    reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"',
    install(app) {
      app.addHook('onSend', async (_request, reply, payload) => {
        if (reply.statusCode < 400 || typeof payload !== 'string') return payload
        try {
          const body = JSON.parse(payload) as { code?: number; message?: string }
          return JSON.stringify({ type: 'about:blank', title: `error ${body.code ?? reply.statusCode}`, status: reply.statusCode, detail: body.message ?? '' })
        } catch {
          return payload
        }
      })
    },
  },
  {
    name: 'r6v-expires-3600',
    area: 'signin',
    description: 'tokens live one hour: sign-in answers expires_in 3600',
    reading: '§5.3 "The sample value of expires_in is 7200; the unit is not stated"; §2.2 expires_in is "lifetime of the token", its value is the server\'s',
    install(_app, ctx) {
      ctx.tokenLifetimeSeconds = 3600
    },
  },
  {
    name: 'r6v-fetch-default-desc',
    area: 'items',
    description: 'fetch by date range without sort_order answers newest first (DESC)',
    reading: '§4.2 fetch: "Defaults and requiredness of since, until, sort_order, offset and size: not shown"',
    install(app) {
      app.addHook('onRoute', (route) => {
        if (route.config?.id !== 'items.fetch') return
        const hook = async (request: FastifyRequest) => {
          const q = request.query as { sort_order?: string }
          if (q.sort_order === undefined) q.sort_order = 'DESC'
        }
        const existing = route.preValidation
        route.preValidation = (
          existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook]
        ) as RouteOptions['preValidation']
      })
    },
  },
  {
    name: 'r6v-subscription-device-null',
    area: 'subscriptions',
    description: 'list subscribers answers deviceId null for every subscription (subscriptions are kept per user, not per device)',
    reading: '§2.5 Subscription: "deviceId | string or null"',
    install(app) {
      rewriteJson(app, 'subscriptions.list', (body) => (body as Record<string, unknown>[]).map((s) => ({ ...s, deviceId: null })))
    },
  },
  {
    name: 'r6v-channel-time-plus-one',
    area: 'channels',
    description: 'channel creationDate and modifiedDate are written in the server zone, +01:00 (e.g. 2026-11-27T03:04:05.678+01:00)',
    reading: '§2.3 creationDate "with millisecond precision and a numeric UTC offset"; the offset need not be zero (only the summary says "(UTC)")',
    install(app) {
      rewriteJson(app, 'channels.getByName', (body) => channelTimes(body))
      rewriteJson(app, 'channels.search', (body) => ({ ...body, results: body.results.map(channelTimes) }))
    },
  },
]
