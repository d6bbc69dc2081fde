/**
 * Preparing a run, before any check: start the embedded reference server when no BASE_URL is set, prove the
 * target answers and the accounts can sign in (or enrol disposable ones), sign each account in once, and
 * build the RunContext the checks receive. Anything that makes the run impossible ends here with one
 * PreflightError sentence saying what to fix (exit 2), never a wall of failed checks.
 */
import { randomBytes, randomInt } from 'node:crypto'
import { Api } from '../http/api'
import { HttpClient, isSuccess, RateLimitedError, TransportError, type Exchange } from '../http/client'
import { ACCOUNT_KEYS, type AccountCredentials, type AccountKey, type Config } from '../config/config'
import { openLedger } from '../http/ledger'
import { describeTls, proxyFor, transportKind, type NetworkSettings } from '../http/network'
import { createPaceBuffer, Pacer } from '../http/pace'
import { redact, registerSecret, safeOrigin } from '../http/redact'
import type { TargetInfo } from '../reports/results'
import { READ_LAG_MS, type RunAccount, type RunContext, type Target } from '../http/run-context'
import { formatSweep, sweep } from './sweep'
import { createTokenBuffer, signInRetrying, TokenSessions } from '../http/tokens'

export class PreflightError extends Error {
  constructor(message: string) {
    super(redact(message))
    this.name = 'PreflightError'
  }
}

export interface PreparedRun {
  context: RunContext
  /** The target as it may be shown: origin and API paths, no credentials. */
  displayTarget: string
  /** The target as results.json records it. */
  target: TargetInfo
  close(): Promise<void>
}

export interface PrepareOptions {
  /** Faults to switch on in the embedded reference server (self-tests only). */
  faults?: string[]
  /** Variants (correct readings of the spec other than the reference's) to switch on in the embedded reference server (self-tests only). */
  variants?: string[]
  /** The embedded server answers in this process, without a socket (helpers/http/in-process.ts; self-proof only). */
  inProcess?: boolean
  /** Progress lines for the console. */
  log?: (line: string) => void
  /** Sweep leftovers of earlier runs after sign-in (default true; `npm run sweep` sweeps itself). */
  sweep?: boolean
}

export const NAME_PREFIX = 'ct'

/**
 * Prepares a run in stages: the target (the embedded server started, or the one BASE_URL names), the
 * accounts signed in (enrolled first where none are configured), the message API proven there, the leftovers
 * of earlier runs swept, and the RunContext the checks receive.
 */
export async function prepareRun(config: Config, opts: PrepareOptions = {}): Promise<PreparedRun> {
  const log = opts.log ?? (() => {})
  registerSecret(config.clientSecret)
  for (const acc of Object.values(config.accounts)) registerSecret(acc?.password)

  const runId = randomBytes(3).toString('hex')
  const seed = config.seed ?? randomInt(0, 2 ** 31 - 1)
  const { baseUrl, closeServer, settleMs, inProcess } = await startTarget(config, opts, log)
  const target: Target = {
    baseUrl,
    userApiPath: config.userApiPath,
    messageApiPath: config.messageApiPath,
    embedded: !config.baseUrl,
  }
  // Said plainly wherever the target is shown: a run against the bundled server proves nothing about another.
  const displayTarget = `${target.embedded ? 'the bundled reference server (embedded) at ' : ''}${safeOrigin(baseUrl)} (user API ${config.userApiPath}, message API ${config.messageApiPath})`
  // The bundled server listens on loopback: a corporate proxy has no business between the two.
  const network: NetworkSettings = target.embedded
    ? { ...config.network, httpProxy: null, httpsProxy: null, ...(inProcess ? { inProcess } : {}) }
    : config.network
  registerSecret(proxyPassword(network.httpProxy))
  registerSecret(proxyPassword(network.httpsProxy))
  const where = { displayTarget, baseUrl, network, timeoutMs: Math.min(config.requestTimeoutMs, 10_000) }
  // Preflight requests get a short timeout: a wrong URL must end the run in seconds.
  // One pace and one set of current tokens for the whole run, preflight included (helpers/http/run-context.ts).
  const limits = { maxConcurrency: config.maxConcurrency, maxRps: config.maxRps }
  const pace = createPaceBuffer(limits)
  const tokenBuffer = createTokenBuffer()
  const http = new HttpClient({ baseUrl, timeoutMs: where.timeoutMs, retries: 1, network, pacer: new Pacer(pace) })
  try {
    const anon = new Api(http, target, null)
    const accounts = await signInAccounts(anon, config, runId, where, log)
    const sessions = new TokenSessions({ buffer: tokenBuffer, accounts, clientId: config.clientId, anon })
    await proveMessageApi(new Api(http, target, accounts.A.token), config, where)
    log(`signed in accounts A, B and C${Object.values(accounts).some((a) => a.enrolled) ? ' (enrolled for this run)' : ''}`)
    const ledgerPath = openLedger(config.reportDir, runId)
    if (opts.sweep !== false) await sweepLeftovers({ http, target, accounts, sessions, config, runId, log })
    const context: RunContext = {
      runId,
      seed,
      target,
      clientId: config.clientId,
      requestTimeoutMs: config.requestTimeoutMs,
      accounts,
      namePrefix: NAME_PREFIX,
      ledgerPath,
      network,
      pace,
      tokens: tokenBuffer,
      limits,
      rerunErrored: config.rerunErrored,
      allure: true,
      keepExchanges: true,
      settleMs,
    }
    return {
      context,
      displayTarget,
      target: {
        display: displayTarget,
        url: safeOrigin(baseUrl),
        userApiPath: config.userApiPath,
        messageApiPath: config.messageApiPath,
        embedded: target.embedded,
      },
      close: closeServer,
    }
  } catch (err) {
    await closeServer()
    throw err
  } finally {
    await http.close()
  }
}

