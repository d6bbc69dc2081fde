/**
 * Requests sent at one moment. A check that races writes (suites/races.test.ts) needs them in flight together;
 * the run's pace (MAX_CONCURRENCY, helpers/http/pace.ts) may otherwise start them one by one as places free,
 * milliseconds apart under load, and two writes meant to meet never do. Here each request of the group, once it
 * holds its place, waits for the others to hold theirs, then all leave. The wait is bounded (`maxWaitMs`), so a
 * budget smaller than the group (MAX_CONCURRENCY 1) only sends them apart, never deadlocks.
 */
import { TOGETHER } from '../http/client'

/** Groups of this thread still in flight. */
let groups = 0

/** Runs `calls` so that their first requests leave together; their results, in order. */
export function together<T>(calls: readonly (() => Promise<T>)[], maxWaitMs = 100): Promise<T[]> {
  return Promise.all(sentTogether(calls, maxWaitMs))
}

/** As `together`, each call's own promise: a check may go on with one answer while the others are in flight. */
export function sentTogether<T>(calls: readonly (() => Promise<T>)[], maxWaitMs = 100): Promise<T>[] {
  let arrived = 0
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const timer = setTimeout(open, maxWaitMs)
  const gate = (): Promise<void> => {
    if (++arrived >= calls.length) {
      clearTimeout(timer)
      open()
    }
    return opened
  }
  groups++
  const sent = calls.map((call) => TOGETHER.run(gate, call))
  // Whatever happens to the group, the timer does not outlive it.
  void Promise.allSettled(sent).then(() => {
    clearTimeout(timer)
    // While a store is live, Node 20 calls a hook on every promise of the thread (a few per cent of a run's CPU);
    // with no group in flight the store is switched off, and the next group's run() switches it on again.
    if (--groups === 0) TOGETHER.disable()
  })
  return sent
}
