/**
 * openapi.json and docs/clauses.md: fresh (what `npm run openapi` writes now), lint-clean with
 * @redocly/cli, served by the reference server, and tied to the suite: the endpoint table agrees with
 * helpers/http/api.ts, every clause is judged on some operation, and every operation is exercised by at
 * least one check of a clean run (read from the run's per-check exchanges in allure-results).
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { Api } from '../helpers/http/api'
import type { HttpClient, RequestSpec } from '../helpers/http/client'
import { CLAUSES } from '../helpers/spec/clauses'
import { DEFAULT_BASE_PATHS, ENDPOINTS, endpointOf, type Endpoint } from '../helpers/spec/endpoints'
import { openApiText } from '../helpers/spec/openapi'
import { scanChecks } from '../helpers/reports/traceability'
import { buildServer } from '../reference/app'
import { generatedFiles } from '../scripts/openapi'
import { ROOT, runSuite, type SuiteRun } from '../testing/run-suite'

const key = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method} ${e.path}`

describe('generated files', () => {
  for (const [path, text] of Object.entries(generatedFiles())) {
    test(`${path} is what npm run openapi writes now`, () => {
      const committed = existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : '(missing)'
      // A plain boolean first: a 100 kB diff helps nobody; the message says what to do.
      expect(committed === text, `${path} is stale: run npm run openapi and commit the result`).toBe(true)
    })
  }
})

describe('the checks docs/clauses.md lists', () => {
  test('are every check() call of the suites: none is missed for its formatting', () => {
    const dir = join(ROOT, 'suites')
    const calls = readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts'))
      .reduce((n, f) => n + [...readFileSync(join(dir, f), 'utf8').matchAll(/\bcheck\(/g)].length, 0)
    expect(scanChecks(ROOT)).toHaveLength(calls)
  })
})

describe('lint of the description with @redocly/cli (redocly.yaml: recommended)', () => {
  const lint = (file: string) => {
    const res = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`],
      {
        cwd: ROOT,
        encoding: 'utf8',
        // Offline and quiet: no telemetry, no update check.
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        timeout: 60_000,
      },
    )
    const report = JSON.parse(res.stdout || '{}') as { totals?: { errors: number; warnings: number }; problems?: { ruleId: string; message: string }[] }
    return { code: res.status, report, stderr: res.stderr }
  }

  test('openapi.json has no error and no warning', () => {
    const { code, report, stderr } = lint(join(ROOT, 'openapi.json'))
    expect(
      report.problems?.map((p) => `${p.ruleId}: ${p.message}`),
      stderr,
    ).toEqual([])
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 })
    expect(code).toBe(0)
  })

  test('the flat variant (npm run openapi -- --flat) lints clean too', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ct-openapi-')), 'flat.json')
    writeFileSync(file, openApiText({ flat: true, bases: { user: '/u', message: '/m/v2' } }))
    const { report, stderr } = lint(file)
    expect(
      report.problems?.map((p) => `${p.ruleId}: ${p.message}`),
      stderr,
    ).toEqual([])
  })
})

describe('the endpoint table', () => {
  test('holds the 23 endpoints of §4, each method and path once, with unique operation ids', () => {
    expect(ENDPOINTS).toHaveLength(23)
    expect(new Set(ENDPOINTS.map(key)).size).toBe(23)
    expect(new Set(ENDPOINTS.map((e) => e.operationId)).size).toBe(23)
    expect(ENDPOINTS.filter((e) => !e.bearer).map(key)).toEqual(['POST /user/session'])
  })

  test('declares every path parameter of each template, and no other', () => {
    for (const e of ENDPOINTS) {
      const inTemplate = [...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
      expect(
        e.params.filter((p) => p.in === 'path').map((p) => p.name),
        key(e),
      ).toEqual(inTemplate)
    }
  })

  test('judges every clause of the registry on at least one operation', () => {
    const tied = new Set(ENDPOINTS.flatMap((e) => e.clauses))
    expect(CLAUSES.filter((c) => !tied.has(c.id as never)).map((c) => c.id)).toEqual([])
    for (const e of ENDPOINTS) expect(new Set(e.clauses).size, `${key(e)}: a clause listed twice`).toBe(e.clauses.length)
  })

  test('agrees with helpers/http/api.ts: every method of Api calls the endpoint of its name', async () => {
    const sent: RequestSpec[] = []
    const http = { send: async (spec: RequestSpec) => (sent.push(spec), { request: { headers: {} } }) } as unknown as HttpClient
    const bases = { user: '/u/p', message: '/m/v2' }
    const api = new Api(http, { baseUrl: 'http://127.0.0.1:1', userApiPath: bases.user, messageApiPath: bases.message, embedded: false }, 't')
    const calls: [string, () => Promise<unknown>][] = [
      ['signIn', () => api.signIn({ userName: 'u', password: 'p', clientId: 'c' })],
      ['signIn', () => api.signIn({ userName: 'u', password: 'p', clientId: 'c', via: 'query' })],
      ['listUsers', () => api.listUsers()],
      ['searchUsers', () => api.searchUsers('userName:u')],
      ['createChannel', () => api.createChannel({ channelName: 'c' })],
      ['searchChannels', () => api.searchChannels({ tag: ['a', 'b'] })],
      ['getChannel', () => api.getChannel('u-1#c')],
      ['channelSummary', () => api.summary('c')],
      ['deleteChannel', () => api.deleteChannel('c', true)],
      ['subscribe', () => api.subscribe('c')],
      ['unsubscribe', () => api.unsubscribe('c')],
      ['listSubscribers', () => api.subscriptions('c')],
      ['addTags', () => api.addTags('c', ['t'])],
      ['getTags', () => api.getTags('c')],
      ['deleteTag', () => api.deleteTag('c', 't/x')],
      ['deleteTags', () => api.deleteTags('c')],
      ['publishItem', () => api.publish('c', { content: { k: 'v' } })],
      ['getItems', () => api.getItems('c', ['1', '2'])],
      ['fetchItems', () => api.fetchItems('c', { sort_order: 'ASC' })],
      ['deleteItems', () => api.deleteItems('c', ['1'])],
      ['deleteAllItems', () => api.deleteAllItems('c')],
      ['sendToUserIds', () => api.sendToUserIds({ receipt: false, recipientUserIds: ['u'], content: {} })],
      ['deliveryStatus', () => api.deliveryStatus('m-1')],
      ['pushToUser', () => api.pushToUser('u-1', { action: 'PUSH', name: 'n', payload: {} })],
    ]
    const seen = new Set<string>()
    for (const [operationId, call] of calls) {
      sent.length = 0
      await call()
      expect(sent, operationId).toHaveLength(1)
      const { method, path } = sent[0]!
      expect(endpointOf(method, path, bases)?.operationId, `${method} ${path}`).toBe(operationId)
      seen.add(operationId)
    }
    expect([...seen].sort()).toEqual(ENDPOINTS.map((e) => e.operationId).sort())
  })

  test('matches literal segments before parameters', () => {
    expect(endpointOf('POST', '/message/api/v2/messages/send_to_user_ids')?.operationId).toBe('sendToUserIds')
    expect(endpointOf('GET', '/message/api/v2/messages/send_to_user_ids')?.operationId).toBe('deliveryStatus')
    expect(endpointOf('DELETE', '/message/api/v2/channels/c/items/all')?.operationId).toBe('deleteAllItems')
    expect(endpointOf('GET', '/message/api/v2/channels/c/items/fetch')?.operationId).toBe('fetchItems')
    expect(endpointOf('GET', '/message/api/v2/channels/c/items/x/y')).toBeUndefined()
    expect(endpointOf('GET', '/elsewhere/user/all')).toBeUndefined()
  })
})

describe('the reference server', () => {
  test('serves openapi.json at GET /openapi.json without a token, with its own API paths as defaults', async () => {
    const app = buildServer({ userApiPath: '/u', messageApiPath: '/m/v9' })
    try {
      const res = await app.inject({ method: 'GET', url: '/openapi.json', headers: { host: '127.0.0.1:9' } })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      const served = res.json() as { paths: unknown; servers: { variables: Record<string, { default: string }> }[] }
      const file = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as { paths: unknown }
      expect(Object.keys(served.paths as object)).toEqual(Object.keys(file.paths as object))
      expect(served.servers[0]!.variables).toMatchObject({ origin: { default: 'http://127.0.0.1:9' }, messageApiPath: { default: '/m/v9' } })
      expect(JSON.stringify(served)).toContain('"default":"/u"')
    } finally {
      await app.close()
    }
  })
})

// ── every operation exercised by a check of a clean run ────────────────────────────────────────────────

const EXCHANGE_STEP = /^(GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) (\S+) → \d{3}\b/

interface AllureResult {
  name: string
  labels: { name: string; value: string }[]
  steps?: { name: string; steps?: AllureResult['steps'] }[]
}

/** The exchanges of each check, from allure-results (one file per check, a step per HTTP exchange). */
function exchangesByCheck(reportDir: string): Map<string, { clause: string; requests: { method: string; path: string }[] }> {
  const dir = join(reportDir, 'allure-results')
  const out = new Map<string, { clause: string; requests: { method: string; path: string }[] }>()
  for (const file of readdirSync(dir).filter((f) => f.endsWith('-result.json'))) {
    const r = JSON.parse(readFileSync(join(dir, file), 'utf8')) as AllureResult
    const clause = r.labels.find((l) => l.name === 'clause')?.value ?? ''
    const requests: { method: string; path: string }[] = []
    const walk = (steps: AllureResult['steps']) => {
      for (const s of steps ?? []) {
        const m = EXCHANGE_STEP.exec(s.name)
        if (m) requests.push({ method: m[1]!, path: new URL(m[2]!, 'http://x').pathname })
        walk(s.steps)
      }
    }
    walk(r.steps)
    out.set(`${file}: ${r.name}`, { clause, requests })
  }
  return out
}

