/**
 * The raw HTTP client. It returns every response as an Exchange and never throws on a 4xx/5xx, because
 * contract tests need the failures. It always consumes the body, redacts what it keeps for evidence, times
 * every request out, and retries only idempotent calls on transport faults and 502/503/504.
 * A TransportError (the server could not be reached or did not answer) is distinct from a check failure:
 * the report must never call a server non-conformant because the network broke.
 *
 * Retry rules (docs/staging.md, "Running against staging"):
 * - idempotent calls (GET and HEAD, or a call marked `idempotent`) are retried with backoff on a connection
 *   reset, a timeout and a 502/503/504 answer, at most `retries` times;
 * - any other call (create, publish, send, push) is never repeated once a byte of it may have reached the
 *   server. It is retried only when the connection itself could not be made (refused, connect timeout,
 *   unknown or unreachable host): then the server provably never saw it.
 * - any call answered 429 is repeated, POSTs too: the target says it did not process it. The wait honours
 *   Retry-After, and the run's Pacer (helpers/http/pace.ts) slows every request down; a 429 that persists for
 *   RATE_LIMIT_BUDGET_MS ends in a RateLimitedError, so no check ever judges a 429.
 * - a 502/503/504 that carries a Retry-After (an overloaded server, or its gateway, names the wait) is waited out
 *   the same way: the wait it asks for (at most MAX_RETRY_AFTER_MS), a pause of the whole run, no attempt counted,
 *   the same budget. A 503 with a Retry-After is a refusal to handle the call (RFC 9110 §15.6.4), so it is
 *   repeated whatever the method; a 502/504's call may have reached the server behind the gateway, so only an
 *   idempotent one is.
 *
 * Bodies are asked for without content coding (`Accept-Encoding: identity`); a target that compresses all the
 * same is decoded (gzip, deflate, br), and a body that cannot be decoded says so in jsonError.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib'
import type { Dispatcher } from 'undici'
import { buildDispatcher, loadUndici, type NetworkSettings } from './network'
import { InProcessTransport } from './in-process'
import { Pacer, parseRetryAfter, rateLimitWait } from './pace'
import { redact, redactHeaders, sentSecrets, type SentSecret } from './redact'
import { noteServerDate } from './server-clock'

/**
 * Set by helpers/kit/together.ts around the requests of one group: called once a request holds its place in
 * the pace, it resolves when every request of the group holds one (or after a short wait), so that the group
 * leaves at one moment however busy the run's budget is.
 */
export const TOGETHER = new AsyncLocalStorage<() => Promise<void>>()
export type QueryValue = string | number | boolean | readonly (string | number | boolean)[] | undefined | null
export type Query = Record<string, QueryValue>

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD'
  /** Absolute path on the target (API prefix included), already percent-encoded where needed. */
  path: string
  query?: Query
  headers?: Record<string, string>
  /** Bearer token; null sends no Authorization header. An explicit `authorization` header wins. */
  token?: string | null
  /**
   * The bearer token read as each attempt leaves, after any wait for the pace: a run account's token renewed
   * while the request queued is the one sent. Wins over `token`.
   */
  bearer?: () => string
  json?: unknown
  form?: Record<string, string>
  rawBody?: string
  /** Repeating the call is harmless; only these are retried. Default: GET and HEAD. */
  idempotent?: boolean
  /** Place in the run's queue when the pace holds requests back: lower goes first (the check's start order). */
  priority?: number
}

export interface ExchangeRequest {
  method: string
  /** Path and query, redacted. */
  url: string
  headers: Record<string, string>
  body?: string
  /** The passwords it sent, each with how it was made from an account's password (the url and body keep them redacted). */
  secrets?: SentSecret[]
}

/**
 * The bearer token each exchange sent, held in this process only (never written anywhere): the recorder tells by
 * it which earlier answer of the check gave the token, so a reproducer sends the token of that sign-in.
 */
export const bearerSent = new WeakMap<Exchange, string>()

