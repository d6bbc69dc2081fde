/** Items: publish (one or a burst), fetch by window and order, get and delete by ids, delete all (§4.5, suites/items.test.ts). */
import fc from 'fast-check'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import type { AccountKey } from '../../config/config'
import { show } from '../../kit/expect'
import {
  type Addr,
  addressOf,
  compareItems,
  itemsOf,
  learnIds,
  type ListProblem,
  noServerError,
  ok,
  personalMatches,
  publishedApart,
  reachOf,
  refOf,
  refused,
  schema,
  settle,
  verifyItems,
  wide,
} from '../judge'
import { Exec, type ModelChannel, type Slot, success } from '../state'
import { serverTime, WINDOW_MARGIN_MS } from '../../kit/window'
import {
  acting,
  type Actor,
  actorArb,
  addrArb,
  Cmd,
  contentArb,
  patiently,
  personalArb,
  plainContent,
  publishGap,
  slotArb,
  slotOf,
  steadyView,
  type Weighted,
  weighted,
  withPersonal,
} from './base'

function publishRule(ch: ModelChannel, by: AccountKey): { allowed: boolean | null; id: ClauseId } {
  if (ch.permission === 'owner') return { allowed: by === ch.owner, id: 'items.permission.owner' }
  if (ch.permission === 'subscribers') {
    if (ch.subscribers.has(by)) return { allowed: true, id: 'items.permission.subscribers' }
    // The owner who is not subscribed: the spec does not say.
    return { allowed: by === ch.owner ? null : false, id: 'items.permission.subscribers' }
  }
  return { allowed: true, id: 'items.permission.anyone' }
}