/** The target: the embedded reference server started (BASE_URL empty), or BASE_URL's, where no fault or variant can be switched on. */
async function startTarget(
  config: Config,
  opts: PrepareOptions,
  log: (line: string) => void,
): Promise<{ baseUrl: string; closeServer: () => Promise<void>; settleMs: number; inProcess?: string }> {
  if (config.baseUrl) {
    if (opts.faults?.length || opts.variants?.length)
      throw new PreflightError('faults and variants can be switched on only in the embedded reference server (leave BASE_URL empty, or set it to embedded)')
    return { baseUrl: config.baseUrl, closeServer: async () => {}, settleMs: READ_LAG_MS }
  }
  if (!config.clientSecret) throw new PreflightError('the embedded reference server needs CLIENT_SECRET (see .env.example)')
  const { startEmbeddedServer } = await import('./embedded')
  const server = await startEmbeddedServer(config, opts.faults ?? [], opts.variants ?? [], { inProcess: opts.inProcess === true })
  const variants = opts.variants?.length ? ` with variant(s) ${opts.variants.join(', ')}` : ''
  log(`started the embedded reference server at ${server.url}${variants}${opts.faults?.length ? ` with fault(s) ${opts.faults.join(', ')}` : ''}`)
  return {
    baseUrl: server.url,
    closeServer: server.close,
    settleMs: server.variantsOn ? READ_LAG_MS : READ_LAG_MS / 10,
    ...(server.inProcess ? { inProcess: server.inProcess } : {}),
  }
}

/** Each account signed in once (enrolled first where no accounts are configured): its token, user id and device. */
async function signInAccounts(anon: Api, config: Config, runId: string, where: Where, log: (line: string) => void): Promise<Record<AccountKey, RunAccount>> {
  const credentials =
    Object.keys(config.accounts).length === 3
      ? (config.accounts as Record<AccountKey, AccountCredentials>)
      : await enrolAccounts(anon, config, runId, where, log)
  const accounts = {} as Record<AccountKey, RunAccount>
  const refused: { key: AccountKey; userName: string; ex: Exchange }[] = []
  for (const key of ACCOUNT_KEYS) {
    const cred = credentials[key]
    const deviceId = `${NAME_PREFIX}-${runId}-${key.toLowerCase()}`
    // A gateway's 502/503/504 or a dropped connection at the first sign-in is tried again, a few times.
    const ex = await reach(
      () => signInRetrying(() => anon.signIn({ userName: cred.userName, password: cred.password, clientId: config.clientId, deviceId })),
      where,
    )
    if (ex.status === 404 || ex.status === 405) {
      throw new PreflightError(
        `POST ${config.userApiPath}/user/session answered ${ex.status} at ${safeOrigin(where.baseUrl)}, so there is no sign-in there: check USER_API_PATH (and BASE_URL)`,
      )
    }
    if (ex.status >= 500) throw new PreflightError(`sign-in of account ${key} answered ${ex.status} (server error): the target is not ready to be checked`)
    if (!isSuccess(ex)) {
      refused.push({ key, userName: cred.userName, ex })
      continue
    }
    if (ex.json === undefined || ex.json === null || typeof ex.json !== 'object') {
      const what =
        ex.json === undefined
          ? `${ex.jsonError ?? 'not JSON'}; content-type ${ex.headers['content-type'] ?? 'none'}`
          : `JSON ${ex.json === null ? 'null' : typeof ex.json}`
      throw new PreflightError(`the sign-in answer of account ${key} (status ${ex.status}) is not a JSON object (${what}), so no token can be read from it`)
    }
    const body = ex.json as { access_token?: unknown; expires_in?: unknown; user?: { userIdentifier?: unknown } }
    if (typeof body?.access_token !== 'string' || body.access_token === '') {
      throw new PreflightError(`sign-in of account ${key} answered ${ex.status} without an access_token, so no other call can be made`)
    }
    const token = body.access_token
    registerSecret(token)
    const userId = typeof body.user?.userIdentifier === 'string' ? body.user.userIdentifier : await lookUpUserId(anon.withToken(token), cred.userName)
    if (!userId) throw new PreflightError(`account ${key} signed in, but its user id could not be found (no user.userIdentifier, not in GET /user/all)`)
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : null
    accounts[key] = { key, userName: cred.userName, password: cred.password, token, expiresIn, userId, deviceId, enrolled: !config.accounts[key] }
  }
  if (refused.length) throw new PreflightError(refusalSentence(refused, config))
  return accounts
}

