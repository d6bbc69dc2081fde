/**
 * Past a gateway's 502/503/504: such an answer may come from a gateway or a proxy in front of the server, and
 * judges nothing the check asked about. The recorder counts it (`Recorder.unavailable`), and a check that met
 * one ends unjudged and runs again (helpers/kit/check.ts). Where a repeat of the request does no harm, the
 * request is repeated instead and the answer the server itself gave is judged; each gateway answer repeated
 * past is taken off the check's count of unjudged ones. The channel factory's create and the check that every
 * text class meets no server error (suites/inputs.test.ts) go through here.
 */
import { isUnavailable, type Exchange } from '../http/client'
import type { Recorder } from '../http/recorder'

/**
 * What to do with a gateway's answer before repeating its request: `repeat` it, take it as `settled` (the
 * request's effect is there after all, as a look showed: the answer is taken off the count, and not repeated),
 * or `stop` (the answer stays, counted, and ends the check unjudged).
 */
export type GatewayStep = 'repeat' | 'settled' | 'stop'

export interface PastGatewayOptions {
  /** Repeats at most (default 2). */
  times?: number
  /** Asked before each repeat (default: repeat). */
  before?: () => Promise<GatewayStep>
}

/**
 * `answer`, or, while it is a gateway's 502/503/504, the answer of `again` (the same request once more; `times`
 * repeats at most): each gateway answer repeated past, or settled, is taken off the check's count of unjudged
 * answers (`rec.unavailable`). Returns the last answer.
 */
export async function pastGateway(
  rec: Pick<Recorder, 'unavailable'>,
  answer: Exchange,
  again: () => Promise<Exchange>,
  opts: PastGatewayOptions = {},
): Promise<Exchange> {
  let ex = answer
  for (let i = 0; i < (opts.times ?? 2) && isUnavailable(ex.status); i++) {
    const step = opts.before ? await opts.before() : 'repeat'
    if (step === 'stop') break
    rec.unavailable = Math.max(0, rec.unavailable - 1)
    if (step === 'settled') break
    ex = await again()
  }
  return ex
}
