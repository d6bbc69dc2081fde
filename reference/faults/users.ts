import type { FastifyRequest } from 'fastify'
import { deviceIdOf, issueToken } from '../auth'
import { ApiError, ERRORS } from '../errors'
import { userView } from '../views'
import type { CatalogFault } from './types'
import { setQuery } from './common'
import { addRouteHook, rewriteJson, wrapHandler } from './kit'

/** Sign-in (§4.1, §2.2, §5) and the user service (§4.1, §2.1). */

/** A sign-in parameter as the route reads it: from the body (form or JSON) if there, else the query string. */
function signInParam(request: FastifyRequest, name: string): unknown {
  const body = request.body as Record<string, unknown> | undefined
  return body?.[name] ?? (request.query as Record<string, unknown>)[name]
}

export const SIGNIN_FAULTS: readonly CatalogFault[] = [
  {
    name: 'signin-token-type-bearer',
    area: 'signin',
    clause: ['signin.session.token-type', 'signin.session.shape'],
    description: 'sign-in answers token_type "Bearer" (the OAuth habit) instead of USER',
    install: (app) => rewriteJson(app, 'users.signIn', (body) => ({ ...body, token_type: 'Bearer' })),
  },
  {
    name: 'signin-expires-in-string',
    area: 'signin',
    clause: 'signin.session.shape',
    description: 'sign-in answers expires_in as the string "7200", not an integer',
    install: (app) => rewriteJson(app, 'users.signIn', (body) => ({ ...body, expires_in: String(body.expires_in) })),
  },
  {
    name: 'signin-user-email',
    area: 'signin',
    clause: ['signin.user.no-email', 'signin.session.shape'],
    description: 'the sign-in user record carries email, like the user list does',
    install: (app, ctx) =>
      rewriteJson(app, 'users.signIn', (body) => ({
        ...body,
        user: { ...body.user, email: ctx.store.getUser(body.user.userIdentifier)?.email },
      })),
  },
  {
    name: 'signin-real-password',
    area: 'signin',
    clause: 'signin.user.password-masked',
    description: 'the sign-in user record echoes the password that was sent instead of the mask',
    install: (app) =>
      rewriteJson(app, 'users.signIn', (body, request) => ({
        ...body,
        user: { ...body.user, password: signInParam(request, 'password') },
      })),
  },
  {
    name: 'signin-any-password',
    area: 'signin',
    clause: 'signin.wrong-password.refused',
    description: 'sign-in checks that the user name exists, not that the password is right',
    install: (app, ctx) =>
      wrapHandler(
        app,
        'users.signIn',
        (original) =>
          async function (this: unknown, request, reply) {
            try {
              return await (original as Function).call(this, request, reply)
            } catch (err) {
              const user = ctx.store.findUserByName(ctx.application.clientId, String(signInParam(request, 'username')))
              if (!(err instanceof ApiError) || err.code !== ERRORS.INVALID_CREDENTIALS.code || !user) throw err
              const deviceId = deviceIdOf(request)
              ctx.store.registerDevice(user.userId, deviceId, ctx.clock.now())
              reply.header('cache-control', 'no-store')
              const accessToken = issueToken(ctx, 'USER', user.userId, deviceId)
              return { token_type: 'USER', expires_in: ctx.tokenLifetimeSeconds, access_token: accessToken, user: userView(user, false) }
            }
          },
      ),
  },
  {
    name: 'signin-any-client',
    area: 'signin',
    clause: 'signin.wrong-client.refused',
    description: 'sign-in does not check client_id: any client id gets a session',
    install: (app, ctx) =>
      addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
        const body = request.body as Record<string, unknown> | undefined
        if (body && typeof body === 'object' && 'client_id' in body) body.client_id = ctx.application.clientId
        else setQuery(request, 'client_id', ctx.application.clientId)
      }),
  },
  {
    name: 'signin-device-id-optional',
    area: 'signin',
    clause: 'signin.device-id.required',
    description: 'sign-in without MMS-DEVICE-ID is accepted, as device "unknown"',
    install: (app) =>
      addRouteHook(app, 'users.signIn', 'onRequest', async (request: FastifyRequest) => {
        if (!request.headers['mms-device-id']) request.headers['mms-device-id'] = 'unknown'
      }),
  },
]

export const USER_FAULTS: readonly CatalogFault[] = [
  {
    name: 'users-list-no-email',
    area: 'users',
    clause: 'users.list.shape',
    consequences: [{ clause: 'users.list.other-records', reason: "the records of the deployment's other users in the list lack email too" }],
    description: 'the user list leaves out email (the sign-in view of a user is used)',
    install: (app) => rewriteJson(app, 'users.list', (list: Record<string, unknown>[]) => list.map(({ email: _, ...user }) => user)),
  },
  {
    name: 'users-list-excludes-caller',
    area: 'users',
    clause: 'users.list.contains-accounts',
    description: 'list all users leaves out the calling user ("other users")',
    install: (app) =>
      rewriteJson(app, 'users.list', (list: Record<string, unknown>[], request) =>
        list.filter((user) => request.caller?.kind !== 'USER' || user.userIdentifier !== request.caller.user.userId),
      ),
  },
  {
    name: 'users-search-ignores-value',
    area: 'users',
    clause: ['users.search.property', 'users.search.no-match'],
    description: 'search users ignores the value of q: every user matches',
    consequences: [
      { clause: 'users.search.exact', reason: 'every user matches, so a query for one exact value returns users with other values too' },
      { clause: 'users.search.wildcard', reason: 'every user matches, so a fragment query returns users without the fragment too' },
    ],
    install: (app) =>
      addRouteHook(app, 'users.query', 'preHandler', async (request: FastifyRequest) => {
        const q = String((request.query as { q: string }).q)
        setQuery(request, 'q', `${q.slice(0, q.indexOf(':') + 1)}*`)
      }),
  },
  {
    name: 'users-search-no-wildcard',
    area: 'users',
    clause: 'users.search.wildcard',
    description: 'search users strips the asterisks of *value*, so it matches exactly instead of a fragment',
    install: (app) =>
      addRouteHook(app, 'users.query', 'preHandler', async (request: FastifyRequest) => {
        const q = String((request.query as { q: string }).q)
        const colon = q.indexOf(':')
        setQuery(request, 'q', `${q.slice(0, colon + 1)}${q.slice(colon + 1).replace(/^\*+|\*+$/g, '') || '-'}`)
      }),
  },
]
