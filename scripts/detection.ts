/**
 * npm run detection [-- --seeds 1,2,3] [--jobs 2] [--fault <name>]... [--out reports/detection.md]
 *
 * The detection table of the deep fault catalogue (reference/faults, DEEP_FAULTS): for every deep fault, does
 * the fixed run (`npm run conformance -- --fault X`) fail one of the fault's clauses, and does explore
 * (`npm run explore -- --fault X`, the default budget EXPLORE_BUDGET_S or 60 s, SEED = each seed) find it?
 * Explore stops at its first confirmed finding, so a caught fault costs seconds, a missed one the whole budget.
 * Each run is a child process exactly as a user starts it, against the embedded reference server with that
 * one fault; at most --jobs of them at once (default 2: the runs are CPU-heavy; start this under `nice`).
 *
 * Writes the table as Markdown (--out, rewritten after every run so a long run shows its progress) and the
 * raw rows next to it as JSON, then prints one summary line. Exit codes: 0 every deep fault caught by one
 * of the two on every seed, 1 some fault missed by both on some seed, 2 the table could not be made.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { clausesOf, DEEP_FAULTS, type CatalogFault } from '../reference/faults'
import { finish } from './entry'

const ROOT = resolve(import.meta.dirname, '..')
const USAGE = `usage: npm run detection -- [--seeds 1,2,3] [--jobs 2] [--fault <name>]... [--out reports/detection.md] [--from <rows.json>]
  --seeds  base seeds of the explore runs (SEED of each run), comma-separated (default 1,2,3)
  --jobs   runs side by side (default 2)
  --fault  only these deep faults (repeatable; default every one of DEEP_FAULTS)
  --out    the Markdown table (default reports/detection.md; the rows go to the same name with .json)
  --from   run nothing: write the table again from the rows of an earlier run (its .json)
The explore budget is EXPLORE_BUDGET_S (default 60 s), as for npm run explore.`

interface FixedCell {
  caught: boolean
  clauses: string[]
  seconds: number
  code: number | null
}
/**
 * caught: a confirmed MUST finding (the clean server gives none, so the fault made it); onClause: it names one
 * of the fault's clauses or declared consequences, rather than another clause the same deviation breaks.
 */
interface ExploreCell {
  seed: number
  code: number | null
  caught: boolean
  onClause: boolean
  clause: string | null
  steps: number | null
  seconds: number | null
  unconfirmed: number
  note?: string
}
interface Row {
  fault: string
  area: string
  clauses: string[]
  description: string
  fixed: FixedCell | null
  explore: (ExploreCell | null)[]
}

function usageError(message: string): never {
  process.stderr.write(`detection: ${message}\n${USAGE}\n`)
  process.exit(2)
}

/** One child run as `npm run <script>` starts it, in its own report directory; its results.json or null. */
function child(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; results: Record<string, any> | null; stderr: string; seconds: number }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'ct-detect-'))
  const started = Date.now()
  return new Promise((done) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT,
      env: { ...process.env, BASE_URL: 'embedded', REPORT_DIR: reportDir, STRICT: 'false', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    proc.stderr.on('data', (d: Buffer) => (stderr = (stderr + d).slice(-4000)))
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
    proc.on('close', (code) => {
      clearTimeout(timer)
      const path = join(reportDir, 'results.json')
      let results = null
      try {
        if (existsSync(path)) results = JSON.parse(readFileSync(path, 'utf8'))
      } catch {
        // An unreadable results.json is no result: the cell says so.
      }
      rmSync(reportDir, { recursive: true, force: true })
      done({ code, results, stderr, seconds: (Date.now() - started) / 1000 })
    })
  })
}

/** The clauses a finding may name and still be this fault: its own and its declared consequences. */
const allowed = (f: CatalogFault) => new Set([...clausesOf(f), ...(f.consequences ?? []).map((c) => c.clause)])

async function fixedRun(f: CatalogFault): Promise<FixedCell> {
  const run = await child('scripts/conformance.ts', ['--fault', f.name], {}, 600_000)
  const own = new Set(clausesOf(f))
  const failed = [...new Set(((run.results?.checks ?? []) as { status: string; clause: string }[]).filter((c) => c.status === 'failed').map((c) => c.clause))]
  return { caught: failed.some((c) => own.has(c)), clauses: failed.filter((c) => own.has(c)), seconds: Math.round(run.seconds), code: run.code }
}

