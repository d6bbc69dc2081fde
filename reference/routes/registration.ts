import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { deviceIdOf, issueToken } from '../auth'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { hashPassword, newId, safeEqual } from '../ids'
import type { UserRecord } from '../model'
import { userView } from '../views'

/**
 * Registration (not in the spec; deployments of this API offer it): an application token from the client credentials, then
 * enrolment of a user with it. It lets the suite create disposable users.
 */

const enrollmentSchema = {
  type: 'object',
  required: ['userName', 'password'],
  properties: {
    userName: { type: 'string', pattern: '^[A-Za-z0-9._@+-]{1,100}$' },
    password: { type: 'string', minLength: 1, maxLength: 128 },
    firstName: { type: 'string', maxLength: 100 },
    lastName: { type: 'string', maxLength: 100 },
    email: { type: 'string', maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' },
  },
} as const

interface EnrollmentBody {
  userName: string
  password: string
  firstName?: string
  lastName?: string
  email?: string
}

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i

const registrationRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, application, clock } = ctx

  app.post('/applications/session', { config: { id: 'registration.appSession', auth: 'none' } }, async (request, reply) => {
    checkClientCredentials(request, application.clientId, application.clientSecret)
    const deviceId = deviceIdOf(request)
    reply.header('cache-control', 'no-store')
    return {
      token_type: 'APPLICATION',
      access_token: issueToken(ctx, 'APPLICATION', null, deviceId),
      expires_in: ctx.tokenLifetimeSeconds,
    }
  })

  app.post<{ Body: EnrollmentBody }>(
    '/user/enrollment',
    { config: { id: 'registration.enroll', auth: 'application' }, schema: { body: enrollmentSchema } },
    async (request, reply) => {
      const body = request.body
      const salt = newId()
      const user: UserRecord = {
        userId: newId(),
        clientId: application.clientId,
        userName: body.userName,
        passwordHash: hashPassword(body.password, salt),
        passwordSalt: salt,
        firstName: body.firstName ?? '',
        lastName: body.lastName ?? '',
        email: body.email ?? '',
        userRealm: application.defaultRealm,
        userStatus: 'ACTIVE',
        roles: ['USER'],
        userAccountData: {},
        createdAt: clock.now(),
      }
      if (!store.addUser(user)) throw fail('USER_EXISTS', `user ${body.userName} already exists`)
      return reply.code(201).send(userView(user, true))
    },
  )
}

export default registrationRoutes

/** HTTP Basic `clientId:clientSecret`; 401 when absent, malformed or wrong. */
function checkClientCredentials(request: FastifyRequest, clientId: string, clientSecret: string): void {
  const header = request.headers.authorization
  if (header === undefined) throw fail('UNAUTHORIZED', 'Authorization: Basic <clientId:clientSecret> is required')
  const match = BASIC.exec(header)
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : ''
  const colon = decoded.indexOf(':')
  if (colon < 0) throw fail('INVALID_CLIENT', 'Authorization must be "Basic <base64 clientId:clientSecret>"')
  const ok = safeEqual(decoded.slice(0, colon), clientId) && safeEqual(decoded.slice(colon + 1), clientSecret)
  if (!ok) throw fail('INVALID_CLIENT')
}
