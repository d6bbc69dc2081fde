/** Subscribe, unsubscribe, their races, and the subscriber list (§4.3, suites/subscriptions.test.ts). */
import fc from 'fast-check'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import { ACCOUNT_KEYS, type AccountKey } from '../../config/config'
import { show } from '../../kit/expect'
import { type Addr, addressOf, type ListProblem, noServerError, ok, reachOf, schema, settle } from '../judge'
import { Exec, type Slot, success } from '../state'
import { acting, type Actor, actorArb, addrArb, Cmd, patiently, resolveActor, slotArb, slotOf, steadyView, type Weighted, weighted } from './base'

class Subscribe extends Cmd {
  /** `toggle`: unsubscribe if the model has the caller subscribed, else subscribe (decided when the step runs). */
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
    public unsubscribe: boolean,
    readonly toggle = false,
  ) {
    super()
  }
  async exec(x: Exec): Promise<void> {
    if (this.toggle) this.unsubscribe = slotOf(x, this.slot).channel?.subscribers.has(this.by) ?? false
    // The title was taken before the toggle was decided: take it again.
    x.stepTitles[x.stepTitles.length - 1] = this.toString()
    await this.subscribeOrNot(x)
  }
  toString(): string {
    return `${this.by} ${this.unsubscribe ? 'unsubscribes from' : 'subscribes to'} s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''}`
  }
  private async subscribeOrNot(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const reach = reachOf(slot, this.by, this.addr)
    const address = addressOf(x, slot, this.addr)
    const what = `${this.by} PUT ${address}/${this.unsubscribe ? 'unsubscribe' : 'subscribe'}`
    const ex = await x.call(this.by, (api) => (this.unsubscribe ? api.unsubscribe(address) : api.subscribe(address)))
    const id: ClauseId = this.unsubscribe ? 'subscriptions.unsubscribe.response' : 'subscriptions.subscribe.response'
    if (reach === 'none') {
      if (!success(ex)) return noServerError(x, ex, id, what)
      if (ch) {
        // The plain name must not reach another user's private channel: nothing may have changed there.
        // Polled: an earlier change of the list may show a moment late on a lagging deployment.
        const { ex: list } = await settle(
          x,
          () => x.call(ch.owner, (api) => api.subscriptions(slot.name)),
          (e) => {
            const ids = subscriberIds(x, e)
            return ids && ids.has(x.userId(this.by)) !== ch.subscribers.has(this.by) ? { id: 'private.plain-name-not-shared', problem: '' } : null
          },
        )
        const ids = subscriberIds(x, list)
        if (ids)
          x.must(
            ids.has(x.userId(this.by)) === ch.subscribers.has(this.by),
            'private.plain-name-not-shared',
            `${what} answered ${ex.status} and changed ${ch.owner}'s private channel's subscribers (now ${show([...ids])})`,
            list,
          )
      }
      return
    }
    if (reach !== 'reach' && !success(ex)) return noServerError(x, ex, id, what)
    const was = ch!.subscribers.has(this.by)
    if (this.unsubscribe) {
      if (!was && !success(ex)) return noServerError(x, ex, id, `${what} (not subscribed)`)
      ok(x, ex, id, what)
      x.must(ex.status === 200, id, `${what}: answered ${ex.status}, want 200 (§4.2: Response 200)`, ex)
      schema(x, ex, 'unsubscribe-response', id, what)
      const message = String((ex.json as { message?: unknown }).message ?? '')
      const n = cancelledCount(x, slot, message)
      if (n !== null)
        x.must(
          was ? n >= 1 : n === 0,
          'subscriptions.unsubscribe.count',
          `${what}: message ${show(message)} states ${n} cancelled, want ${was ? 'at least 1' : '0'}`,
          ex,
        )
      ch!.subscribers.delete(this.by)
    } else {
      if (!success(ex)) {
        // A second subscribe may be refused (not stated), and so may every subscribe where the channel says subscriptionEnabled false.
        if (was) return noServerError(x, ex, id, `${what} (already subscribed)`)
        const got = await x.call(ch!.owner, (api) => api.getChannel(slot.name))
        if (success(got) && (got.json as { subscriptionEnabled?: unknown } | undefined)?.subscriptionEnabled === false)
          return noServerError(x, ex, id, `${what} (subscriptionEnabled false)`)
      }
      ok(x, ex, id, what)
      x.must(ex.status === 200, id, `${what}: answered ${ex.status}, want 200 (§4.2: Response 200)`, ex)
      schema(x, ex, 'subscribe-response', id, what)
      ch!.subscribers.add(this.by)
    }
  }
}