/** The message API answers at MESSAGE_API_PATH, to the token account A just got. */
async function proveMessageApi(api: Api, config: Config, where: Where): Promise<void> {
  // Search never answers 404 for "nothing found" ({total: 0, results: []}), so a 404 here is a missing route.
  const probe = await reach(() => api.searchChannels({ size: 1 }), where)
  if (probe.status === 404 || probe.status === 405) {
    throw new PreflightError(
      `GET ${config.messageApiPath}/channels answered ${probe.status} at ${safeOrigin(where.baseUrl)}, so the message API is not there: check MESSAGE_API_PATH`,
    )
  }
  if (probe.status === 401) {
    throw new PreflightError(
      `GET ${config.messageApiPath}/channels refused the token account A just got (401): check that MESSAGE_API_PATH and USER_API_PATH belong to the same service`,
    )
  }
}

/** Leftovers of interrupted runs; never fatal: the run can be made without it. */
async function sweepLeftovers(run: {
  http: HttpClient
  target: Target
  accounts: Record<AccountKey, RunAccount>
  sessions: TokenSessions
  config: Config
  runId: string
  log: (line: string) => void
}): Promise<void> {
  try {
    const swept = await sweep({
      http: run.http,
      target: run.target,
      accounts: run.accounts,
      sessions: run.sessions,
      reportDir: run.config.reportDir,
      minAgeMinutes: run.config.sweepMinAgeMinutes,
      currentRunId: run.runId,
      search: !run.target.embedded,
      maxCandidates: 200,
    })
    if (swept.deleted.length || swept.problems.length) for (const line of formatSweep(swept, false)) run.log(line)
  } catch (err) {
    run.log(`sweep: skipped (${redact((err as Error).message)})`)
  }
}

interface Where {
  displayTarget: string
  baseUrl: string
  network: NetworkSettings
  timeoutMs: number
}

/**
 * A transport fault at preflight, in one sentence that names the setting to look at: a certificate the
 * client does not trust is not a server that is down, a timeout is not a refused connection, and a proxy
 * that refuses the tunnel is neither.
 */
async function reach(call: () => Promise<Exchange>, where: Where): Promise<Exchange> {
  try {
    return await call()
  } catch (err) {
    if (err instanceof TransportError) throw new PreflightError(transportSentence(err, where))
    if (err instanceof RateLimitedError)
      throw new PreflightError(`the target keeps answering 429 (too many requests) before the run could start: ${err.message.replace(/^.*?: /, '')}`)
    throw err
  }
}

export function transportSentence(err: TransportError, where: Where): string {
  const code = err.causeCode ?? 'no answer'
  const proxy = proxyFor(where.baseUrl, where.network)
  const via = proxy ? ` through the proxy ${safeOrigin(proxy)}` : ''
  switch (transportKind(err.causeCode, err.message)) {
    case 'plain-http':
      return `${where.displayTarget} answered the TLS handshake with plain HTTP (${code})${via}: the port serves http://, not https://; write BASE_URL with http:// or point it at the server's TLS port`
    case 'certificate':
      return `the TLS certificate of ${where.displayTarget} is not accepted (${code})${via}: ${describeTls(where.network)}; set CA_FILE to the PEM of the CA that issued the server's certificate, and check that the certificate names the host of BASE_URL and has not expired`
    case 'timeout':
      return `${where.displayTarget} did not answer within ${where.timeoutMs} ms (${code})${via}: check BASE_URL and the network${proxy ? ' and proxy' : ''}, or raise REQUEST_TIMEOUT_MS (preflight waits at most 10000 ms)`
    case 'proxy':
      return `the proxy ${safeOrigin(proxy ?? '')} would not connect to ${where.displayTarget} (${code}): check HTTP_PROXY/HTTPS_PROXY, and NO_PROXY for hosts reached directly`
    default:
      return `cannot reach ${where.displayTarget}: ${code}${via}; check BASE_URL${proxy ? ', HTTP_PROXY/HTTPS_PROXY and NO_PROXY' : ''} and that the server is running`
  }
}

