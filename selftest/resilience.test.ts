/**
 * Unit tests of what keeps a run honest on a bad network: which requests are repeated, how an unavailable
 * server or a transport fault becomes `error` rather than `failed`, the verdict of an interrupted run, and
 * the ledger of created channels.
 */
import { bareResult } from './report-fixtures'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestCase } from 'vitest/node'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { HttpClient, TransportError, type Exchange } from '../helpers/http/client'
import { titleWithClause } from '../helpers/spec/clauses'
import { CheckFailure, expectRefused, expectResponse, fail, ServerUnavailable } from '../helpers/kit/expect'
import { Api } from '../helpers/http/api'
import { appendLedger, liveEntries, RunLedger } from '../helpers/http/ledger'
import type { RunContext } from '../helpers/http/run-context'
import type { CheckMeta } from '../helpers/http/recorder'
import { toResults } from '../helpers/runner/reporter'
import { countChecks, judge } from '../helpers/reports/results'

describe('HttpClient retry rules', () => {
  let server: Server
  let base: string
  const hits = new Map<string, number>()
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1)
      if (req.url === '/reset') return void req.socket.destroy()
      if (req.url === '/down') return void res.writeHead(503).end()
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"code":201,"message":"ok"}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  test('repeats a POST whose connection was refused: the server never saw it', async () => {
    const tcp = createTcpServer()
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r))
    const port = (tcp.address() as AddressInfo).port
    await new Promise<void>((r) => tcp.close(() => r()))
    const err = await new HttpClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 2000, retries: 2 })
      .send({ method: 'POST', path: '/x', json: {} })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as TransportError).attempts).toBe(3)
    expect((err as TransportError).causeCode).toBe('ECONNREFUSED')
  })

  test('never repeats a POST whose connection broke after it was sent', async () => {
    const err = await new HttpClient({ baseUrl: base, timeoutMs: 2000 }).send({ method: 'POST', path: '/reset', json: {} }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as TransportError).attempts).toBe(1)
    expect(hits.get('/reset')).toBe(1)
  })

  test('repeats a DELETE marked idempotent on 503, a bounded number of times', async () => {
    const ex = await new HttpClient({ baseUrl: base, timeoutMs: 2000, retries: 2 }).send({ method: 'DELETE', path: '/down', idempotent: true })
    expect(ex.status).toBe(503)
    expect(ex.attempts).toBe(3)
    expect(hits.get('/down')).toBe(3)
  })

  test('names a timeout TimeoutError, not a number', async () => {
    const sockets: Socket[] = []
    const hang = createTcpServer((s) => void sockets.push(s))
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r))
    const port = (hang.address() as AddressInfo).port
    const http = new HttpClient({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 200, retries: 0 })
    const err = await http.send({ method: 'GET', path: '/' }).catch((e: unknown) => e)
    for (const s of sockets) s.destroy()
    await http.close()
    await new Promise<void>((r) => hang.close(() => r()))
    expect(err).toBeInstanceOf(TransportError)
    expect((err as TransportError).causeCode).toMatch(/^(TimeoutError|UND_ERR_HEADERS_TIMEOUT)$/)
  })
})

function exchange(status: number): Exchange {
  return {
    request: { method: 'GET', url: '/message/api/v2/channels/x', headers: {} },
    status,
    headers: {},
    text: '',
    json: undefined,
    jsonError: 'empty body',
    durationMs: 1,
    attempts: 3,
  }
}

describe('a 502/503/504 judges nothing', () => {
  test.each([502, 503, 504])('fail() on a %i is ServerUnavailable, not a CheckFailure', (status) => {
    expect(() => fail('channels.get.shape', 'status: got it, want 200', exchange(status))).toThrow(ServerUnavailable)
    expect(() => expectResponse(exchange(status), { status: 200, clause: 'channels.get.shape' })).toThrow(ServerUnavailable)
  })

  test('a 503 is no refusal', () => {
    expect(() => expectRefused(exchange(503), 'auth.token-required')).toThrow(ServerUnavailable)
  })

  test('other statuses still fail the clause', () => {
    expect(() => expectResponse(exchange(500), { status: 200, clause: 'channels.get.shape' })).toThrow(CheckFailure)
  })
})