/** The number an unsubscribe message states standing alone, once the channel's name and the account ids (which hold digits) are taken out; null: none. */
function cancelledCount(x: Exec, slot: Slot, message: string): number | null {
  let bare = message.split(slot.name).join(' ').split(slot.name.toLowerCase()).join(' ')
  for (const k of ACCOUNT_KEYS) bare = bare.split(x.userId(k)).join(' ')
  const n = /(?<![\w.-])\d+(?![\w.-])/.exec(bare)
  return n ? Number(n[0]) : null
}

interface RaceOp {
  by: AccountKey
  unsubscribe: boolean
}
interface RaceAnswer {
  success: boolean
  /** The number of subscriptions an accepted unsubscribe says it cancelled (null: none stated). */
  cancelled: number | null
}

/** Every order of 0..n-1 (n ≤ 4: 24 at most). */
function permutations(n: number): number[][] {
  if (n <= 1) return [[...Array(n).keys()]]
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, i) => [...p.slice(0, i), n - 1, ...p.slice(i)]))
}

/**
 * The subscriber sets after the ops in some serial order that explains every answer: an accepted unsubscribe
 * cancels the caller's subscriptions (at least one stated if it had one, none if it had none), a refused
 * one only where the caller had none; an accepted subscribe adds the caller, a refused one only where the
 * caller was subscribed already or the channel refuses subscriptions. `counts` false: the stated counts are
 * not held (to tell a wrong count from a wrong refusal).
 */
function serialOutcomes(start: ReadonlySet<AccountKey>, ops: RaceOp[], answers: RaceAnswer[], refusable: boolean, counts = true): Set<AccountKey>[] {
  const finals: Set<AccountKey>[] = []
  for (const order of permutations(ops.length)) {
    const state = new Set(start)
    const fits = order.every((i) => {
      const { by, unsubscribe } = ops[i]!
      const { success: accepted, cancelled } = answers[i]!
      const was = state.has(by)
      if (unsubscribe) {
        if (!accepted) return !was
        if (counts && cancelled !== null && (was ? cancelled < 1 : cancelled !== 0)) return false
        state.delete(by)
        return true
      }
      if (!accepted) return was || refusable
      state.add(by)
      return true
    })
    if (fits && !finals.some((f) => sameSet(f, state))) finals.push(state)
  }
  return finals
}

export const sameSet = <T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean => a.size === b.size && [...a].every((v) => b.has(v))

/**
 * Subscribes and unsubscribes sent at once to one channel, by one account or by several: the answers and
 * the subscribers listed afterwards must be explainable by some serial order of them (the spec states no
 * rule for concurrent calls; a serial order is what every answer taken alone already has to fit). On a
 * private channel only its owner reaches it by the plain name, so there every operation is the owner's.
 */
