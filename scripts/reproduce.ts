/**
 * npm run reproduce -- <check id, clause id or clause glob> [<results.json>] [--report-dir <dir>] [--out <dir>] [--print]
 * mcs-conformance reproduce …   (the same)
 *
 * Writes the reproducers (POSIX sh and curl, helpers/reports/reproducer.ts) of a run's failed entries that match:
 * an entry id as results.json names it, or a clause id or glob (`channels.create.*`); one file per entry in
 * <out> (default <report dir>/reproducers/), executable, named after the entry. --print writes them to stdout
 * instead. Input: <results.json>, else <report dir>/results.json (--report-dir, else REPORT_DIR, else reports).
 * Run one with the variables of .env: `set -a; . ./.env; set +a; sh <file>` — exit 1: the deviation shows,
 * 0: it does not, 2: not judged. Exit 0 when something was written; 2 with one sentence otherwise.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { commandFor } from '../helpers/config/invocation'
import type { CheckResult } from '../helpers/reports/results'
import { isEntry } from './entry'
import { npmNaming, refuse, reportArgs, reportDirOf, type ReportNaming } from './report-naming'

/** The entries a selector names: an entry id exactly, else the entries of a clause id or glob. */
export function selectEntries(checks: readonly CheckResult[], selector: string): CheckResult[] {
  const exact = checks.filter((c) => c.id === selector)
  if (exact.length) return exact
  const re = new RegExp(`^${selector.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`)
  return checks.filter((c) => re.test(c.clause))
}

/** A file name for an entry: its clause and a readable slug of its title, short. */
function fileOf(c: CheckResult, taken: Set<string>): string {
  const base = `${c.clause}--${c.id.slice(c.id.indexOf(': ') + 2)}`
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 90)
    .replace(/-$/, '')
  let name = `${base}.sh`
  for (let i = 2; taken.has(name); i++) name = `${base}-${i}.sh`
  taken.add(name)
  return name
}

export function reproduce(argv: string[], naming: ReportNaming = npmNaming('reproduce')): number {
  const usage = `usage: ${naming.command} <check id | clause id or glob> [<results.json>] [--report-dir <dir>] [--out <dir>] [--print]`
  const parsed = reportArgs(argv, naming, usage, { out: { type: 'string' }, print: { type: 'boolean' } })
  if (typeof parsed === 'number') return parsed
  const [selector, input, ...extra] = parsed.positionals
  if (!selector || extra.length) return refuse(naming, usage, 'name one check or clause (and at most one results.json)')
  const reportDir = reportDirOf(parsed.values['report-dir'])
  const path = input ?? join(reportDir, 'results.json')
  let checks: CheckResult[]
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as { checks?: unknown }
    if (!data || !Array.isArray(data.checks)) throw new Error('not a results.json of the suite')
    checks = data.checks as CheckResult[]
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT'
    process.stderr.write(`${naming.name}: cannot read ${path}: ${missing ? `no such file (run ${commandFor('conformance')} first)` : (err as Error).message}\n`)
    return 2
  }
  const matched = selectEntries(checks, selector)
  if (!matched.length) {
    process.stderr.write(`${naming.name}: no entry of ${path} is the check '${selector}' or of a clause matching it\n`)
    return 2
  }
  const withScript = matched.filter((c) => c.reproducer)
  if (!withScript.length) {
    const states = [...new Set(matched.map((c) => c.status))].join(', ')
    process.stderr.write(
      `${naming.name}: '${selector}' matches ${matched.length} entr${matched.length === 1 ? 'y' : 'ies'} (${states}), none with a reproducer: only failed, blocked and error entries have one\n`,
    )
    return 2
  }
  if (parsed.values.print) {
    for (const c of withScript) process.stdout.write(`${withScript.length > 1 ? `# ---- ${c.id}\n` : ''}${c.reproducer!}`)
    return 0
  }
  const out = parsed.values.out ?? join(reportDir, 'reproducers')
  mkdirSync(out, { recursive: true })
  const taken = new Set<string>()
  for (const c of withScript) {
    const file = join(out, fileOf(c, taken))
    writeFileSync(file, c.reproducer!)
    chmodSync(file, 0o755)
    process.stdout.write(`${c.status} ${c.level} ${c.id}\n  ${file}\n`)
  }
  process.stdout.write(
    `run one with the variables of .env: set -a; . ./.env; set +a; sh <file>  (exit 1: the deviation shows; 0: it does not; 2: not judged)\n`,
  )
  return 0
}

if (isEntry(import.meta.url)) process.exitCode = reproduce(process.argv.slice(2))
