import type { CatalogFault } from './types'
import { unauthenticated } from './common'
import { rewriteError } from './kit'

/** Authorization (§4, §5): the bearer token every endpoint but sign-in requires. Owner-only and
 * publishPermission faults live with the routes they break (channels.ts, items.ts). */

export const AUTH_FAULTS: readonly CatalogFault[] = [
  {
    name: 'auth-summary-open',
    area: 'auth',
    clause: 'auth.token-required',
    description: 'channel summary answers without a token (the route was left out of authentication)',
    consequences: [{ clause: 'auth.token-required.401', reason: 'a call the route lets through answers no 401 either' }],
    install: (app, ctx) => unauthenticated(app, ctx, 'channels.summary'),
  },
  {
    name: 'auth-delete-items-open',
    area: 'auth',
    clause: 'auth.token-required',
    description: 'delete items by id answers without a token (answering 403 per id, not refusing the call)',
    consequences: [{ clause: 'auth.token-required.401', reason: 'a call the route lets through answers no 401 either' }],
    install: (app, ctx) => unauthenticated(app, ctx, 'items.deleteById'),
  },
  {
    name: 'auth-user-list-any-bearer',
    area: 'auth',
    clause: 'auth.token-required',
    description: 'list all users accepts any well-formed bearer token, issued or not',
    consequences: [{ clause: 'auth.token-required.401', reason: 'a call the route lets through answers no 401 either' }],
    install: (app, ctx) => unauthenticated(app, ctx, 'users.list', { anyBearer: true }),
  },
  {
    name: 'auth-missing-token-403',
    area: 'auth',
    clause: 'auth.token-required.401',
    description: 'get channel by name answers 403 instead of 401 to a call without a valid token',
    install: (app) =>
      rewriteError(app, 'channels.getByName', (body, _request, reply) => {
        if (reply.statusCode === 401) reply.code(403)
        return body
      }),
  },
]
