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

/** `watch` sees the child and its stdout so far after every chunk (to interrupt it, say). */
export function runSuite(
  args: string[] = [],
  env: Record<string, string> = {},
  timeoutMs = 240_000,
  watch?: (child: ChildProcess, stdout: string) => void,
): Promise<SuiteRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'ct-run-'))
  return new Promise((done, reject) => {
    // As `npm run conformance` runs it: one process (tsx as a loader), so a signal reaches the run itself.
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/conformance.ts', ...args], {
      cwd: ROOT,
      // The embedded reference server, whatever a developer's .env says; asked for by name, so CI=true runs too.
      env: { ...process.env, BASE_URL: 'embedded', REPORT_DIR: reportDir, STRICT: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
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
      const path = join(reportDir, 'results.json')
      const results = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as RunResults) : null
      done({ code, stdout, stderr, results, reportDir })
    })
  })
}
