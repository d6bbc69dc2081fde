/**
 * The run accounts' tokens, kept current for the whole run. A token the target stops accepting (expired,
 * revoked) is replaced by signing the same account in again, with the same device header as the run's first
 * sign-in, and the call is repeated; a token with a believable `expires_in` is replaced ahead of its end.
 *
 * One slot per account in a SharedArrayBuffer carried by the run context, so the main process and every
 * worker thread use the same current token: a renewal by one is seen by all (a server that keeps one token per
 * device would otherwise have the threads revoke each other's tokens). Made without the buffer (unit tests),
 * the store is private to its thread, which still works.
 *
 * Only a 401 answered to an account's own current token leads here (helpers/http/api.ts); a check that sends a
 * made-up token, another header or none is never helped.
 */
import { isUnavailable, TransportError, type Exchange, type RequestSpec } from './client'
import type { AccountKey } from './run-context'
import { withLock } from './pace'
import { registerSecret } from './redact'
import type { RunAccount } from './run-context'

const KEYS: readonly AccountKey[] = ['A', 'B', 'C']
const TOKEN_BYTES = 8192
const I_SLOTS = 16 // [0] lock; per account k: [1+3k] version, [2+3k] length, [3+3k] renewing
const F_SLOTS = 12 // per account k: [4k] issuedAt, [4k+1] expiresAt (0: unknown), [4k+2] renewing since
const I_BYTES = I_SLOTS * 4
const F_BYTES = F_SLOTS * 8

/** expires_in is taken as seconds; outside this range it is not believed and tokens are only renewed on a 401. */
export const SANE_EXPIRES_IN = { min: 2, max: 366 * 86_400 }
/** A renewal is started once this share of the lifetime has passed. */
const RENEW_AT = 0.75

export function createTokenBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(I_BYTES + F_BYTES + KEYS.length * TOKEN_BYTES)
}

/** Sign-ins made to replace tokens over the whole run, read from the run's shared store. */
export function tokenRenewals(buffer: SharedArrayBuffer): number {
  const i32 = new Int32Array(buffer, 0, I_SLOTS)
  return withLock(i32, 0, () => KEYS.reduce((n, _k, i) => n + Math.max(0, i32[1 + 3 * i]! - 1), 0))
}

/** When a token given at `issuedAt` with `expiresIn` should be replaced; 0 when expires_in is not believable. */
export function renewalTime(issuedAt: number, expiresIn: unknown): number {
  if (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < SANE_EXPIRES_IN.min || expiresIn > SANE_EXPIRES_IN.max) return 0
  return issuedAt + expiresIn * 1000 * RENEW_AT
}

/** A fresh token was refused too, or the account could not sign in again: the check cannot be judged. */
export class TokenLifetimeError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'TokenLifetimeError'
  }
}

export interface CurrentToken {
  token: string
  version: number
  /** When the sign-in that gave it answered (Date.now()). */
  issuedAt: number
}

/** An account's side of the store, as an Api sees it. */
export interface TokenSource {
  readonly key: AccountKey
  /** The current token, renewed first when its believable lifetime is nearly over. */
  current(): Promise<CurrentToken>
  /** The current token as it is now (no renewal). */
  peek(): CurrentToken
  /** A 401 answered to the token of `version`: the token to repeat the call with (signing in again unless another caller just did). */
  renew(version: number): Promise<CurrentToken>
  /** True when the target refuses `token` itself (401 to a harmless read): expired or revoked, whatever the call was. */
  refused(token: string): Promise<boolean>
}

/**
 * What the token store asks of an Api: a copy without a token, sending with a token of its choosing, and
 * signing in. api.ts's Api is one; it is named here so that api.ts and this file do not import each other.
 */
export interface AnonymousApi {
  withToken(token: null): AnonymousApi
  priority: number | undefined
  readonly target: { readonly messageApiPath: string }
  send(spec: RequestSpec): Promise<Exchange>
  signIn(p: { userName: string; password: string; clientId: string; deviceId?: string | null }): Promise<Exchange>
}