class SubscribeRace extends Cmd {
  ops: RaceOp[] = []
  constructor(
    readonly slot: number,
    readonly drawn: { who: Actor; unsubscribe: boolean }[],
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    return slotOf(m as Exec, this.slot).channel !== null
  }
  override async run(m: Exec): Promise<void> {
    const slot = m.slots[this.slot]!
    this.ops = this.drawn.map((d) => ({ by: slot.channel?.private ? slot.channel.owner : resolveActor(m, slot, d.who), unsubscribe: d.unsubscribe }))
    await super.run(m)
  }
  toString(): string {
    const ops = this.ops.length
      ? this.ops.map((o) => `${o.by} ${o.unsubscribe ? 'unsubscribes' : 'subscribes'}`)
      : this.drawn.map((d) => `${d.who} ${d.unsubscribe ? 'unsubscribes' : 'subscribes'}`)
    return `at once on s${this.slot}: ${ops.join(', ')}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel!
    const start = new Set(ch.subscribers)
    const what = `${this.ops.map((o) => `${o.by} PUT ${slot.name}/${o.unsubscribe ? 'unsubscribe' : 'subscribe'}`).join(' ‖ ')} at once`
    const exs = await Promise.all(this.ops.map((o) => x.call(o.by, (api) => (o.unsubscribe ? api.unsubscribe(slot.name) : api.subscribe(slot.name)))))
    const answers: RaceAnswer[] = exs.map((ex, i) => {
      const id: ClauseId = this.ops[i]!.unsubscribe ? 'subscriptions.unsubscribe.response' : 'subscriptions.subscribe.response'
      if (!success(ex)) {
        noServerError(x, ex, id, what)
        return { success: false, cancelled: null }
      }
      // What an accepted answer is does not depend on the order.
      x.must(ex.status === 200, id, `${what}: #${i + 1} answered ${ex.status}, want 200 (§4.2: Response 200)`, ex)
      schema(x, ex, this.ops[i]!.unsubscribe ? 'unsubscribe-response' : 'subscribe-response', id, `${what} (#${i + 1})`)
      return { success: true, cancelled: this.ops[i]!.unsubscribe ? cancelledCount(x, slot, String((ex.json as { message?: unknown }).message ?? '')) : null }
    })
    // A refused subscribe of an account that had none is allowed where the channel says subscriptionEnabled false.
    let refusable = false
    if (this.ops.some((o, i) => !o.unsubscribe && !answers[i]!.success)) {
      const got = await x.call(ch.owner, (api) => api.getChannel(slot.name))
      refusable = success(got) && (got.json as { subscriptionEnabled?: unknown } | undefined)?.subscriptionEnabled === false
    }
    const finals = serialOutcomes(start, this.ops, answers, refusable)
    const said = exs.map((ex, i) => `#${i + 1} ${ex.status}${answers[i]!.cancelled !== null ? ` (${answers[i]!.cancelled} cancelled)` : ''}`).join(', ')
    if (!finals.length) {
      const countsOnly = serialOutcomes(start, this.ops, answers, refusable, false).length > 0
      const id: ClauseId = countsOnly
        ? 'subscriptions.unsubscribe.count'
        : this.ops.some((o, i) => o.unsubscribe && !answers[i]!.success)
          ? 'subscriptions.unsubscribe.response'
          : 'subscriptions.subscribe.response'
      x.must(false, id, `${what}: answers ${said} fit no serial order of the calls (subscribed before: ${show([...start])})`, exs[0])
    }
    const keyOf = (id: string) => ACCOUNT_KEYS.find((k) => x.userId(k) === id)
    const readList = () => x.call(ch.owner, (api) => api.subscriptions(slot.name))
    const judgeList = (e: Exchange): ListProblem | null => {
      const ids = subscriberIds(x, e)
      if (!ids)
        return { id: 'subscriptions.list.shape', problem: `${ch.owner} GET ${slot.name}/subscriptions: not an array of Subscriptions (answered ${e.status})` }
      const got = new Set([...ids].map((id) => keyOf(id)!))
      if (finals.some((f) => sameSet(f, got))) return null
      // Fewer than some serial order leaves: a subscriber lost; else one that should be gone stayed.
      const lost = finals.some((f) => [...got].every((k) => f.has(k)))
      return {
        id: lost ? 'subscriptions.subscribe.listed' : 'subscriptions.unsubscribe.removed',
        problem: `after ${what} (answers ${said}; subscribed before: ${show([...start])}): subscribers ${show([...got])}, but every serial order leaves one of ${finals.map((f) => show([...f].sort())).join(', ')}`,
      }
    }
    const settled = await settle(x, readList, judgeList)
    if (settled.problem) x.must(false, settled.problem.id, settled.problem.problem, settled.ex)
    let ex = settled.ex
    // More than one outcome fits: the list is read until it holds still before the model adopts it.
    if (finals.length > 1)
      ex = await steadyView(x, readList, ex, (e) => (subscriberIds(x, e) ? [...subscriberIds(x, e)!].sort().join() : null), judgeList, what)
    ch.subscribers = new Set([...(subscriberIds(x, ex) ?? [])].map((id) => keyOf(id)!))
    x.judged('subscriptions.subscribe.listed')
  }
}

/**
 * The user ids of a subscriber list that are the run's accounts. Other users may subscribe to any public
 * channel (a shared server's other clients do): what they do is not the run's to judge.
 */
