/**
 * Central redaction: every string that leaves the process (console, results.json, JUnit, Allure, HTML) goes
 * through redact(). Secrets are registered once when they become known (passwords and client secret from the
 * configuration, tokens at sign-in), and known secret-bearing fields are masked whatever their value.
 */
const MASK = '«redacted»'
const secrets = new Set<string>()
/** The secrets longest first, kept until another is registered (redact runs on every exchange). */
let longestFirst: string[] | null = null

/** Registers a value that must never appear in any output. Very short values are refused: masking them would shred the evidence. */
export function registerSecret(value: string | null | undefined): void {
  if (value && value.length >= 4 && !secrets.has(value)) {
    secrets.add(value)
    longestFirst = null
  }
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
    out[k] = /^(authorization|cookie|set-cookie|proxy-authorization)$/i.test(k)
      ? value.replace(/^(\S+\s+)?.*$/, (_m, scheme?: string) => `${scheme ?? ''}${MASK}`)
      : redact(value)
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