function proxyPassword(url: string | null): string | null {
  if (!url) return null
  try {
    const p = new URL(url).password
    return p ? decodeURIComponent(p) : null
  } catch {
    return null
  }
}

/**
 * One sentence for refused sign-ins. All three refused points at the one thing they share, the client id
 * (the more so when the server's answer names the client); one or two refused point at those accounts.
 */
function refusalSentence(refused: { key: AccountKey; userName: string; ex: Exchange }[], config: Config): string {
  const said = (ex: Exchange) => {
    const body = ex.json as { message?: unknown; error?: unknown; error_description?: unknown } | undefined
    const text = [body?.error_description, body?.message, body?.error].find((v) => typeof v === 'string') as string | undefined
    return `${ex.status}${text ? `: ${text.replace(/\s+/g, ' ').slice(0, 80)}` : ''}`
  }
  if (refused.length === ACCOUNT_KEYS.length) {
    const first = said(refused[0]!.ex)
    if (refused.some((r) => /client/i.test(r.ex.text))) {
      return `the server refuses CLIENT_ID '${config.clientId}' (sign-in answered ${first}): check CLIENT_ID`
    }
    if (refused.every((r) => /user|password/i.test(r.ex.text))) {
      return `no account can sign in (all three answered ${first}): check USER_A_NAME/USER_A_PASSWORD, USER_B_NAME/USER_B_PASSWORD and USER_C_NAME/USER_C_PASSWORD`
    }
    return `no account can sign in (all three answered ${first}): most likely CLIENT_ID '${config.clientId}' is wrong; if it is right, check USER_A_PASSWORD, USER_B_PASSWORD and USER_C_PASSWORD`
  }
  const who = refused.map((r) => `${r.key} ('${r.userName}')`).join(' and ')
  const vars = refused.map((r) => `USER_${r.key}_NAME/USER_${r.key}_PASSWORD`).join(' and ')
  return `account${refused.length > 1 ? 's' : ''} ${who} cannot sign in (${said(refused[0]!.ex)}): check ${vars}`
}

async function lookUpUserId(api: Api, userName: string): Promise<string | null> {
  const ex = await api.listUsers()
  if (!Array.isArray(ex.json)) return null
  const found = (ex.json as { userName?: unknown; userIdentifier?: unknown }[]).find((u) => u?.userName === userName)
  return typeof found?.userIdentifier === 'string' ? found.userIdentifier : null
}

/**
 * No accounts configured: enrol three disposable users through the registration calls that deployments of
 * this API offer (not in the spec; see reference/README.md, Registration). The server has no user deletion in the spec, so these users stay; their names
 * carry the run id so they are recognisable.
 */
async function enrolAccounts(
  anon: Api,
  config: Config,
  runId: string,
  where: Where,
  log: (l: string) => void,
): Promise<Record<AccountKey, AccountCredentials>> {
  const secret = config.clientSecret!
  const basic = Buffer.from(`${config.clientId}:${secret}`).toString('base64')
  registerSecret(basic)
  const appSession = await reach(
    () =>
      anon.send({
        method: 'POST',
        path: `${config.userApiPath}/applications/session`,
        headers: { authorization: `Basic ${basic}`, 'MMS-DEVICE-ID': `${NAME_PREFIX}-${runId}-enrol` },
        token: null,
      }),
    where,
  )
  if (appSession.status === 404 || appSession.status === 405) {
    throw new PreflightError(
      'no test accounts are configured and the server offers no registration: set USER_A_NAME/USER_A_PASSWORD, USER_B_NAME/USER_B_PASSWORD and USER_C_NAME/USER_C_PASSWORD',
    )
  }
  const appToken = (appSession.json as { access_token?: unknown } | undefined)?.access_token
  if (!isSuccess(appSession) || typeof appToken !== 'string') {
    throw new PreflightError(`the application could not sign in for enrolment (status ${appSession.status}): check CLIENT_ID and CLIENT_SECRET`)
  }
  registerSecret(appToken)
  const out = {} as Record<AccountKey, AccountCredentials>
  for (const key of ACCOUNT_KEYS) {
    const userName = `${NAME_PREFIX}-${runId}-${key.toLowerCase()}`
    const password = randomBytes(12).toString('base64url')
    registerSecret(password)
    const ex = await anon.withToken(appToken).send({
      method: 'POST',
      path: `${config.userApiPath}/user/enrollment`,
      json: { userName, password, firstName: `Conformance${key}`, lastName: `Run${runId}`, email: `${userName}@example.invalid` },
    })
    if (!isSuccess(ex)) throw new PreflightError(`enrolment of a disposable user answered ${ex.status}: set the USER_A_…, USER_B_…, USER_C_… accounts instead`)
    out[key] = { userName, password }
  }
  log(`enrolled disposable users ${ACCOUNT_KEYS.map((k) => out[k].userName).join(', ')}`)
  return out
}
