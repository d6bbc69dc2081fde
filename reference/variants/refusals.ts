import type { FastifyReply, FastifyRequest } from 'fastify'
import { rewriteErrorBodies } from './common'
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

// ---------------------------------------------------------------- written in the blind rounds 5 to 12 (docs/detection.md)

function statusTitle(status: number): string {
  return (
    { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type' }[
      status
    ] ?? 'Error'
  )
}

const r5vErrorProblemJson: Variant = {
  name: 'r5v-error-problem-json',
  area: 'http',
  description: 'error answers are RFC 9457 problem details (application/problem+json: type, title, status, detail)',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"; problem+json is JSON (§4 "bodies are JSON")',
  install(app) {
    rewriteErrorBodies(app, (body, reply) => {
      reply.header('content-type', 'application/problem+json; charset=utf-8')
      return { type: 'about:blank', title: String(body?.message ?? 'error'), status: reply.statusCode, detail: body?.message ?? null }
    })
  },
}

const r6vErrorProblemBody: Variant = {
  name: 'r6v-error-problem-body',
  area: 'http',
  description: 'error answers carry an RFC 9457-style body {type, title, status, detail} instead of {code, message} (still application/json)',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"',
  install(app) {
    rewriteErrorBodies(app, (body, reply) => ({
      type: 'about:blank',
      title: `error ${body.code ?? reply.statusCode}`,
      status: reply.statusCode,
      detail: body.message ?? '',
    }))
  },
}

/** Error answers as RFC 9457 problem details, with WWW-Authenticate on 401. */
const r7vAuthProblemJsonErrors: Variant = {
  name: 'r7v-auth-problem-json-errors',
  area: 'auth',
  description: 'every error is answered as application/problem+json {type, title, status, detail}; a 401 also carries WWW-Authenticate: Bearer',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"; §4 bodies are JSON, and problem+json is JSON',
  install(app) {
    rewriteErrorBodies(app, (body, reply) => {
      if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="mms", error="invalid_token"')
      reply.header('content-type', 'application/problem+json; charset=utf-8')
      return { type: 'about:blank', title: statusTitle(reply.statusCode), status: reply.statusCode, detail: String(body?.message ?? '') }
    })
  },
}

const r8vErrorBodyNested: Variant = {
  name: 'r8v-error-body-nested',
  area: 'http',
  description: 'every error answers {"error":{"status":…,"code":…,"detail":…}} (same statuses, JSON)',
  reading: '§7: "Error responses: not shown (no error codes, no error body shape, no failure status codes)".',
  install(app) {
    rewriteErrorBodies(app, (body, reply) => ({ error: { status: reply.statusCode, code: body.code ?? null, detail: body.message ?? null } }))
  },
}

/** Error bodies in the RFC 9457 problem shape (served as application/json). */
const r10vErrorBodyProblem: Variant = {
  name: 'r10v-error-body-problem',
  area: 'http',
  description: 'every error body is a problem object {type, title, status, detail} instead of {code, message}, still served as application/json',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)".',
  install(app) {
    rewriteErrorBodies(app, (body, reply) => ({
      type: `urn:mms:error:${String(body.code ?? reply.statusCode)}`,
      title: String(body.message ?? 'error'),
      status: reply.statusCode,
      detail: String(body.message ?? ''),
    }))
  },
}

/** Error bodies with a nested error object. */
const r12vErrorBodyNested: Variant = {
  name: 'r12v-error-body-nested',
  area: 'http',
  description: 'every error answer is {"status": <http status>, "error": {"code", "message"}} instead of {code, message}',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)".',
  install(app) {
    rewriteErrorBodies(app, (body, reply) =>
      body && typeof body === 'object' && 'code' in body && 'message' in body
        ? { status: reply.statusCode, error: { code: body.code, message: body.message } }
        : body,
    )
  },
}

export const BLIND_REFUSAL_VARIANTS: readonly Variant[] = [
  r5vErrorProblemJson,
  r6vErrorProblemBody,
  r7vAuthProblemJsonErrors,
  r8vErrorBodyNested,
  r10vErrorBodyProblem,
  r12vErrorBodyNested,
]