export interface SessionsOptions {
  buffer: SharedArrayBuffer | null | undefined
  accounts: Record<AccountKey, Pick<RunAccount, 'key' | 'userName' | 'password' | 'token' | 'deviceId'> & { expiresIn?: number | null }>
  clientId: string
  /** An Api without a token, for the sign-ins and the probes. */
  anon: AnonymousApi
}

export class TokenSessions {
  private readonly i32: Int32Array
  private readonly f64: Float64Array
  private readonly bytes: Uint8Array
  private readonly inProgress = new Map<AccountKey, Promise<CurrentToken>>()
  /** Each account's token as this thread last read it, by version (its token registered as a secret here). */
  private readonly lastRead: (CurrentToken | undefined)[] = []
  readonly shared: boolean

  private readonly anon: AnonymousApi

  constructor(private readonly opts: SessionsOptions) {
    // Sign-ins and probes serve a check already under way: they go first when the pace holds requests back.
    this.anon = opts.anon.withToken(null)
    this.anon.priority = 0
    this.shared = opts.buffer instanceof SharedArrayBuffer
    const sab = this.shared ? (opts.buffer as SharedArrayBuffer) : createTokenBuffer()
    this.i32 = new Int32Array(sab, 0, I_SLOTS)
    this.f64 = new Float64Array(sab, I_BYTES, F_SLOTS)
    this.bytes = new Uint8Array(sab, I_BYTES + F_BYTES)
    for (const key of KEYS) {
      const acc = opts.accounts[key]
      registerSecret(acc.token)
      registerSecret(acc.password)
      if (this.read(key).version === 0) this.write(key, acc.token, Date.now(), acc.expiresIn, 0)
    }
    for (const key of KEYS) registerSecret(this.read(key).token)
  }

  /** Sets an account's token after a sign-in (the preflight's, or a renewal). */
  set(key: AccountKey, token: string, expiresIn: unknown): CurrentToken {
    return this.write(key, token, Date.now(), expiresIn, this.read(key).version)
  }

  source(key: AccountKey): TokenSource {
    return {
      key,
      current: () => this.current(key),
      peek: () => this.read(key),
      renew: (version) => this.renew(key, version),
      refused: (token) => this.refused(token),
    }
  }

  async current(key: AccountKey): Promise<CurrentToken> {
    const k = KEYS.indexOf(key)
    const now = Date.now()
    const cur = this.read(key)
    const due = this.f64[4 * k + 1]!
    if (due > 0 && now >= due && this.claim(key, cur.version)) {
      // Ahead of the end: this caller signs in; the others keep the old token, which still works, and so does
      // this caller when the sign-in fails now (a 401 later renews it again).
      return this.signIn(key, cur.version).catch(() => this.read(key))
    }
    return cur
  }

