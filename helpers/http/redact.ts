/**
 * Central redaction: every string that leaves the process (console, results.json, JUnit, Allure, HTML) goes
 * through redact(). Secrets are registered once when they become known (passwords and client secret from the
 * configuration, tokens at sign-in), and known secret-bearing fields are masked whatever their value.
 */
const MASK = '«redacted»'
const secrets = new Set<string>()
/** The secrets longest first, kept until another is registered (redact runs on every exchange). */
let longestFirst: string[] | null = null
/**
 * Header values redacted since the last secret was registered: most repeat on every exchange (content type,
 * connection, keep-alive), and each redact() looks for every secret of the run.
 */
const headerValues = new Map<string, string>()

/** Registered secrets a reproducer can name by a variable of .env (USER_A_PASSWORD): value → that variable's name. */
const named = new Map<string, string>()

/**
 * Registers a value that must never appear in any output. Very short values are refused: masking them would shred
 * the evidence. `name`: the variable of .env that holds it, so a value sent that was made from it can be said to be.
 */
export function registerSecret(value: string | null | undefined, name?: string): void {
  if (value && value.length >= 4 && !secrets.has(value)) {
    secrets.add(value)
    longestFirst = null
    headerValues.clear()
  }
  if (value && value.length >= 4 && name) named.set(value, name)
}

/**
 * How a secret-bearing value a request sent was made from a named secret, with nothing secret in it: the secret
 * itself, its first `length` characters, the secret followed by `suffix` or preceded by `prefix` (text that
 * redact leaves as is), or the secret with the case of its ASCII letters swapped.
 */
export type Derivation =
  | { from: string; how: 'same' }
  | { from: string; how: 'prefix'; length: number }
  | { from: string; how: 'suffixed'; suffix: string }
  | { from: string; how: 'prefixed'; prefix: string }
  | { from: string; how: 'swapcase' }

/** `text` with each ASCII letter in the other case (what `tr 'a-zA-Z' 'A-Za-z'` makes of it). */
export function swapCase(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()))
}

/** The derivation of `value` from a named secret (the longest that fits), if any. */
export function derivationOf(value: string): Derivation | undefined {
  let best: Derivation | undefined
  let bestLength = 0
  for (const [secret, from] of named) {
    if (secret.length <= bestLength) continue
    if (value === secret) [best, bestLength] = [{ from, how: 'same' }, secret.length]
    else if (value.startsWith(secret) && redact(value.slice(secret.length)) === value.slice(secret.length))
      [best, bestLength] = [{ from, how: 'suffixed', suffix: value.slice(secret.length) }, secret.length]
    else if (value.length > 0 && secret.startsWith(value)) [best, bestLength] = [{ from, how: 'prefix', length: value.length }, secret.length]
    else if (value.endsWith(secret) && redact(value.slice(0, -secret.length)) === value.slice(0, -secret.length))
      [best, bestLength] = [{ from, how: 'prefixed', prefix: value.slice(0, -secret.length) }, secret.length]
    else if (value !== secret && value === swapCase(secret)) [best, bestLength] = [{ from, how: 'swapcase' }, secret.length]
  }
  return best
}

const SECRET_PARAM = /\b(password|access_token|client_secret|refresh_token|otpCode)=([^&\s"]+)/gi
const SECRET_JSON_FIELD = /"(password|access_token|client_secret|refresh_token|token|authorization)"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"/gi
const AUTH_VALUE = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi

export function redact(text: string): string {
  let out = text
  // Longest first, so a secret that contains another is masked whole.
  longestFirst ??= [...secrets].sort((a, b) => b.length - a.length)
  for (const s of longestFirst) if (out.includes(s)) out = out.split(s).join(MASK)
  // Each pattern only where the text has what it cannot match without (the same result, without a scan).
  if (out.includes('Bearer') || out.includes('Basic')) out = out.replace(AUTH_VALUE, (_m, scheme: string) => `${scheme} ${MASK}`)
  if (out.includes('://') && out.includes('@')) out = out.replace(URL_USERINFO, (_m, scheme: string) => `${scheme}${MASK}@`)
  if (out.includes('=')) out = out.replace(SECRET_PARAM, (_m, k: string) => `${k}=${MASK}`)
  if (out.includes('"')) out = out.replace(SECRET_JSON_FIELD, (m, k: string, v: string) => (isMaskLike(v) ? m : `"${k}":"${MASK}"`))
  return out
}

// A server's own fixed placeholder ("********") is evidence for the masking clause; keep it visible.
function isMaskLike(v: string): boolean {
  return v === MASK || /^[*•x#]+$/i.test(v) || v === ''
}

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue
    const value = Array.isArray(v) ? v.join(', ') : v
    if (/^(authorization|cookie|set-cookie|proxy-authorization)$/i.test(k)) {
      out[k] = value.replace(/^(\S+\s+)?.*$/, (_m, scheme?: string) => `${scheme ?? ''}${MASK}`)
      continue
    }
    let clean = headerValues.get(value)
    if (clean === undefined) {
      clean = redact(value)
      if (headerValues.size >= 1000) headerValues.clear()
      headerValues.set(value, clean)
    }
    out[k] = clean
  }
  return out
}

export const REDACTION_MASK = MASK

/** Origin and base path only: a base URL may carry credentials (user:pass@host), which never leave the process. */
export function safeOrigin(url: string): string {
  try {
    const u = new URL(url)
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`
  } catch {
    return '(invalid URL)'
  }
}

/** A password a request sent, as the record keeps it instead of the value: where it went and how it was made. */
export type SentSecret = { in: 'url' | 'body'; field: string; nth: number } & Derivation

/**
 * The passwords a request sent (its query string, its form or JSON body), in order, each with how it was made from
 * an account's password when it was (a reproducer makes it again from .env; the redacted record keeps no value).
 */
export function sentSecrets(pathAndQuery: string, body: string | undefined): SentSecret[] {
  const out: SentSecret[] = []
  if (!pathAndQuery.includes('password') && !body?.includes('password')) return out
  const add = (where: 'url' | 'body', pairs: Iterable<[string, unknown]>) => {
    let nth = 0
    for (const [field, value] of pairs) {
      if (field !== 'password' || typeof value !== 'string') continue
      nth++
      const d = derivationOf(value)
      if (d) out.push({ in: where, field, nth, ...d })
    }
  }
  const q = pathAndQuery.indexOf('?')
  if (q >= 0) add('url', new URLSearchParams(pathAndQuery.slice(q + 1)))
  if (body !== undefined) {
    const text = body.trim()
    if (text.startsWith('{') || text.startsWith('[')) {
      try {
        add('body', jsonPairs(JSON.parse(text)))
      } catch {
        // not JSON after all: nothing to say
      }
    } else if (/^[^=&\s]+=/.test(text)) add('body', new URLSearchParams(text))
  }
  return out
}

/** A JSON value's fields, depth first, in the order they are written. */
function* jsonPairs(value: unknown): Generator<[string, unknown]> {
  if (Array.isArray(value)) for (const v of value) yield* jsonPairs(v)
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      yield [k, v]
      yield* jsonPairs(v)
    }
}