class Publish extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
    readonly content: Record<string, string>,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} publishes ${JSON.stringify(this.content)} to s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const reach = reachOf(slot, this.by, this.addr)
    const address = addressOf(x, slot, this.addr)
    const ref = x.newRef()
    const content = { ref, ...this.content }
    const what = `${this.by} POST ${address}/items`
    // Distinct publish times at millisecond precision keep the order of a channel's items defined.
    if (ch) {
      const gap = publishGap(ch)
      if (gap > 0) await new Promise((r) => setTimeout(r, gap))
    }
    const sentAt = Date.now()
    const ex = await x.call(this.by, (api) => api.publish(address, { content, messageType: 'text', contentType: 'application/json' }))
    if (ch) ch.lastPublishAt = Date.now()
    x.refs.set(ref, { slot: slot.index, fate: 'refused', itemId: null, sentAt, answeredAt: Date.now() })
    if (reach === 'none' || !ch) {
      x.refs.get(ref)!.clause = ch ? 'private.plain-name-not-shared' : 'channels.delete.removes'
      return noServerError(x, ex, 'items.publish.response', `${what} (${ch ? `${ch.owner}'s private channel by its plain name` : 'no such channel'})`)
    }
    const rule = publishRule(ch, this.by)
    x.refs.get(ref)!.clause = rule.id
    if (rule.allowed === false)
      return refused(
        x,
        ex,
        rule.id,
        `${what} (publishPermission ${ch.permission}, ${this.by} ${ch.subscribers.has(this.by) ? 'subscribed' : 'not subscribed'})`,
      )
    const full = ch.maxItems > 0 && ch.items.length >= ch.maxItems
    if (!success(ex)) {
      // Open: the owner of a subscribers channel, the `#` form, a full channel, content beyond plain key/value text.
      if (rule.allowed === true && reach === 'reach' && !full && plainContent(this.content)) ok(x, ex, rule.id, what)
      if (full && rule.allowed === true && reach === 'reach' && plainContent(this.content))
        x.shared.learned.hold('publish to a full channel (maxItems reached)', `refused (${ex.status})`)
      return noServerError(x, ex, 'items.publish.response', what)
    }
    x.must(ex.status === 201, 'items.publish.response', `${what}: answered ${ex.status}, want 201`, ex)
    schema(x, ex, 'publish-response', 'items.publish.response', what)
    const before = ch.items.map((i) => i.ref)
    ch.items.push({ ref, itemId: null, publisher: this.by, content })
    ch.everPublished++
    x.refs.get(ref)!.fate = 'stored'
    if (!full) {
      await verifyItems(x, slot, `after ${what}`, 'after-publish')
      return
    }
    // Over maxItems: which items a full channel keeps is not stated (INFO); that it keeps at most maxItems is.
    const all = [...before, ref]
    const judgeFull = (e: Exchange): ListProblem | null => {
      const items = itemsOf(e)
      if (!items) return { id: 'items.fetch.shape', problem: `fetch answered ${e.status} without an items array` }
      const refs = items.map(refOf)
      if (refs.length > ch.maxItems)
        return { id: 'items.max-items', problem: `${refs.length} items kept (refs ${show(refs)}), want at most maxItems ${ch.maxItems}` }
      const strange = refs.filter((r) => !r || !all.includes(r))
      if (strange.length) return { id: 'items.fetch.range', problem: `items ${show(strange)} came back that the channel never held (held ${show(all)})` }
      if (refs.length === 0) return { id: 'items.max-items', problem: 'no item kept after a publish the server took' }
      return null
    }
    const { ex: first, problem } = await settle(x, () => x.call(ch.owner, (api) => api.fetchItems(slot.name, wide())), judgeFull)
    if (problem) x.must(false, problem.id, `after ${what} to a full channel: ${problem.problem}`, first)
    const view = itemsView(x, slot)
    const read = await steadyView(x, view.read, first, view.viewOf, judgeFull, `after ${what} to a full channel`)
    const keptRefs = (itemsOf(read) ?? []).map((i) => refOf(i)!)
    // Item time precision is not stated: which of the items published within a second of each other is the
    // oldest is the server's to say, so a policy is also met by a kept set that differs from it only among those.
    const fits = { oldest: keepsEnd(x, all, keptRefs, true), first: keepsEnd(x, all, keptRefs, false) }
    const sameSet = (refs: string[]) => refs.length === keptRefs.length && refs.every((r) => keptRefs.includes(r))
    const policy = sameSet(all.slice(-keptRefs.length))
      ? 'evicts the oldest'
      : sameSet(all.slice(0, keptRefs.length))
        ? 'drops the new item'
        : fits.oldest
          ? 'evicts the oldest'
          : fits.first
            ? 'drops the new item'
            : 'keeps another subset'
    const held = x.shared.learned.hold('publish to a full channel (maxItems reached)', `taken, ${policy}`)
    x.should(
      held === `taken, ${policy}` || (held === 'taken, evicts the oldest' && fits.oldest) || (held === 'taken, drops the new item' && fits.first),
      'items.max-items',
      'eviction-policy',
      `${what} to a full channel: the server ${policy}, where earlier it was "${held}"`,
      read,
    )
    x.should(
      keptRefs.length === ch.maxItems,
      'items.max-items',
      'keeps-fewer',
      `${what} to a full channel: ${keptRefs.length} items kept, maxItems is ${ch.maxItems}`,
      read,
    )
    for (const it of ch.items) if (!keptRefs.includes(it.ref)) x.refs.get(it.ref)!.fate = 'evicted'
    ch.items = ch.items.filter((it) => keptRefs.includes(it.ref))
    ch.items.sort((a, b) => keptRefs.indexOf(a.ref) - keptRefs.indexOf(b.ref))
    const items = itemsOf(read)!
    const p = compareItems(x, slot, items, keptRefs, { ordered: true, missingClause: 'items.fetch.range' })
    if (p) x.must(false, p.id, `after ${what}: ${p.problem}`, read)
    learnIds(x, slot, items)
  }
}

/**
 * Whether `kept` can be the newest (`newest`) or the oldest items of `all` (publish order) when items published
 * within a second of each other may carry one time: no item left out is provably newer (older) than one kept.
 */