/** Enough of a vitest TestCase for toResults. */
function testCase(
  state: 'passed' | 'failed',
  meta: CheckMeta,
  error?: { name: string; message: string; clauseId?: string },
  clauseId = 'channels.get.shape',
): TestCase {
  return {
    name: titleWithClause('answers the channel', clauseId),
    meta: () => ({ clause: clauseId, evidence: meta }),
    result: () => (state === 'passed' ? { state, errors: [] } : { state, errors: [error] }),
    diagnostic: () => ({ duration: 5 }),
  } as unknown as TestCase
}

describe('statuses of checks that met a broken network', () => {
  test('a TransportError in a check or its fixture is an error', () => {
    const [r] = toResults(testCase('failed', {}, { name: 'TransportError', message: 'POST /x: no answer after 1 attempt(s)' }), 'f').checks
    expect(r!.status).toBe('error')
  })

  test('a check that failed after a 503 outlived the retries is an error', () => {
    const [r] = toResults(testCase('failed', { unavailable: 1 }, { name: 'CheckFailure', message: '[x MUST] …' }), 'f').checks
    expect(r!.status).toBe('error')
    expect(r!.message).toMatch(/502\/503\/504/)
  })

  test('a check that passed on a 503 is an error too: it judged nothing', () => {
    const [r] = toResults(
      testCase('passed', { unavailable: 1, findings: [{ clause: 'http.json-content-type', level: 'SHOULD', status: 'failed', message: 'x' }] }),
      'f',
    ).checks
    expect(r!.status).toBe('error')
  })

  test('a check that passed after a retried request is flaky', () => {
    const [r] = toResults(testCase('passed', { retries: 1, requests: 3 }), 'f').checks
    expect(r!.status).toBe('flaky')
  })
})

describe('verdict of an interrupted run', () => {
  const result = bareResult
  test('is incomplete with exit 2, whatever it saw before the stop', () => {
    expect(judge(countChecks([result('MUST', 'passed')]), { strict: false, interrupted: true, errors: 0 })).toEqual({ verdict: 'incomplete', exitCode: 2 })
    expect(judge(countChecks([result('MUST', 'failed')]), { strict: false, interrupted: true, errors: 0 })).toEqual({ verdict: 'incomplete', exitCode: 2 })
  })
})

