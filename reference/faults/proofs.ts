import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import type { CatalogFault } from './types'
import { rewriteJson, addRouteHook } from './kit'

/**
 * Ordinary faults written so that every MUST clause of the registry has one the suite must catch (the
 * shapes and answers no other fault of the catalogue touches). Deep faults live in deep-*.ts.
 */

/** `2015-11-10T21:22:54.123+02:00`: the same instant in a local zone, not in UTC. */
function localTime(utc: string): string {
  const ms = Date.parse(utc)
  return Number.isNaN(ms) ? utc : `${new Date(ms + 2 * 3_600_000).toISOString().slice(0, -1)}+02:00`
}

export const PROOF_FAULTS: readonly CatalogFault[] = [
  {
    name: 'signin-otp-code-per-user',
    area: 'signin',
    clause: 'signin.user.otp-masked',
    description: 'the sign-in user record carries a six-digit one-time code of its own instead of the fixed placeholder',
    install: (app) =>
      rewriteJson(app, 'users.signIn', (body) => ({
        ...body,
        user: {
          ...body.user,
          otpCode: String(parseInt(createHash('sha256').update(String(body.user.userIdentifier)).digest('hex').slice(0, 8), 16) % 1_000_000).padStart(6, '0'),
        },
      })),
  },
  {
    name: 'signin-user-status-missing',
    area: 'signin',
    clause: ['signin.user.status', 'signin.session.shape'],
    description: 'the sign-in user record leaves out userStatus (the list view of a user is used)',
    install: (app) => rewriteJson(app, 'users.signIn', ({ user: { userStatus: _, ...user }, ...body }) => ({ ...body, user })),
  },
  {
    name: 'signin-query-params-ignored',
    area: 'signin',
    clause: 'signin.params.query',
    description: 'sign-in reads its parameters from a form body only: a sign-in by query string is refused (400)',
    install: (app) =>
      addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
        if (request.body === undefined) throw fail('BAD_REQUEST', 'missing parameter(s): grant_type, username, password, client_id')
      }),
  },
  {
    name: 'channels-create-private-empty-body',
    area: 'channels',
    clause: 'channels.create.response',
    description: "create channel answers a private channel's creation with an empty JSON object instead of {code, message}",
    install: (app) =>
      rewriteJson(app, 'channels.create', (body, request) => ((request.body as { privateChannel?: boolean }).privateChannel === true ? {} : body)),
  },
  {
    name: 'channels-summary-local-time',
    area: 'channels',
    clause: 'channels.summary.shape',
    description: "the summary gives lastPublishedTime in the server's local zone (+02:00), not in UTC",
    install: (app) =>
      rewriteJson(app, 'channels.summary', (s) => (typeof s.lastPublishedTime === 'string' ? { ...s, lastPublishedTime: localTime(s.lastPublishedTime) } : s)),
  },
  {
    name: 'tags-delete-all-204',
    area: 'tags',
    clause: ['tags.delete-all.status', 'private.tags-personal'],
    description: 'delete all tags answers 204 No Content instead of 200',
    install: (app) =>
      rewriteJson(app, 'tags.deleteAll', (_body, _request, reply) => {
        reply.code(204)
        return undefined
      }),
  },
]
