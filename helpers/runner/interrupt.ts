/**
 * SIGINT/SIGTERM during a run (a developer's Ctrl-C, a cancelled CI job). Once checks have started, the
 * first signal stops new checks from starting (vitest's cancelCurrentRun) and cuts the workers' connections,
 * so running checks end at once, not judged (helpers/kit/check.ts; a CI runner kills a cancelled job 7.5 s after
 * the signal), and the CLI then deletes whatever the run's ledger still lists, all at once, and writes
 * a partial results.json with `interrupted: true` (verdict incomplete, exit 2). Before any check has
 * started nothing has been created, so the process ends at once with exit 2. A second signal ends the
 * process at once too; the ledger stays for the next run's sweep. One Ctrl-C can arrive twice (the terminal
 * signals the whole process group, and a wrapper may relay it), so a repeat within a second is the same one.
 */
import type { Reporter, Vitest } from 'vitest/node'

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']

export class Interruption {
  signal: NodeJS.Signals | null = null
  private at = 0
  private vitest: Vitest | undefined
  private started = false
  private cancelled = false
  private ours = new Map<NodeJS.Signals, Function[]>()

  constructor(private readonly log: (line: string) => void) {}

  get interrupted(): boolean {
    return this.signal !== null
  }

  /** Seconds since the signal, for the stop's progress lines ("1.2 s"). */
  sinceSignal(): string {
    return `${((Date.now() - this.at) / 1000).toFixed(1)} s`
  }

  install(): void {
    for (const s of SIGNALS) process.on(s, this.handle)
    for (const s of SIGNALS) this.ours.set(s, process.listeners(s))
  }

  /** After the run, for a caller that goes on in the same process (a self-test calling the pipeline). */
  uninstall(): void {
    for (const s of SIGNALS) process.off(s, this.handle)
  }

  /** Give this to vitest as a reporter: it learns the Vitest instance and when checks start. */
  readonly reporter: Reporter = {
    onInit: (vitest) => {
      this.vitest = vitest
      // vitest's own logger ends the process on SIGINT/SIGTERM a millisecond later; this run cleans up first.
      for (const s of SIGNALS) {
        for (const l of process.listeners(s)) if (!this.ours.get(s)?.includes(l)) process.off(s, l as (...args: unknown[]) => void)
      }
    },
    onTestModuleQueued: () => {
      this.started = true
      // A signal between vitest's start and its first file: cancel now that a run exists to cancel.
      if (this.signal) this.cancel()
    },
  }

  private cancel(): void {
    if (this.cancelled || !this.vitest) return
    this.cancelled = true
    void this.vitest.cancelCurrentRun('keyboard-input')
  }

  private readonly handle = (signal: NodeJS.Signals): void => {
    if (this.signal && Date.now() - this.at < 1000) return
    if (this.signal) {
      process.stderr.write(`conformance: ${signal} again: stopping now without cleanup; the next run (or \`npm run sweep\`) removes what is left\n`)
      process.exit(2)
    }
    this.signal = signal
    this.at = Date.now()
    if (!this.started) {
      process.stderr.write(`conformance: ${signal}: interrupted before any check started; nothing was created\n`)
      process.exit(2)
    }
    this.log(`\n${signal}: interrupted — no new checks start, the running ones are cut short, then the run deletes what it created`)
    this.cancel()
  }
}
