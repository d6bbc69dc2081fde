/**
 * Fetch windows (§4.2 fetch items by date range) near the server's now. The spec states no range a fetch must
 * accept, and a server may refuse one that reaches further back than it keeps items (since=epoch, a day ago):
 * a check whose subject is not the window itself asks for one a few minutes either side of the server's now
 * (helpers/http/server-clock.ts), which holds every item the check publishes, whatever our clock says.
 */
import type { FetchParams } from '../http/api'
import { serverNow } from '../http/server-clock'

/** How far either side of the server's now a window reaches: far more than a check lasts (60 s, reruns included). */
export const WINDOW_MARGIN_MS = 15 * 60_000

/** The instant `offsetMs` from the server's now, as ISO 8601 UTC. */
export function serverTime(offsetMs = 0): string {
  return new Date(serverNow() + offsetMs).toISOString()
}

/**
 * All five fetch parameters (their defaults and requiredness are not shown) for a window from WINDOW_MARGIN_MS
 * before the server's now to as long after it, oldest first, from the first item; `extra` overrides.
 */
export function aroundNow(extra: FetchParams = {}): FetchParams {
  return { since: serverTime(-WINDOW_MARGIN_MS), until: serverTime(WINDOW_MARGIN_MS), sort_order: 'ASC', offset: 0, size: 10, ...extra }
}
