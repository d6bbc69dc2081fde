/**
 * The run's pace: one budget of requests in flight (MAX_CONCURRENCY) and requests per second (MAX_RPS) for the
 * whole run, shared by the main process and every vitest worker thread through a SharedArrayBuffer carried in
 * the run context (structured clone shares it between threads, so there is one budget, not one per worker;
 * this is why vitest.config.ts keeps the threads pool: a process pool cannot clone shared memory). A Pacer
 * made without the buffer (unit tests, a bare client) keeps a private budget.
 *
 * The rate adapts to the target, AIMD-like: a 429 lowers it (to 70% of what was sent in the last second, at
 * most once a second) and pauses every request start for the Retry-After; each answer that is not a 429 raises
 * it again by about one request per second per second, up to MAX_RPS. A 502/503/504 that names a Retry-After
 * (an overloaded server or its gateway asking to wait) pauses every start the same way, and a 503 with a wait
 * also lowers the rate as a 429 does. Within a thread, the request of the
 * check that started first goes first, so under a slow pace checks finish one after another instead of all
 * creeping towards their timeout together.
 */

// Int32 slots (Atomics): the lock, requests in flight, the concurrency limit.
const I_LOCK = 0
const I_INFLIGHT = 1
const I_MAXCONC = 2
const I_LIMITED = 3
const I_OVERLOADED = 4
const I_SLOTS = 8
// Float64 slots (read and written under the lock).
const F_NEXT = 0
const F_RATE = 1
const F_CAP = 2
const F_PAUSE = 3
const F_LAST_DECREASE = 4
const F_WIN_START = 5
const F_WIN_COUNT = 6
const F_PREV_COUNT = 7
const F_SLOTS = 8

/** The lowest pace the adaptation goes down to, in requests per second. */
export const MIN_RPS = 0.5
/** A Retry-After longer than this is waited for only this long (then the request is tried again). */
export const MAX_RETRY_AFTER_MS = 30_000

export interface PaceLimits {
  /** Requests in flight at once, over the whole run. */
  maxConcurrency: number
  /** Requests started per second, over the whole run; null: no fixed cap (the pace still adapts to 429s). */
  maxRps: number | null
}

export function createPaceBuffer(limits: PaceLimits): SharedArrayBuffer {
  const sab = new SharedArrayBuffer(I_SLOTS * 4 + F_SLOTS * 8)
  const i32 = new Int32Array(sab, 0, I_SLOTS)
  const f64 = new Float64Array(sab, I_SLOTS * 4, F_SLOTS)
  i32[I_MAXCONC] = limits.maxConcurrency
  f64[F_CAP] = limits.maxRps ?? 0
  f64[F_RATE] = limits.maxRps ?? 0
  return sab
}

/** Spin lock over a shared Int32 slot; every critical section is a few arithmetic steps, never an await. */
export function withLock<T>(i32: Int32Array, slot: number, fn: () => T): T {
  while (Atomics.compareExchange(i32, slot, 0, 1) !== 0) Atomics.wait(i32, slot, 1, 1)
  try {
    return fn()
  } finally {
    Atomics.store(i32, slot, 0)
    Atomics.notify(i32, slot, 1)
  }
}

interface Waiter {
  priority: number
  seq: number
  resolve: (release: () => void) => void
}

export interface PaceState {
  inFlight: number
  /** Current pace in requests per second; 0: none. */
  rps: number
  /** 429 answers seen by the whole run. */
  limited: number
  /** 502/503/504 answers with a Retry-After seen by the whole run. */
  overloaded: number
}

export class Pacer {
  private readonly i32: Int32Array
  private readonly f64: Float64Array
  private readonly waiting: Waiter[] = []
  private seq = 0
  private timer: NodeJS.Timeout | null = null
  private pumping = false

  constructor(buffer: SharedArrayBuffer | ArrayBufferLike | null | undefined, limits: PaceLimits = { maxConcurrency: 1024, maxRps: null }) {
    const sab = buffer instanceof SharedArrayBuffer ? buffer : createPaceBuffer(limits)
    this.i32 = new Int32Array(sab, 0, I_SLOTS)
    this.f64 = new Float64Array(sab, I_SLOTS * 4, F_SLOTS)
  }

  get limits(): PaceLimits {
    return { maxConcurrency: Atomics.load(this.i32, I_MAXCONC), maxRps: this.f64[F_CAP] || null }
  }

  state(): PaceState {
    return withLock(this.i32, I_LOCK, () => ({
      inFlight: Atomics.load(this.i32, I_INFLIGHT),
      rps: this.f64[F_RATE]!,
      limited: Atomics.load(this.i32, I_LIMITED),
      overloaded: Atomics.load(this.i32, I_OVERLOADED),
    }))
  }

  /**
   * Frees every place in flight. Only for the main process once the workers are gone (after vitest closed):
   * a worker ended mid-request (a timeout, an interrupt) never gives its place back.
   */
  reclaim(): void {
    Atomics.store(this.i32, I_INFLIGHT, 0)
  }