  async renew(key: AccountKey, version: number): Promise<CurrentToken> {
    for (let waited = 0; ; waited += 25) {
      const cur = this.read(key)
      if (cur.version !== version) return cur
      if (this.claim(key, version)) return this.signIn(key, version)
      // Another thread is signing this account in: its token will do.
      if (waited > 30_000) throw new TokenLifetimeError(`account ${key} was being signed in again by another worker for more than 30 s`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  async refused(token: string): Promise<boolean> {
    const target = this.anon.target
    const ex = await this.anon.send({ method: 'GET', path: `${target.messageApiPath}/channels`, query: { size: 1 }, token })
    return ex.status === 401
  }

  private signIn(key: AccountKey, version: number): Promise<CurrentToken> {
    const running = this.inProgress.get(key)
    if (running) return running
    const p = (async () => {
      try {
        const acc = this.opts.accounts[key]
        const ex = await signInRetrying(() =>
          this.anon.signIn({ userName: acc.userName, password: acc.password, clientId: this.opts.clientId, deviceId: acc.deviceId }),
        )
        const body = ex.json as { access_token?: unknown; expires_in?: unknown } | undefined
        if (ex.status < 200 || ex.status > 299 || typeof body?.access_token !== 'string' || !body.access_token) {
          throw new TokenLifetimeError(
            `account ${key}'s token stopped working and signing it in again answered ${ex.status}${ex.json === undefined ? ` (${ex.jsonError ?? 'not JSON'})` : typeof body?.access_token === 'string' ? '' : ' without an access_token'}, so the check could not be judged`,
          )
        }
        registerSecret(body.access_token)
        return this.write(key, body.access_token, Date.now(), body.expires_in, version)
      } finally {
        this.release(key)
        this.inProgress.delete(key)
      }
    })()
    this.inProgress.set(key, p)
    return p
  }

  /** Marks the account as being renewed from `version` on; false when another caller already is (or did). */
  private claim(key: AccountKey, version: number): boolean {
    const k = KEYS.indexOf(key)
    return withLock(this.i32, 0, () => {
      if (this.i32[1 + 3 * k] !== version) return false
      const since = this.f64[4 * k + 2]!
      // A renewal older than a minute died with its thread: take it over.
      if (this.i32[3 + 3 * k] === 1 && Date.now() - since < 60_000) return false
      this.i32[3 + 3 * k] = 1
      this.f64[4 * k + 2] = Date.now()
      return true
    })
  }

  private release(key: AccountKey): void {
    const k = KEYS.indexOf(key)
    withLock(this.i32, 0, () => {
      this.i32[3 + 3 * k] = 0
    })
  }

  private read(key: AccountKey): CurrentToken {
    const k = KEYS.indexOf(key)
    // Every write makes a new version, so the token this thread last read of a version is still that version's
    // (most requests of a run: no lock, no copy). A write under way is seen once it is done, as with the lock.
    const last = this.lastRead[k]
    if (last && Atomics.load(this.i32, 1 + 3 * k) === last.version) return last
    const cur = withLock(this.i32, 0, () => {
      const len = this.i32[2 + 3 * k]!
      const token = Buffer.from(this.bytes.subarray(k * TOKEN_BYTES, k * TOKEN_BYTES + len)).toString('utf8')
      return { token, version: this.i32[1 + 3 * k]!, issuedAt: this.f64[4 * k]! }
    })
    // A token another thread signed in for is a secret here too, before this thread can send or print it.
    if (last?.version !== cur.version) registerSecret(cur.token)
    this.lastRead[k] = cur
    return cur
  }

  private write(key: AccountKey, token: string, issuedAt: number, expiresIn: unknown, fromVersion: number): CurrentToken {
    const k = KEYS.indexOf(key)
    const encoded = Buffer.from(token, 'utf8')
    if (encoded.length > TOKEN_BYTES) throw new TokenLifetimeError(`account ${key}'s access token is longer than ${TOKEN_BYTES} bytes`)
    return withLock(this.i32, 0, () => {
      // Two renewals from the same version: the first one written wins, the other's token is dropped.
      if (this.i32[1 + 3 * k] !== fromVersion) {
        const len = this.i32[2 + 3 * k]!
        return {
          token: Buffer.from(this.bytes.subarray(k * TOKEN_BYTES, k * TOKEN_BYTES + len)).toString('utf8'),
          version: this.i32[1 + 3 * k]!,
          issuedAt: this.f64[4 * k]!,
        }
      }
      this.bytes.set(encoded, k * TOKEN_BYTES)
      this.i32[2 + 3 * k] = encoded.length
      this.i32[1 + 3 * k] = fromVersion + 1
      this.f64[4 * k] = issuedAt
      this.f64[4 * k + 1] = renewalTime(issuedAt, expiresIn)
      return { token, version: fromVersion + 1, issuedAt }
    })
  }
}

/** Sign-in attempts on a gateway's 502/503/504 or a transport fault; a sign-in is safe to repeat (at worst a token goes unused). */
export const SIGN_IN_ATTEMPTS = 4

export async function signInRetrying(call: () => Promise<Exchange>, attempts = SIGN_IN_ATTEMPTS): Promise<Exchange> {
  for (let n = 1; ; n++) {
    try {
      const ex = await call()
      if (!isUnavailable(ex.status) || n >= attempts) return ex
    } catch (err) {
      if (!(err instanceof TransportError) || n >= attempts) throw err
    }
    await new Promise((r) => setTimeout(r, Math.min(4000, 250 * 2 ** (n - 1)) * (0.75 + Math.random() * 0.5)))
  }
}