async function exploreRun(f: CatalogFault, seed: number): Promise<ExploreCell> {
  const budget = Number(process.env.EXPLORE_BUDGET_S) || 60
  const run = await child('scripts/explore.ts', ['--fault', f.name], { SEED: String(seed) }, Math.max(900_000, budget * 10_000))
  const ex = run.results?.explore as { seconds: number; findings: { clause: string; stepCount: number }[]; unconfirmed: unknown[] } | undefined
  if (!ex)
    return {
      seed,
      code: run.code,
      caught: false,
      onClause: false,
      clause: null,
      steps: null,
      seconds: null,
      unconfirmed: 0,
      note: `no results (exit ${run.code}): ${run.stderr.trim().split('\n').pop() ?? ''}`,
    }
  const first = ex.findings[0]
  return {
    seed,
    code: run.code,
    caught: run.code === 1 && !!first,
    onClause: run.code === 1 && !!first && allowed(f).has(first.clause),
    clause: first?.clause ?? null,
    steps: first?.stepCount ?? null,
    seconds: first ? ex.seconds : null,
    unconfirmed: ex.unconfirmed.length,
  }
}

function cellOf(e: ExploreCell | null): string {
  if (!e) return '…'
  if (e.note) return `error: ${e.note.replace(/\|/g, '/')}`
  if (!e.clause) return `—${e.unconfirmed ? ` (${e.unconfirmed} unconfirmed)` : ''}`
  return `✓${e.onClause ? '' : ` as ${e.clause}`} ${e.seconds} s, ${e.steps} steps`
}

function markdown(rows: Row[], seeds: number[], budget: number, startedAt: Date, summary: string): string {
  const lines = [
    '# Detection table of the deep faults',
    '',
    `Made by \`npm run detection\` on ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC: explore budget ${budget} s, explore seeds ${seeds.join(', ')}.`,
    "Fixed: the conformance run fails one of the fault's clauses. Explore: ✓ a confirmed MUST finding (the clean server gives none), with the",
    'seconds until it was found, shrunk and confirmed, and the length of the shrunk sequence; "as <clause>" where the finding names another',
    "clause than the fault's own (the same deviation seen from another rule); — nothing within the budget.",
    '',
    `| fault | area | fixed | ${seeds.map((s) => `explore seed ${s}`).join(' | ')} |`,
    `|---|---|---|${seeds.map(() => '---').join('|')}|`,
  ]
  for (const r of rows)
    lines.push(`| \`${r.fault}\` | ${r.area} | ${r.fixed ? (r.fixed.caught ? '✓' : `— (exit ${r.fixed.code})`) : '…'} | ${r.explore.map(cellOf).join(' | ')} |`)
  lines.push('', summary, '')
  return lines.join('\n')
}

function summarise(rows: Row[]): { line: string; missed: string[] } {
  const done = rows.filter((r) => r.fixed && r.explore.every(Boolean))
  const fixed = done.filter((r) => r.fixed!.caught).length
  const exploreAll = done.filter((r) => r.explore.every((e) => e!.caught)).length
  const exploreSome = done.filter((r) => r.explore.some((e) => e!.caught)).length
  const missed = done.filter((r) => !r.fixed!.caught && !r.explore.every((e) => e!.caught)).map((r) => r.fault)
  const cells = done.flatMap((r) => r.explore).filter((e) => e!.caught) as ExploreCell[]
  const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : 0)
  const elsewhere = done.filter((r) => r.explore.some((e) => e!.caught && !e!.onClause)).map((r) => r.fault)
  const line =
    `detection: ${done.length}/${rows.length} deep faults measured; fixed run catches ${fixed}; explore catches ${exploreAll} on every seed (${exploreSome} on some${elsewhere.length ? `; on another clause: ${elsewhere.join(', ')}` : ''}); ` +
    `caught by neither on some seed: ${missed.length ? missed.join(', ') : 'none'}; explore finds in median ${median(cells.map((c) => c.seconds!))} s, shrunk to median ${median(cells.map((c) => c.steps!))} steps`
  return { line, missed }
}