function keepsEnd(x: Exec, all: string[], kept: string[], newest: boolean): boolean {
  const dropped = all.filter((r) => !kept.includes(r))
  return dropped.every((d) =>
    kept.every((k) => {
      const later = all.indexOf(d) > all.indexOf(k)
      return (newest ? !later : later) || !publishedApart(x, d, k)
    }),
  )
}

/** The owner's view of a channel's items for steadyView: the refs in order. */
const itemsView = (x: Exec, slot: Slot) => ({
  read: () => x.call(slot.channel!.owner, (api) => api.fetchItems(slot.name, wide())),
  viewOf: (e: Exchange) => itemsOf(e)?.map(refOf).join() ?? null,
})

/**
 * Several publishes to one channel at once (§4.2 publish, §2.3 maxItems): whatever the server does, the items
 * it keeps must be explainable by some serial order of the publishes it took.
 */
class Burst extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly count: number,
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    return slotOf(m as Exec, this.slot).channel !== null
  }
  toString(): string {
    return `${this.by} publishes ${this.count} items to s${this.slot} at once`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel!
    const reach = reachOf(slot, this.by, 'plain')
    const rule = publishRule(ch, this.by)
    const refs = Array.from({ length: this.count }, () => x.newRef())
    const gap = publishGap(ch)
    if (gap > 0) await new Promise((r) => setTimeout(r, gap))
    const sentAt = Date.now()
    const answers = await Promise.all(
      refs.map((ref, i) =>
        x.call(this.by, (api) => api.publish(slot.name, { content: { ref, text: `burst ${i}` }, messageType: 'text', contentType: 'application/json' })),
      ),
    )
    ch.lastPublishAt = Date.now()
    refs.forEach((ref) => x.refs.set(ref, { slot: slot.index, fate: 'refused', itemId: null, clause: rule.id, sentAt, answeredAt: ch.lastPublishAt }))
    const what = `${this.by} POST ${slot.name}/items ×${this.count} at once`
    if (reach === 'none') {
      refs.forEach((ref) => (x.refs.get(ref)!.clause = 'private.plain-name-not-shared'))
      return answers.forEach((ex) => noServerError(x, ex, 'items.publish.response', `${what} (${ch.owner}'s private channel by its plain name)`))
    }
    if (rule.allowed === false) return answers.forEach((ex) => refused(x, ex, rule.id, `${what} (publishPermission ${ch.permission})`))
    const room = ch.maxItems > 0 ? ch.maxItems - ch.items.length : Infinity
    const accepted = refs.filter((_, i) => success(answers[i]!))
    answers.forEach((ex, i) => {
      if (success(ex)) return
      // Refusals are allowed only where the spec leaves it open: a bounded channel that may be full, the owner of a subscribers channel.
      if (rule.allowed === true && room >= this.count) ok(x, ex, rule.id, `${what} (#${i + 1})`)
      noServerError(x, ex, 'items.publish.response', what)
    })
    const old = ch.items.map((i) => i.ref)
    const judgeBurst = (e: Exchange): ListProblem | null => {
      const items = itemsOf(e)
      if (!items) return { id: 'items.fetch.shape', problem: `fetch answered ${e.status} without an items array` }
      const got = items.map(refOf)
      const strange = got.filter((r) => !r || !(old.includes(r) || accepted.includes(r)))
      if (strange.length)
        return {
          id: 'items.fetch.range',
          problem: `items ${show(strange)} came back that were neither held nor taken (held ${show(old)}, taken ${show(accepted)})`,
        }
      if (ch.maxItems > 0 && got.length > ch.maxItems)
        return { id: 'items.max-items', problem: `${got.length} items kept (${show(got)}), want at most maxItems ${ch.maxItems}` }
      // A serial order keeps the older items first, in their order, then the new ones in some order. Judged
      // only where the times provably differ (item time precision is not stated): the held items more than a
      // second apart, and the last of them more than a second before the batch.
      const olds = got.filter((r) => old.includes(r as string))
      const firstNew = got.findIndex((r) => accepted.includes(r as string))
      const lastOld = old.length ? x.refs.get(old[old.length - 1]!) : undefined
      const batchApart = !lastOld || (lastOld.answeredAt !== undefined && refs.every((r) => (x.refs.get(r)?.sentAt ?? 0) - lastOld.answeredAt! > 1100))
      if (
        provablyOrdered(x, old) &&
        batchApart &&
        (olds.join() !== old.filter((r) => olds.includes(r)).join() || (firstNew >= 0 && got.slice(firstNew).some((r) => old.includes(r as string))))
      ) {
        return {
          id: 'items.fetch.order',
          problem: `ASC order ${show(got)} is no serial order of the items held (${show(old)}) and those taken at once (${show(accepted)})`,
        }
      }
      if (ch.maxItems <= 0 && got.length !== old.length + accepted.length)
        return {
          id: 'items.max-items.unlimited',
          problem: `${got.length} items kept (${show(got)}), want the ${old.length} held and the ${accepted.length} taken at once`,
        }
      // Room for all of them: nothing had to go (a lagging view without some of them is read again).
      if (ch.maxItems > 0 && old.length + accepted.length <= ch.maxItems && got.length !== old.length + accepted.length)
        return {
          id: 'items.max-items',
          problem: `${got.length} items kept (${show(got)}), want the ${old.length} held and the ${accepted.length} taken at once (maxItems ${ch.maxItems} leaves room for all)`,
        }
      return null
    }
    let { ex: read, problem } = await settle(x, () => x.call(ch.owner, (api) => api.fetchItems(slot.name, wide())), judgeBurst)
    if (problem) x.must(false, problem.id, `after ${what}: ${problem.problem}`, read)
    // A full channel's view may be one before or between the publishes (a lagging replica applies them one by
    // one): when some of them had to evict, the view is read again until it holds still, before it is adopted.
    if (!problem && ch.maxItems > 0 && old.length + accepted.length > ch.maxItems) {
      const view = itemsView(x, slot)
      read = await steadyView(x, view.read, read, view.viewOf, judgeBurst, `after ${what}`)
    }
    const got = (itemsOf(read) ?? []).map((i) => refOf(i)!)
    for (const ref of accepted) x.refs.get(ref)!.fate = 'stored'
    const all = [...ch.items, ...accepted.map((ref) => ({ ref, itemId: null, publisher: this.by, content: { ref, text: `burst ${refs.indexOf(ref)}` } }))]
    for (const it of all) if (!got.includes(it.ref)) x.refs.get(it.ref)!.fate = 'evicted'
    ch.items = got.map((r) => all.find((it) => it.ref === r)!)
    ch.everPublished += accepted.length
    learnIds(x, slot, itemsOf(read)!)
  }
}

