/** Whole runs of the self-proof made in this process, on a suite session (helpers/runner/session.ts). */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runConformance } from '../helpers/runner/pipeline'
import { SuiteSession } from '../helpers/runner/session'
import type { SuiteRun } from '../testing/run-suite'

/**
 * One whole run in this process on an open suite session (helpers/runner/session.ts), as `runSuite` makes it
 * in a child: the embedded reference server (with `faults` and `variants` on) unless `env` names a target, its
 * own report directory, STRICT off; the same results.json, exit code and printed lines.
 */
export async function runSuiteIn(
  session: SuiteSession,
  target: { faults?: string[]; variants?: string[] } = {},
  env: Record<string, string> = {},
): Promise<SuiteRun> {
  const reportDir = mkdtempSync(join(tmpdir(), 'ct-run-'))
  const out: string[] = []
  const err: string[] = []
  const outcome = await runConformance({
    session,
    // The proof reads results.json only; the reports made from it are proved by reports.test.ts and report-run.test.ts.
    reports: false,
    // Without a socket: the server in this process answers on a channel (helpers/http/in-process.ts). SELFTEST_WIRE=1 sends over loopback HTTP.
    inProcess: process.env.SELFTEST_WIRE !== '1',
    faults: target.faults ?? [],
    variants: target.variants ?? [],
    env: { ...process.env, BASE_URL: 'embedded', REPORT_DIR: reportDir, STRICT: 'false', ...env },
    log: (line) => out.push(line),
    warn: (line) => err.push(line),
  })
  return { code: outcome.exitCode, stdout: out.join('\n'), stderr: err.join('\n'), results: outcome.results, reportDir }
}

/**
 * The self-proof's suite session: SELFTEST_LANES runs side by side (default 4, at most `runs`), each on one
 * worker thread. Against the embedded server a run's checks cost CPU, not waiting, so one thread per run and a
 * few runs at once keep a 2-core machine busy with the least start-up per run; a run that waits (paced publishes,
 * polls) leaves its share to the others. A value that is no whole number from 1 to 16 stops the self-test.
 */
export function openSelftestSession(runs: number): Promise<SuiteSession> {
  const raw = process.env.SELFTEST_LANES?.trim()
  const lanes = raw ? Number(raw) : 4
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > 16) throw new Error(`SELFTEST_LANES must be a whole number from 1 to 16, not '${raw}'`)
  return SuiteSession.open({ lanes: Math.max(1, Math.min(lanes, runs)), maxWorkers: 1 })
}
