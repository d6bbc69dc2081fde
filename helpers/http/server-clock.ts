/**
 * The target's clock as its answers show it. A fetch window (§4.2 items by date range) is about the server's
 * time, not ours, and a server may refuse a window that reaches further back than it keeps items, so the
 * checks ask for windows near the server's now rather than a day either side of ours.
 *
 * Every answer to a call that changes something (not GET or HEAD: those may come from a cache, with the Date
 * of when they were stored) carries `Date` (RFC 9110 §6.6.1, one-second resolution): the offset of the last
 * such answer from our clock is kept. Before any, or from a server that sends no Date, it is our clock.
 * One per process: the checks of a worker share it.
 */

let offsetMs = 0

/** Notes the Date header of an answer received at `receivedAt` (our clock, ms) to a `method` call. */
export function noteServerDate(method: string, date: string | string[] | undefined, receivedAt: number): void {
  if (method === 'GET' || method === 'HEAD' || typeof date !== 'string') return
  const at = Date.parse(date)
  // Date has whole seconds: the answer was made somewhere in the second it names, so its middle is the estimate.
  if (Number.isFinite(at)) offsetMs = at + 500 - receivedAt
}

/** The server's now, in ms since the epoch, as far as its answers told it (our clock when they did not). */
export function serverNow(): number {
  return Date.now() + offsetMs
}