type Window = 'all' | 'future' | 'past'

/** Whether consecutive refs (publish order) were published more than a second apart, so their times differ at any precision. */
function provablyOrdered(x: Exec, refs: string[]): boolean {
  for (let i = 1; i < refs.length; i++) {
    const [a, b] = [x.refs.get(refs[i - 1]!), x.refs.get(refs[i]!)]
    if (a?.answeredAt === undefined || b?.sentAt === undefined || b.sentAt - a.answeredAt <= 1100) return false
  }
  return true
}

export class Fetch extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
    readonly window: Window,
    readonly order: 'ASC' | 'DESC',
    readonly offset: number,
    readonly size: number,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} fetches items of s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''} (${this.window === 'all' ? 'a quarter of an hour either side of now' : this.window === 'future' ? 'a range half an hour ahead' : 'a range half an hour back'}, ${this.order}, offset ${this.offset}, size ${this.size})`
  }
  async exec(x: Exec): Promise<void> {
    await patiently(x, () => this.once(x))
  }
  private async once(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const reach = reachOf(slot, this.by, this.addr)
    const address = addressOf(x, slot, this.addr)
    // Windows near the server's now (helpers/kit/window.ts): a server may refuse one that reaches far back.
    const range =
      this.window === 'all'
        ? { since: serverTime(-WINDOW_MARGIN_MS), until: serverTime(WINDOW_MARGIN_MS) }
        : this.window === 'future'
          ? { since: serverTime(2 * WINDOW_MARGIN_MS), until: serverTime(3 * WINDOW_MARGIN_MS) }
          : { since: serverTime(-3 * WINDOW_MARGIN_MS), until: serverTime(-2 * WINDOW_MARGIN_MS) }
    const params = { ...range, sort_order: this.order, offset: this.offset, size: this.size }
    const what = `${this.by} GET ${address}/items/fetch (${this.window}, ${this.order}, offset ${this.offset}, size ${this.size})`
    if (reach === 'none') {
      const ex = await x.call(this.by, (api) => api.fetchItems(address, params))
      const items = itemsOf(ex)
      if (items?.length) {
        const p = compareItems(x, slot, items, [], { ordered: false, missingClause: 'items.fetch.range' })
        x.must(
          false,
          ch ? 'private.plain-name-not-shared' : (p?.id ?? 'channels.delete.removes'),
          `${what}: ${items.length} item(s) from a channel the caller cannot reach${p ? `: ${p.problem}` : ''}`,
          ex,
        )
      }
      return noServerError(x, ex, 'items.fetch.shape', what)
    }
    const inRange = this.window === 'all' ? ch!.items.map((i) => i.ref) : []
    const ordered = this.order === 'ASC' ? inRange : [...inRange].reverse()
    const page = ordered.slice(this.offset, this.offset + this.size)
    const mustAnswer = reach === 'reach' && this.by === ch!.owner && this.size <= 50
    const { ex, problem } = await settle(
      x,
      () => x.call(this.by, (api) => api.fetchItems(address, params)),
      (e) => {
        if (!success(e)) return mustAnswer ? { id: 'items.fetch.shape', problem: `${what}: answered ${e.status}, want 200` } : null
        const items = itemsOf(e)
        if (!items) return { id: 'items.fetch.shape', problem: `${what}: want {totalCount, items}, got ${show(e.json)}` }
        if (items.length > this.size) return { id: 'items.fetch.size', problem: `${what}: ${items.length} items, want at most size ${this.size}` }
        const asc = inRange.slice(this.offset, this.offset + this.size)
        const gotRefs = items.map(refOf).join()
        // Item time precision is not stated: items published within a second may tie, and then which of them a
        // page holds is the server's choice. Such a page is judged by its size and that its items are in range.
        if (!provablyOrdered(x, inRange) && page.length < inRange.length) {
          const p = compareItems(x, slot, items, [], { ordered: false, missingClause: 'items.fetch.range' })
          const foreign = items.map(refOf).filter((r) => !r || !inRange.includes(r))
          if (foreign.length && p) return { id: p.id, problem: `${what}: ${p.problem}` }
          return items.length === page.length
            ? null
            : {
                id: this.offset > 0 ? 'items.fetch.offset' : 'items.fetch.size',
                problem: `${what}: ${items.length} items, want ${page.length} (${inRange.length} in range, offset ${this.offset}, size ${this.size})`,
              }
        }
        if (this.order === 'DESC' && provablyOrdered(x, inRange) && gotRefs !== page.join() && gotRefs === asc.join())
          return { id: 'items.fetch.order', problem: `${what}: refs ${show(items.map(refOf))} are the ASC page, want the DESC page ${show(page)}` }
        const p = compareItems(x, slot, items, page, {
          ordered: true,
          missingClause: this.offset > 0 ? 'items.fetch.offset' : this.window === 'all' ? 'items.fetch.range' : 'items.fetch.range',
        })
        return p ? { id: p.id, problem: `${what}: ${p.problem}` } : null
      },
    )
    if (problem) x.must(false, problem.id, problem.problem, ex)
    if (!success(ex)) return noServerError(x, ex, 'items.fetch.shape', what)
    schema(x, ex, 'items-page', 'items.fetch.shape', what)
    const total = (ex.json as { totalCount?: unknown }).totalCount
    if (inRange.length !== page.length && (total === inRange.length || total === page.length))
      x.shared.learned.hold('fetch totalCount counts', total === inRange.length ? 'the range before paging' : 'the page')
    learnIds(x, slot, itemsOf(ex)!)
  }
}

/** Ids to ask for: the channel's current and removed items, another channel's, and one the server never made. */
type IdPick = { kind: 'item'; n: number } | { kind: 'foreign'; n: number } | { kind: 'unknown' }
const idPickArb = fc.array(
  fc.oneof(
    { arbitrary: fc.nat({ max: 9 }).map((n): IdPick => ({ kind: 'item', n })), weight: 6 },
    { arbitrary: fc.nat({ max: 9 }).map((n): IdPick => ({ kind: 'foreign', n })), weight: 1 },
    { arbitrary: fc.constant<IdPick>({ kind: 'unknown' }), weight: 1 },
  ),
  { minLength: 1, maxLength: 4 },
)

function pickIds(x: Exec, slot: Slot, picks: IdPick[]): { ids: string[]; refs: (string | null)[] } {
  const own = [...x.refs.entries()].filter(([, i]) => i.slot === slot.index && i.itemId)
  const foreign = [...x.refs.entries()].filter(([, i]) => i.slot !== slot.index && i.itemId)
  const ids: string[] = []
  const refs: (string | null)[] = []
  for (const p of picks) {
    const pool = p.kind === 'item' ? own : p.kind === 'foreign' ? foreign : []
    if (pool.length && p.kind !== 'unknown') {
      const [ref, info] = pool[p.n % pool.length]!
      ids.push(info.itemId!)
      refs.push(ref)
    } else {
      ids.push(`${'0'.repeat(24)}${x.prefix.slice(-4)}dead`)
      refs.push(null)
    }
  }
  return { ids, refs }
}

class GetByIds extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly picks: IdPick[],
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    return slotOf(m as Exec, this.slot).channel !== null
  }
  toString(): string {
    return `${this.by} gets items of s${this.slot} by ids ${this.picks.map((p) => (p.kind === 'unknown' ? 'unknown' : `${p.kind}#${p.n}`)).join(',')}`
  }
  async exec(x: Exec): Promise<void> {
    await patiently(x, () => this.once(x))
  }
  private async once(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel!
    const reach = reachOf(slot, this.by, 'plain')
    const { ids, refs } = pickIds(x, slot, this.picks)
    const what = `${this.by} GET ${slot.name}/items?id=${ids.join('&id=')}`
    const current = new Set(ch.items.map((i) => i.ref))
    const want = [...new Set(refs.filter((r): r is string => r !== null && current.has(r)))]
    const allCurrent = refs.every((r) => r !== null && current.has(r))
    if (reach === 'none') {
      const ex = await x.call(this.by, (api) => api.getItems(slot.name, ids))
      const items = itemsOf(ex)
      if (items?.length) x.must(false, 'private.plain-name-not-shared', `${what}: ${items.length} item(s) of ${ch.owner}'s private channel`, ex)
      return noServerError(x, ex, 'items.get.shape', what)
    }
    const mustAnswer = reach === 'reach' && this.by === ch.owner && allCurrent
    const { ex, problem } = await settle(
      x,
      () => x.call(this.by, (api) => api.getItems(slot.name, ids)),
      (e) => {
        if (!success(e)) return mustAnswer ? { id: 'items.get.by-ids', problem: `${what}: answered ${e.status}, want 200 (every id is a stored item)` } : null
        const items = itemsOf(e)
        if (!items) return { id: 'items.get.shape', problem: `${what}: want {totalCount, items}, got ${show(e.json)}` }
        // Order and repeats are not stated: compared as sets.
        const distinct = items.filter((it, i) => items.findIndex((o) => refOf(o) === refOf(it)) === i)
        // Unknown ids are not shown (§4.2): with one asked for, an empty page (all or nothing) is a reading too.
        if (!allCurrent && items.length === 0) return null
        const p = compareItems(x, slot, distinct, want, { ordered: false, missingClause: 'items.get.by-ids' })
        return p ? { id: p.id, problem: `${what}: ${p.problem}` } : null
      },
    )
    if (problem) x.must(false, problem.id, problem.problem, ex)
    if (!success(ex)) {
      x.shared.learned.hold('get items by ids with an id not in the channel', `refused (${ex.status})`)
      return noServerError(x, ex, 'items.get.shape', what)
    }
    if (!allCurrent && want.length > 0 && itemsOf(ex)?.length === 0) {
      // No item at all is the all-or-nothing reading; then the same ids asked with the stored ones first give none
      // either. Items there would mean the answer depends on the order of the ids (one dropped for its place).
      const isCurrent = (i: number) => refs[i] !== null && current.has(refs[i]!)
      const reordered = [...ids.filter((_, i) => isCurrent(i)), ...ids.filter((_, i) => !isCurrent(i))]
      const again = await x.call(this.by, (api) => api.getItems(slot.name, reordered))
      const got = itemsOf(again)
      x.must(
        !got?.length,
        'items.get.by-ids',
        `${what}: no item, but ${got?.length} item(s) (refs ${show(got?.map(refOf))}) for the same ids with the stored ones first (?id=${reordered.join('&id=')}): which items come back depends on the order of the ids`,
        again,
      )
    }
    if (!allCurrent && want.length > 0)
      x.shared.learned.hold(
        'get items by ids with an id not in the channel',
        itemsOf(ex)?.length === 0 ? 'answered with no item at all' : 'answered, the id left out',
      )
    schema(x, ex, 'items-page', 'items.get.shape', what)
  }
}

