/**
 * The embedded default target: the bundled reference server on 127.0.0.1, a free port, seeded with the
 * run's own configuration (application and accounts A, B, C), so the suite and the server always agree.
 */
import { randomBytes } from 'node:crypto'
import { PassThrough } from 'node:stream'
import { BroadcastChannel } from 'node:worker_threads'
import type { FastifyInstance } from 'fastify'
import { buildServer } from '../../reference/app'
import { resolveFaults } from '../../reference/faults'
import { loadSeed } from '../../reference/seed'
import { ACCOUNT_KEYS, type AccountCredentials, type Config } from '../config/config'
import type { InProcessAnswer, InProcessRequest } from '../http/in-process'

export interface EmbeddedServer {
  url: string
  /** A variant is on (named, or one a fault is built on): reads may lag behind writes as the variant chooses. */
  variantsOn: boolean
  /** The channel it also answers on in this process, without a socket (`inProcess` asked for; helpers/http/in-process.ts). */
  inProcess?: string
  close(): Promise<void>
}

export async function startEmbeddedServer(
  config: Config,
  faults: string[],
  variants: string[] = [],
  opts: { inProcess?: boolean } = {},
): Promise<EmbeddedServer> {
  const seed = loadSeed()
  seed.application.clientId = config.clientId
  if (config.clientSecret) seed.application.clientSecret = config.clientSecret
  ACCOUNT_KEYS.forEach((key, i) => {
    const cred: AccountCredentials | undefined = config.accounts[key]
    const user = seed.users[i]
    if (cred && user) {
      user.userName = cred.userName
      user.password = cred.password
    }
  })
  const app = await buildServer({ seed, faults, variants, userApiPath: config.userApiPath, messageApiPath: config.messageApiPath })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  if (!address || typeof address === 'string') throw new Error('the embedded reference server has no TCP address')
  const variantsOn = variants.length > 0 || resolveFaults(faults).some((f) => (f.builtOn ?? []).length > 0)
  const url = `http://127.0.0.1:${address.port}`
  if (!opts.inProcess) return { url, variantsOn, close: () => app.close() }
  const link = serveInProcess(app)
  return {
    url,
    variantsOn,
    inProcess: link.channel,
    close: async () => {
      link.close()
      await app.close()
    },
  }
}

/**
 * A body as a socket hands it over: already there when the server reads it. (Given as a string, inject hands it
 * over a macrotask later, so a request with a body lost every race to one without: an add of tags sent together
 * with a delete of all tags always ran after it.)
 */
function arrived(body: string): PassThrough {
  const stream = new PassThrough()
  stream.end(body)
  return stream
}

/**
 * The server's end of the in-process road (helpers/http/in-process.ts): each request on the channel goes through
 * the server's routing, hooks and serialisation as one from a socket does (Fastify's inject), and its status,
 * headers and body bytes go back on the asking thread's channel. It listens on its socket all the same.
 */
export function serveInProcess(app: FastifyInstance): { channel: string; close(): void } {
  const channel = `mcs-embedded-${randomBytes(6).toString('hex')}`
  const requests = new BroadcastChannel(channel)
  const replies = new Map<string, BroadcastChannel>()
  let closed = false
  requests.onmessage = async (ev: unknown) => {
    const req = (ev as { data: InProcessRequest }).data
    let reply = replies.get(req.reply)
    if (!reply) {
      replies.set(req.reply, (reply = new BroadcastChannel(req.reply)))
      reply.unref()
    }
    let res: Awaited<ReturnType<FastifyInstance['inject']>>
    try {
      res = await app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.body ? { payload: arrived(req.body) } : {}) })
    } catch (err) {
      // What a socket's client would see of a request the server could not take: the connection closed on it.
      if (!closed) reply.postMessage({ id: req.id, error: String((err as Error).message ?? err) } satisfies InProcessAnswer)
      return
    }
    if (closed) return
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.map(String) : String(value)
    reply.postMessage({ id: req.id, statusCode: res.statusCode, headers, body: new Uint8Array(res.rawPayload) } satisfies InProcessAnswer)
  }
  requests.unref()
  return {
    channel,
    close: () => {
      closed = true
      requests.close()
      for (const r of replies.values()) r.close()
    },
  }
}
