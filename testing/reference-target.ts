/**
 * The reference server started in this process on 127.0.0.1 (port 0), as a target given by BASE_URL — the
 * way a staging server is given — so tests can inspect its store (`app.reference.store`) after a run.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'dotenv'
import type { FastifyInstance } from 'fastify'
import { buildServer, type BuildServerOptions } from '../reference/app'
import { ROOT } from './run-suite'

export interface ReferenceTarget {
  app: FastifyInstance
  url: string
  /** The environment of a run against it: .env.example's credentials, BASE_URL set. */
  env: Record<string, string>
  /** Names of the channels the store holds now, private ones included. */
  channelNames(): string[]
  close(): Promise<void>
}

/** The target and credentials of .env.example only: REPORT_DIR, STRICT and the like stay the caller's. */
export function exampleEnv(): Record<string, string> {
  const all = parse(readFileSync(join(ROOT, '.env.example')))
  return Object.fromEntries(
    Object.entries(all).filter(([k]) => /^(USER_API_PATH|MESSAGE_API_PATH|CLIENT_ID|CLIENT_SECRET|USER_[ABC]_(NAME|PASSWORD))$/.test(k)),
  )
}

export async function startReference(options: BuildServerOptions = {}): Promise<ReferenceTarget> {
  const app = buildServer(options)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('the reference server has no TCP address')
  const url = `http://127.0.0.1:${address.port}`
  return {
    app,
    url,
    env: { ...exampleEnv(), BASE_URL: url },
    channelNames: () => app.reference.store.snapshot().channels.map((c) => c.name),
    close: async () => {
      app.server.closeAllConnections()
      await app.close()
    },
  }
}
