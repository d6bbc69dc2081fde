/** Unit tests of the suite's helpers: configuration, redaction, the raw client, verdicts. */
import { bareResult } from './report-fixtures'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { HttpClient, TransportError } from '../helpers/http/client'
import { ConfigError, loadConfig } from '../helpers/config/config'
import { redact, registerSecret, sentSecrets } from '../helpers/http/redact'
import { countChecks, judge } from '../helpers/reports/results'
import { eventually } from '../helpers/kit/poll'
import { serverNow } from '../helpers/http/server-clock'
import { aroundNow, WINDOW_MARGIN_MS } from '../helpers/kit/window'

const accounts = {
  USER_A_NAME: 'a',
  USER_A_PASSWORD: 'pa-secret-1',
  USER_B_NAME: 'b',
  USER_B_PASSWORD: 'pb-secret-2',
  USER_C_NAME: 'c',
  USER_C_PASSWORD: 'pc-secret-3',
}

describe('loadConfig', () => {
  test('applies the documented defaults', () => {
    const c = loadConfig({ CLIENT_ID: 'app', ...accounts })
    expect(c).toMatchObject({
      baseUrl: null,
      userApiPath: '/mobile/api/com.vendor.server',
      messageApiPath: '/message/api/v2',
      reportDir: 'reports',
      strict: false,
      seed: null,
      requestTimeoutMs: 15000,
    })
    expect(c.accounts.B).toEqual({ userName: 'b', password: 'pb-secret-2' })
  })

  test('lists every problem in one error', () => {
    let err: unknown
    try {
      loadConfig({ BASE_URL: 'ftp://x', USER_API_PATH: 'no-slash', STRICT: 'yes', SEED: '-1', USER_A_NAME: 'a' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    const problems = (err as ConfigError).problems.join('\n')
    for (const word of ['BASE_URL', 'USER_API_PATH', 'STRICT', 'SEED', 'CLIENT_ID', 'USER_A_NAME and USER_A_PASSWORD']) expect(problems).toContain(word)
  })

  test('accepts no accounts when a client secret allows enrolment', () => {
    expect(loadConfig({ CLIENT_ID: 'app', CLIENT_SECRET: 'shh-secret' }).accounts).toEqual({})
  })

  test('refuses no accounts and no client secret', () => {
    expect(() => loadConfig({ CLIENT_ID: 'app' })).toThrow(/no test accounts/)
  })

  test('strips a trailing slash from BASE_URL', () => {
    expect(loadConfig({ CLIENT_ID: 'app', BASE_URL: 'https://staging.example.test/', ...accounts }).baseUrl).toBe('https://staging.example.test')
  })
})

describe('redact', () => {
  test('masks registered secrets, bearer tokens and secret parameters', () => {
    registerSecret('s3cret-value-123')
    const out = redact('password=hunter22&x=1 Authorization: Bearer abc.def-ghi {"access_token":"tok123456"} saw s3cret-value-123')
    expect(out).not.toContain('hunter22')
    expect(out).not.toContain('abc.def-ghi')
    expect(out).not.toContain('tok123456')
    expect(out).not.toContain('s3cret-value-123')
  })

  test('masks the credentials of a URL, also one that does not parse', () => {
    expect(redact("BASE_URL is not a URL: 'http://bob:hunter22@host:port'")).toBe("BASE_URL is not a URL: 'http://«redacted»@host:port'")
  })

  test("keeps a server's own masked placeholder visible as evidence", () => {
    expect(redact('{"password":"********"}')).toBe('{"password":"********"}')
  })

  test("says how a password sent was made from an account's, with no secret in what it says", () => {
    registerSecret('dana-pass-5150', 'USER_A_PASSWORD')
    const sent = sentSecrets('/u/user/session?username=dana&password=dana-pass-5150', 'username=dana&password=dana-pass-5150-Xy12&x=1')
    expect(sent).toEqual([
      { in: 'url', field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'same' },
      { in: 'body', field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'suffixed', suffix: '-Xy12' },
    ])
    expect(sentSecrets('/x', JSON.stringify({ user: { password: 'dana-pas' } }))).toEqual([
      { in: 'body', field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'prefix', length: 8 },
    ])
    expect(sentSecrets('/x', 'password=%20dana-pass-5150&p=1')).toEqual([
      { in: 'body', field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'prefixed', prefix: ' ' },
    ])
    expect(sentSecrets('/x', 'password=DANA-PASS-5150')).toEqual([{ in: 'body', field: 'password', nth: 1, from: 'USER_A_PASSWORD', how: 'swapcase' }])
    // A value made of nothing named, or a suffix that is itself a secret: nothing to say.
    expect(sentSecrets('/x', 'password=made-up-word')).toEqual([])
    registerSecret('s3cret-value-123')
    expect(sentSecrets('/x', 'password=dana-pass-5150s3cret-value-123')).toEqual([])
    expect(JSON.stringify(sentSecrets('/x?password=dana-pass-5150-Xy12', undefined))).not.toContain('dana-pass-5150')
  })
})

describe('HttpClient', () => {
  let server: Server
  let base: string
  const hits = new Map<string, number>()
  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const key = `${req.method} ${req.url}`
      const n = (hits.get(key) ?? 0) + 1
      hits.set(key, n)
      const path = (req.url ?? '').split('?')[0]
      if (path === '/flaky' && n === 1) return void res.writeHead(503).end()
      if (req.url === '/reset' && n === 1) return void req.socket.destroy()
      if (req.url === '/hang') return
      // A server whose clock is two hours ahead of ours; its GETs come from a cache that stored them a day ago.
      if (path === '/clock') {
        const date = new Date(Date.now() + (req.method === 'GET' ? -86_400_000 : 7_200_000)).toUTCString()
        return void res.writeHead(200, { 'content-type': 'application/json', date }).end('{}')
      }
      if (req.url === '/bad') return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":400,"message":"bad"}')
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  test('returns 4xx responses instead of throwing', async () => {
    const ex = await new HttpClient({ baseUrl: base, timeoutMs: 2000 }).send({ method: 'GET', path: '/bad' })
    expect(ex.status).toBe(400)
    expect(ex.json).toEqual({ code: 400, message: 'bad' })
  })

  test('retries an idempotent call after a 503 and counts the retry', async () => {
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000 })
    const ex = await http.send({ method: 'GET', path: '/flaky' })
    expect(ex.status).toBe(200)
    expect(ex.attempts).toBe(2)
    expect(http.retries).toBe(1)
  })

  test('retries an idempotent call after a connection reset', async () => {
    const ex = await new HttpClient({ baseUrl: base, timeoutMs: 2000 }).send({ method: 'GET', path: '/reset' })
    expect(ex.status).toBe(200)
    expect(ex.attempts).toBe(2)
  })

  test('never repeats a POST', async () => {
    const ex = await new HttpClient({ baseUrl: base, timeoutMs: 2000 }).send({ method: 'POST', path: '/flaky?post', json: {} })
    expect(ex.status).toBe(503)
    expect(hits.get('POST /flaky?post')).toBe(1)
  })

  test('times out a hanging server with a TransportError', async () => {
    const started = Date.now()
    await expect(new HttpClient({ baseUrl: base, timeoutMs: 300, retries: 0 }).send({ method: 'GET', path: '/hang' })).rejects.toBeInstanceOf(TransportError)
    expect(Date.now() - started).toBeLessThan(5000)
  })

  test("reads the server's clock from the Date of answers to calls that change something, not from GETs", async () => {
    const http = new HttpClient({ baseUrl: base, timeoutMs: 2000 })
    await http.send({ method: 'POST', path: '/clock', json: {} })
    await http.send({ method: 'GET', path: '/clock' })
    // Date has whole seconds: the estimate is within a second (and the request's time) of two hours ahead.
    expect(Math.abs(serverNow() - Date.now() - 7_200_000)).toBeLessThan(2000)
    const window = aroundNow()
    expect(Date.parse(window.since!)).toBeGreaterThan(Date.now() + 7_200_000 - WINDOW_MARGIN_MS - 2000)
    expect(Date.parse(window.until!)).toBeLessThan(Date.now() + 7_200_000 + WINDOW_MARGIN_MS + 2000)
    // Back to a server on our clock, for the tests that follow.
    await http.send({ method: 'POST', path: '/ok', json: {} })
    expect(Math.abs(serverNow() - Date.now())).toBeLessThan(2000)
  })

  test('keeps no token in the evidence', async () => {
    const ex = await new HttpClient({ baseUrl: base, timeoutMs: 2000 }).send({ method: 'GET', path: '/ok', token: 'zz-token-value-9' })
    expect(JSON.stringify(ex.request)).not.toContain('zz-token-value-9')
  })
})

describe('judge', () => {
  const result = bareResult
  test('a MUST failure is non-conformant, exit 1', () => {
    expect(judge(countChecks([result('MUST', 'failed'), result('MUST', 'passed')]), { strict: false, interrupted: false, errors: 0 })).toEqual({
      verdict: 'non-conformant',
      exitCode: 1,
    })
  })
  test('a SHOULD failure warns, and fails only under STRICT', () => {
    const counts = countChecks([result('SHOULD', 'failed'), result('MUST', 'passed')])
    expect(judge(counts, { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'conformant-with-warnings', exitCode: 0 })
    expect(judge(counts, { strict: true, interrupted: false, errors: 0 }).exitCode).toBe(1)
  })
  test('an error is never called non-conformance', () => {
    expect(judge(countChecks([result('MUST', 'error'), result('MUST', 'passed')]), { strict: false, interrupted: false, errors: 0 })).toEqual({
      verdict: 'incomplete',
      exitCode: 2,
    })
  })
  test('flaky passes count as passes', () => {
    expect(judge(countChecks([result('MUST', 'flaky')]), { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'conformant', exitCode: 0 })
  })
  test('a known failure (expectations/) is no failure for the exit code, but the verdict names it', () => {
    const counts = countChecks([result('MUST', 'known'), result('MUST', 'passed')])
    expect(counts.MUST.failed).toBe(0)
    expect(judge(counts, { strict: false, interrupted: false, errors: 0 })).toEqual({ verdict: 'known-failures-only', exitCode: 0 })
    expect(judge(countChecks([result('MUST', 'known'), result('MUST', 'failed')]), { strict: false, interrupted: false, errors: 0 })).toEqual({
      verdict: 'non-conformant',
      exitCode: 1,
    })
  })
})

describe('eventually', () => {
  test('polls until the probe is done', async () => {
    let n = 0
    expect(
      await eventually(
        async () => ++n,
        (v) => v >= 3,
        { timeoutMs: 2000, intervalMs: 1 },
      ),
    ).toBe(3)
  })
  test('returns the last value when time runs out', async () => {
    expect(
      await eventually(
        async () => 'never',
        (v) => v === 'done',
        { timeoutMs: 50, intervalMs: 10 },
      ),
    ).toBe('never')
  })
})