export interface Exchange {
  request: ExchangeRequest
  status: number
  headers: Record<string, string>
  text: string
  /** Parsed body; undefined when the body is empty or not JSON (see jsonError). */
  json: unknown
  jsonError?: string
  durationMs: number
  attempts: number
  /** When the answered attempt left (ISO time): the HAR's startedDateTime. */
  startedAt?: string
  /** Who sent it: a run account (A, B, C), `anonymous` (no token) or `other` (a token or header of the check's own making). */
  account?: string
  /** 429 answers, and 502/503/504 answers with a Retry-After, that came before this one (the call was repeated after each). */
  rateLimited?: number
}

export class TransportError extends Error {
  constructor(
    message: string,
    readonly request: ExchangeRequest,
    readonly attempts: number,
    readonly causeCode?: string,
  ) {
    super(message)
    this.name = 'TransportError'
  }
}

/** A call the target kept answering 429 (too many requests), or 502/503/504 with a Retry-After: it judges nothing. */
export class RateLimitedError extends Error {
  constructor(
    message: string,
    readonly request: ExchangeRequest,
  ) {
    super(message)
    this.name = 'RateLimitedError'
  }
}

export interface ClientOptions {
  baseUrl: string
  timeoutMs: number
  /** Retries after the first attempt for idempotent calls. */
  retries?: number
  onExchange?: (ex: Exchange) => void
  /** Proxy and TLS settings of the run (default: direct, Node's default CAs). */
  network?: NetworkSettings
  /** The run's shared pace; default: a private one with no limits that still slows down on 429s. */
  pacer?: Pacer
  /** How long a call may keep meeting 429s before it ends in a RateLimitedError (default RATE_LIMIT_BUDGET_MS). */
  rateLimitBudgetMs?: number
}

/** Under the check timeout (60 s), so a persisting 429 ends the check with its own sentence, not a timeout. */
export const RATE_LIMIT_BUDGET_MS = 40_000

const RETRY_STATUS = new Set([502, 503, 504])
export const EVIDENCE_CUT = 2048

/** 502/503/504: a gateway or an overloaded server speaking, not the API; such an answer judges nothing. */
export function isUnavailable(status: number): boolean {
  return RETRY_STATUS.has(status)
}

export function isSuccess(ex: Pick<Exchange, 'status'>): boolean {
  return ex.status >= 200 && ex.status < 300
}