class DeleteByIds extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly picks: IdPick[],
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    return slotOf(m as Exec, this.slot).channel !== null
  }
  toString(): string {
    return `${this.by} deletes items of s${this.slot} by ids ${this.picks.map((p) => (p.kind === 'unknown' ? 'unknown' : `${p.kind}#${p.n}`)).join(',')}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel!
    const { ids, refs } = pickIds(x, slot, this.picks)
    const what = `${this.by} DELETE ${slot.name}/items?id=${ids.join('&id=')}`
    const current = new Set(ch.items.map((i) => i.ref))
    const allCurrent = refs.every((r) => r !== null && current.has(r))
    const ex = await x.call(this.by, (api) => api.deleteItems(slot.name, ids))
    const byOwner = this.by === ch.owner && !ch.private
    const ownerPrivate = this.by === ch.owner && ch.private
    if (!success(ex)) {
      if ((byOwner || ownerPrivate) && allCurrent) ok(x, ex, 'items.delete.result', what)
      return noServerError(x, ex, 'items.delete.result', what)
    }
    if (reachOf(slot, this.by, 'plain') !== 'none') {
      const body = schema<Record<string, unknown>>(x, ex, 'delete-items-result', 'items.delete.result', what)
      const asked = [...new Set(ids)]
      const keys = Object.keys(body)
      x.must(
        asked.every((id) => keys.includes(id)) && keys.every((k) => asked.includes(k)),
        'items.delete.result',
        `${what}: keys ${show(keys)}, want one per id asked ${show(asked)}`,
        ex,
      )
      x.must(
        keys.every((k) => Number.isInteger(body[k])),
        'items.delete.result',
        `${what}: values ${show(Object.values(body))}, want integer status codes`,
        ex,
      )
    }
    if (this.by === ch.owner) {
      for (const r of refs) if (r && current.has(r)) x.refs.get(r)!.fate = 'deleted'
      ch.items = ch.items.filter((i) => !refs.includes(i.ref))
      await verifyItems(x, slot, `after ${what}`, 'items.delete.removes')
      return
    }
    // Another user's delete: the spec does not say who may delete items by id. Read back: only items asked for may be gone.
    const { ex: read } = await settle(
      x,
      () => x.call(ch.owner, (api) => api.fetchItems(slot.name, wide())),
      () => null,
    )
    const items = itemsOf(read)
    if (!items) return
    const kept = new Set(items.map(refOf))
    const lost = ch.items.filter((i) => !kept.has(i.ref) && !refs.includes(i.ref))
    x.must(
      lost.length === 0,
      reachOf(slot, this.by, 'plain') === 'none' ? 'private.plain-name-not-shared' : 'items.delete.removes',
      `${what} answered ${ex.status}, and items ${show(lost.map((i) => i.ref))} that were not asked for are gone`,
      read,
    )
    for (const it of ch.items) if (!kept.has(it.ref)) x.refs.get(it.ref)!.fate = 'deleted'
    ch.items = ch.items.filter((i) => kept.has(i.ref))
    await verifyItems(x, slot, `after ${what}`)
  }
}