  /** Waits for a place in the run's budget; lower `priority` goes first. Call the returned function when the answer is in. */
  acquire(priority = Number.MAX_SAFE_INTEGER): Promise<() => void> {
    return new Promise((resolve) => {
      const w: Waiter = { priority, seq: this.seq++, resolve }
      // Ordered insert: few waiters per thread, and most arrive in order.
      let i = this.waiting.length
      while (i > 0 && this.waiting[i - 1]!.priority > priority) i--
      this.waiting.splice(i, 0, w)
      this.pump()
    })
  }

  /**
   * What the target answered: a 429 slows the whole run down and a 502/503/504 with a Retry-After pauses it (a 503
   * with a wait slows it down too), anything else lets it speed up again.
   */
  answered(status: number, retryAfterMs?: number): void {
    const now = Date.now()
    const f = this.f64
    const overloaded = status >= 502 && status <= 504 && retryAfterMs !== undefined
    // An ordinary answer with no pace set changes nothing (most answers of most runs): no lock. Read unlocked, a
    // pace another thread is setting this moment may be missed, and it misses one small step up, no more.
    if (status !== 429 && !overloaded && !(f[F_RATE]! > 0)) return
    withLock(this.i32, I_LOCK, () => {
      if (status === 429 || overloaded) {
        Atomics.add(this.i32, status === 429 ? I_LIMITED : I_OVERLOADED, 1)
        if (retryAfterMs !== undefined) f[F_PAUSE] = Math.max(f[F_PAUSE]!, now + Math.min(retryAfterMs, MAX_RETRY_AFTER_MS))
        // A gateway's 502/504 is waited for, not taken as a rate: only a 429 or an overloaded server's 503 asks for less.
        const slowDown = status === 429 || (status === 503 && retryAfterMs! > 0)
        // Once per second at most: the 429s of requests already in flight answer the same excess.
        if (slowDown && now - f[F_LAST_DECREASE]! >= 1000) {
          const sent = Math.max(f[F_PREV_COUNT]!, f[F_WIN_COUNT]!)
          const base = f[F_RATE]! > 0 ? f[F_RATE]! : Math.max(sent, 2)
          f[F_RATE] = Math.max(MIN_RPS, base * 0.7)
          f[F_LAST_DECREASE] = now
        }
      } else if (f[F_RATE]! > 0) {
        const rate = f[F_RATE]! + 1 / f[F_RATE]!
        const cap = f[F_CAP]!
        // Without a fixed cap, a pace far above what was ever asked for is no pace at all.
        f[F_RATE] = cap > 0 ? Math.min(cap, rate) : rate > 1000 ? 0 : rate
      }
    })
  }

  private pump(): void {
    if (this.pumping) return
    this.pumping = true
    try {
      while (this.waiting.length) {
        const wait = this.tryStart()
        if (wait > 0) {
          if (this.timer) clearTimeout(this.timer)
          this.timer = setTimeout(() => {
            this.timer = null
            this.pump()
          }, wait)
          return
        }
        const w = this.waiting.shift()!
        let released = false
        w.resolve(() => {
          if (released) return
          released = true
          Atomics.sub(this.i32, I_INFLIGHT, 1)
          this.pump()
        })
      }
    } finally {
      this.pumping = false
    }
  }

  /** 0: a request may start now (and is counted); otherwise milliseconds to wait before asking again. */
  private tryStart(): number {
    const now = Date.now()
    const f = this.f64
    return withLock(this.i32, I_LOCK, () => {
      if (f[F_PAUSE]! > now) return f[F_PAUSE]! - now
      const rate = f[F_RATE]!
      if (rate > 0 && f[F_NEXT]! > now) return f[F_NEXT]! - now
      // Another thread's answer frees a place without telling this one: look again shortly.
      if (Atomics.load(this.i32, I_INFLIGHT) >= Atomics.load(this.i32, I_MAXCONC)) return 5
      Atomics.add(this.i32, I_INFLIGHT, 1)
      if (rate > 0) f[F_NEXT] = Math.max(now, f[F_NEXT]!) + 1000 / rate
      if (now - f[F_WIN_START]! >= 1000) {
        f[F_PREV_COUNT] = now - f[F_WIN_START]! < 2000 ? f[F_WIN_COUNT]! : 0
        f[F_WIN_START] = now
        f[F_WIN_COUNT] = 0
      }
      f[F_WIN_COUNT] = f[F_WIN_COUNT]! + 1
      return 0
    })
  }
}

/**
 * Retry-After (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, in milliseconds from `now`; undefined when
 * absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!v) return undefined
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  if (!/[a-z]/i.test(v)) return undefined
  const at = Date.parse(v)
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined
}

/** The wait before repeating a request answered 429 (or 502/503/504 with a Retry-After) for the n-th time (n ≥ 1). */
export function rateLimitWait(retryAfterMs: number | undefined, n: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS) + Math.round(random() * 250)
  // No Retry-After: exponential backoff with full jitter over its upper half.
  const ceiling = Math.min(10_000, 500 * 2 ** (n - 1))
  return Math.round(ceiling / 2 + random() * (ceiling / 2))
}
