import type { CatalogFault } from './types'
import { addRouteHook, rewriteError } from './kit'

/** HTTP conventions where the spec is silent (§4, §7): SHOULD-level faults. */

export const HTTP_FAULTS: readonly CatalogFault[] = [
  {
    name: 'http-fetch-text-plain',
    area: 'http',
    clause: 'http.json-content-type',
    description: 'fetch items serves its JSON body as text/plain',
    install: (app) =>
      addRouteHook(app, 'items.fetch', 'onSend', async (_request: unknown, reply: { header(k: string, v: string): void }) => {
        reply.header('content-type', 'text/plain; charset=utf-8')
      }),
  },
  {
    name: 'http-non-owner-401',
    area: 'http',
    clause: 'http.forbidden-403',
    description: 'delete channel answers 401 instead of 403 to a signed-in user who is not the owner',
    install: (app) =>
      rewriteError(app, 'channels.delete', (body, _request, reply) => {
        if (reply.statusCode === 403) reply.code(401)
        return body
      }),
  },
]