class DeleteAllItems extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    public personal: boolean | undefined,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} deletes all items of s${this.slot}${this.personal === undefined ? '' : ` (personal=${this.personal})`}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const what = `${this.by} DELETE ${slot.name}/items/all${this.personal === undefined ? '' : `?personal=${this.personal}`}`
    const ex = await x.call(this.by, (api) => api.deleteAllItems(slot.name, this.personal))
    if (!ch) return noServerError(x, ex, 'items.delete-all.status', what)
    if (this.by !== ch.owner) {
      if (!ch.private) refused(x, ex, 'items.delete-all.owner-only', `${what} (${ch.owner}'s channel)`)
      else noServerError(x, ex, 'items.delete-all.owner-only', what)
      // Nothing of the owner's may be gone (the next reads judge it; read now to pin it to this step).
      if (ch.items.length)
        await verifyItems(x, slot, `after ${what} answered ${ex.status}`, ch.private ? 'private.plain-name-not-shared' : 'items.delete-all.owner-only')
      return
    }
    if (personalMatches(ch, this.personal)) {
      x.must(ex.status === 200, 'items.delete-all.status', `${what}: answered ${ex.status}, want 200`, ex)
      for (const it of ch.items) x.refs.get(it.ref)!.fate = 'deleted-all'
      ch.items = []
      await verifyItems(x, slot, `after ${what}`)
      return
    }
    noServerError(x, ex, 'items.delete-all.status', what)
    if (!success(ex)) return
    const { ex: read } = await settle(
      x,
      () => x.call(ch.owner, (api) => api.fetchItems(slot.name, wide())),
      () => null,
    )
    const items = itemsOf(read)
    if (items && items.length === 0) {
      for (const it of ch.items) x.refs.get(it.ref)!.fate = 'deleted-all'
      ch.items = []
    }
    await verifyItems(x, slot, `after ${what}`)
  }
}

