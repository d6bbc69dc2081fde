/**
 * A fault-injecting HTTP proxy on 127.0.0.1 (port 0) in front of a target, for the self-tests and the bench:
 * it adds latency to every request, and at a given rate resets connections and answers 503, from a seeded
 * RNG so a run is repeatable (decisions are drawn in arrival order: with concurrent clients the same rate
 * falls on possibly different requests, but the sequence of decisions is fixed).
 *
 * Which requests get faults: by default only GET and HEAD, the requests the suite may retry (helpers/
 * client.ts). A fault on a create or a publish is a real outcome too, but one the suite must report as
 * `error` (it never repeats such a request blindly), which would make a "stays conformant" test impossible;
 * `faultable` widens or narrows the choice for the tests that want exactly that. A request that just had an
 * injected fault goes through when it is repeated, so an injected fault is transient, as on a real network.
 *
 * `hang` selects requests that are accepted and never answered (a hanging server); `resetAfterForward`
 * selects requests that reach the target, whose answer is then lost (the client sees a reset).
 *
 * Staging conditions (selftest/staging-conditions.test.ts): `rateLimit` answers 429 above a number of requests
 * per second (a sliding one-second window, as gateways count), or another status (`status: 503`: a server that
 * sheds load, answering that it is overloaded and when to come back); `tokenLifetimeMs` refuses with 401 a bearer
 * token older than that, counted from the sign-in answer that gave it, while the sign-in still says its
 * longer expires_in (a gateway with its own idea of a session); `gzip` compresses every answer whatever the
 * client asked for; the fault kinds '502html' and '503html' answer as a web server's error page would.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gzipSync } from 'node:zlib'

export interface ProxyRequest {
  method: string
  /** Path and query as received. */
  url: string
}

export interface ChaosOptions {
  /** Origin of the target, e.g. http://127.0.0.1:8080. */
  target: string
  /** Share of faultable requests that get a fault, 0–1 (default 0). */
  rate?: number
  /** Kinds of injected fault, drawn evenly (default reset and 503). */
  faults?: readonly FaultKind[]
  seed?: number
  /** Added before forwarding every request (default 0). */
  latencyMs?: number
  faultable?: (req: ProxyRequest) => boolean
  hang?: (req: ProxyRequest) => boolean
  resetAfterForward?: (req: ProxyRequest) => boolean
  /** Requests per second let through; above it a 429, or `status` (with `retryAfter` as its Retry-After, unless null). */
  rateLimit?: { rps: number; retryAfter?: string | null; status?: number }
  /** A token from a sign-in answer is refused (401) this many ms after that answer. */
  tokenLifetimeMs?: number
  /** gzip every answer that has a body, whatever Accept-Encoding said. */
  gzip?: boolean
}

export type FaultKind = 'reset' | '503' | '502html' | '503html'

export interface ChaosStats {
  requests: number
  resets: number
  unavailable: number
  hung: number
  lostAnswers: number
  /** Answers of the rate limit (429, or its `status`). */
  limited: number
  /** 401 answers to tokens past tokenLifetimeMs. */
  expired: number
  /** Sign-in answers whose token the proxy noted. */
  signIns: number
  gzipped: number
}

export interface ChaosProxy {
  url: string
  stats: ChaosStats
  close(): Promise<void>
}

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const onlyIdempotent = (req: ProxyRequest): boolean => req.method === 'GET' || req.method === 'HEAD'

