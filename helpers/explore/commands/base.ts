/**
 * What every explore command shares: the base class (a fast-check AsyncCommand that resolves its actor, counts
 * its step and runs), the generators of slots, actors, addresses, tags, texts and contents, and the small
 * helpers the commands of several areas use. The commands themselves are in the file of their spec area.
 */
import fc from 'fast-check'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import { ACCOUNT_KEYS, type AccountKey } from '../../config/config'
import type { Addr, ListProblem } from '../judge'
import { Exec, Finding, type ModelChannel, type Slot, success } from '../state'
import { TEXT_CLASSES, type TextClassId } from '../../spec/models'

export const SLOTS = 2

/** One command arbitrary and how often it is drawn, as fc.oneof takes it. */
export type Weighted = fc.WeightedArbitrary<fc.AsyncCommand<Exec, Exec>>
export const weighted = <T extends fc.AsyncCommand<Exec, Exec>>(arbitrary: fc.Arbitrary<T>, weight: number): Weighted => ({ arbitrary, weight })
/**
 * A publish sent this long after a summary read that showed lastPublishedTime below the second must carry a later
 * time (clocks that tick coarser than a millisecond included); publishes wait for it, so a stuck value shows.
 */
export const PUBLISHED_FINE_MS = 50
/** When a publish to `ch` may leave: 3 ms after the last one (distinct times at millisecond precision), and PUBLISHED_FINE_MS after a fine summary read. */
export const publishGap = (ch: ModelChannel): number =>
  Math.max(ch.lastPublishAt + 3, ch.lastPublishedSeen?.fine ? ch.lastPublishedSeen.readAt + PUBLISHED_FINE_MS + 1 : 0) - Date.now()

// ── generators ─────────────────────────────────────────────────────────────────────────────────────

export const account = fc.constantFrom<AccountKey>('A', 'B', 'C')
/** Who acts: an account, or a role resolved when the step runs (the owner, another user, a subscriber who is not the owner). */
export type Actor = AccountKey | 'owner' | 'other' | 'subscriber'
export const actorArb = fc.constantFrom<Actor>('owner', 'owner', 'other', 'subscriber', 'A', 'B', 'C')
/** Sets the actor of a slot command: resolved to an account when the step runs. */
export const acting = <T extends Cmd>(cmd: T, actor: Actor): T => {
  cmd.actor = actor
  return cmd
}
export const slotArb = fc.nat({ max: SLOTS - 1 })
export const addrArb = fc.constantFrom<Addr>('plain', 'plain', 'hash')
/** 'match': the `personal` that names the channel's own kind (true for a private one), chosen when the step runs. */
export const personalArb = fc.constantFrom<boolean | undefined | 'match'>('match', 'match', 'match', undefined, true, false)
export const withPersonal = <T extends Cmd & { personal: boolean | undefined }>(cmd: T, p: boolean | undefined | 'match'): T => {
  if (p === 'match') cmd.personalMatch = true
  else cmd.personal = p
  return cmd
}
export const PLAIN = /^[a-z0-9 ]*$/

/**
 * Tags: plain ones every server must take, and others ('.', '_', unicode, '%') it may refuse. Some are the
 * prefix of another, and 'a_b' is 'a-b' with '_' (a pattern's wildcard) in place of '-'.
 */
/** The input model's classes of text (helpers/spec/models.ts), around a fixed token, short enough for a URL. */
const MODEL_TEXTS = (Object.keys(TEXT_CLASSES) as TextClassId[]).filter((k) => k !== 'long-20000').map((k) => TEXT_CLASSES[k].value('ex'))
export const TAGS = ['red', 'green', 'green7', 't-1', 'a-b', 'a_b', 'x.y', 'ünï', '50%', ...MODEL_TEXTS] as const
export const plainTag = (t: string): boolean => /^[a-z0-9-]+$/.test(t)
export const tagsArb = fc.oneof(
  { arbitrary: fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3, size: 'max' }), weight: 3 },
  // Families: a tag and one it is the prefix of; twins that differ in '_' and '-'.
  { arbitrary: fc.constantFrom<string[]>(['green', 'green7'], ['a-b', 'a_b'], ['red', 'green', 'green7']), weight: 1 },
)

export const textArb = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z0-9 ]{0,16}$/), weight: 3 },
  {
    arbitrary: fc.constantFrom('', ' padded ', '%41%2F%zz', 'a+b&c=d', '<b>&amp;</b>', '"q" \\ /', 'ünïcødé ✓', '你好 🚀', '007', 'line\nbreak\ttab'),
    weight: 2,
  },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 },
  // Not the 300 characters: a description limit is the server's to set (the model expects a create to be taken).
  { arbitrary: fc.constantFrom(...MODEL_TEXTS.filter((t) => t.length <= 255)), weight: 1 },
)
export const descriptionArb = fc.option(textArb, { nil: undefined })
/** Content: string values (the spec's key/value pairs); keys beyond the plain ones may be refused. */
export const contentArb = fc.dictionary(fc.constantFrom('text', 'title', 'k.dot', 'ü', '$x', 'a b'), textArb, { minKeys: 1, maxKeys: 3 })
export const plainContent = (c: Record<string, string>): boolean => Object.entries(c).every(([k, v]) => (k === 'text' || k === 'title') && PLAIN.test(v))

// ── the base of every command ──────────────────────────────────────────────────────────────────────