describe('every operation of openapi.json is exercised by a check of a clean run', () => {
  let run: SuiteRun
  let byCheck: ReturnType<typeof exchangesByCheck>

  beforeAll(async () => {
    run = await runSuite()
    byCheck = exchangesByCheck(run.reportDir)
  }, 300_000)

  test('the clean run is conformant and recorded its exchanges', () => {
    expect(run.results?.verdict, run.stdout).toBe('conformant')
    expect([...byCheck.values()].some((c) => c.requests.length > 0)).toBe(true)
  })

  test('docs/clauses.md gives a check to exactly the clauses the run judged with checks of their own', () => {
    const judged = new Set(run.results!.checks.filter((c) => !c.parent).map((c) => c.clause))
    const listed = new Set(scanChecks(ROOT).map((k) => k.clause))
    expect([...judged].filter((c) => !listed.has(c))).toEqual([])
    expect([...listed].filter((c) => !judged.has(c))).toEqual([])
  })

  test('every path and method is requested by at least one check, and a check judging one of its clauses requests it', () => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, { operationId: string; 'x-clauses': string[] }>>
    }
    const requested = new Map<string, Set<string>>()
    const judged = new Set<string>()
    for (const { clause, requests } of byCheck.values()) {
      for (const { method, path } of requests) {
        const e = endpointOf(method, path, DEFAULT_BASE_PATHS)
        if (!e) continue
        requested.set(e.operationId, (requested.get(e.operationId) ?? new Set()).add(clause))
        if (e.clauses.includes(clause as never)) judged.add(e.operationId)
      }
    }
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([m]) => m !== 'servers')
        .map(([m, op]) => ({ at: `${m.toUpperCase()} ${path}`, id: op.operationId })),
    )
    expect(operations).toHaveLength(ENDPOINTS.length)
    expect(operations.filter((o) => !requested.has(o.id)).map((o) => o.at)).toEqual([])
    expect(operations.filter((o) => !judged.has(o.id)).map((o) => o.at)).toEqual([])
  })
})