/** Failures before the connection existed: no byte of the request was sent, so even a POST may be repeated. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])

export function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code === 'string') return code
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause?.code
  if (typeof cause === 'string') return cause
  // AbortSignal.timeout() rejects with a DOMException named TimeoutError (its numeric code says nothing).
  return (err as Error | null)?.name ?? 'Error'
}

export function neverSent(err: unknown): boolean {
  return NEVER_SENT.has(errorCode(err))
}

export class HttpClient {
  /** The connection pool, made on the first request over the wire (undici loads with it). */
  private agent: Promise<Dispatcher> | null = null
  /** The self-proof's road to an embedded server in this process (helpers/http/in-process.ts), when its run has one. */
  private readonly inProcess: InProcessTransport | null
  readonly origin: string
  readonly basePath: string
  readonly pacer: Pacer
  requests = 0
  retries = 0
  rateLimited = 0

  constructor(private readonly opts: ClientOptions) {
    const u = new URL(opts.baseUrl)
    this.origin = u.origin
    this.basePath = u.pathname.replace(/\/+$/, '')
    this.inProcess = opts.network?.inProcess ? new InProcessTransport(opts.network.inProcess) : null
    this.pacer = opts.pacer ?? new Pacer(null)
  }

  async send(spec: RequestSpec): Promise<Exchange> {
    const { url, headers, body, evidence } = this.build(spec)
    const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'HEAD')
    const maxAttempts = 1 + (this.opts.retries ?? 2)
    let attempt = 0
    let limited = 0
    let limitedSince = 0
    /** The statuses of the answers waited out (429, and 502/503/504 with a Retry-After). */
    const waitedOut = new Set<number>()
    for (;;) {
      attempt++
      this.requests++
      if (attempt > 1) this.retries++
      const release = await this.pacer.acquire(spec.priority)
      // A request of a group sent together (helpers/kit/together.ts) waits, with its place held, for the others'.
      if (attempt === 1) await TOGETHER.getStore()?.()
      if (spec.bearer && headers.authorization?.startsWith('Bearer ')) headers.authorization = `Bearer ${spec.bearer()}`
      const started = performance.now()
      const startedAt = new Date().toISOString()
      try {
        const res = this.inProcess
          ? await this.inProcess.request(url, { method: spec.method, headers, body, timeoutMs: this.opts.timeoutMs })
          : await (
              await loadUndici()
            ).request(url, {
              method: spec.method,
              headers,
              body,
              dispatcher: await this.wire(),
              headersTimeout: this.opts.timeoutMs,
              bodyTimeout: this.opts.timeoutMs,
              signal: AbortSignal.timeout(this.opts.timeoutMs),
            })
        const raw = Buffer.from(await res.body.arrayBuffer())
        release()
        noteServerDate(spec.method, res.headers.date, Date.now())
        const status = res.statusCode
        const retryAfter = status === 429 || RETRY_STATUS.has(status) ? parseRetryAfter(res.headers['retry-after']) : undefined
        this.pacer.answered(status, retryAfter)
        // A 429, or an overload answer that names its wait: waited out and repeated (a 502/504 only if idempotent).
        const waitAsked = status === 429 || (retryAfter !== undefined && RETRY_STATUS.has(status) && (idempotent || status === 503))
        if (waitAsked) {
          // Not processed (a 429, a 503 refusing to handle it) or safe to repeat: no attempt of its own.
          limited++
          this.rateLimited++
          attempt--
          this.retries--
          limitedSince ||= Date.now()
          waitedOut.add(status)
          const wait = rateLimitWait(retryAfter, limited)
          if (Date.now() - limitedSince + wait > (this.opts.rateLimitBudgetMs ?? RATE_LIMIT_BUDGET_MS)) {
            const { maxConcurrency, maxRps } = this.pacer.limits
            const answers = [...waitedOut].map((s) => (s === 429 ? '429 (too many requests)' : `${s} with Retry-After (unavailable)`)).join(' or ')
            throw new RateLimitedError(
              `${evidence.method} ${evidence.url} was answered ${answers} ${limited} times over ${Math.round((Date.now() - limitedSince) / 1000)} s, so the check could not be judged: ` +
                `the target limits the rate of requests more than the suite adapts to; set MAX_RPS (now ${maxRps ?? 'no cap'}) and MAX_CONCURRENCY (now ${maxConcurrency}) lower`,
              evidence,
            )
          }
          await sleep(wait)
          continue
        }
        const ex = this.exchange(evidence, res.statusCode, res.headers, raw, performance.now() - started, attempt)
        ex.startedAt = startedAt
        const bearer = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1]
        if (bearer) bearerSent.set(ex, bearer)
        if (limited) ex.rateLimited = limited
        if (idempotent && RETRY_STATUS.has(res.statusCode) && attempt < maxAttempts) {
          await backoff(attempt)
          continue
        }
        this.opts.onExchange?.(ex)
        return ex
      } catch (err) {
        release()
        if (err instanceof RateLimitedError) throw err
        if ((idempotent || neverSent(err)) && attempt < maxAttempts) {
          await backoff(attempt)
          continue
        }
        const code = errorCode(err)
        throw new TransportError(
          `${evidence.method} ${evidence.url}: no answer after ${attempt} attempt(s) (${code}: ${redact(String((err as Error).message ?? err))})`,
          evidence,
          attempt,
          code,
        )
      }
    }
  }

  private wire(): Promise<Dispatcher> {
    return (this.agent ??= buildDispatcher({ timeoutMs: this.opts.timeoutMs, network: this.opts.network }))
  }

  async close(): Promise<void> {
    this.inProcess?.close()
    await (await this.agent)?.close()
  }

  /** Cuts every connection now: requests in flight fail, later ones fail at once (a cancelled run). */
  async destroy(): Promise<void> {
    this.inProcess?.close()
    // Made if it was not yet, so that a later request meets a destroyed pool and fails at once.
    await (await this.wire()).destroy()
  }

  private build(spec: RequestSpec) {
    const qs = new URLSearchParams()
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (v === undefined || v === null) continue
      if (Array.isArray(v)) for (const item of v) qs.append(k, String(item))
      else qs.append(k, String(v))
    }
    const search = qs.toString()
    const pathAndQuery = `${this.basePath}${spec.path}${search ? `?${search}` : ''}`
    const headers: Record<string, string> = { accept: 'application/json', 'accept-encoding': 'identity', ...lower(spec.headers) }
    const token = spec.bearer ? spec.bearer() : spec.token
    if (token && headers.authorization === undefined) headers.authorization = `Bearer ${token}`
    let body: string | undefined
    if (spec.rawBody !== undefined) body = spec.rawBody
    else if (spec.form) {
      body = new URLSearchParams(spec.form).toString()
      headers['content-type'] ??= 'application/x-www-form-urlencoded'
    } else if (spec.json !== undefined) {
      body = JSON.stringify(spec.json)
      headers['content-type'] ??= 'application/json'
    }
    const evidence: ExchangeRequest = {
      method: spec.method,
      url: redact(pathAndQuery),
      headers: redactHeaders(headers),
      ...(body !== undefined ? { body: cut(redact(body)) } : {}),
    }
    const secrets = sentSecrets(pathAndQuery, body)
    if (secrets.length) evidence.secrets = secrets
    return { url: `${this.origin}${pathAndQuery}`, headers, body, evidence }
  }

  private exchange(
    req: ExchangeRequest,
    status: number,
    rawHeaders: Record<string, string | string[] | undefined>,
    raw: Buffer,
    durationMs: number,
    attempts: number,
  ): Exchange {
    let json: unknown
    let jsonError: string | undefined
    const { text, error } = decodeBody(raw, rawHeaders['content-encoding'])
    if (error) jsonError = error
    else if (text.length > 0) {
      try {
        json = JSON.parse(text)
      } catch (err) {
        jsonError = (err as Error).message
      }
    } else jsonError = 'empty body'
    return { request: req, status, headers: redactHeaders(rawHeaders), text, json, jsonError, durationMs: Math.round(durationMs), attempts }
  }
}

