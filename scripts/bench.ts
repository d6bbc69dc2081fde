/**
 * npm run bench [-- --baseline <checkout>] [--only start,fault,whole,explore,proof] — how fast the suite is, where a
 * run's time goes, and how well it hides a slow server's latency. Every figure is measured by running the
 * command a user runs (a process of its own), with its wall time and its CPU time (all its threads):
 *
 * - start: `npm run conformance -- --area <BENCH_AREA>` (tags) against the embedded server: time from the
 *   process's start to the first check (results.json `timing`) and the whole one-area run;
 * - fault: one `--fault <BENCH_FAULT>` run, the cost of proving one fault of the catalogue;
 * - whole: the whole suite against the embedded server, then against a reference server started here behind
 *   the chaos proxy (testing/chaos-proxy.ts) adding 0, 50 and 100 ms to every request: wall, CPU, requests,
 *   the critical path (the longest checks: how much of each was its requests, how much its own waiting and
 *   work; the check that ended last) and the effective concurrency (request time of all checks ÷ the time
 *   from the first check's start to the last one's end: requests in flight on average);
 * - explore: `npm run explore` for EXPLORE_BENCH_S seconds (10) directly and at +50 ms: steps per second;
 * - proof: the fault self-test (selftest/faults.test.ts) proving BENCH_PROOF_FAULTS (default: the first fault of
 *   every area of the catalogue): the wall time of its whole-suite runs as the file prints it, and the CPU of
 *   the whole file (vitest, its worker and every run; also its one comparison run as a child process), each
 *   divided by the number of faults: the cost of one more fault in the catalogue.
 *
 * Cheap figures are the median of BENCH_RUNS (3) runs, whole runs of BENCH_WHOLE_RUNS (1). Absolute times are
 * noisy on a shared machine, so each figure comes with a ratio: with --baseline (another checkout of the
 * project, its node_modules installed), every run is made there too, alternating, and the ratio is this
 * tree's figure ÷ the baseline's; without one, to the run it is best compared with (the one-area run to the
 * whole run, a latency run to the same run at +0 ms).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { CheckResult, RunResults } from '../helpers/reports/results'
import { startChaosProxy, type ChaosProxy } from '../testing/chaos-proxy'
import { exampleEnv, startReference } from '../testing/reference-target'
import { ROOT } from '../testing/run-suite'
import { FAULTS } from '../reference/faults'
import { finish } from './entry'

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3) || 1)
const WHOLE_RUNS = Math.max(1, Number(process.env.BENCH_WHOLE_RUNS ?? 1) || 1)
const AREA = process.env.BENCH_AREA ?? 'tags'
const FAULT = process.env.BENCH_FAULT ?? 'tags-not-stored'
const EXPLORE_S = Math.max(1, Number(process.env.EXPLORE_BENCH_S ?? 10) || 10)
const CPU_HOOK = join(ROOT, 'scripts', 'bench-cpu.mjs')
const PARTS = ['start', 'fault', 'whole', 'explore', 'proof'] as const

interface Measured {
  wallMs: number
  cpuMs: number | null
  code: number | null
  results: RunResults | null
  stdout: string
}

/** Runs `script` of the checkout `root` with Node and tsx, as npm would; its wall and CPU time, results.json and output. */
function runNode(root: string, script: string, args: string[], env: Record<string, string>): Promise<Measured> {
  const reportDir = mkdtempSync(join(tmpdir(), 'ct-bench-'))
  const cpuFile = join(reportDir, 'cpu-ms')
  const started = performance.now()
  // A checkout with scripts/run.mjs runs its scripts compiled, as npm run does there; an older one under tsx.
  const compiled = existsSync(join(root, 'scripts', 'run.mjs'))
  const argv = compiled ? ['scripts/run.mjs', script.replace(/^scripts\/(.*)\.ts$/, '$1'), ...args] : ['--import', 'tsx', script, ...args]
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, argv, {
      cwd: root,
      env: {
        ...process.env,
        ...env,
        REPORT_DIR: reportDir,
        STRICT: 'false',
        SWEEP_MIN_AGE_MINUTES: '60',
        BENCH_CPU_FILE: cpuFile,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${JSON.stringify(CPU_HOOK)}`.trim(),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const wallMs = performance.now() - started
      const path = join(reportDir, 'results.json')
      const results = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RunResults) : null
      const cpuMs = existsSync(cpuFile) ? Number(readFileSync(cpuFile, 'utf8')) : null
      rmSync(reportDir, { recursive: true, force: true })
      done({ wallMs, cpuMs, code, results, stdout })
    })
  })
}

const conformance = (root: string, args: string[], env: Record<string, string>) => runNode(root, 'scripts/conformance.ts', args, env)

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const medianOf = (ms: Measured[], f: (m: Measured) => number | null | undefined): number | null => {
  const v = ms.map(f).filter((x): x is number => typeof x === 'number')
  return v.length ? median(v) : null
}

const s = (ms: number | null): string => (ms === null ? 'n/a' : `${(ms / 1000).toFixed(2)} s`)
const ratio = (x: number | null, y: number | null): string => (x === null || y === null || y === 0 ? 'n/a' : `${(x / y).toFixed(2)}×`)

/** Both trees measured alternately, `n` times each; the current one first. */
async function pairs(n: number, baseline: string | null, run: (root: string) => Promise<Measured>): Promise<{ now: Measured[]; base: Measured[] }> {
  const now: Measured[] = []
  const base: Measured[] = []
  for (let i = 0; i < n; i++) {
    now.push(await run(ROOT))
    if (baseline) base.push(await run(baseline))
  }
  return { now, base }
}

/** One figure line: this tree's median, the baseline's, and their ratio (or the ratio to `other` without a baseline). */
function figure(label: string, now: number | null, base: number | null, other?: { label: string; ms: number | null }): string {
  const cmp = base !== null ? `baseline ${s(base)}, ${ratio(now, base)} baseline` : other ? `${ratio(now, other.ms)} ${other.label}` : ''
  return `${label.padEnd(34)} ${s(now).padStart(9)}${cmp ? `   (${cmp})` : ''}`
}

function verdictOf(ms: Measured[]): string {
  return [...new Set(ms.map((m) => `exit ${m.code} ${m.results?.verdict ?? 'no results'}`))].join(', ')
}

/** The critical path of a run: its longest checks (requests against own waiting and work) and the one that ended last. */
function criticalPath(r: RunResults, top = 4): string[] {
  const ran = r.checks.filter((c) => !c.parent && c.timing)
  if (!ran.length) return ['  (no per-check timing in results.json)']
  const part = (c: CheckResult) => {
    const net = c.timing!.networkMs
    return `${s(c.durationMs)} = requests ${s(Math.min(net, c.durationMs))} (${c.requests}) + own waiting/work ${s(Math.max(0, c.durationMs - net))}`
  }
  const lines = [...ran]
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, top)
    .map((c) => `  longest: ${part(c)}  ${c.id.slice(0, 90)}`)
  const last = [...ran].sort((a, b) => b.timing!.startMs + b.durationMs - (a.timing!.startMs + a.durationMs))[0]!
  lines.push(`  ended last, at ${s(last.timing!.startMs + last.durationMs)} after the run's start: ${part(last)}  ${last.id.slice(0, 70)}`)
  return lines
}

/** Request time of all checks ÷ the time the checks ran: requests in flight on average. */
function concurrency(r: RunResults | null): string {
  const window = r?.timing?.checksMs
  const net = r?.checks.reduce((n, c) => n + (c.timing?.networkMs ?? 0), 0) ?? 0
  return window && net ? (net / window).toFixed(1) : 'n/a'
}

async function benchStart(baseline: string | null): Promise<boolean> {
  process.stdout.write(`\n== start: npm run conformance -- --area ${AREA}, embedded server (median of ${RUNS})\n`)
  const { now, base } = await pairs(RUNS, baseline, (root) => conformance(root, ['--area', AREA], { BASE_URL: 'embedded' }))
  const first = (m: Measured) => m.results?.timing?.firstCheckSinceProcessMs
  process.stdout.write(`${figure('time to first check', medianOf(now, first), baseline ? medianOf(base, first) : null)}\n`)
  process.stdout.write(
    `${figure(
      `one-area run (${AREA}), wall`,
      medianOf(now, (m) => m.wallMs),
      baseline ? medianOf(base, (m) => m.wallMs) : null,
    )}\n`,
  )
  process.stdout.write(
    `${figure(
      `one-area run (${AREA}), CPU`,
      medianOf(now, (m) => m.cpuMs),
      baseline ? medianOf(base, (m) => m.cpuMs) : null,
    )}\n`,
  )
  const checks = now[0]?.results?.checks.filter((c) => !c.parent && c.status !== 'skipped').length ?? 0
  process.stdout.write(`  ${checks} checks run; ${verdictOf(now)}${baseline ? `; baseline ${verdictOf(base)}` : ''}\n`)
  return now.every((m) => m.code === 0)
}

async function benchFault(baseline: string | null): Promise<boolean> {
  process.stdout.write(`\n== fault: npm run conformance -- --fault ${FAULT} (one fault of the self-proof; median of ${WHOLE_RUNS})\n`)
  const { now, base } = await pairs(WHOLE_RUNS, baseline, (root) => conformance(root, ['--fault', FAULT], { BASE_URL: 'embedded' }))
  process.stdout.write(
    `${figure(
      'one --fault run, wall',
      medianOf(now, (m) => m.wallMs),
      baseline ? medianOf(base, (m) => m.wallMs) : null,
    )}\n`,
  )
  process.stdout.write(
    `${figure(
      'one --fault run, CPU',
      medianOf(now, (m) => m.cpuMs),
      baseline ? medianOf(base, (m) => m.cpuMs) : null,
    )}\n`,
  )
  process.stdout.write(`  ${verdictOf(now)}${baseline ? `; baseline ${verdictOf(base)}` : ''} (a fault is caught when the verdict is non-conformant)\n`)
  return now.every((m) => m.code === 1)
}

async function benchWhole(baseline: string | null): Promise<boolean> {
  const cores = availableParallelism()
  process.stdout.write(`\n== whole: the whole suite (median of ${WHOLE_RUNS}); ${cores} cores\n`)
  const ref = await startReference()
  const proxies: ChaosProxy[] = []
  let ok = true
  try {
    const targets: { label: string; env: Record<string, string>; latencyMs: number | null; proxy?: ChaosProxy }[] = [
      { label: 'embedded server', env: { ...exampleEnv(), BASE_URL: 'embedded' }, latencyMs: null },
    ]
    for (const latencyMs of [0, 50, 100]) {
      const proxy = await startChaosProxy({ target: ref.url, latencyMs })
      proxies.push(proxy)
      targets.push({ label: `reference +${latencyMs} ms`, env: { ...ref.env, BASE_URL: proxy.url }, latencyMs, proxy })
    }
    const walls = new Map<number, { now: number | null; base: number | null; requests: number }>()
    for (const t of targets) {
      const before = t.proxy?.stats.requests ?? 0
      const { now, base } = await pairs(WHOLE_RUNS, baseline, (root) => conformance(root, [], t.env))
      const proxied = t.proxy ? (t.proxy.stats.requests - before) / (now.length + base.length) : 0
      const wall = medianOf(now, (m) => m.wallMs)
      const cpu = medianOf(now, (m) => m.cpuMs)
      const baseWall = baseline ? medianOf(base, (m) => m.wallMs) : null
      if (t.latencyMs !== null) walls.set(t.latencyMs, { now: wall, base: baseWall, requests: proxied })
      const zero = walls.get(0)
      const other = t.latencyMs ? { label: 'the +0 ms run', ms: zero?.now ?? null } : undefined
      const r = now[0]?.results ?? null
      process.stdout.write(`${figure(`${t.label}, wall`, wall, baseWall, other)}\n`)
      process.stdout.write(`${figure(`${t.label}, CPU`, cpu, baseline ? medianOf(base, (m) => m.cpuMs) : null)}\n`)
      const checks = r?.checks.filter((c) => !c.parent).length ?? 0
      process.stdout.write(
        `  ${checks} checks, ${r?.http.requests ?? 0} requests of checks${t.proxy ? ` (${Math.round(proxied)} through the proxy, sign-ins and cleanup included)` : ''}; first check at ${s(r?.timing?.firstCheckSinceProcessMs ?? null)}; checks ran ${s(r?.timing?.checksMs ?? null)}; effective concurrency ${concurrency(r)}; ${verdictOf(now)}${baseline ? `; baseline ${verdictOf(base)}` : ''}\n`,
      )
      if (t.latencyMs === null && wall !== null && cpu !== null)
        process.stdout.write(`  goal: wall ≤ CPU ÷ ${cores} cores + 1 s = ${s(cpu / cores + 1000)}: ${wall <= cpu / cores + 1000 ? 'met' : 'not met'}\n`)
      if (t.latencyMs && zero?.now && wall !== null) {
        const extraS = (wall - zero.now) / 1000
        const hidden = extraS > 0 ? ((proxied * t.latencyMs) / 1000 / extraS).toFixed(1) : 'all'
        process.stdout.write(
          `  latency hidden: ${Math.round(proxied)} requests × ${t.latencyMs / 1000} s ÷ ${extraS.toFixed(2)} s extra wall time = ${hidden}\n`,
        )
      }
      if (r && t.latencyMs === 100) {
        const chain = Math.max(...r.checks.filter((c) => !c.parent).map((c) => c.requests))
        const goal = 1.5 * (chain + 5) * 100 + 1000
        process.stdout.write(
          `  goal: wall ≤ 1.5 × (longest chain, at most ${chain} requests of one check + 5 of the preflight) × 0.1 s + 1 s = ${s(goal)}: ${wall !== null && wall <= goal ? 'met' : 'not met'}\n`,
        )
      }
      if (r) for (const line of criticalPath(r)) process.stdout.write(`${line}\n`)
      ok &&= now.every((m) => m.code === 0)
    }
  } finally {
    for (const p of proxies) await p.close()
    await ref.close()
  }
  return ok
}

/** npm run explore for EXPLORE_BENCH_S seconds directly and at +50 ms: steps per second, from its closing line. */
async function benchExplore(baseline: string | null): Promise<boolean> {
  process.stdout.write(`\n== explore: npm run explore for ${EXPLORE_S} s, seed 1, directly and with 50 ms added per request\n`)
  const ref = await startReference()
  const proxy = await startChaosProxy({ target: ref.url, latencyMs: 50 })
  let ok = true
  try {
    for (const [label, url] of [
      ['explore direct', ref.url],
      ['explore +50 ms', proxy.url],
    ] as const) {
      const env = { ...ref.env, BASE_URL: url, SEED: '1', EXPLORE_BUDGET_S: String(EXPLORE_S), EXPLORE_POLL_MS: '150' }
      const { now, base } = await pairs(1, baseline, (root) => runNode(root, 'scripts/explore.ts', [], env))
      const rate = (m: Measured) => {
        const hit = /(\d+) steps, (\d+) requests in ([\d.]+) s \(([\d.]+) steps\/s; (\d+) lane/.exec(m.stdout)
        return hit ? { steps: Number(hit[1]), requests: Number(hit[2]), perS: Number(hit[4]), lanes: Number(hit[5]) } : null
      }
      const n = rate(now[0]!)
      const b = base[0] ? rate(base[0]) : null
      process.stdout.write(
        `${label.padEnd(34)} ${n ? `${n.perS.toFixed(1)} steps/s (${n.steps} steps, ${n.requests} requests, ${n.lanes} lanes)` : 'no closing line'}, CPU ${s(now[0]!.cpuMs)}, exit ${now[0]!.code}${b ? `   (baseline ${b.perS.toFixed(1)} steps/s, ${n ? (n.perS / b.perS).toFixed(2) : 'n/a'}× baseline)` : ''}\n`,
      )
      ok &&= now[0]!.code === 0
    }
  } finally {
    await proxy.close()
    await ref.close()
  }
  return ok
}

/** The faults the proof part proves: BENCH_PROOF_FAULTS (comma-separated), else the first fault of every area. */
function proofFaults(): string[] {
  const named = (process.env.BENCH_PROOF_FAULTS ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
  if (named.length) return named
  return [...new Set(FAULTS.map((f) => f.area))].map((a) => FAULTS.find((f) => f.area === a)!.name)
}

/**
 * The fault self-test of checkout `root` on `faults`, under bash so that `times` gives the CPU of every process
 * it started (reaped children and theirs). Wall of the runs: the file's own closing line, "faults caught: … (N s".
 */
function proveFaults(root: string, faults: string[]): Promise<{ wallMs: number; runsMs: number | null; cpuMs: number | null; caught: string }> {
  const vitest = JSON.stringify(join(root, 'node_modules', 'vitest', 'vitest.mjs'))
  const script = `${JSON.stringify(process.execPath)} ${vitest} run --config vitest.selftest.config.ts selftest/faults.test.ts >"$OUT" 2>&1; code=$?; times; exit $code`
  const dir = mkdtempSync(join(tmpdir(), 'ct-bench-proof-'))
  const out = join(dir, 'out.txt')
  const started = performance.now()
  return new Promise((done, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd: root,
      env: { ...process.env, SELFTEST_FAULTS: faults.join(','), OUT: out, CI: '', BASE_URL: '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let times = ''
    child.stdout.on('data', (chunk: Buffer) => (times += chunk.toString()))
    child.on('error', reject)
    child.on('close', () => {
      const wallMs = performance.now() - started
      const text = existsSync(out) ? readFileSync(out, 'utf8') : ''
      rmSync(dir, { recursive: true, force: true })
      const line = /faults caught: (\d+\/\d+)[^(]*(?:\([^)]*\) )?\((\d+) s/.exec(text)
      // `times`: the shell's own user and system time, then its children's: "1m2.345s 0m3.210s".
      const seconds = [...(times.trim().split('\n')[1] ?? '').matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]))
      done({
        wallMs,
        runsMs: line ? Number(line[2]) * 1000 : null,
        cpuMs: seconds.length === 2 ? (seconds[0]! + seconds[1]!) * 1000 : null,
        caught: line ? line[1]! : 'no closing line',
      })
    })
  })
}

async function benchProof(baseline: string | null): Promise<boolean> {
  const faults = proofFaults()
  process.stdout.write(`\n== proof: the fault self-test on ${faults.length} faults (${faults.join(', ')})\n`)
  const now = await proveFaults(ROOT, faults)
  const base = baseline ? await proveFaults(baseline, faults) : null
  const per = (ms: number | null) => (ms === null ? null : ms / faults.length)
  process.stdout.write(`${figure('per fault, wall of its runs', per(now.runsMs), base ? per(base.runsMs) : null)}\n`)
  process.stdout.write(`${figure('per fault, CPU (whole file)', per(now.cpuMs), base ? per(base.cpuMs) : null)}\n`)
  process.stdout.write(`${figure('whole file, wall', now.wallMs, base ? base.wallMs : null)}\n`)
  process.stdout.write(`  caught ${now.caught}${base ? `; baseline ${base.caught}` : ''}\n`)
  return now.caught === `${faults.length}/${faults.length}`
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { baseline: { type: 'string' }, only: { type: 'string' }, 'explore-only': { type: 'boolean' } } })
  const baselineArg = values.baseline ?? process.env.BENCH_BASELINE ?? null
  const baseline = baselineArg ? resolve(baselineArg) : null
  if (baseline && !existsSync(join(baseline, 'scripts', 'conformance.ts'))) {
    process.stderr.write(`bench: --baseline ${baselineArg} is not a checkout of this project (no scripts/conformance.ts there)\n`)
    return 2
  }
  const only = values['explore-only'] ? ['explore'] : (values.only?.split(',') ?? [...PARTS])
  const unknown = only.filter((p) => !(PARTS as readonly string[]).includes(p))
  if (unknown.length) {
    process.stderr.write(`bench: --only takes ${PARTS.join(', ')}; got ${unknown.join(', ')}\n`)
    return 2
  }
  process.stdout.write(
    `bench: ${ROOT}${baseline ? ` against the baseline ${baseline}` : ''}; wall and CPU time of each run (CPU: every thread of the process)\n`,
  )
  let ok = true
  if (only.includes('start')) ok = (await benchStart(baseline)) && ok
  if (only.includes('fault')) ok = (await benchFault(baseline)) && ok
  if (only.includes('whole')) ok = (await benchWhole(baseline)) && ok
  if (only.includes('explore')) ok = (await benchExplore(baseline)) && ok
  if (only.includes('proof')) ok = (await benchProof(baseline)) && ok
  return ok ? 0 : 1
}

finish('bench', main())
