/**
 * Judgements shared by the explore commands: status and schema, addressing (which caller reaches which
 * channel by which name, §2.3), and the comparison of a list of items with the model's.
 */
import type { Api, FetchParams } from '../http/api'
import type { Exchange } from '../http/client'
import type { ClauseId } from '../spec/clauses'
import type { AccountKey } from '../config/config'
import { show } from '../kit/expect'
import { checkSchema, formatProblems, type SchemaName } from '../spec/schemas'
import { Exec, serverError, success, type Caller, type ModelChannel, type RefFate, type Slot } from './state'
import { aroundNow } from '../kit/window'

export type Addr = 'plain' | 'hash'
/** reach: the spec says the caller reaches the channel; none: it must not; hash-other: another user's `#` form (get must resolve: a 2xx, or a refusal other than 404 and 400; other operations are the server's choice); open: the spec does not say. */
export type Reach = 'reach' | 'none' | 'hash-other' | 'open'

/** Every item a sequence publishes: a window near the server's now (a server may refuse one reaching far back). */
export const wide = (): FetchParams => aroundNow({ size: 50 })

export function addressOf(x: Exec, slot: Slot, addr: Addr): string {
  if (addr === 'plain') return slot.name
  const owner = slot.channel?.owner ?? 'A'
  return `${x.userId(owner)}#${slot.name}`
}

export function reachOf(slot: Slot, by: AccountKey, addr: Addr): Reach {
  const ch = slot.channel
  if (!ch) return 'none'
  if (!ch.private) return addr === 'plain' ? 'reach' : 'open'
  if (by === ch.owner) return addr === 'plain' ? 'reach' : 'open'
  return addr === 'plain' ? 'none' : 'hash-other'
}

/** `personal` as the spec means it: true addresses the caller's own private channel, false/absent a public one. */
export const personalMatches = (ch: ModelChannel, personal: boolean | undefined): boolean => (ch.private ? personal === true : personal !== true)

export function ok(x: Exec, ex: Exchange, id: ClauseId, what: string): void {
  x.must(success(ex), id, `${what}: answered ${ex.status}, want 2xx`, ex)
}

export function refused(x: Exec, ex: Exchange, id: ClauseId, what: string): void {
  x.must(!success(ex), id, `${what}: answered ${ex.status}, want a refusal (not 2xx)`, ex)
  noServerError(x, ex, id, what)
}

/** Where the spec allows a refusal, a 5xx is still not one the server meant: a warning (SHOULD). */
export function noServerError(x: Exec, ex: Exchange, id: ClauseId, what: string): void {
  x.should(!serverError(ex), id, 'server-error', `${what}: answered ${ex.status} (a server error, not a refusal)`, ex)
}

export function schema<T>(x: Exec, ex: Exchange, name: SchemaName, id: ClauseId, what: string): T {
  const problems = checkSchema(name, ex.json).filter((p) => p.level === 'MUST')
  x.must(
    ex.json !== undefined && problems.length === 0,
    id,
    () => `${what}: the body is not a ${name}:\n${ex.json === undefined ? `not JSON (${ex.jsonError ?? ''})` : formatProblems(problems)}`,
    ex,
  )
  return ex.json as T
}

const FATE_CLAUSE: Record<RefFate, ClauseId> = {
  stored: 'items.fetch.range',
  refused: 'items.fetch.range',
  deleted: 'items.delete.removes',
  evicted: 'items.max-items',
  'deleted-all': 'items.delete-all.empties',
  'old-channel': 'channels.delete.removes',
}

interface WireItem {
  itemId?: unknown
  publisher?: { userId?: unknown }
  content?: Record<string, unknown>
}

export const refOf = (item: unknown): string | undefined => {
  const ref = (item as WireItem | null)?.content?.ref
  return typeof ref === 'string' ? ref : undefined
}

/** Publishes further apart than this have distinct times at any precision a timestamp commonly has. */
const ORDER_APART_MS = 1100

/** Whether the publishes of two refs were provably more than a second apart (so their times differ at any precision). */
export function publishedApart(x: Exec, a: string, b: string): boolean {
  const [ia, ib] = [x.refs.get(a), x.refs.get(b)]
  if (ia?.answeredAt === undefined || ib?.sentAt === undefined || ib.answeredAt === undefined || ia.sentAt === undefined) return false
  return ib.sentAt - ia.answeredAt > ORDER_APART_MS || ia.sentAt - ib.answeredAt > ORDER_APART_MS
}

export interface ListProblem {
  id: ClauseId
  problem: string
}

/**
 * Compares items answered for `slot` with the refs the model expects, in that order. `ordered` false: as
 * sets. `partial`: the answer may hold fewer (a page). Returns the first problem, or null.
 */
