/**
 * How the suite's requests reach the target on a real network: a corporate proxy (HTTPS_PROXY, HTTP_PROXY,
 * NO_PROXY, either case), an internal certificate authority (CA_FILE, added to Node's own roots) and a client
 * certificate (CLIENT_CERT_FILE with CLIENT_KEY_FILE). The settings come from the configuration (env over
 * `.env`), never from process.env behind its back, and travel to every worker in the RunContext as plain
 * data; each process builds its own dispatcher from them. Files are validated when the configuration is read.
 */
import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'
import type { Dispatcher } from 'undici'

export interface NetworkSettings {
  /** Proxy URL for http:// targets; null: none. */
  httpProxy: string | null
  /** Proxy URL for https:// targets; null: HTTP_PROXY's, else none. */
  httpsProxy: string | null
  /** Hosts reached directly (comma or space separated, `*` for all); null: none. */
  noProxy: string | null
  /** PEM file of extra trusted certificate authorities (added to the default roots). */
  caFile: string | null
  clientCertFile: string | null
  clientKeyFile: string | null
  /**
   * Self-proof runs only: the embedded reference server of this process answers on the BroadcastChannel of this
   * name instead of a socket (helpers/http/in-process.ts). Never read from the environment.
   */
  inProcess?: string
}

export const DIRECT: NetworkSettings = { httpProxy: null, httpsProxy: null, noProxy: null, caFile: null, clientCertFile: null, clientKeyFile: null }

type Get = (name: string) => string

/** Upper case wins over lower case when both are set (curl reads lower case first, but both are common). */
function either(get: Get, name: string): string {
  return get(name) || get(name.toLowerCase())
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/
const PEM_KEY = /-----BEGIN ((RSA|EC|ENCRYPTED) )?PRIVATE KEY-----[\s\S]+?-----END ((RSA|EC|ENCRYPTED) )?PRIVATE KEY-----/

/** Reads and checks the network settings; every problem is one line for the ConfigError. */
export function readNetwork(get: Get, resolvePath: (p: string) => string): { network: NetworkSettings; problems: string[] } {
  const problems: string[] = []
  const proxy = (name: string): string | null => {
    const value = either(get, name)
    if (!value) return null
    try {
      const u = new URL(value)
      if (!['http:', 'https:'].includes(u.protocol)) problems.push(`${name} must be an http:// or https:// proxy URL, got '${u.protocol}'`)
    } catch {
      problems.push(`${name} is not a URL (example: http://proxy.example.com:3128)`)
    }
    return value
  }
  const file = (name: string, pattern: RegExp, what: string): string | null => {
    const value = get(name)
    if (!value) return null
    const path = resolvePath(value)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      problems.push(`${name} ${value} cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? 'error')})`)
      return path
    }
    if (!pattern.test(text)) problems.push(`${name} ${value} is not a PEM file with ${what}`)
    return path
  }
  const network: NetworkSettings = {
    httpProxy: proxy('HTTP_PROXY'),
    httpsProxy: proxy('HTTPS_PROXY'),
    noProxy: either(get, 'NO_PROXY') || null,
    caFile: file('CA_FILE', PEM_CERT, 'a certificate (-----BEGIN CERTIFICATE-----)'),
    clientCertFile: file('CLIENT_CERT_FILE', PEM_CERT, 'a certificate (-----BEGIN CERTIFICATE-----)'),
    clientKeyFile: file('CLIENT_KEY_FILE', PEM_KEY, 'a private key (-----BEGIN … PRIVATE KEY-----)'),
  }
  if (!network.clientCertFile !== !network.clientKeyFile) problems.push('CLIENT_CERT_FILE and CLIENT_KEY_FILE must be set together')
  return { network, problems }
}

export interface DispatcherOptions {
  timeoutMs: number
  network?: NetworkSettings
}

let undici: Promise<typeof import('undici')> | undefined

/**
 * undici, loaded on first use: a thread whose requests all go in-process (helpers/http/in-process.ts, the
 * self-proof's workers) never pays for loading it, a tenth of a second or more of every fresh worker.
 */
