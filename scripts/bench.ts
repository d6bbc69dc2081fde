/**
 * npm run bench — how fast the suite is, and how well it hides a slow server's latency.
 *
 * Runs the whole suite twice against the reference server started here on 127.0.0.1: directly, then
 * through the chaos proxy (selftest/chaos-proxy.ts) adding LATENCY_MS to every request, no faults. Prints,
 * for each run, the number of checks, of HTTP requests and the wall time, and the effective concurrency:
 * requests × latency ÷ (extra wall time) — how many requests were in flight on average while waiting.
 * Each is run BENCH_RUNS times (default 2), alternating, and the fastest counts: a busy machine only adds time.
 * Then `npm run explore` for EXPLORE_BENCH_S seconds (default 10) directly and through the proxy: steps per second,
 * with its default lanes (sequences at once). `npm run bench -- --explore-only` measures only that.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../helpers/config/config'
import { explore } from '../helpers/explore/run'
import type { RunResults } from '../helpers/reports/results'
import { startChaosProxy } from '../selftest/chaos-proxy'
import { startReference } from '../selftest/reference-target'
import { ROOT } from '../selftest/run-suite'
import { finish } from './entry'

const LATENCY_MS = 50
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 2) || 1)

interface Measured {
  wallMs: number
  code: number | null
  results: RunResults | null
}

function runCli(env: Record<string, string>): Promise<Measured> {
  const reportDir = mkdtempSync(join(tmpdir(), 'ct-bench-'))
  const started = performance.now()
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/conformance.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env, REPORT_DIR: reportDir, STRICT: 'false', SWEEP_MIN_AGE_MINUTES: '60' },
      stdio: ['ignore', 'ignore', 'inherit'],
    })
    child.on('error', reject)
    child.on('close', (code) => {
      const wallMs = performance.now() - started
      const path = join(reportDir, 'results.json')
      const results = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RunResults) : null
      rmSync(reportDir, { recursive: true, force: true })
      done({ wallMs, code, results })
    })
  })
}

function line(label: string, m: Measured, requests: number): string {
  const checks = m.results?.checks.filter((c) => !c.parent).length ?? 0
  return `${label.padEnd(24)} ${String(checks).padStart(4)} checks  ${String(requests).padStart(5)} requests  wall ${(m.wallMs / 1000).toFixed(2)} s  (exit ${m.code}, ${m.results?.verdict ?? 'no results'})`
}

async function main(): Promise<number> {
  const ref = await startReference()
  const proxy = await startChaosProxy({ target: ref.url, latencyMs: LATENCY_MS })
  const exploreOnly = process.argv.includes('--explore-only')
  try {
    if (exploreOnly) return (await benchExplore(ref.env, ref.url, proxy.url)) ? 0 : 1
    process.stdout.write(`bench: the suite against the reference server, directly and with ${LATENCY_MS} ms added per request (fastest of ${RUNS})\n`)
    let direct: Measured | undefined
    let slow: Measured | undefined
    let proxied = 0
    for (let i = 0; i < RUNS; i++) {
      const d = await runCli(ref.env)
      if (!direct || d.wallMs < direct.wallMs) direct = d
      const before = proxy.stats.requests
      const s = await runCli({ ...ref.env, BASE_URL: proxy.url })
      proxied = proxy.stats.requests - before
      if (!slow || s.wallMs < slow.wallMs) slow = s
    }
    if (!direct || !slow) throw new Error('no run was made')
    const extraS = (slow.wallMs - direct.wallMs) / 1000
    const effective = extraS > 0 ? (proxied * LATENCY_MS) / 1000 / extraS : Infinity
    process.stdout.write(`${line('direct', direct, direct.results?.http.requests ?? 0)}\n`)
    process.stdout.write(`${line(`+${LATENCY_MS} ms per request`, slow, proxied)}\n`)
    process.stdout.write(
      `effective concurrency: ${proxied} requests × ${LATENCY_MS / 1000} s ÷ ${extraS.toFixed(2)} s extra wall time = ${effective.toFixed(1)}\n`,
    )
    process.stdout.write(`(requests: the run's own count directly; every request through the proxy, sign-ins and cleanup included, with latency)\n`)
    const exploreOk = await benchExplore(ref.env, ref.url, proxy.url)
    return direct.code === 0 && slow.code === 0 && exploreOk ? 0 : 1
  } finally {
    await proxy.close()
    await ref.close()
  }
}

/** npm run explore for EXPLORE_BENCH_S seconds each way, its lanes running sequences at once; true when both found nothing. */
async function benchExplore(env: Record<string, string>, direct: string, proxied: string): Promise<boolean> {
  const exploreS = Math.max(1, Number(process.env.EXPLORE_BENCH_S ?? 10) || 10)
  let ok = true
  for (const [label, url] of [
    ['explore direct', direct],
    [`explore +${LATENCY_MS} ms`, proxied],
  ] as const) {
    const reportDir = mkdtempSync(join(tmpdir(), 'ct-bench-'))
    const out = await explore({ config: loadConfig({ ...env, BASE_URL: url, REPORT_DIR: reportDir, SEED: '1' }), budgetS: exploreS, pollMs: 150 })
    rmSync(reportDir, { recursive: true, force: true })
    ok &&= out.exitCode === 0
    process.stdout.write(
      `${label.padEnd(24)} ${out.steps} steps, ${out.requests} requests in ${exploreS} s: ${out.opsPerSecond.toFixed(1)} steps/s, ${(out.requests / exploreS).toFixed(0)} requests/s, ${out.lanes} lanes (exit ${out.exitCode})\n`,
    )
  }
  return ok
}

finish('bench', main())