/** The table again from the rows of an earlier run, each explore cell judged as this version judges it. */
function again(from: string, out: string): number {
  const data = JSON.parse(readFileSync(from, 'utf8')) as { startedAt: string; budgetS: number; seeds: number[]; rows: Row[] }
  for (const r of data.rows) {
    const f = DEEP_FAULTS.find((d) => d.name === r.fault)
    for (const e of r.explore) {
      if (!e) continue
      e.caught = e.code === 1 && e.clause !== null
      e.onClause = e.caught && !!f && allowed(f).has(e.clause!)
    }
  }
  const { line, missed } = summarise(data.rows)
  writeFileSync(out, markdown(data.rows, data.seeds, data.budgetS, new Date(data.startedAt), line))
  process.stdout.write(`${line}\ntable: ${out}\n`)
  return missed.length ? 1 : 0
}

async function main(): Promise<number> {
  let args
  try {
    args = parseArgs({
      options: {
        seeds: { type: 'string', default: '1,2,3' },
        jobs: { type: 'string', default: '2' },
        fault: { type: 'string', multiple: true, default: [] },
        out: { type: 'string', default: join(process.env.REPORT_DIR || 'reports', 'detection.md') },
        from: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values
  } catch (err) {
    usageError((err as Error).message)
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const seeds = args.seeds!.split(',').map((s) => Number(s.trim()))
  if (!seeds.length || seeds.some((s) => !Number.isInteger(s))) usageError(`--seeds wants integers separated by commas, got '${args.seeds}'`)
  const jobs = Number(args.jobs)
  if (!Number.isInteger(jobs) || jobs < 1) usageError(`--jobs wants a positive integer, got '${args.jobs}'`)
  const unknown = args.fault!.filter((n) => !DEEP_FAULTS.some((f) => f.name === n))
  if (unknown.length) usageError(`not deep faults: ${unknown.join(', ')}`)
  const faults = args.fault!.length ? DEEP_FAULTS.filter((f) => args.fault!.includes(f.name)) : DEEP_FAULTS
  const budget = Number(process.env.EXPLORE_BUDGET_S) || 60
  const out = resolve(args.out!)
  mkdirSync(dirname(out), { recursive: true })
  const startedAt = new Date()

  if (args.from) return again(args.from, out)
  const rows: Row[] = faults.map((f) => ({
    fault: f.name,
    area: f.area,
    clauses: [...clausesOf(f)],
    description: f.description,
    fixed: null,
    explore: seeds.map(() => null),
  }))
  const write = () => {
    const { line } = summarise(rows)
    writeFileSync(out, markdown(rows, seeds, budget, startedAt, line))
    writeFileSync(out.replace(/\.md$/, '') + '.json', `${JSON.stringify({ startedAt: startedAt.toISOString(), budgetS: budget, seeds, rows }, null, 2)}\n`)
  }
  write()
  // Fault by fault, the fixed run first: two jobs work on one fault at a time, so a row fills in quickly.
  const tasks: { row: Row; run: () => Promise<void> }[] = []
  faults.forEach((f, i) => {
    const row = rows[i]!
    tasks.push({ row, run: async () => void (row.fixed = await fixedRun(f)) })
    seeds.forEach((seed, j) => tasks.push({ row, run: async () => void (row.explore[j] = await exploreRun(f, seed)) }))
  })
  let finished = 0
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let t = tasks.shift(); t; t = tasks.shift()) {
        await t.run()
        finished++
        write()
        const r = t.row
        if (r.fixed && r.explore.every(Boolean))
          process.stdout.write(`${r.fault}: fixed ${r.fixed.caught ? 'caught' : 'missed'}; explore ${r.explore.map(cellOf).join(' | ')}\n`)
      }
    }),
  )
  write()
  const { line, missed } = summarise(rows)
  process.stdout.write(`${line}\ntable: ${out} (${finished} runs in ${((Date.now() - startedAt.getTime()) / 60_000).toFixed(1)} min)\n`)
  return missed.length ? 1 : 0
}

finish('detection', main())
