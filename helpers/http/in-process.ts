/**
 * The self-proof's road to the embedded reference server without a socket. The proof makes hundreds of whole
 * runs, each against a reference server started in the same process as its worker threads; over loopback HTTP,
 * about a third of a run's CPU went into the sockets and the HTTP machinery on both ends, which prove nothing
 * the clean run and the staging self-tests do not already prove on the wire.
 *
 * A run opened with an in-process channel (`NetworkSettings.inProcess`, set by the pipeline only for the embedded
 * server of a self-proof run) sends each request as a message on a BroadcastChannel of that name; the server's
 * end (helpers/runner/embedded.ts `serveInProcess`) answers it with the server's own routing, hooks and
 * serialisation (Fastify's inject) on a channel of this thread's own. What the client does with the answer is
 * what it does with one from the wire: the same status, headers and body bytes, the same timeout (named
 * TimeoutError, as AbortSignal.timeout names its own), the same retries.
 *
 * The request is made the way undici makes it from a URL: the path and query as `new URL` writes them (spaces
 * and non-Latin characters percent-encoded), a Host header, undici's Content-Length, and the same refusals of a path
 * or a header value undici will not send (it throws before sending; so does this).
 */
import { BroadcastChannel, threadId } from 'node:worker_threads'

/** A request as it travels to the server's end. */
export interface InProcessRequest {
  id: number
  /** The channel this thread's answers come back on. */
  reply: string
  method: string
  /** Path and query, as sent on the wire. */
  url: string
  headers: Record<string, string>
  body?: string
}

/** An answer as it travels back: the server's, or the error that kept it from answering. */
export type InProcessAnswer =
  { id: number; statusCode: number; headers: Record<string, string | string[]>; body: Uint8Array; error?: undefined } | { id: number; error: string }

type Answered = Extract<InProcessAnswer, { statusCode: number }>

/** What HttpClient reads of an answer: the shape of undici's `request()` result that it uses. */
export interface InProcessResponse {
  statusCode: number
  headers: Record<string, string | string[] | undefined>
  body: { arrayBuffer(): Promise<ArrayBuffer> }
}

interface Pending {
  resolve: (a: Answered) => void
  reject: (e: Error) => void
  timer: NodeJS.Timeout
}

/** One thread's end of one channel: shared by every client of the thread that uses the channel. */
class Link {
  private readonly requests: BroadcastChannel
  private readonly answers: BroadcastChannel
  private readonly reply: string
  private readonly pending = new Map<number, Pending>()
  private next = 0
  users = 0

  constructor(readonly channel: string) {
    this.reply = `${channel}/answers/${threadId}`
    this.requests = new BroadcastChannel(channel)
    this.answers = new BroadcastChannel(this.reply)
    this.answers.onmessage = (ev: unknown) => {
      const a = (ev as { data: InProcessAnswer }).data
      const p = this.pending.get(a.id)
      if (!p) return
      this.pending.delete(a.id)
      clearTimeout(p.timer)
      if (a.error !== undefined) p.reject(Object.assign(new Error(`the server closed the request: ${a.error}`), { code: 'UND_ERR_SOCKET' }))
      else p.resolve(a)
    }
    // Neither keeps a thread alive: a request in flight has its timer, which does.
    this.requests.unref()
    this.answers.unref()
  }

  send(req: Omit<InProcessRequest, 'id' | 'reply'>, timeoutMs: number): Promise<Answered> {
    const id = this.next++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        const err = new Error(`no answer within ${timeoutMs} ms`)
        err.name = 'TimeoutError'
        reject(err)
      }, timeoutMs)
      this.pending.set(id, { resolve, reject, timer })
      this.requests.postMessage({ ...req, id, reply: this.reply } satisfies InProcessRequest)
    })
  }

  close(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer)
      p.reject(Object.assign(new Error('the client was closed'), { code: 'UND_ERR_DESTROYED' }))
    }
    this.pending.clear()
    this.requests.close()
    this.answers.close()
  }
}

const links = new Map<string, Link>()

/** A header value and a path undici refuses to send (its own rules): the same refusals, before anything is sent. */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/
const INVALID_PATH = /[^\u0021-\u00ff]/
const EXPECTS_BODY = new Set(['PUT', 'POST', 'PATCH'])

/** A client's handle on a channel: `request` as undici's, `close` when the client is done with it. */
export class InProcessTransport {
  private readonly link: Link
  private closed = false

  constructor(channel: string) {
    let link = links.get(channel)
    if (!link) links.set(channel, (link = new Link(channel)))
    link.users++
    this.link = link
  }

  async request(url: string, opts: { method: string; headers: Record<string, string>; body?: string; timeoutMs: number }): Promise<InProcessResponse> {
    if (this.closed) throw Object.assign(new Error('the client was closed'), { code: 'UND_ERR_DESTROYED' })
    const u = new URL(url)
    const path = `${u.pathname}${u.search}`
    if (INVALID_PATH.test(path)) throw Object.assign(new Error('invalid request path'), { code: 'UND_ERR_INVALID_ARG' })
    for (const [name, value] of Object.entries(opts.headers))
      if (INVALID_HEADER_VALUE.test(value)) throw Object.assign(new Error(`invalid ${name} header`), { code: 'UND_ERR_INVALID_ARG' })
    const headers: Record<string, string> = { host: u.host, ...opts.headers }
    // undici's Content-Length: a body's length; 0 for a method that expects a body and has none; else none.
    const length = opts.body === undefined ? 0 : Buffer.byteLength(opts.body)
    if (length > 0 || EXPECTS_BODY.has(opts.method)) headers['content-length'] = String(length)
    const a = await this.link.send({ method: opts.method, url: path, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) }, opts.timeoutMs)
    const bytes = a.body
    return {
      statusCode: a.statusCode,
      headers: a.headers,
      body: { arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer },
    }
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    if (--this.link.users > 0) return
    this.link.close()
    links.delete(this.link.channel)
  }
}
