import { createHmac } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { addRouteHook, overrideStore, rewriteJson } from '../faults/kit'
import type { Variant } from './types'

/**
 * Blind round 7: correct servers that choose differently where the spec allows it, written from the spec's words
 * alone and weighted like the round's faults (sign-in and tokens, users, direct messages, push, authentication).
 */

const b64url = (text: string | Buffer) => Buffer.from(text).toString('base64url')

/** Signed-token form: the opaque token wrapped as a JWT-like string (header.claims.signature), ~200 characters. */
const jwtToReal = new Map<string, string>()
const jwtTokens: Variant = {
  name: 'r7v-signin-jwt-tokens',
  area: 'signin',
  description: 'sign-in answers access_token as a long JWT-like string (three base64url segments joined by ".")',
  reading:
    '§2.2 "access_token | string | <ACCESS_TOKEN>, used as bearer token": the token\'s form and length are not shown; §5.6 leaves the rest of token handling open',
  wrapStore(store) {
    return overrideStore(store, { getToken: (inner) => (token) => inner.getToken(jwtToReal.get(token) ?? token) })
  },
  install(app) {
    rewriteJson(app, 'users.signIn', (body) => {
      if (typeof body?.access_token !== 'string') return body
      const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
      const claims = b64url(JSON.stringify({ sub: body.user?.userIdentifier, jti: body.access_token, scope: 'public', iat: Math.floor(Date.now() / 1000) }))
      const signature = createHmac('sha256', 'r7v-demo-key').update(`${header}.${claims}`).digest('base64url')
      const jwt = `${header}.${claims}.${signature}`
      jwtToReal.set(jwt, body.access_token)
      return { ...body, access_token: jwt }
    })
  },
}

/** Account data filled in: every User record carries a small userAccountData map. */
const ACCOUNT_DATA = { locale: 'en-US', signupSource: 'console', marketingOptIn: false }
const withAccountData = (user: unknown) => (user && typeof user === 'object' ? { ...user, userAccountData: { ...ACCOUNT_DATA } } : user)
const accountData: Variant = {
  name: 'r7v-users-account-data',
  area: 'users',
  description: 'every User record (sign-in, list, search) carries a non-empty userAccountData map',
  reading: '§2.1 "userAccountData | object | account data map; may be empty": may be empty, so it may also hold data',
  install(app) {
    rewriteJson(app, 'users.signIn', (body) => (body?.user ? { ...body, user: withAccountData(body.user) } : body))
    rewriteJson(app, 'users.list', (body) => (Array.isArray(body) ? body.map(withAccountData) : body))
    rewriteJson(app, 'users.query', (body) => (Array.isArray(body) ? body.map(withAccountData) : body))
  },
}

/** Search results newest-name-first: a default sort by userName descending when the caller asks for none. */
const searchDescending: Variant = {
  name: 'r7v-users-search-desc-order',
  area: 'users',
  description: 'search users sorts its results by userName descending (Z first) when no sort is asked for',
  reading:
    '§4.1 "Filtering, sorting and pagination follow URI search conventions ... Names of the sort and pagination parameters: not shown": no default order is stated',
  install(app) {
    addRouteHook(app, 'users.query', 'preHandler', async (request: FastifyRequest) => {
      const query = request.query as { sort?: string }
      if (query.sort === undefined) query.sort = 'userName:desc'
    })
  },
}

/** sentList entries name the device woken (the recipient's first device) instead of null. */
const sentListDeviceId: Variant = {
  name: 'r7v-msg-sentlist-device-id',
  area: 'messages',
  description: "direct-message sentList entries carry the deviceId of the recipient's first device woken instead of null",
  reading: '§2.8 "Direct message sentList element: ... deviceId (string or null)": a string is allowed',
  install(app, ctx) {
    rewriteJson(app, 'messages.send', (body) => {
      if (!Array.isArray(body?.sentList)) return body
      return {
        ...body,
        sentList: body.sentList.map((e: { recipientUsername: string; deviceId: unknown }) => ({
          ...e,
          deviceId: ctx.store.listDevices(e.recipientUsername)[0]?.deviceId ?? e.deviceId,
        })),
      }
    })
  },
}

/** Push ids in UUID form (8-4-4-4-12, upper case) instead of 32 hex characters. */
const uuid = (hex: string) =>
  /^[0-9a-f]{32}$/i.test(hex) ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toUpperCase() : hex
const pushIdUuid: Variant = {
  name: 'r7v-push-id-uuid',
  area: 'push',
  description: 'push sentList pushId values are upper-case UUIDs with dashes',
  reading: '§2.8 "Push sentList element: pushId (string), deviceId (string)": the form of a push id is not shown',
  install(app) {
    rewriteJson(app, 'push.user', (body) => {
      if (!Array.isArray(body?.sentList)) return body
      return { ...body, sentList: body.sentList.map((e: { pushId: string }) => ({ ...e, pushId: uuid(e.pushId) })) }
    })
  },
}

/** Error answers as RFC 9457 problem details, with WWW-Authenticate on 401. */
const problemErrors: Variant = {
  name: 'r7v-auth-problem-json-errors',
  area: 'auth',
  description: 'every error is answered as application/problem+json {type, title, status, detail}; a 401 also carries WWW-Authenticate: Bearer',
  reading: '§7 "Error responses: not shown (no error codes, no error body shape, no failure status codes)"; §4 bodies are JSON, and problem+json is JSON',
  install(app) {
    app.addHook('onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode < 400 || typeof payload !== 'string') return payload
      let detail = ''
      try {
        detail = String(JSON.parse(payload)?.message ?? '')
      } catch {
        return payload
      }
      if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="mms", error="invalid_token"')
      reply.header('content-type', 'application/problem+json; charset=utf-8')
      return JSON.stringify({ type: 'about:blank', title: statusTitle(reply.statusCode), status: reply.statusCode, detail })
    })
  },
}

function statusTitle(status: number): string {
  return (
    { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type' }[
      status
    ] ?? 'Error'
  )
}

export const R7_VARIANTS: readonly Variant[] = [jwtTokens, accountData, searchDescending, sentListDeviceId, pushIdUuid, problemErrors]