export function compareItems(
  x: Exec,
  slot: Slot,
  items: unknown[],
  want: string[],
  opts: { ordered: boolean; orderClause?: ClauseId; missingClause: ClauseId },
): ListProblem | null {
  const ch = slot.channel
  const got = items.map(refOf)
  for (let i = 0; i < items.length; i++) {
    const ref = got[i]
    const info = ref ? x.refs.get(ref) : undefined
    if (!ref || !info) return { id: 'items.fetch.range', problem: `/items/${i}: an item this run never published (${show(items[i])})` }
    const current = info.slot === slot.index && ch?.items.some((it) => it.ref === ref)
    if (!current) {
      const fate = info.slot !== slot.index ? 'stored' : info.fate
      // An old channel's item in the channel created again under its name: the new channel is not fresh.
      const id =
        info.slot !== slot.index
          ? 'items.get.by-ids'
          : info.fate === 'refused'
            ? (info.clause ?? FATE_CLAUSE.refused)
            : fate === 'old-channel' && ch
              ? 'channels.delete.recreate-fresh'
              : FATE_CLAUSE[fate]
      const why =
        info.slot !== slot.index
          ? `it was published to another channel (${x.slots[info.slot]!.name})`
          : `it was ${info.fate === 'old-channel' ? 'in an earlier channel of this name, deleted since' : info.fate === 'refused' ? 'refused at publish' : info.fate}`
      return { id, problem: `/items/${i}: item with content.ref ${ref} came back, but ${why}` }
    }
  }
  const missing = want.filter((r) => !got.includes(r))
  if (missing.length)
    return { id: opts.missingClause, problem: `items with content.ref ${show(missing)} are missing; got refs ${show(got)}, want ${show(want)}` }
  if (got.length !== want.length) return { id: opts.missingClause, problem: `got ${got.length} items (refs ${show(got)}), want ${want.length} (${show(want)})` }
  if (opts.ordered && got.join(',') !== want.join(',')) {
    // Item time precision is not stated: items published within a second of each other may carry one time and
    // come back in either order. Only pairs whose publishes were provably more than a second apart are judged.
    const apart = (a: string, b: string): boolean => publishedApart(x, a, b)
    for (let p = 0; p < want.length; p++) {
      for (let q = p + 1; q < want.length; q++) {
        if (apart(want[p]!, want[q]!) && got.indexOf(want[p]!) > got.indexOf(want[q]!)) {
          return {
            id: opts.orderClause ?? 'items.fetch.order',
            problem: `order of refs: got ${show(got)}, want ${show(want)} (publish order, oldest first, is ${show(ch?.items.map((i) => i.ref))}; ${want[p]} and ${want[q]} were published more than a second apart)`,
          }
        }
      }
    }
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as WireItem
    const model = ch!.items.find((it) => it.ref === got[i])!
    const diff = contentDiff(item.content, model.content)
    if (diff) return { id: 'items.content-intact', problem: `/items/${i}/content${diff}` }
    if (item.publisher?.userId !== x.userId(model.publisher))
      return {
        id: 'items.publisher',
        problem: `/items/${i}/publisher/userId: got ${show(item.publisher?.userId)}, want ${model.publisher}'s ${show(x.userId(model.publisher))}`,
      }
  }
  return null
}

function contentDiff(got: Record<string, unknown> | undefined, want: Record<string, string>): string | null {
  if (!got || typeof got !== 'object') return `: got ${show(got)}, want ${show(want)}`
  for (const [k, v] of Object.entries(want)) if (got[k] !== v) return `/${k}: got ${show(got[k])}, want ${show(v)}`
  const extra = Object.keys(got).filter((k) => !(k in want))
  return extra.length ? `: keys ${show(extra)} were not published` : null
}

/** Learns item ids from an answer (the spec never says publish's messageId is the itemId, so ids come from reads). */
export function learnIds(x: Exec, slot: Slot, items: unknown[]): void {
  for (const item of items) {
    const ref = refOf(item)
    const id = (item as WireItem).itemId
    if (!ref || typeof id !== 'string') continue
    const m = slot.channel?.items.find((it) => it.ref === ref)
    if (m && m.itemId === null) {
      m.itemId = id
      const info = x.refs.get(ref)
      if (info) info.itemId = id
    }
  }
}

export const itemsOf = (ex: Exchange): unknown[] | null => {
  const items = (ex.json as { items?: unknown } | undefined)?.items
  return success(ex) && Array.isArray(items) ? items : null
}

/** Polls a read until `judge` finds nothing wrong or the poll time is over; returns the last answer and problem. */
export async function settle(
  x: Exec,
  read: () => Promise<Exchange>,
  judge: (ex: Exchange) => ListProblem | null,
): Promise<{ ex: Exchange; problem: ListProblem | null }> {
  const deadline = Date.now() + x.shared.pollMs
  let wait = 25
  for (;;) {
    const ex = await read()
    const problem = judge(ex)
    if (!problem || Date.now() >= deadline) return { ex, problem }
    await new Promise((r) => setTimeout(r, wait))
    wait = Math.min(wait * 2, 400)
  }
}

/** The owner's full view of a channel's items, polled until it agrees with the model; a finding if it never does. */
export async function verifyItems(x: Exec, slot: Slot, why: string, missing: ClauseId | 'after-publish' = 'items.fetch.range'): Promise<unknown[]> {
  const ch = slot.channel!
  const want = ch.items.map((i) => i.ref)
  const { ex, problem } = await settle(
    x,
    () => x.call(ch.owner, (api: Api) => api.fetchItems(slot.name, wide())),
    (e) => {
      const items = itemsOf(e)
      if (!items) return { id: 'items.fetch.shape', problem: `fetch answered ${e.status} without an items array` }
      // Items gone from the oldest end of an unlimited channel: it was trimmed as if it had a maxItems.
      const got = new Set(items.map(refOf))
      const trimmed = missing === 'after-publish' && ch.maxItems <= 0 && want.length > 0 && !got.has(want[0]!)
      return compareItems(x, slot, items, want, {
        ordered: true,
        missingClause: trimmed ? 'items.max-items.unlimited' : missing === 'after-publish' ? 'items.fetch.range' : missing,
      })
    },
  )
  if (problem) x.must(false, problem.id, `${why}: owner ${ch.owner}'s fetch of ${slot.name} (ASC, every date): ${problem.problem}`, ex)
  const items = itemsOf(ex) ?? []
  learnIds(x, slot, items)
  return items
}

export const callerName = (c: Caller): string => (c === 'anon' ? 'anonymous' : c)