/** The items commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function itemCommands(): Weighted[] {
  return [
    weighted(
      fc.tuple(slotArb, actorArb, addrArb, contentArb).map(([s, by, a, c]) => acting(new Publish(s, 'A', a, c), by)),
      8,
    ),
    weighted(
      fc
        .tuple(
          slotArb,
          actorArb,
          addrArb,
          fc.constantFrom<Window>('all', 'all', 'all', 'future', 'past'),
          fc.constantFrom<'ASC' | 'DESC'>('ASC', 'DESC'),
          fc.constantFrom(0, 0, 0, 1, 2, 3, 7),
          fc.constantFrom(1, 1, 2, 3, 5, 50),
        )
        .map(([s, by, a, wd, o, off, z]) => acting(new Fetch(s, 'A', a, wd, o, off, z), by)),
      4,
    ),
    weighted(
      fc
        .tuple(slotArb, fc.constantFrom<Actor>('owner', 'owner', 'owner', 'other', 'A', 'B', 'C'), fc.integer({ min: 2, max: 4 }))
        .map(([s, by, n]) => acting(new Burst(s, 'A', n), by)),
      2,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, idPickArb).map(([s, by, p]) => acting(new GetByIds(s, 'A', p), by)),
      2,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, idPickArb).map(([s, by, p]) => acting(new DeleteByIds(s, 'A', p), by)),
      2,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, personalArb).map(([s, by, p]) => acting(withPersonal(new DeleteAllItems(s, 'A', undefined), p), by)),
      1,
    ),
  ]
}
