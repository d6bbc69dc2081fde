/**
 * Eventual consistency is polled for, never slept for: a real deployment may index a new channel
 * for search a moment after creating it. `eventually` repeats a probe until its result satisfies `done` or
 * the time runs out, then returns the last result so the caller's assertion reports what was actually seen.
 */
import { READ_LAG_MS } from '../http/run-context'

export interface PollOptions {
  timeoutMs?: number
  intervalMs?: number
}

/** The bound of this thread's polls that name none (the run's `settleMs`, set by the check fixtures). */
let settleMs = READ_LAG_MS

export function setSettleMs(ms: number): void {
  settleMs = ms
}

export async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, opts: PollOptions = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? settleMs)
  let interval = opts.intervalMs ?? 50
  for (;;) {
    const value = await probe()
    if (done(value) || Date.now() >= deadline) return value
    await new Promise((r) => setTimeout(r, interval))
    interval = Math.min(interval * 2, 500)
  }
}
