/** Runs `npm run conformance` as a user would (a child process), in its own report directory. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { RunResults } from '../helpers/reports/results'

export const ROOT = resolve(import.meta.dirname, '..')

export interface SuiteRun {
  code: number | null
  stdout: string
  stderr: string
  results: RunResults | null
  reportDir: string
}

/** A child process's exit code and everything it wrote, with how long it took. */
export interface ChildRun {
  code: number | null
  stdout: string
  stderr: string
  ms: number
}

/**
 * Runs a command with its output piped and collected; `watch` sees the child and its stdout so far after every
 * chunk (to interrupt it, say). Past `timeoutMs` the child is killed and the run ends with what it wrote.
 */
export function runChild(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
  timeoutMs: number,
  watch?: (child: ChildProcess, stdout: string) => void,
): Promise<ChildRun> {
  const started = Date.now()
  return new Promise((done, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => {
      stdout += d
      watch?.(child, stdout)
    })
    child.stderr.on('data', (d: Buffer) => (stderr += d))
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr, ms: Date.now() - started })
    })
  })
}

/** `watch` sees the child and its stdout so far after every chunk (to interrupt it, say). */
export async function runSuite(
  args: string[] = [],
  env: Record<string, string> = {},
  timeoutMs = 240_000,
  watch?: (child: ChildProcess, stdout: string) => void,
): Promise<SuiteRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'ct-run-'))
  // As `npm run conformance` runs it: one process (tsx as a loader), so a signal reaches the run itself.
  const { code, stdout, stderr } = await runChild(
    process.execPath,
    ['--import', 'tsx', 'scripts/conformance.ts', ...args],
    // The embedded reference server, whatever a developer's .env says; asked for by name, so CI=true runs too.
    { cwd: ROOT, env: { ...process.env, BASE_URL: 'embedded', REPORT_DIR: reportDir, STRICT: 'false', ...env } },
    timeoutMs,
    watch,
  )
  const path = join(reportDir, 'results.json')
  const results = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RunResults) : null
  return { code, stdout, stderr, results, reportDir }
}
