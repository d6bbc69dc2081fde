import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Variant } from './types'

/** Refusals (§7 "Error responses: not shown"): other statuses and other bodies for the same refusals. */

const HTML = (status: number, text: string) => `<!DOCTYPE html><html><head><title>${status}</title></head><body><h1>${status}</h1><p>${text}</p></body></html>`

/**
 * Every refusal but sign-in's keeps its meaning and changes its form: 401 is plain text with a challenge, validation 400s become 422
 * with a list of errors, a conflict becomes 400 in plain text, "forbidden" is an HTML page, "not found"
 * has an empty body, and the rest carry `{error: {status, reason}}`. Sign-in is left alone: it is where a
 * client learns that its credentials are wrong, and the suite's preflight reads it.
 */
const refusalsVary: Variant = {
  name: 'refusals-vary',
  area: 'auth',
  description: 'refusals use other statuses and bodies: 422 with an error list, 409 as 400 text, 401 text, 403 HTML, 404 empty, {error:{…}}',
  reading: '§7: "Error responses: not shown (no error codes, no error body shape, no failure status codes)"',
  install: (app) =>
    app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const status = reply.statusCode
      if (status < 400 || status >= 500 || /\/user\/session\b/.test(request.url)) return payload
      let reason = 'refused'
      try {
        reason = String((JSON.parse(String(payload)) as { message?: unknown }).message ?? reason)
      } catch {
        // not JSON already
      }
      switch (status) {
        case 400:
          reply.code(422).header('content-type', 'application/problem+json')
          return JSON.stringify({ type: 'about:blank', title: 'Unprocessable Entity', errors: [{ reason }] })
        case 409:
          reply.code(400).header('content-type', 'text/plain; charset=utf-8')
          return `Bad Request: ${reason}`
        case 403:
          reply.header('content-type', 'text/html; charset=utf-8')
          return HTML(403, 'Forbidden')
        case 401:
          reply.header('www-authenticate', 'Bearer realm="api"').header('content-type', 'text/plain; charset=utf-8')
          return 'Unauthorized'
        case 404:
          reply.removeHeader('content-type')
          return ''
        default:
          return JSON.stringify({ error: { status, reason } })
      }
    }),
}

export const REFUSAL_VARIANTS: readonly Variant[] = [refusalsVary]