function lower(h: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = v
  return out
}

function backoff(attempt: number): Promise<void> {
  return sleep(Math.min(1000, 100 * 3 ** (attempt - 1)) * (0.75 + Math.random() * 0.5))
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

/**
 * The body as text, undoing the content codings the response names (last applied first). An unknown coding
 * or a body that does not decode is an error: its bytes are kept as text for evidence, never parsed.
 */
export function decodeBody(raw: Buffer, contentEncoding: string | string[] | undefined): { text: string; error?: string } {
  const codings = (Array.isArray(contentEncoding) ? contentEncoding.join(',') : (contentEncoding ?? ''))
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity')
  let body = raw
  for (const coding of codings.reverse()) {
    try {
      if (coding === 'gzip' || coding === 'x-gzip') body = gunzipSync(body)
      else if (coding === 'br') body = brotliDecompressSync(body)
      else if (coding === 'deflate') body = inflateOrRaw(body)
      else return { text: raw.toString('latin1'), error: `the body has content coding '${coding}', which the suite cannot decode` }
    } catch (err) {
      return { text: raw.toString('latin1'), error: `the body does not decode as ${coding} (${(err as Error).message})` }
    }
  }
  return { text: body.toString('utf8') }
}

/** "deflate" is meant to be zlib-wrapped, but some servers send a raw deflate stream. */
function inflateOrRaw(body: Buffer): Buffer {
  try {
    return inflateSync(body)
  } catch {
    return inflateRawSync(body)
  }
}

export function cut(text: string, max = EVIDENCE_CUT): string {
  return text.length > max ? `${text.slice(0, max)}… (cut at ${Math.round(max / 1024)} KiB of ${text.length} chars)` : text
}

/** One exchange as evidence text: request line, status, and the redacted, cut body. */
export function describeExchange(ex: Exchange): string {
  const lines = [`${ex.request.method} ${ex.request.url} → ${ex.status}`]
  if (ex.request.body !== undefined) lines.push(`  request body: ${ex.request.body}`)
  const ct = ex.headers['content-type']
  lines.push(`  response${ct ? ` (${ct})` : ''}: ${ex.text.length ? cut(redact(ex.text)) : '(empty)'}`)
  return lines.join('\n')
}