function subscriberIds(x: Exec, ex: Exchange): Set<string> | null {
  if (!success(ex) || !Array.isArray(ex.json)) return null
  const ours = new Set(ACCOUNT_KEYS.map((k) => x.userId(k)))
  return new Set((ex.json as { userId?: unknown }[]).map((s) => String(s?.userId)).filter((id) => ours.has(id)))
}

export class ListSubscribers extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} lists the subscribers of s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''}`
  }
  async exec(x: Exec): Promise<void> {
    await patiently(x, () => this.once(x))
  }
  private async once(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const reach = reachOf(slot, this.by, this.addr)
    const address = addressOf(x, slot, this.addr)
    const what = `${this.by} GET ${address}/subscriptions`
    if (reach === 'none') {
      const ex = await x.call(this.by, (api) => api.subscriptions(address))
      const ids = subscriberIds(x, ex)
      if (ids && ids.size > 0 && ch)
        x.must(false, 'private.plain-name-not-shared', `${what}: lists ${show([...ids])}, the subscribers of ${ch.owner}'s private channel`, ex)
      if (ids && ids.size > 0 && !ch)
        x.must(
          false,
          'channels.delete.removes',
          `${what}: lists subscribers ${show([...ids])} of a channel that is ${slot.history ? 'deleted' : 'not there'}`,
          ex,
        )
      return noServerError(x, ex, 'subscriptions.list.shape', what)
    }
    const want = [...ch!.subscribers].map((k) => x.userId(k)).sort()
    const { ex, problem } = await settle(
      x,
      () => x.call(this.by, (api) => api.subscriptions(address)),
      (e) => {
        if (!success(e))
          return reach === 'reach' && this.by === ch!.owner ? { id: 'subscriptions.list.shape', problem: `${what}: answered ${e.status}, want 200` } : null
        const ids = subscriberIds(x, e)
        if (!ids) return { id: 'subscriptions.list.shape', problem: `${what}: not an array of Subscriptions` }
        const got = [...ids].sort()
        const missing = want.filter((w) => !ids.has(w))
        if (missing.length)
          return {
            id: 'subscriptions.subscribe.listed',
            problem: `${what}: subscribers ${show(got)}, missing ${show(missing)} (subscribed: ${show([...ch!.subscribers])})`,
          }
        const extra = got.filter((g) => !want.includes(g))
        const userKey = (id: string) => ACCOUNT_KEYS.find((k) => x.userId(k) === id)
        if (
          extra.length &&
          slot.history > 0 &&
          extra.every((id) => {
            const k = userKey(id)
            return k !== undefined && slot.previous.subscribers.has(k)
          })
        ) {
          return {
            id: 'channels.delete.recreate-fresh',
            problem: `${what}: subscribers ${show(got)}, ${show(extra)} subscribed to the channel of this name deleted before, not to this one (subscribed: ${show([...ch!.subscribers])})`,
          }
        }
        if (extra.length)
          return {
            id: 'subscriptions.unsubscribe.removed',
            problem: `${what}: subscribers ${show(got)}, ${show(extra)} not subscribed (subscribed: ${show([...ch!.subscribers])})`,
          }
        return null
      },
    )
    if (problem) x.must(false, problem.id, problem.problem, ex)
    if (success(ex)) schema(x, ex, 'subscription-list', 'subscriptions.list.shape', what)
    else noServerError(x, ex, 'subscriptions.list.shape', what)
  }
}

/** The subscriptions commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function subscriptionCommands(): Weighted[] {
  return [
    weighted(
      fc.tuple(slotArb, actorArb, addrArb, fc.boolean(), fc.boolean()).map(([s, by, a, u, t]) => acting(new Subscribe(s, 'A', a, u, t), by)),
      5,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new ListSubscribers(s, 'A', a), by)),
      2,
    ),
    // Races: one account's subscribes and unsubscribes at once, or several accounts' at once.
    weighted(
      fc.tuple(slotArb, actorArb, fc.array(fc.boolean(), { minLength: 2, maxLength: 4 })).map(
        ([s, by, us]) =>
          new SubscribeRace(
            s,
            us.map((u) => ({ who: by, unsubscribe: u })),
          ),
      ),
      1,
    ),
    weighted(
      fc
        .tuple(slotArb, fc.array(fc.record({ who: actorArb, unsubscribe: fc.boolean() }), { minLength: 2, maxLength: 4 }))
        .map(([s, ops]) => new SubscribeRace(s, ops)),
      1,
    ),
  ]
}