export async function startChaosProxy(opts: ChaosOptions): Promise<ChaosProxy> {
  const target = new URL(opts.target)
  const random = seededRandom(opts.seed ?? 1)
  const rate = opts.rate ?? 0
  const kinds = opts.faults ?? ['reset', '503']
  const faultable = opts.faultable ?? onlyIdempotent
  const stats: ChaosStats = { requests: 0, resets: 0, unavailable: 0, hung: 0, lostAnswers: 0, limited: 0, expired: 0, signIns: 0, gzipped: 0 }
  // Requests that just had a fault: their repeat goes through.
  const justFaulted = new Set<string>()
  const admitted: number[] = []
  const issued = new Map<string, number>()

  function overLimit(): boolean {
    if (!opts.rateLimit) return false
    const now = Date.now()
    while (admitted.length && now - admitted[0]! >= 1000) admitted.shift()
    if (admitted.length >= opts.rateLimit.rps) return true
    admitted.push(now)
    return false
  }

  function expiredToken(req: IncomingMessage): boolean {
    if (!opts.tokenLifetimeMs) return false
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')
    const at = m ? issued.get(m[1]!) : undefined
    return at !== undefined && Date.now() - at > opts.tokenLifetimeMs
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    stats.requests++
    const r: ProxyRequest = { method: req.method ?? 'GET', url: req.url ?? '/' }
    const key = `${r.method} ${r.url}`
    if (opts.hang?.(r)) {
      stats.hung++
      req.resume()
      return
    }
    if (overLimit()) {
      stats.limited++
      req.resume()
      const retryAfter = opts.rateLimit?.retryAfter === undefined ? '1' : opts.rateLimit.retryAfter
      const status = opts.rateLimit?.status ?? 429
      res
        .writeHead(status, { 'content-type': 'application/json', ...(retryAfter === null ? {} : { 'retry-after': retryAfter }) })
        .end(JSON.stringify({ code: status, message: status === 429 ? 'rate limit exceeded' : 'overloaded, try again later' }))
      return
    }
    if (expiredToken(req)) {
      stats.expired++
      req.resume()
      res
        .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' })
        .end('{"code":401,"message":"token expired"}')
      return
    }
    let fault: FaultKind | null = null
    if (rate > 0 && faultable(r)) {
      if (justFaulted.delete(key)) fault = null
      else if (random() < rate) fault = kinds[Math.floor(random() * kinds.length)] ?? 'reset'
    }
    if (fault) justFaulted.add(key)
    const go = () => {
      if (fault === 'reset') {
        stats.resets++
        req.socket.destroy()
        return
      }
      if (fault === '503') {
        stats.unavailable++
        req.resume()
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' }).end('{"code":503,"message":"injected by the chaos proxy"}')
        return
      }
      if (fault === '502html' || fault === '503html') {
        stats.unavailable++
        req.resume()
        const status = fault === '502html' ? 502 : 503
        const title = status === 502 ? '502 Bad Gateway' : '503 Service Temporarily Unavailable'
        res
          .writeHead(status, { 'content-type': 'text/html' })
          .end(
            `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
          )
        return
      }
      forward(req, res, r)
    }
    if (opts.latencyMs) setTimeout(go, opts.latencyMs)
    else go()
  })

  function forward(req: IncomingMessage, res: ServerResponse, r: ProxyRequest): void {
    const headers = { ...req.headers, host: target.host }
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
      if (opts.resetAfterForward?.(r)) {
        stats.lostAnswers++
        up.resume()
        up.on('end', () => req.socket.destroy())
        return
      }
      const signIn = req.method === 'POST' && /\/user\/session(\?|$)/.test(req.url ?? '') && opts.tokenLifetimeMs
      const compress = opts.gzip && req.method !== 'HEAD' && up.statusCode !== 204 && up.statusCode !== 304
      if (!signIn && !compress) {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
        return
      }
      const chunks: Buffer[] = []
      up.on('data', (c: Buffer) => chunks.push(c))
      up.on('end', () => {
        let body = Buffer.concat(chunks)
        if (signIn) {
          try {
            const token = (JSON.parse(body.toString('utf8')) as { access_token?: unknown }).access_token
            if (typeof token === 'string') {
              issued.set(token, Date.now())
              stats.signIns++
            }
          } catch {
            // not a sign-in answer with a token
          }
        }
        const headers = { ...up.headers }
        if (compress && body.length) {
          body = gzipSync(body)
          headers['content-encoding'] = 'gzip'
          headers['content-length'] = String(body.length)
          delete headers['transfer-encoding']
          stats.gzipped++
        }
        res.writeHead(up.statusCode ?? 502, headers)
        res.end(body)
      })
    })
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"code":502,"message":"chaos proxy: target unreachable"}')
      else res.destroy()
    })
    req.pipe(upstream)
  }

  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections()
        server.close(() => done())
      }),
  }
}
