import type { FastifyRequest, onRequestHookHandler } from 'fastify'
import type { ServerContext } from './context'
import { fail } from './errors'
import { newId } from './ids'
import type { TokenKind, UserRecord } from './model'

export const BEARER = /^Bearer +(\S+) *$/i
const DEVICE_ID_HEADER = 'mms-device-id'
const MAX_DEVICE_ID_LENGTH = 256
/** Expired tokens are swept every this many issued tokens, so memory stays bounded without a timer. */
const PRUNE_EVERY = 1000

/**
 * The authentication hook. It runs on onRequest, before the body is read, so an unauthenticated call is
 * answered 401 whatever its body (and a large body from a stranger is never parsed). Routes say what they
 * need in `config.auth`; routes that say nothing (and the not-found handler) need nothing.
 */
export function authenticate(ctx: ServerContext): onRequestHookHandler {
  return async function authenticateRequest(request) {
    const need = request.routeOptions.config.auth ?? 'none'
    if (need === 'none') return
    const header = request.headers.authorization
    if (header === undefined) throw fail('UNAUTHORIZED', 'Authorization: Bearer <token> is required')
    const match = BEARER.exec(header)
    if (!match) throw fail('INVALID_TOKEN', 'Authorization must be "Bearer <token>"')
    const token = ctx.store.getToken(match[1]!)
    if (!token) throw fail('INVALID_TOKEN')
    if (token.expiresAt <= ctx.clock.now()) throw fail('TOKEN_EXPIRED')
    if (need === 'application') {
      if (token.kind !== 'APPLICATION') throw fail('WRONG_TOKEN_KIND', 'an application token is required')
      request.caller = { kind: 'APPLICATION', deviceId: token.deviceId }
      return
    }
    const user = token.kind === 'USER' && token.userId !== null ? ctx.store.getUser(token.userId) : undefined
    if (!user) throw fail('WRONG_TOKEN_KIND', 'a user token is required')
    request.caller = { kind: 'USER', user, deviceId: token.deviceId }
  }
}

/** The signed-in user of a route declared with `auth: 'user'`. */
export function callerOf(request: FastifyRequest): { user: Readonly<UserRecord>; deviceId: string } {
  const caller = request.caller
  // Only reachable if a route forgot its auth config: a server bug, hence a 500 rather than a 401.
  if (caller?.kind !== 'USER') throw new Error(`route ${request.routeOptions.config.id} has no user`)
  return caller
}

/** The MMS-DEVICE-ID header, required on sign-in and application sign-in (400 without). */
export function deviceIdOf(request: FastifyRequest): string {
  const value = request.headers[DEVICE_ID_HEADER]
  if (typeof value !== 'string' || value.trim() === '') throw fail('MISSING_DEVICE_ID')
  if (value.length > MAX_DEVICE_ID_LENGTH) {
    throw fail('MISSING_DEVICE_ID', `MMS-DEVICE-ID must be at most ${MAX_DEVICE_ID_LENGTH} characters`)
  }
  return value
}

let issued = 0

/** Mints a bearer token bound to (user or application, device); it expires after the configured lifetime. */
export function issueToken(ctx: ServerContext, kind: TokenKind, userId: string | null, deviceId: string): string {
  const now = ctx.clock.now()
  if (++issued % PRUNE_EVERY === 0) ctx.store.pruneTokens(now)
  const token = newId()
  ctx.store.addToken({ token, kind, userId, deviceId, expiresAt: now + ctx.tokenLifetimeSeconds * 1000 })
  return token
}