export abstract class Cmd implements fc.AsyncCommand<Exec, Exec> {
  abstract readonly slot: number | null
  check(m: Readonly<Exec>): boolean {
    return m.inconclusive === null && (this.slot === null || !m.slots[this.slot]!.tainted) && this.applies(m)
  }
  applies(_m: Readonly<Exec>): boolean {
    return true
  }
  /** 'owner': the account that owns the slot's channel when the step runs (owner-only paths are reached far more often). */
  actor: Actor | null = null
  personalMatch = false
  async run(m: Exec): Promise<void> {
    if (this.personalMatch && this.slot !== null)
      (this as unknown as { personal: boolean | undefined }).personal = m.slots[this.slot]!.channel?.private ? true : undefined
    if (this.actor !== null && this.slot !== null) (this as unknown as { by: AccountKey }).by = resolveActor(m, m.slots[this.slot]!, this.actor)
    m.step++
    m.shared.steps++
    m.stepTitles.push(this.toString())
    await this.exec(m)
  }
  abstract exec(x: Exec): Promise<void>
  abstract toString(): string
}

export const slotOf = (x: Exec, i: number): Slot => x.slots[i]!

/** The account an actor stands for when the step runs. */
export function resolveActor(m: Exec, slot: Slot, actor: Actor): AccountKey {
  const owner = slot.channel?.owner ?? [...slot.owners].find((o): o is AccountKey => o !== null) ?? 'A'
  const other = ACCOUNT_KEYS[(ACCOUNT_KEYS.indexOf(owner) + 1 + (m.step % 2)) % 3]!
  const subscriber = [...(slot.channel?.subscribers ?? [])].find((k) => k !== owner) ?? other
  return actor === 'owner' ? owner : actor === 'other' ? other : actor === 'subscriber' ? subscriber : actor
}

/**
 * Runs a read and its judgement again while it finds something and the poll time lasts: a deployment may
 * show a write (or a delete) a moment late. Only for reads that change nothing in the model before judging.
 */
export async function patiently(x: Exec, read: () => Promise<void>): Promise<void> {
  const deadline = Date.now() + x.shared.pollMs
  let wait = 25
  for (;;) {
    try {
      return await read()
    } catch (err) {
      if (!(err instanceof Finding) || Date.now() >= deadline) throw err
    }
    await new Promise((r) => setTimeout(r, wait))
    wait = Math.min(wait * 2, 400)
  }
}

/**
 * Reads the owner's tags and adopts them: after a change the model could not predict (another caller's, or an
 * open `personal`). Read again while the view does not show the change (`applied`) and the poll time lasts: a
 * deployment may show an accepted change a moment late, and a stale view adopted would make a later read look wrong.
 */
export async function adoptTags(
  x: Exec,
  slot: Slot,
  check: (tags: Set<string>) => string | null,
  id: ClauseId,
  why: string,
  applied: (tags: Set<string>) => boolean = () => true,
): Promise<void> {
  const ch = slot.channel!
  const deadline = Date.now() + x.shared.pollMs
  let ex: Exchange
  let seen: Set<string>
  for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
    ex = await x.call(ch.owner, (api) => api.getTags(slot.name))
    const tags = (ex.json as { tags?: unknown } | undefined)?.tags
    if (!success(ex) || !Array.isArray(tags)) {
      ch.tagsUnknown = true
      return
    }
    seen = new Set(tags.filter((t): t is string => typeof t === 'string'))
    if (applied(seen) || Date.now() >= deadline) break
    await new Promise((r) => setTimeout(r, wait))
  }
  const problem = check(seen)
  x.must(!problem, id, `${why}: ${problem}`, ex)
  ch.tags = seen
  ch.tagsUnknown = false
}

/** Reads the channel with the owner's plain name: does it still exist? */
export async function stillThere(x: Exec, slot: Slot): Promise<{ there: boolean; ex: Exchange }> {
  // Polled while it looks gone: a channel made a moment ago may not show yet on a lagging deployment.
  const deadline = Date.now() + x.shared.pollMs
  for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
    const ex = await x.call(slot.channel!.owner, (api) => api.getChannel(slot.name))
    const there = success(ex) && sameName((ex.json as { name?: unknown } | undefined)?.name, slot.name)
    if (there || Date.now() >= deadline) return { there, ex }
    await new Promise((r) => setTimeout(r, wait))
  }
}

export const sameName = (v: unknown, name: string): boolean => typeof v === 'string' && v.toLowerCase() === name.toLowerCase()

export function dropChannel(x: Exec, slot: Slot): void {
  const ch = slot.channel!
  for (const it of ch.items) {
    const info = x.refs.get(it.ref)
    if (info) info.fate = 'old-channel'
  }
  x.shared.ledger.deleted(slot.name, ch.owner, ch.private)
  for (const t of ch.tags) slot.previous.tags.add(t)
  for (const k of ch.subscribers) slot.previous.subscribers.add(k)
  slot.channel = null
  slot.history++
}

/**
 * A read made again until its answer has not changed for the stable time (a fifth of the poll time) or the poll
 * time is over, then judged again: where several outcomes were allowed (publishes to a full channel, racing
 * subscribes) a lagging replica may show a state before or between the writes that is one of them, and a stale
 * view adopted would make a later read look wrong. Returns the last answer.
 */
export async function steadyView(
  x: Exec,
  read: () => Promise<Exchange>,
  first: Exchange,
  viewOf: (e: Exchange) => string | null,
  judge: (e: Exchange) => ListProblem | null,
  what: string,
): Promise<Exchange> {
  const stable = Math.round(x.shared.pollMs / 5)
  const deadline = Date.now() + x.shared.pollMs
  let answer = first
  let last = viewOf(answer)
  let since = Date.now()
  while (Date.now() - since < stable && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.max(10, Math.min(200, stable / 3))))
    const again = await read()
    const view = viewOf(again)
    if (view === null) break
    if (view !== last) {
      last = view
      since = Date.now()
    }
    answer = again
  }
  const problem = judge(answer)
  if (problem) x.must(false, problem.id, `${what}: ${problem.problem}`, answer)
  return answer
}
