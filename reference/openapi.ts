import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyInstance } from 'fastify'
import { fail } from './errors'

/**
 * `GET /openapi.json`: the repository's OpenAPI description (written by `npm run openapi` into the
 * repository root), so tools can be pointed at a running server. The server reads the file rather than
 * building it, as it imports nothing of the suite; the server variables' defaults become this server's
 * own origin and API paths, so a tool that takes the defaults reaches it.
 */

/** The description file: in the nearest folder above this module that holds package.json and openapi.json. */
function findDescription(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'openapi.json')
    if (existsSync(join(dir, 'package.json')) && existsSync(file)) return file
    if (dirname(dir) === dir) return undefined
  }
}

type Json = Record<string, unknown>

export function openApiRoute(app: FastifyInstance, paths: { userApiPath: string; messageApiPath: string }): void {
  let cached: Json | null | undefined
  const load = (): Json | null => {
    if (cached === undefined) {
      const file = findDescription()
      cached = file ? (JSON.parse(readFileSync(file, 'utf8')) as Json) : null
    }
    return cached
  }
  app.get('/openapi.json', { config: { id: 'openapi', auth: 'none' } }, async (request) => {
    const doc = load()
    if (!doc) throw fail('ROUTE_NOT_FOUND', 'no openapi.json next to this server (npm run openapi writes it)')
    const origin = `${request.protocol}://${request.headers.host ?? request.hostname}`
    const defaults: Record<string, string> = { origin, ...paths }
    // A copy with this server's values as the defaults of every server object's variables.
    return JSON.parse(JSON.stringify(doc), (key, value: unknown) => {
      if (key !== 'variables' || value === null || typeof value !== 'object') return value
      const vars = value as Record<string, Json>
      return Object.fromEntries(Object.entries(vars).map(([name, v]) => [name, name in defaults ? { ...v, default: defaults[name] } : v]))
    }) as Json
  })
}
