/**
 * Another user's read of a private channel through its address <user_id>#<name> (§2.3), as the address checks
 * judge it: the spec defines the address, not who may read through it. The address must resolve (no 400); a
 * 2xx must be the owner's private channel; a 404 hides it from the reader only if the owner's read of the same
 * address reaches it.
 */
import type { Api } from '../../helpers/http/api'
import { isSuccess, show } from '../../helpers/kit/expect'
import { ALSO, type Judge } from '../../helpers/kit/judge'
import { eventually } from '../../helpers/kit/poll'
import { match, sameText, type Matcher } from './match'
import { bodyOf } from './read'

/** The answer is A's private channel named `name` (in any case). */
export function privateOf(name: string): Matcher[] {
  return [match.that('/name', (n) => typeof n === 'string' && sameText(n, name), `${show(name)} in any case`), match.equal('/privateChannel', true)]
}

/** An address that resolves: any answer but 400 (a bad request); `want` says what would show it. */
export const resolves = (want: string): Matcher => match.that('/status', (s) => s !== 400, want)

/**
 * B's 404 for A's private channel through its address does not show that the address did not resolve: a server
 * may answer 404 for a channel the caller may not read rather than reveal that it exists (RFC 9110 §15.5.4).
 * The owner tells the two apart: A's GET of the same address must reach its private channel (polled: reads may
 * lag). When it does not, the address reaches that channel for nobody, and the check fails.
 */
export async function judgeHiddenFromB(a: Api, address: string, name: string, judge: Judge): Promise<void> {
  const own = await eventually(() => a.getChannel(address), isSuccess)
  // B's 404 hides the channel only if the owner's GET of the address reaches it; else the address reaches it for nobody.
  const ownersGet = (m: Matcher) => match.when(`B's GET of ${address} answered 404; the owner A's GET of the same address`, m)
  judge.match(own, ownersGet(match.status('2xx', "a 404 hides A's private channel from B only if A's GET of the address reaches it")), own)
  judge.match(bodyOf(own), privateOf(name).map(ownersGet), own)
  judge.observe(`B's GET of A's private channel through its address: 404 (hidden from B); A's own GET of the address reaches it`, ALSO.otherUserRead)
}

/**
 * B's GET of A's private channel `name` through `address`, polled past 404 (reads may lag the create; an address
 * the server does not understand stays 404), judged as above. `what` says which channel, for the messages.
 */
export async function judgeAddressRead(a: Api, b: Api, address: string, name: string, judge: Judge, what: string): Promise<void> {
  const ex = await eventually(
    () => b.getChannel(address),
    (e) => e.status !== 404,
  )
  if (!isSuccess(ex)) {
    judge.refused(ex)
    judge.match(ex, match.when(`B's GET of ${address}, ${what}`, resolves('an address that resolves (2xx or a refusal other than 400)')), ex)
    if (ex.status === 404) await judgeHiddenFromB(a, address, name, judge)
    return
  }
  judge.match(
    bodyOf(ex),
    privateOf(name).map((m) => match.when(`A's private channel (${what})`, m)),
    ex,
  )
}
