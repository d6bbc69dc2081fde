/**
 * One run at a time per report directory. Two runs writing one REPORT_DIR would overwrite each other's
 * results.json and reports, and a reader could take either for its own. A run claims the directory with
 * `run-in-progress.json` (its pid, host and start time), which is also the in-progress marker: while it
 * exists the directory's results are not this run's yet. The claim is removed when the process ends; a
 * claim whose process is gone (a killed run) is taken over. The previous run's results.json and reports are
 * removed when the claim is made (history/ keeps its results), so a stale one is never read as this run's.
 */
import { readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'

export const IN_PROGRESS_FILE = 'run-in-progress.json'
/**
 * What a run writes at its end; whatever of these is there at its start belongs to an earlier run. The
 * documents made later from its results.json (acceptance.html, the Allure 3 report) go too.
 */
export const RUN_OUTPUTS = ['results.json', 'junit.xml', 'summary.md', 'report.html', 'exchanges.har', 'acceptance.html', 'allure-report/index.html']

export class ReportDirBusy extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ReportDirBusy'
  }
}

interface Claim {
  pid: number
  host: string
  startedAt: string
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function readClaim(path: string): Claim | null {
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as Partial<Claim>
    return typeof c.pid === 'number' && typeof c.host === 'string' ? { pid: c.pid, host: c.host, startedAt: String(c.startedAt ?? '') } : null
  } catch {
    return null
  }
}

/**
 * Claims `dir` for this process and clears the previous run's outputs; returns the release function (also
 * run at process exit). Throws ReportDirBusy with one sentence when another live run holds the directory.
 */
export function claimReportDir(dir: string, shownAs = dir): () => void {
  const path = join(dir, IN_PROGRESS_FILE)
  const mine: Claim = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() }
  const text = `${JSON.stringify({ ...mine, note: 'a conformance run is writing this directory; its results.json appears when it ends' }, null, 2)}\n`
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, text, { flag: 'wx' })
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw busyOrRethrow(err, path, shownAs)
      const other = readClaim(path)
      if (other && other.host !== mine.host) {
        throw new ReportDirBusy(
          `REPORT_DIR ${shownAs} is in use by a run on ${other.host} (pid ${other.pid}, since ${other.startedAt}): give this run its own REPORT_DIR, or delete ${path} if that run is gone`,
        )
      }
      if (other && alive(other.pid)) {
        throw new ReportDirBusy(
          `REPORT_DIR ${shownAs} is in use by another run (pid ${other.pid}, since ${other.startedAt}): wait for it to end, or give this run its own REPORT_DIR`,
        )
      }
      // The claim of a run that no longer exists (killed, or the machine restarted): take it over.
      rmSync(path, { force: true })
    }
  }
  for (const name of RUN_OUTPUTS) rmSync(join(dir, name), { force: true })
  let released = false
  const release = () => {
    if (released) return
    released = true
    process.off('exit', release)
    if (readClaim(path)?.pid !== process.pid) return
    try {
      unlinkSync(path)
    } catch {
      // Already gone: nothing to release.
    }
  }
  process.on('exit', release)
  return release
}

function busyOrRethrow(err: unknown, path: string, shownAs: string): Error {
  const other = readClaim(path)
  if (other)
    return new ReportDirBusy(
      `REPORT_DIR ${shownAs} is in use by another run (pid ${other.pid}, since ${other.startedAt}): wait for it to end, or give this run its own REPORT_DIR`,
    )
  return err as Error
}