export function loadUndici(): Promise<typeof import('undici')> {
  return (undici ??= import('undici'))
}

/**
 * The dispatcher of one HttpClient: undici's EnvHttpProxyAgent, given the proxy settings explicitly (an empty
 * string, not undefined, so it never falls back to process.env on its own), with the connection settings the
 * suite has always used. The TLS options go both to direct connections (`connect`) and through a proxy
 * tunnel to the target (`requestTls`); an https:// proxy is trusted with the same CA file.
 */
export async function buildDispatcher({ timeoutMs, network = DIRECT }: DispatcherOptions): Promise<Dispatcher> {
  const tls = tlsOptions(network)
  const { EnvHttpProxyAgent } = await loadUndici()
  return new EnvHttpProxyAgent({
    httpProxy: network.httpProxy ?? '',
    httpsProxy: network.httpsProxy ?? network.httpProxy ?? '',
    noProxy: network.noProxy ?? '',
    connections: 32,
    keepAliveTimeout: 10_000,
    connectTimeout: timeoutMs,
    connect: { ...tls, timeout: timeoutMs },
    requestTls: { ...tls, timeout: timeoutMs },
    proxyTls: { ...(tls.ca ? { ca: tls.ca } : {}), timeout: timeoutMs },
  })
}

function tlsOptions(network: NetworkSettings): { ca?: string[]; cert?: string; key?: string } {
  const out: { ca?: string[]; cert?: string; key?: string } = {}
  if (network.caFile) out.ca = [...rootCertificates, readFileSync(network.caFile, 'utf8')]
  if (network.clientCertFile && network.clientKeyFile) {
    out.cert = readFileSync(network.clientCertFile, 'utf8')
    out.key = readFileSync(network.clientKeyFile, 'utf8')
  }
  return out
}

/** Node's and undici's codes for a certificate the client did not accept. */
const CERT_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
  'UND_ERR_PRX_TLS',
  'INVALID_CA',
  'CERT_CHAIN_TOO_LONG',
])
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'TimeoutError', 'ETIMEDOUT'])

export type TransportKind = 'plain-http' | 'certificate' | 'timeout' | 'proxy' | 'other'

/** What OpenSSL says when the other end answers a TLS greeting with plain HTTP (an https:// URL on an http port). */
const PLAIN_HTTP_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST'])

export function transportKind(code: string | undefined, message = ''): TransportKind {
  if (!code) return 'other'
  if (PLAIN_HTTP_CODES.has(code)) return 'plain-http'
  if (CERT_CODES.has(code) || /^ERR_SSL_|^ERR_TLS_CERT/.test(code)) return 'certificate'
  if (TIMEOUT_CODES.has(code)) return 'timeout'
  if (/Proxy response \(\d+\)/.test(message) || (code === 'UND_ERR_ABORTED' && /proxy/i.test(message))) return 'proxy'
  return 'other'
}

/** What certificate settings are in force, for a sentence (file names only). */
export function describeTls(network: NetworkSettings | undefined): string {
  if (!network?.caFile) return 'CA_FILE is not set, so only the default certificate authorities are trusted'
  return `CA_FILE ${network.caFile} is trusted in addition to the default certificate authorities`
}

/** Which proxy a URL goes through under these settings, for a sentence; null: direct. */
export function proxyFor(url: string, network: NetworkSettings | undefined): string | null {
  if (!network) return null
  const u = new URL(url)
  const proxy = u.protocol === 'https:' ? (network.httpsProxy ?? network.httpProxy) : network.httpProxy
  if (!proxy) return null
  const host = u.hostname.toLowerCase()
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80)
  for (const raw of (network.noProxy ?? '').split(/[,\s]+/)) {
    if (!raw) continue
    if (raw === '*') return null
    const m = /^(.+):(\d+)$/.exec(raw)
    const name = (m ? m[1]! : raw).replace(/^\*?\./, '').toLowerCase()
    if (m && Number(m[2]) !== port) continue
    if (host === name || host.endsWith(`.${name}`)) return null
  }
  return proxy
}
