import { cpus } from 'node:os'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { buildServer } from './app'
import { loadSeed } from './seed'

/**
 * A small throughput benchmark of the reference server over loopback: sign-in, get channel, publish.
 * Each runs for a few seconds or a bounded number of requests, whichever ends first, with a fixed number
 * of requests in flight. Run: `npx tsx reference/bench.ts [--seconds 3] [--max 20000] [--concurrency 8]`.
 */

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    max: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '8' },
  },
})
const SECONDS = Number(values.seconds)
const MAX_REQUESTS = Number(values.max)
const CONCURRENCY = Number(values.concurrency)

interface Scenario {
  name: string
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
  expect: number
}

interface Result {
  name: string
  requests: number
  failures: number
  seconds: number
  p50: number
  p99: number
}

async function measure(pool: Pool, s: Scenario, seconds: number, max: number): Promise<Result> {
  const latencies: number[] = []
  let issued = 0
  let failures = 0
  const start = performance.now()
  const deadline = start + seconds * 1000
  const worker = async () => {
    while (issued < max && performance.now() < deadline) {
      issued++
      const t0 = performance.now()
      const res = await pool.request({ method: s.method, path: s.path, headers: s.headers, body: s.body })
      await res.body.dump()
      latencies.push(performance.now() - t0)
      if (res.statusCode !== s.expect) failures++
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const elapsed = (performance.now() - start) / 1000
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0
  return { name: s.name, requests: latencies.length, failures, seconds: elapsed, p50: pct(0.5), p99: pct(0.99) }
}

async function main(): Promise<void> {
  const seed = loadSeed()
  const alice = seed.users[0]!
  const app = buildServer({ seed })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (typeof address !== 'object' || address === null) throw new Error('no address')
  const origin = `http://127.0.0.1:${address.port}`
  const pool = new Pool(origin, { connections: CONCURRENCY })
  const userPath = '/mobile/api/com.vendor.server'
  const messagePath = '/message/api/v2'

  const signInBody = new URLSearchParams({
    grant_type: 'password',
    username: alice.userName,
    password: alice.password,
    client_id: seed.application.clientId,
    scope: 'public',
  }).toString()
  const signIn = await pool.request({
    method: 'POST',
    path: `${userPath}/user/session`,
    headers: { 'mms-device-id': 'bench', 'content-type': 'application/x-www-form-urlencoded' },
    body: signInBody,
  })
  const token = ((await signIn.body.json()) as { access_token: string }).access_token
  const auth = { authorization: `Bearer ${token}` }
  // maxItems bounds the memory the publish run uses; eviction is part of what it measures.
  const created = await pool.request({
    method: 'POST',
    path: `${messagePath}/channels`,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ channelName: 'bench', maxItems: 1000, description: 'benchmark channel' }),
  })
  await created.body.dump()

  const scenarios: Scenario[] = [
    {
      name: 'sign-in (POST /user/session)',
      method: 'POST',
      path: `${userPath}/user/session`,
      headers: { 'mms-device-id': 'bench', 'content-type': 'application/x-www-form-urlencoded' },
      body: signInBody,
      expect: 200,
    },
    { name: 'get channel (GET /channels/bench)', method: 'GET', path: `${messagePath}/channels/bench`, headers: auth, expect: 200 },
    {
      name: 'publish (POST /channels/bench/items)',
      method: 'POST',
      path: `${messagePath}/channels/bench/items`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { text: 'hello from the benchmark', n: 42, tags: ['a', 'b'] } }),
      expect: 201,
    },
  ]

  console.log(`command: npx tsx reference/bench.ts --seconds ${SECONDS} --max ${MAX_REQUESTS} --concurrency ${CONCURRENCY}`)
  console.log(`node ${process.version}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}), loopback ${origin}`)
  for (const s of scenarios) {
    await measure(pool, s, 0.5, 500) // warm-up
    const r = await measure(pool, s, SECONDS, MAX_REQUESTS)
    console.log(
      `${r.name.padEnd(38)} ${(r.requests / r.seconds).toFixed(0).padStart(7)} req/s  ` +
        `${r.requests} requests in ${r.seconds.toFixed(2)} s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms` +
        (r.failures > 0 ? `  FAILURES ${r.failures}` : ''),
    )
  }
  await pool.close()
  await app.close()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