describe('the ledger', () => {
  test('lists what was created and not yet deleted, skipping a torn last line', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ct-ledger-')), 'r.jsonl')
    const base = { ownerKey: 'A' as const, personal: false, createdAt: new Date().toISOString(), runId: 'abc123', target: 't' }
    appendLedger(path, { ...base, name: 'ct-abc123-1' })
    appendLedger(path, { ...base, name: 'ct-abc123-2', personal: true })
    appendLedger(path, { ...base, name: 'ct-abc123-1', deleted: true })
    appendLedger(path, { ...base, name: 'ct-abc123-2', deleted: true }) // public delete: the private one stays
    writeFileSync(path, '{"name":"ct-abc12', { flag: 'a' })
    expect(liveEntries(path).map((e) => `${e.name}${e.personal ? ' (private)' : ''}`)).toEqual(['ct-abc123-2 (private)'])
  })

  // A check cut short between its create and its own bookkeeping (an interrupt cuts the connection) must not
  // hide the channel: the caller writes it ahead, whichever way the check made it.
  test("holds a caller's create whose answer never came, once, until a delete the server accepted", async () => {
    const server = createServer((req, res) => {
      if (req.method === 'POST') {
        let body = ''
        req.on('data', (d) => (body += d))
        // A name the server refuses (400); any other is made, then the connection cut.
        return void req.on('end', () => (body.includes('refused') ? res.writeHead(400).end() : req.socket.destroy()))
      }
      res.writeHead(req.url?.includes('gone') ? 404 : 200, { 'content-type': 'application/json' }).end('{"code":200,"message":"ok"}')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const http = new HttpClient({ baseUrl, timeoutMs: 2000 })
    try {
      const path = join(mkdtempSync(join(tmpdir(), 'ct-ledger-')), 'r.jsonl')
      const target = { baseUrl, userApiPath: '/u', messageApiPath: '/m', embedded: false }
      const run = { runId: 'abc123', target, accounts: { A: { key: 'A', token: 'token-a' } } } as unknown as RunContext
      const ledger = new RunLedger(path, run)
      const a = new Api(http, target, 'token-a')
      a.channelLog = ledger
      const stranger = new Api(http, target, 'not-a-run-token')
      stranger.channelLog = ledger
      await expect(a.createChannel({ channelName: 'ct-abc123-cut' })).rejects.toThrow()
      await expect(a.createChannel({ channelName: 'ct-abc123-cut' })).rejects.toThrow()
      await expect(stranger.createChannel({ channelName: 'ct-abc123-other' })).rejects.toThrow()
      expect((await a.createChannel({ channelName: 'ct-abc123-refused' })).status).toBe(400)
      expect(liveEntries(path).map((e) => `${e.ownerKey} ${e.name}`)).toEqual(['A ct-abc123-cut'])
      ledger.created('ct-abc123-cut', 'A', false) // the channels fixture's own write: no second line
      expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3) // the refused one: written ahead, then let go
      await a.deleteChannel('ct-abc123-gone') // a refused delete of another name writes nothing
      await a.deleteChannel('ct-abc123-cut', true) // the private one of that name was never made
      expect(liveEntries(path)).toHaveLength(1)
      await a.deleteChannel('ct-abc123-cut')
      ledger.deleted('ct-abc123-cut', 'A', false) // the fixture's cleanup after the check's own delete
      expect(liveEntries(path)).toEqual([])
      expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(4)
    } finally {
      await http.close()
      await new Promise<void>((r) => server.close(() => r()))
    }
  })
})

describe('a failed set-up step blocks the check and is charged to its own clause', () => {
  const stepFailure = { name: 'CheckFailure', message: '[items.publish.response MUST] POST /channels/x/items → 403', clauseId: 'items.publish.response' }

  test("the check is blocked by the step's clause, and the step's failure is an entry of that clause", () => {
    const { checks } = toResults(testCase('failed', {}, stepFailure), 'f')
    expect(checks[0]).toMatchObject({ clause: 'channels.get.shape', status: 'blocked', blockedBy: 'items.publish.response' })
    expect(checks[1]).toMatchObject({ clause: 'items.publish.response', status: 'failed', parent: checks[0]!.id, level: 'MUST' })
    expect(checks[1]!.message).toMatch(/→ 403/)
  })

  test('an INFO check whose step fails is blocked, never failed', () => {
    const { checks } = toResults(testCase('failed', {}, stepFailure, 'items.fetch.defaults'), 'f')
    expect(checks[0]).toMatchObject({ level: 'INFO', status: 'blocked', blockedBy: 'items.publish.response' })
  })

  test("a failure under the check's own clause is a failure; an INFO check failing its own clause is a suite defect", () => {
    const own = { name: 'CheckFailure', message: '[channels.get.shape MUST] …', clauseId: 'channels.get.shape' }
    expect(toResults(testCase('failed', {}, own), 'f').checks[0]!.status).toBe('failed')
    const info = { name: 'CheckFailure', message: '[items.fetch.defaults INFO] …', clauseId: 'items.fetch.defaults' }
    const [r] = toResults(testCase('failed', {}, info, 'items.fetch.defaults'), 'f').checks
    expect(r!.status).toBe('error')
    expect(r!.message).toMatch(/INFO is never judged/)
  })

  test('a step that met a 502/503/504 on the way is an error, not blocked', () => {
    const [r] = toResults(testCase('failed', { unavailable: 1 }, stepFailure), 'f').checks
    expect(r!.status).toBe('error')
    expect(r!.blockedBy).toBeUndefined()
  })
})
