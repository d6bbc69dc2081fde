/**
 * The raw HTTP client. It returns every response as an Exchange and never throws on a 4xx/5xx, because
 * contract tests need the failures. It always consumes the body, redacts what it keeps for evidence, times
 * every request out, and retries only idempotent calls on transport faults and 502/503/504.
 * A TransportError (the server could not be reached or did not answer) is distinct from a check failure:
 * the report must never call a server non-conformant because the network broke.
 *
 * Retry rules (README, "Running against staging"):
 * - idempotent calls (GET and HEAD, or a call marked `idempotent`) are retried with backoff on a connection
 *   reset, a timeout and a 502/503/504 answer, at most `retries` times;
 * - any other call (create, publish, send, push) is never repeated once a byte of it may have reached the
 *   server. It is retried only when the connection itself could not be made (refused, connect timeout,
 *   unknown or unreachable host): then the server provably never saw it.
 */
import { request, type Dispatcher } from 'undici'
import { buildDispatcher, type NetworkSettings } from './network'
import { redact, redactHeaders } from './redact'

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
  json?: unknown
  form?: Record<string, string>
  rawBody?: string
  /** Repeating the call is harmless; only these are retried. Default: GET and HEAD. */
  idempotent?: boolean
}

export interface ExchangeRequest {
  method: string
  /** Path and query, redacted. */
  url: string
  headers: Record<string, string>
  body?: string
}

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
}

export class TransportError extends Error {
  constructor(message: string, readonly request: ExchangeRequest, readonly attempts: number, readonly causeCode?: string) {
    super(message)
    this.name = 'TransportError'
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
}

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
  private readonly agent: Dispatcher
  readonly origin: string
  readonly basePath: string
  requests = 0
  retries = 0

  constructor(private readonly opts: ClientOptions) {
    const u = new URL(opts.baseUrl)
    this.origin = u.origin
    this.basePath = u.pathname.replace(/\/+$/, '')
    this.agent = buildDispatcher({ timeoutMs: opts.timeoutMs, network: opts.network })
  }

  async send(spec: RequestSpec): Promise<Exchange> {
    const { url, headers, body, evidence } = this.build(spec)
    const idempotent = spec.idempotent ?? (spec.method === 'GET' || spec.method === 'HEAD')
    const maxAttempts = 1 + (this.opts.retries ?? 2)
    let attempt = 0
    for (;;) {
      attempt++
      this.requests++
      if (attempt > 1) this.retries++
      const started = performance.now()
      try {
        const res = await request(url, {
          method: spec.method,
          headers,
          body,
          dispatcher: this.agent,
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        })
        const text = await res.body.text()
        const ex = this.exchange(evidence, res.statusCode, res.headers, text, performance.now() - started, attempt)
        if (idempotent && RETRY_STATUS.has(res.statusCode) && attempt < maxAttempts) {
          await backoff(attempt)
          continue
        }
        this.opts.onExchange?.(ex)
        return ex
      } catch (err) {
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

  async close(): Promise<void> {
    await this.agent.close()
  }

  /** Cuts every connection now: requests in flight fail, later ones fail at once (a cancelled run). */
  async destroy(): Promise<void> {
    await this.agent.destroy()
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
    const headers: Record<string, string> = { accept: 'application/json', ...lower(spec.headers) }
    if (spec.token && headers.authorization === undefined) headers.authorization = `Bearer ${spec.token}`
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
    return { url: `${this.origin}${pathAndQuery}`, headers, body, evidence }
  }

  private exchange(req: ExchangeRequest, status: number, rawHeaders: Record<string, string | string[] | undefined>, text: string, durationMs: number, attempts: number): Exchange {
    let json: unknown
    let jsonError: string | undefined
    if (text.length > 0) {
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
  const ms = Math.min(1000, 100 * 3 ** (attempt - 1)) * (0.75 + Math.random() * 0.5)
  return new Promise((r) => setTimeout(r, ms))
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
