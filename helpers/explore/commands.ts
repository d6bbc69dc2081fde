/**
 * The operations the explore run draws from, one fast-check AsyncCommand each, over every endpoint of §4 by
 * accounts A, B, C and an anonymous caller. Each command predicts from the model what the spec requires
 * (success or refusal, counts, contents, order, visibility), sends the request, judges the answer and
 * updates the model. Where the spec leaves the answer open the command accepts every allowed answer and,
 * when the model can no longer know the state, reads it back (the owner's view) before going on.
 */
import fc from 'fast-check'
import type { Api, CreateChannelBody } from '../http/api'
import type { Exchange } from '../http/client'
import type { ClauseId } from '../spec/clauses'
import { ACCOUNT_KEYS, type AccountKey } from '../config/config'
import { show } from '../kit/expect'
import { checkSchema, formatProblems } from '../spec/schemas'
import {
  addressOf,
  callerName,
  compareItems,
  itemsOf,
  learnIds,
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
  type Addr,
  type ListProblem,
} from './judge'
import { Exec, Finding, success, type Caller, type ModelChannel, type Permission, type Slot } from './state'
import { serverTime, WINDOW_MARGIN_MS } from '../kit/window'
import { TEXT_CLASSES, type TextClassId } from '../spec/models'

export const SLOTS = 2
/**
 * A publish sent this long after a summary read that showed lastPublishedTime below the second must carry a later
 * time (clocks that tick coarser than a millisecond included); publishes wait for it, so a stuck value shows.
 */
const PUBLISHED_FINE_MS = 50
/** When a publish to `ch` may leave: 3 ms after the last one (distinct times at millisecond precision), and PUBLISHED_FINE_MS after a fine summary read. */
const publishGap = (ch: ModelChannel): number =>
  Math.max(ch.lastPublishAt + 3, ch.lastPublishedSeen?.fine ? ch.lastPublishedSeen.readAt + PUBLISHED_FINE_MS + 1 : 0) - Date.now()

// ── generators ─────────────────────────────────────────────────────────────────────────────────────

const account = fc.constantFrom<AccountKey>('A', 'B', 'C')
/** Who acts: an account, or a role resolved when the step runs (the owner, another user, a subscriber who is not the owner). */
type Actor = AccountKey | 'owner' | 'other' | 'subscriber'
const actorArb = fc.constantFrom<Actor>('owner', 'owner', 'other', 'subscriber', 'A', 'B', 'C')
/** Sets the actor of a slot command: resolved to an account when the step runs. */
const acting = <T extends Cmd>(cmd: T, actor: Actor): T => {
  cmd.actor = actor
  return cmd
}
const slotArb = fc.nat({ max: SLOTS - 1 })
const addrArb = fc.constantFrom<Addr>('plain', 'plain', 'hash')
/** 'match': the `personal` that names the channel's own kind (true for a private one), chosen when the step runs. */
const personalArb = fc.constantFrom<boolean | undefined | 'match'>('match', 'match', 'match', undefined, true, false)
const withPersonal = <T extends Cmd & { personal: boolean | undefined }>(cmd: T, p: boolean | undefined | 'match'): T => {
  if (p === 'match') cmd.personalMatch = true
  else cmd.personal = p
  return cmd
}
const PLAIN = /^[a-z0-9 ]*$/

/**
 * Tags: plain ones every server must take, and others ('.', '_', unicode, '%') it may refuse. Some are the
 * prefix of another, and 'a_b' is 'a-b' with '_' (a pattern's wildcard) in place of '-'.
 */
/** The input model's classes of text (helpers/spec/models.ts), around a fixed token, short enough for a URL. */
const MODEL_TEXTS = (Object.keys(TEXT_CLASSES) as TextClassId[]).filter((k) => k !== 'long-20000').map((k) => TEXT_CLASSES[k].value('ex'))
const TAGS = ['red', 'green', 'green7', 't-1', 'a-b', 'a_b', 'x.y', 'ünï', '50%', ...MODEL_TEXTS] as const
const plainTag = (t: string): boolean => /^[a-z0-9-]+$/.test(t)
const tagsArb = fc.oneof(
  { arbitrary: fc.uniqueArray(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 3, size: 'max' }), weight: 3 },
  // Families: a tag and one it is the prefix of; twins that differ in '_' and '-'.
  { arbitrary: fc.constantFrom<string[]>(['green', 'green7'], ['a-b', 'a_b'], ['red', 'green', 'green7']), weight: 1 },
)

const textArb = fc.oneof(
  { arbitrary: fc.stringMatching(/^[a-z0-9 ]{0,16}$/), weight: 3 },
  {
    arbitrary: fc.constantFrom('', ' padded ', '%41%2F%zz', 'a+b&c=d', '<b>&amp;</b>', '"q" \\ /', 'ünïcødé ✓', '你好 🚀', '007', 'line\nbreak\ttab'),
    weight: 2,
  },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }), weight: 1 },
  // Not the 300 characters: a description limit is the server's to set (the model expects a create to be taken).
  { arbitrary: fc.constantFrom(...MODEL_TEXTS.filter((t) => t.length <= 255)), weight: 1 },
)
const descriptionArb = fc.option(textArb, { nil: undefined })
/** Content: string values (the spec's key/value pairs); keys beyond the plain ones may be refused. */
const contentArb = fc.dictionary(fc.constantFrom('text', 'title', 'k.dot', 'ü', '$x', 'a b'), textArb, { minKeys: 1, maxKeys: 3 })
const plainContent = (c: Record<string, string>): boolean => Object.entries(c).every(([k, v]) => (k === 'text' || k === 'title') && PLAIN.test(v))

// ── the base of every command ──────────────────────────────────────────────────────────────────────

abstract class Cmd implements fc.AsyncCommand<Exec, Exec> {
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

const slotOf = (x: Exec, i: number): Slot => x.slots[i]!

/** The account an actor stands for when the step runs. */
function resolveActor(m: Exec, slot: Slot, actor: Actor): AccountKey {
  const owner = slot.channel?.owner ?? [...slot.owners].find((o): o is AccountKey => o !== null) ?? 'A'
  const other = ACCOUNT_KEYS[(ACCOUNT_KEYS.indexOf(owner) + 1 + (m.step % 2)) % 3]!
  const subscriber = [...(slot.channel?.subscribers ?? [])].find((k) => k !== owner) ?? other
  return actor === 'owner' ? owner : actor === 'other' ? other : actor === 'subscriber' ? subscriber : actor
}

/**
 * Runs a read and its judgement again while it finds something and the poll time lasts: a deployment may
 * show a write (or a delete) a moment late. Only for reads that change nothing in the model before judging.
 */
async function patiently(x: Exec, read: () => Promise<void>): Promise<void> {
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
async function adoptTags(
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
async function stillThere(x: Exec, slot: Slot): Promise<{ there: boolean; ex: Exchange }> {
  // Polled while it looks gone: a channel made a moment ago may not show yet on a lagging deployment.
  const deadline = Date.now() + x.shared.pollMs
  for (let wait = 25; ; wait = Math.min(wait * 2, 400)) {
    const ex = await x.call(slot.channel!.owner, (api) => api.getChannel(slot.name))
    const there = success(ex) && sameName((ex.json as { name?: unknown } | undefined)?.name, slot.name)
    if (there || Date.now() >= deadline) return { there, ex }
    await new Promise((r) => setTimeout(r, wait))
  }
}

const sameName = (v: unknown, name: string): boolean => typeof v === 'string' && v.toLowerCase() === name.toLowerCase()

function dropChannel(x: Exec, slot: Slot): void {
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

// ── channels ───────────────────────────────────────────────────────────────────────────────────────

class Create extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly priv: boolean | undefined,
    readonly permission: Permission | undefined,
    readonly maxItems: number | undefined,
    readonly subscribeOnCreate: boolean | undefined,
    readonly description: string | undefined,
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    return slotOf(m as Exec, this.slot).channel === null
  }
  toString(): string {
    const opts = [
      this.priv !== undefined && `privateChannel ${this.priv}`,
      this.permission && `publishPermission ${this.permission}`,
      this.maxItems !== undefined && `maxItems ${this.maxItems}`,
      this.subscribeOnCreate !== undefined && `subscribeOnCreate ${this.subscribeOnCreate}`,
      this.description !== undefined && `description ${JSON.stringify(this.description)}`,
    ].filter(Boolean)
    return `${this.by} creates channel s${this.slot}${opts.length ? ` (${opts.join(', ')})` : ''}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const body: CreateChannelBody = { channelName: slot.name }
    if (this.maxItems !== undefined) body.maxItems = this.maxItems
    if (this.priv !== undefined) body.privateChannel = this.priv
    if (this.description !== undefined) body.description = this.description
    if (this.subscribeOnCreate !== undefined) body.subscribeOnCreate = this.subscribeOnCreate
    if (this.permission !== undefined) body.publishPermission = this.permission
    const personal = this.priv === true
    // Write-ahead: the ledger knows the channel before the create leaves (helpers/http/ledger.ts).
    x.shared.ledger.created(slot.name, this.by, personal)
    slot.owners.add(this.by)
    const ex = await x.call(this.by, (api) => api.createChannel(body))
    const exotic = this.description !== undefined && !PLAIN.test(this.description)
    if (!success(ex)) {
      // The name of a deleted channel may stay taken (a tombstone, a lagging delete): the spec does not say it is free again.
      const reused = slot.history > 0
      if (reused) x.shared.learned.hold("create under a deleted channel's name", `refused (${ex.status})`)
      if (!exotic && !reused) ok(x, ex, 'channels.create.response', `${this.by} creates ${slot.name}`)
      noServerError(x, ex, 'channels.create.response', `create with description ${show(this.description)}`)
      x.shared.ledger.deleted(slot.name, this.by, personal)
      return
    }
    schema(x, ex, 'code-message', 'channels.create.response', 'create')
    slot.channel = {
      name: slot.name,
      owner: this.by,
      private: personal,
      permission: this.permission ?? 'anyone',
      maxItems: this.maxItems ?? -1,
      maxItemsGiven: this.maxItems !== undefined,
      permissionGiven: this.permission !== undefined,
      privateGiven: this.priv !== undefined,
      description: this.description,
      subscribers: new Set(this.subscribeOnCreate === false ? [] : [this.by]),
      tags: new Set(),
      tagsUnknown: false,
      lastTagChange: 'tags.add.visible',
      items: [],
      everPublished: 0,
      lastPublishAt: Date.now(),
    }
  }
}

/** A second create of a name that is taken: the answer is the server's choice (§7); accepted means the model cannot follow. */
class CreateAgain extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    const ch = slotOf(m as Exec, this.slot).channel
    return ch !== null && (!ch.private || ch.owner === this.by)
  }
  toString(): string {
    return `${this.by} creates channel s${this.slot} again (same name, same privacy)`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const priv = slot.channel!.private
    x.shared.ledger.created(slot.name, this.by, priv)
    slot.owners.add(this.by)
    const ex = await x.call(this.by, (api) => api.createChannel({ channelName: slot.name, ...(priv ? { privateChannel: true } : {}) }))
    noServerError(x, ex, 'channels.create.duplicate', 'second create of a taken name')
    const choice = x.shared.learned.hold('second create of a taken name', success(ex) ? `accepted (${ex.status})` : `refused (${ex.status})`)
    if (success(ex)) slot.tainted = true
    else if (this.by !== slot.channel!.owner) x.shared.ledger.deleted(slot.name, this.by, priv)
    void choice
  }
}

class GetChannel extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} gets channel s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''}`
  }
  async exec(x: Exec): Promise<void> {
    await patiently(x, () => this.once(x))
  }
  private async once(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const reach = reachOf(slot, this.by, this.addr)
    const ex = await x.call(this.by, (api) => api.getChannel(addressOf(x, slot, this.addr)))
    const what = `${this.by} GET ${addressOf(x, slot, this.addr)}`
    if (reach === 'none') {
      const ch = slot.channel
      const answered = (ex.json as { name?: unknown } | undefined)?.name
      const otherName = success(ex) && typeof answered === 'string' && !sameName(answered, slot.name)
      const id: ClauseId = otherName
        ? 'channels.get.unknown'
        : ch
          ? 'private.plain-name-not-shared'
          : slot.history > 0
            ? 'channels.delete.removes'
            : 'channels.get.unknown'
      if (otherName) return x.must(false, id, `${what}: answered ${ex.status} with another channel, ${show(answered)}`, ex)
      refused(x, ex, id, `${what}${ch ? ` (${ch.owner}'s private channel)` : slot.history ? ' (deleted)' : ' (never created)'}`)
      return
    }
    if (reach === 'open' && !success(ex)) return noServerError(x, ex, 'channels.get.shape', what)
    if (reach === 'hash-other' && !success(ex)) {
      // The spec defines the address, not who may read through it: the address must resolve (not 404 or
      // 400); a refusal such as 403, "only its owner reads it", is the server's choice.
      x.must(
        ex.status !== 404 && ex.status !== 400,
        'private.other-user-address',
        `${what}: answered ${ex.status}; the address of ${slot.channel!.owner}'s private channel does not resolve`,
        ex,
      )
      return noServerError(x, ex, 'private.other-user-address', what)
    }
    ok(x, ex, reach === 'hash-other' ? 'private.other-user-address' : slot.channel!.private ? 'private.own-plain-name' : 'channels.get.shape', what)
    x.must(ex.status === 200, 'channels.get.shape', `${what}: answered ${ex.status}, want 200 (§4.2: Response 200)`, ex)
    judgeChannel(x, slot, ex, what)
  }
}

function judgeChannel(x: Exec, slot: Slot, ex: Exchange, what: string): void {
  const ch = slot.channel!
  const body = schema<Record<string, unknown>>(x, ex, 'channel', 'channels.get.shape', what)
  x.must(sameName(body.name, ch.name), 'channels.get.matches-create', `${what}: /name ${show(body.name)}, want ${show(ch.name)}`, ex)
  if (ch.description !== undefined)
    x.must(
      body.description === ch.description || (typeof body.description === 'string' && body.description.normalize() === ch.description.normalize()),
      'channels.create.fields-stored',
      `${what}: /description ${show(body.description)}, want ${show(ch.description)} as created`,
      ex,
    )
  x.must(
    body.privateChannel === ch.private,
    ch.privateGiven ? 'private.create' : 'channels.create.default-public',
    `${what}: /privateChannel ${show(body.privateChannel)}, want ${ch.private}`,
    ex,
  )
  x.must(
    body.maxItems === ch.maxItems,
    ch.maxItemsGiven ? 'channels.create.fields-stored' : 'channels.create.default-max-items',
    `${what}: /maxItems ${show(body.maxItems)}, want ${ch.maxItems}`,
    ex,
  )
  x.must(
    body.publisherPermission === ch.permission,
    ch.permissionGiven ? 'channels.get.publisher-permission' : 'channels.create.default-permission',
    `${what}: /publisherPermission ${show(body.publisherPermission)}, want ${show(ch.permission)}`,
    ex,
  )
  // §2.3: the user id, a separator, a user-name and domain part, then a slash and the device id.
  const uid = x.userId(ch.owner)
  const rest = typeof body.creator === 'string' && body.creator.startsWith(uid) ? body.creator.slice(uid.length) : null
  x.must(
    rest !== null && /^.[^/]+\/./.test(rest),
    'channels.get.creator',
    `${what}: /creator ${show(body.creator)}, want ${ch.owner}'s user id ${uid}, a separator, a user-name and domain part, a slash and a device id`,
    ex,
  )
}

class Summary extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} reads the summary of s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''}`
  }
  async exec(x: Exec): Promise<void> {
    await patiently(x, () => this.once(x))
  }
  private async once(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const reach = reachOf(slot, this.by, this.addr)
    const ch = slot.channel
    const what = `${this.by} GET ${addressOf(x, slot, this.addr)}/summary`
    const ex = await x.call(this.by, (api) => api.summary(addressOf(x, slot, this.addr)))
    const readAt = Date.now()
    const count = (ex.json as { publishedItemCount?: unknown } | undefined)?.publishedItemCount
    if (reach === 'none') {
      // A server may summarise a name it does not know as empty; it must not show the private or deleted channel's items.
      if (success(ex))
        x.must(
          !(typeof count === 'number' && count > 0),
          ch ? 'private.plain-name-not-shared' : 'channels.delete.removes',
          `${what}: publishedItemCount ${count} for a channel the caller cannot reach${ch ? '' : ' (deleted or never made)'}`,
          ex,
        )
      else noServerError(x, ex, 'channels.summary.shape', what)
      return
    }
    if (!success(ex)) {
      if (this.by === ch!.owner && reach === 'reach') ok(x, ex, 'channels.summary.shape', what)
      return noServerError(x, ex, 'channels.summary.shape', what)
    }
    schema(x, ex, 'channel-summary', 'channels.summary.shape', what)
    const stored = ch!.items.length
    const ever = ch!.everPublished
    if (stored !== ever && (count === stored || count === ever))
      x.shared.learned.hold('summary publishedItemCount counts', count === stored ? 'items stored now' : 'items published since the channel was made')
    const lo = Math.min(stored, ever)
    const hi = Math.max(stored, ever)
    // lastPublishedTime (§2.4: a UTC timestamp, its precision and its value before a publish not stated) is judged
    // against the value last read only through items still stored whose publish left after that read was answered:
    // the value then is at least their time (whether it is the last publish's or the newest stored item's), so it is
    // not before the value read, and later than it once the publish left later than any precision could tie: a
    // second, or PUBLISHED_FINE_MS where the value read showed digits below the second.
    const lastText = String((ex.json as { lastPublishedTime?: unknown }).lastPublishedTime)
    const last = Date.parse(lastText)
    const seen = ch!.lastPublishedSeen
    if (seen && Number.isFinite(last)) {
      const sent = ch!.items.map((it) => x.refs.get(it.ref)?.sentAt).filter((t): t is number => t !== undefined && t > seen.readAt)
      const apart = seen.fine ? PUBLISHED_FINE_MS : 1100
      if (sent.length) {
        const later = Math.max(...sent) - seen.readAt > apart
        x.must(
          later ? last > seen.at : last >= seen.at,
          'channels.summary.last-published',
          `${what}: lastPublishedTime ${new Date(last).toISOString()} is ${last < seen.at ? 'before' : 'still'} the ${new Date(seen.at).toISOString()} read before ${ever - seen.ever} more publish(es)${later ? `, one of them sent ${Math.max(...sent) - seen.readAt} ms after that read` : ''}`,
          ex,
        )
      }
    }
    x.must(
      typeof count === 'number' && count >= lo && count <= hi,
      'channels.summary.count',
      `${what}: publishedItemCount ${show(count)}, want ${lo === hi ? lo : `${lo} (stored now) to ${hi} (published since created)`}`,
      ex,
    )
    if (Number.isFinite(last)) ch!.lastPublishedSeen = { at: last, ever, readAt, fine: /T\d\d:\d\d:\d\d[.,]\d*[1-9]/.test(lastText) }
  }
}

class DeleteChannel extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    public personal: boolean | undefined,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} deletes channel s${this.slot}${this.personal === undefined ? '' : ` (personal=${this.personal})`}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const what = `${this.by} DELETE ${slot.name}${this.personal === undefined ? '' : `?personal=${this.personal}`}`
    const ex = await x.call(this.by, (api) => api.deleteChannel(slot.name, this.personal))
    if (!ch) return noServerError(x, ex, 'channels.delete.status', `${what} (no such channel)`)
    if (this.by !== ch.owner) {
      if (!ch.private) return refused(x, ex, 'channels.delete.owner-only', `${what} (${ch.owner}'s channel)`)
      // The plain name does not reach another user's private channel, so a 2xx may be a no-op: is the channel still there?
      if (success(ex)) {
        const { there, ex: after } = await stillThere(x, slot)
        x.must(there, 'channels.delete.owner-only', `${what} answered ${ex.status} and ${ch.owner}'s private channel is gone`, after)
      } else noServerError(x, ex, 'channels.delete.owner-only', what)
      return
    }
    if (personalMatches(ch, this.personal)) {
      x.must(ex.status === 200, ch.private ? 'private.delete-personal' : 'channels.delete.status', `${what}: answered ${ex.status}, want 200`, ex)
      dropChannel(x, slot)
      return
    }
    // personal names the other kind of channel: the spec does not say what happens; read back.
    noServerError(x, ex, 'channels.delete.status', what)
    if (success(ex)) {
      const { there } = await stillThere(x, slot)
      if (!there) dropChannel(x, slot)
    }
  }
}

/**
 * The owner deletes a channel and creates it again under the same name at once: the new channel must have
 * none of the old one's items, tags or subscribers (it is drawn on its own because a delete and a create of
 * one name in a row are otherwise rare in a random sequence).
 */
class Recreate extends Cmd {
  constructor(
    readonly slot: number,
    readonly maxItems: number | undefined,
    readonly subscribeOnCreate: boolean | undefined,
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    return slotOf(m as Exec, this.slot).channel !== null
  }
  toString(): string {
    const opts = [
      this.maxItems !== undefined && `maxItems ${this.maxItems}`,
      this.subscribeOnCreate !== undefined && `subscribeOnCreate ${this.subscribeOnCreate}`,
    ].filter(Boolean)
    return `the owner deletes s${this.slot} and creates it again${opts.length ? ` (${opts.join(', ')})` : ''}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const { owner, private: priv } = slot.channel!
    await new DeleteChannel(this.slot, owner, priv ? true : undefined).exec(x)
    if (slot.channel) return
    // As a client would: the create once the delete shows (a deployment may show it a moment late).
    const deadline = Date.now() + x.shared.pollMs
    while (Date.now() < deadline && success(await x.call(owner, (api) => api.getChannel(slot.name)))) await new Promise((r) => setTimeout(r, 50))
    await new Create(this.slot, owner, priv ? true : undefined, undefined, this.maxItems, this.subscribeOnCreate, undefined).exec(x)
  }
}

/** Another user's delete through the `<owner>#<name>` address: owner-only whatever the address (§5.5). */
class HashDelete extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly what: 'channel' | 'items',
    readonly personal: boolean | undefined,
  ) {
    super()
  }
  override applies(m: Readonly<Exec>): boolean {
    const ch = slotOf(m as Exec, this.slot).channel
    return ch !== null && ch.private
  }
  toString(): string {
    return `${this.by} deletes ${this.what === 'channel' ? 'channel' : 'all items of'} s${this.slot} by <ownerId>#<name>${this.personal === undefined ? '' : ` (personal=${this.personal})`}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel!
    if (this.by === ch.owner) return
    const address = addressOf(x, slot, 'hash')
    const what = `${this.by} DELETE ${address}${this.what === 'items' ? '/items/all' : ''}`
    const ex = await x.call(this.by, (api) =>
      this.what === 'channel' ? api.deleteChannel(address, this.personal) : api.deleteAllItems(address, this.personal),
    )
    const id: ClauseId = this.what === 'channel' ? 'channels.delete.owner-only' : 'items.delete-all.owner-only'
    // Judged by its effect: a 2xx that deleted nothing (a no-op for a name the caller has no channel of) is only a warning.
    x.should(!success(ex), id, 'hash-delete-2xx', `${what} (${ch.owner}'s private channel): answered ${ex.status}, want a refusal`, ex)
    noServerError(x, ex, id, what)
    if (this.what === 'channel') {
      const { there, ex: after } = await stillThere(x, slot)
      x.must(there, id, `after ${what} (answered ${ex.status}), ${ch.owner}'s private channel is gone`, after)
    } else if (ch.items.length) await verifyItems(x, slot, `after ${what} (answered ${ex.status})`, id)
  }
}

// ── search ─────────────────────────────────────────────────────────────────────────────────────────

type SearchKind = 'exact' | 'tag' | 'description' | 'prefix'

class Search extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly kind: SearchKind,
    public tag: string,
    readonly offset: number,
    readonly size: number,
    readonly pick = -1,
  ) {
    super()
  }
  override async run(m: Exec): Promise<void> {
    const tags = [...(m.slots[this.slot]!.channel?.tags ?? [])]
    if (this.pick >= 0 && tags.length) this.tag = tags[this.pick % tags.length]!
    await super.run(m)
  }
  toString(): string {
    return `${this.by} searches channels ${this.kind === 'prefix' ? `by this sequence's name prefix (offset ${this.offset}, size ${this.size})` : `by the exact name of s${this.slot}${this.kind === 'tag' ? ` and tag ${JSON.stringify(this.tag)}` : this.kind === 'description' ? ' and its description' : ''} (size ${this.size})`}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const names = (e: Exchange): string[] => {
      const r = (e.json as { results?: unknown } | undefined)?.results
      return Array.isArray(r) ? r.map((c) => String((c as { name?: unknown } | null)?.name ?? '').toLowerCase()) : []
    }
    const privateNames = x.slots.filter((s) => s.channel?.private && !s.tainted).map((s) => s.name.toLowerCase())
    const judgeCommon = (e: Exchange, what: string): ListProblem | null => {
      if (e.status !== 200) return { id: 'channels.search.shape', problem: `${what}: answered ${e.status}, want 200` }
      const body = e.json as { total?: unknown; results?: unknown } | undefined
      if (!Array.isArray(body?.results) || typeof body.total !== 'number')
        return { id: 'channels.search.shape', problem: `${what}: want {total, results}, got ${show(body)}` }
      // Our own results are judged against the schema (other channels on a shared server are not ours to judge).
      const ours = new Set(x.slots.map((sl) => sl.name.toLowerCase()))
      for (const [i, r] of (body.results as unknown[]).entries()) {
        if (!ours.has(String((r as { name?: unknown } | null)?.name ?? '').toLowerCase())) continue
        const problems = checkSchema('channel-search-item', r).filter((p) => p.level === 'MUST')
        if (problems.length)
          return { id: 'channels.search.shape', problem: `${what}: /results/${i} is not a Channel search result:\n${formatProblems(problems)}` }
      }
      const leaked = names(e).filter((n) => privateNames.includes(n))
      if (leaked.length) return { id: 'channels.search.public-only', problem: `${what}: private channel(s) ${show(leaked)} among the results` }
      // total counts every match whatever the page, so a page at offset o with n results means at least o + n matches.
      const offset = this.kind === 'prefix' ? this.offset : 0
      if (body.results.length > 0 && body.total < offset + body.results.length) {
        // With total at least the page, the page most likely did not skip `offset` matches.
        return {
          id: body.total >= body.results.length && offset > 0 ? 'channels.search.offset' : 'channels.search.total',
          problem: `${what}: total ${body.total}, but the page at offset ${offset} holds ${body.results.length} results (${body.total} matches leave ${Math.max(0, body.total - offset)} after offset ${offset})`,
        }
      }
      return null
    }
    if (this.kind === 'prefix') {
      const what = `${this.by} GET /channels?channelName=${x.prefix}&offset=${this.offset}&size=${this.size}`
      const ex = await x.call(this.by, (api) => api.searchChannels({ channelName: x.prefix, offset: this.offset, size: this.size }))
      if (this.offset > 0 && success(ex)) {
        // total counts every match whatever the page: the first page must say the same (polled: an index may move).
        const total = (ex.json as { total?: unknown } | undefined)?.total
        const { ex: first, problem: differs } = await settle(
          x,
          () => x.call(this.by, (api) => api.searchChannels({ channelName: x.prefix, offset: 0, size: this.size })),
          (e) => {
            const t = (e.json as { total?: unknown } | undefined)?.total
            return !success(e) || typeof t !== 'number' || typeof total !== 'number' || t === total
              ? null
              : { id: 'channels.search.total', problem: `${what}: total ${total}, but ${t} at offset 0 with the same query` }
          },
        )
        if (differs) x.must(false, differs.id, differs.problem, first)
      }
      const problem = judgeCommon(ex, what)
      if (problem) x.must(false, problem.id, problem.problem, ex)
      const n = (ex.json as { results: unknown[] }).results.length
      x.must(n <= this.size, 'channels.search.size', `${what}: ${n} results, want at most size ${this.size}`, ex)
      x.judged('channels.search.public-only')
      return
    }
    const name = slot.name
    const tagged = this.kind === 'tag'
    const description = this.kind === 'description' ? (ch?.description ?? '') : undefined
    const what = `${this.by} GET /channels?channelName=${name}${tagged ? `&tag=${this.tag}` : ''}${description !== undefined ? `&description=${description}` : ''}&size=${this.size}`
    // Whether it must be found, must not be, or either (tags the model no longer knows, a page too small to be sure).
    let want: boolean | null
    if (!ch || ch.private) want = false
    else if (tagged) want = ch.tagsUnknown ? null : ch.tags.has(this.tag)
    else if (description !== undefined) want = /^[a-z0-9]{3,}( [a-z0-9]{3,})*$/.test(description) ? true : null
    else want = true
    if (tagged && !plainTag(this.tag)) want = want === true ? null : want
    // Other names may match too (matching is not stated): only a page of 10 or more must hold this one.
    if (want === true && this.size < 10) want = null
    const id: ClauseId = !ch
      ? slot.history
        ? 'channels.delete.removes'
        : 'channels.search.by-name'
      : ch.private
        ? 'channels.search.public-only'
        : tagged
          ? 'channels.search.by-tag'
          : description !== undefined
            ? 'channels.search.by-description'
            : 'channels.search.by-name'
    // Search may index late (eventual consistency): poll before judging presence or absence.
    const { ex, problem } = await settle(
      x,
      () =>
        x.call(this.by, (api) =>
          api.searchChannels({
            channelName: name,
            ...(tagged ? { tag: this.tag } : {}),
            ...(description !== undefined ? { description } : {}),
            offset: 0,
            size: this.size,
          }),
        ),
      (e) => {
        const p = judgeCommon(e, what)
        if (p) return p
        const n = (e.json as { results: unknown[] }).results.length
        if (n > this.size) return { id: 'channels.search.size', problem: `${what}: ${n} results, want at most size ${this.size}` }
        if (want === null) return null
        const found = names(e).includes(name.toLowerCase())
        if (found === want) return null
        return {
          id,
          problem: `${what}: ${found ? `finds ${name}` : `does not find ${name}`}, want it ${want ? 'found' : 'not found'} (${!ch ? (slot.history ? 'deleted' : 'never made') : ch.private ? `${ch.owner}'s private channel` : tagged ? `tags ${show([...ch.tags])}` : 'a public channel'})`,
        }
      },
    )
    if (problem) x.must(false, problem.id, problem.problem, ex)
    x.judged(id)
  }
}

// ── subscriptions ──────────────────────────────────────────────────────────────────────────────────

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

const sameSet = <T>(a: ReadonlySet<T>, b: ReadonlySet<T>): boolean => a.size === b.size && [...a].every((v) => b.has(v))

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

class ListSubscribers extends Cmd {
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

// ── tags ───────────────────────────────────────────────────────────────────────────────────────────

class AddTags extends Cmd {
  /** `again` ≥ 0: add one of the tags the channel already has (decided when the step runs). */
  constructor(
    readonly slot: number,
    public by: AccountKey,
    public tags: string[],
    public personal: boolean | undefined,
    readonly again = -1,
  ) {
    super()
  }
  override async run(m: Exec): Promise<void> {
    const have = [...(m.slots[this.slot]!.channel?.tags ?? [])]
    if (this.again >= 0 && have.length) this.tags = [have[this.again % have.length]!]
    await super.run(m)
  }
  toString(): string {
    return `${this.by} adds tags ${JSON.stringify(this.tags)} to s${this.slot}${this.personal === undefined ? '' : ` (personal=${this.personal})`}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const what = `${this.by} POST ${slot.name}/tags ${JSON.stringify(this.tags)}${this.personal === undefined ? '' : ` personal=${this.personal}`}`
    const ex = await x.call(this.by, (api) => api.addTags(slot.name, this.tags, this.personal))
    if (!ch) return noServerError(x, ex, 'tags.add.response', what)
    const before = new Set(ch.tags)
    if (this.by === ch.owner && personalMatches(ch, this.personal)) {
      if (!success(ex) && !this.tags.every(plainTag)) return noServerError(x, ex, 'tags.add.response', what)
      ok(x, ex, ch.private ? 'private.tags-personal' : 'tags.add.response', what)
      x.must(ex.status === 200, 'tags.add.response', `${what}: answered ${ex.status}, want 200 (§4.2: Response 200)`, ex)
      for (const t of this.tags) ch.tags.add(t)
      ch.lastTagChange = 'tags.add.visible'
      return
    }
    noServerError(x, ex, 'tags.add.response', what)
    if (!success(ex)) return
    // Another caller's or another `personal`'s tags: the spec does not say where they go; nothing else may change.
    if (ch.tagsUnknown) return
    await adoptTags(
      x,
      slot,
      (seen) => {
        const lost = [...before].filter((t) => !seen.has(t))
        const strange = [...seen].filter((t) => !before.has(t) && !this.tags.includes(t))
        return lost.length ? `tags ${show(lost)} are gone` : strange.length ? `tags ${show(strange)} appeared` : null
      },
      'tags.add.visible',
      `after ${what} answered ${ex.status}`,
      (seen) => this.tags.every((t) => seen.has(t)),
    )
  }
}

class GetTags extends Cmd {
  constructor(
    readonly slot: number,
    public by: AccountKey,
    readonly addr: Addr,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} gets the tags of s${this.slot}${this.addr === 'hash' ? ' by <ownerId>#<name>' : ''}`
  }
  async exec(x: Exec): Promise<void> {
    await patiently(x, () => this.once(x))
  }
  private async once(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const reach = reachOf(slot, this.by, this.addr)
    const address = addressOf(x, slot, this.addr)
    const what = `${this.by} GET ${address}/tags`
    const tagsOf = (e: Exchange): string[] | null => {
      const t = (e.json as { tags?: unknown } | undefined)?.tags
      return success(e) && Array.isArray(t) ? t.map(String) : null
    }
    if (reach === 'none') {
      const ex = await x.call(this.by, (api) => api.getTags(address))
      const got = tagsOf(ex)
      if (got && got.length > 0 && ch && !ch.tagsUnknown && got.every((t) => ch.tags.has(t)))
        x.must(false, 'private.plain-name-not-shared', `${what}: answers the tags ${show(got)} of ${ch.owner}'s private channel`, ex)
      return noServerError(x, ex, 'tags.get.shape', what)
    }
    if (ch!.tagsUnknown) return
    const want = [...ch!.tags].sort()
    const { ex, problem } = await settle(
      x,
      () => x.call(this.by, (api) => api.getTags(address)),
      (e) => {
        if (!success(e))
          return reach === 'reach' && this.by === ch!.owner
            ? { id: ch!.private ? 'private.tags-personal' : 'tags.get.shape', problem: `${what}: answered ${e.status}, want 200` }
            : null
        const got = tagsOf(e)
        if (!got) return { id: 'tags.get.shape', problem: `${what}: want {channelName, tags}, got ${show(e.json)}` }
        const missing = want.filter((t) => !got.includes(t))
        if (missing.length)
          return {
            id: ch!.lastTagChange === 'tags.delete-all.removes' ? 'tags.add.visible' : ch!.lastTagChange,
            problem: `${what}: tags ${show(got)}, missing ${show(missing)} (want ${show(want)}; the last change of tags was ${ch!.lastTagChange === 'tags.add.visible' ? 'an add' : 'a delete'})`,
          }
        const extra = got.filter((t) => !want.includes(t))
        const old = slot.history > 0 && extra.every((t) => slot.previous.tags.has(t) && !ch!.tags.has(t))
        if (extra.length)
          return {
            id: old
              ? 'channels.delete.recreate-fresh'
              : ch!.lastTagChange === 'tags.delete-all.removes'
                ? 'tags.delete-all.removes'
                : 'tags.delete-one.removes',
            problem: `${what}: tags ${show(got)}, ${show(extra)} ${old ? 'belonged to the channel of this name deleted before' : 'were deleted or never added'} (want ${show(want)})`,
          }
        return null
      },
    )
    if (problem) x.must(false, problem.id, problem.problem, ex)
    if (success(ex)) schema(x, ex, 'tags', 'tags.get.shape', what)
    else noServerError(x, ex, 'tags.get.shape', what)
  }
}

class DeleteTags extends Cmd {
  /** tag null: delete all. `pick` ≥ 0: one of the channel's own tags when the step runs (the tag asked is then that one). */
  constructor(
    readonly slot: number,
    public by: AccountKey,
    public tag: string | null,
    public personal: boolean | undefined,
    readonly pick = -1,
  ) {
    super()
  }
  override async run(m: Exec): Promise<void> {
    const tags = [...(m.slots[this.slot]!.channel?.tags ?? [])]
    if (this.pick >= 0 && tags.length) this.tag = tags[this.pick % tags.length]!
    await super.run(m)
  }
  toString(): string {
    return `${this.by} deletes ${this.tag === null ? 'all tags' : `tag ${JSON.stringify(this.tag)}`} of s${this.slot}${this.personal === undefined ? '' : ` (personal=${this.personal})`}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const ch = slot.channel
    const what = `${this.by} DELETE ${slot.name}/tags${this.tag === null ? '' : `/${this.tag}`}${this.personal === undefined ? '' : `?personal=${this.personal}`}`
    const ex = await x.call(this.by, (api) =>
      this.tag === null ? api.deleteTags(slot.name, this.personal) : api.deleteTag(slot.name, this.tag, this.personal),
    )
    const id: ClauseId = this.tag === null ? 'tags.delete-all.status' : 'tags.delete-one.status'
    if (!ch) return noServerError(x, ex, id, what)
    const before = new Set(ch.tags)
    if (this.by === ch.owner && personalMatches(ch, this.personal) && !ch.tagsUnknown) {
      if (this.tag === null || ch.tags.has(this.tag)) {
        x.must(ex.status === 200, ch.private ? 'private.tags-personal' : id, `${what}: answered ${ex.status}, want 200`, ex)
        if (this.tag === null) ch.tags.clear()
        else ch.tags.delete(this.tag)
        ch.lastTagChange = this.tag === null ? 'tags.delete-all.removes' : 'tags.delete-one.removes'
        return
      }
      // Deleting a tag the channel does not have: refused or a no-op, the spec does not say.
      noServerError(x, ex, id, `${what} (no such tag)`)
      return
    }
    noServerError(x, ex, id, what)
    if (!success(ex) || ch.tagsUnknown) return
    await adoptTags(
      x,
      slot,
      (seen) => {
        const strange = [...seen].filter((t) => !before.has(t))
        const lost = [...before].filter((t) => !seen.has(t) && t !== this.tag && this.tag !== null)
        return strange.length ? `tags ${show(strange)} appeared` : lost.length ? `tags ${show(lost)} that were not named are gone` : null
      },
      this.tag === null ? 'tags.delete-all.removes' : 'tags.delete-one.removes',
      `after ${what} answered ${ex.status}`,
      (seen) => (this.tag === null ? seen.size === 0 : !seen.has(this.tag)),
    )
  }
}

// ── items ──────────────────────────────────────────────────────────────────────────────────────────

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

/**
 * A read made again until its answer has not changed for the stable time (a fifth of the poll time) or the poll
 * time is over, then judged again: where several outcomes were allowed (publishes to a full channel, racing
 * subscribes) a lagging replica may show a state before or between the writes that is one of them, and a stale
 * view adopted would make a later read look wrong. Returns the last answer.
 */
async function steadyView(
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

class Fetch extends Cmd {
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

// ── anonymous caller ───────────────────────────────────────────────────────────────────────────────

const ANON_OPS = [
  'get',
  'create',
  'publish',
  'delete',
  'subscribe',
  'unsubscribe',
  'subscriptions',
  'summary',
  'tags',
  'getTags',
  'deleteTag',
  'deleteTags',
  'fetch',
  'getItems',
  'deleteItems',
  'deleteAll',
  'search',
  'users',
  'userQuery',
  'send',
  'status',
  'push',
] as const
type AnonOp = (typeof ANON_OPS)[number]

class Anonymous extends Cmd {
  constructor(
    readonly slot: number,
    readonly op: AnonOp,
  ) {
    super()
  }
  toString(): string {
    return `an anonymous caller (no token) tries ${this.op} on s${this.slot}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const n = slot.name
    const send: Record<AnonOp, (api: Api) => Promise<Exchange>> = {
      get: (api) => api.getChannel(n),
      create: (api) => api.createChannel({ channelName: n }),
      publish: (api) => api.publish(n, { content: { ref: x.newRef(), text: 'anonymous' } }),
      delete: (api) => api.deleteChannel(n),
      subscribe: (api) => api.subscribe(n),
      unsubscribe: (api) => api.unsubscribe(n),
      subscriptions: (api) => api.subscriptions(n),
      summary: (api) => api.summary(n),
      tags: (api) => api.addTags(n, ['anon']),
      getTags: (api) => api.getTags(n),
      deleteTag: (api) => api.deleteTag(n, 'red'),
      deleteTags: (api) => api.deleteTags(n),
      fetch: (api) => api.fetchItems(n, wide()),
      getItems: (api) =>
        api.getItems(
          n,
          [...x.refs.values()]
            .map((r) => r.itemId)
            .filter((id): id is string => id !== null)
            .slice(0, 2)
            .concat('0'),
        ),
      deleteItems: (api) =>
        api.deleteItems(
          n,
          [...x.refs.values()]
            .map((r) => r.itemId)
            .filter((id): id is string => id !== null)
            .slice(0, 2)
            .concat('0'),
        ),
      deleteAll: (api) => api.deleteAllItems(n),
      search: (api) => api.searchChannels({ channelName: n }),
      users: (api) => api.listUsers(),
      userQuery: (api) => api.searchUsers(`userIdentifier:${x.userId('A')}`),
      send: (api) => api.sendToUserIds({ receipt: false, recipientUserIds: [x.userId('B')], content: { text: 'anonymous' } }),
      status: (api) => api.deliveryStatus(`${'0'.repeat(28)}dead`),
      push: (api) => api.pushToUser(x.userId('B'), { action: 'PUSH', name: 'anonymous', payload: { title: 'anonymous' } }),
    }
    if (this.op === 'create') {
      x.shared.ledger.created(n, null, false)
      slot.owners.add(null)
    }
    const ex = await x.call('anon', send[this.op])
    refused(x, ex, 'auth.token-required', `${callerName('anon')} ${ex.request.method} ${ex.request.url}`)
    if (this.op === 'create' && !slot.channel) x.shared.ledger.deleted(n, null, false)
  }
}

// ── users ──────────────────────────────────────────────────────────────────────────────────────────

const USER_PROPS = ['userName', 'userIdentifier', 'email', 'firstName', 'lastName'] as const
type UserForm = 'exact' | 'contains' | 'nomatch'

/** The smallest page a search engine commonly answers by default: a full page of matches without the account may be a first page. */
const USER_PAGE_HINT = 10

class Users extends Cmd {
  readonly slot = null
  constructor(
    public by: AccountKey,
    readonly about: AccountKey,
    readonly prop: (typeof USER_PROPS)[number] | 'list',
    readonly form: UserForm,
  ) {
    super()
  }
  toString(): string {
    return this.prop === 'list'
      ? `${this.by} lists all users`
      : `${this.by} searches users by ${this.prop} (${this.form}${this.form === 'nomatch' ? '' : ` value of ${this.about}`})`
  }
  async exec(x: Exec): Promise<void> {
    const accounts = x.shared.run.accounts
    const passwords = ACCOUNT_KEYS.map((k) => accounts[k].password)
    const judgeList = (ex: Exchange, id: ClauseId, what: string): Record<string, unknown>[] => {
      ok(x, ex, id, what)
      schema(x, ex, 'user-list', id, what)
      const list = ex.json as Record<string, unknown>[]
      // Anywhere in a record (userAccountData included), not only in its password field.
      x.must(
        list.every((u) => !passwords.some((p) => JSON.stringify(u ?? null).includes(JSON.stringify(p).slice(1, -1)))),
        'users.password-masked',
        `${what}: a record carries a test account's real password`,
        ex,
      )
      return list
    }
    if (this.prop === 'list') {
      const what = `${this.by} GET /user/all`
      const ex = await x.call(this.by, (api) => api.listUsers())
      const ids = judgeList(ex, 'users.list.shape', what).map((u) => u?.userIdentifier)
      const missing = ACCOUNT_KEYS.filter((k) => !ids.includes(accounts[k].userId))
      x.must(missing.length === 0, 'users.list.contains-accounts', `${what}: accounts ${missing.join(', ')} are not listed`, ex)
      return
    }
    const record = x.shared.userRecords[this.about]
    // A *fragment* is taken from the middle of the user name only (other properties may be tokenised by a search engine).
    if (this.form === 'contains' && this.prop !== 'userName') return
    const value = record?.[this.prop]
    if (this.form !== 'nomatch' && (typeof value !== 'string' || value.length < 3)) return
    const v = value as string
    const len = Math.max(1, Math.min(4, v.length - 2))
    const start = Math.floor((v.length - len) / 2)
    const q =
      this.form === 'exact'
        ? `${this.prop}:${v}`
        : this.form === 'contains'
          ? `${this.prop}:*${v.slice(start, start + len)}*`
          : this.about === 'A'
            ? `userName:*zq${x.prefix.replace(/[^a-z0-9]/g, '')}nomatch*`
            : `userName:zq${x.prefix.replace(/[^a-z0-9]/g, '')}nomatch`
    const what = `${this.by} GET /user/query?q=${q}`
    const ex = await x.call(this.by, (api) => api.searchUsers(q))
    const id: ClauseId = this.form === 'exact' ? 'users.search.property' : this.form === 'contains' ? 'users.search.wildcard' : 'users.search.no-match'
    const list = judgeList(ex, id, what)
    if (this.form === 'nomatch') return x.must(list.length === 0, id, `${what}: ${list.length} user(s), want none`, ex)
    if (list.some((u) => u?.userIdentifier === accounts[this.about].userId)) return
    // Paging is not shown (§4.1): a full page of users that all match may be the first of several, the account on a later one.
    const fragment = v.slice(start, start + len).toLowerCase()
    const matches = (u: Record<string, unknown>) =>
      typeof u?.[this.prop] === 'string' &&
      (this.form === 'exact' ? (u[this.prop] as string).toLowerCase() === v.toLowerCase() : (u[this.prop] as string).toLowerCase().includes(fragment))
    if (list.length >= USER_PAGE_HINT && list.every(matches)) return
    x.must(
      false,
      id,
      `${what}: ${this.about} (${accounts[this.about].userId}) is not among ${list.length} result(s)${list.length >= USER_PAGE_HINT ? ', some of which do not match' : ''}`,
      ex,
    )
  }
}

// ── direct messages and push (only to the three accounts) ───────────────────────────────────────────

class SendMessage extends Cmd {
  readonly slot = null
  /**
   * `to` may name an account twice: requested counts matched users (§4.3); whether a repeated id counts again
   * is not stated, so anything from the distinct users to the ids given is a reading.
   */
  constructor(
    public by: AccountKey,
    readonly to: AccountKey[],
    readonly receipt: boolean,
    readonly content: Record<string, string>,
    readonly metadata: boolean,
  ) {
    super()
  }
  toString(): string {
    return `${this.by} sends a message to ${this.to.join(', ')} (receipt ${this.receipt}${this.metadata ? ', with metadata' : ''}) and reads its delivery status`
  }
  async exec(x: Exec): Promise<void> {
    const given = this.to.map((k) => x.userId(k))
    const ids = [...new Set(given)]
    const what = `${this.by} POST /messages/send_to_user_ids to ${this.to.join(', ')}`
    const ex = await x.call(
      this.by,
      (api) =>
        api.sendToUserIds({
          receipt: this.receipt,
          recipientUserIds: given,
          content: { ref: x.newRef(), ...this.content },
          ...(this.metadata ? { metadata: { source: 'explore' } } : {}),
        }),
      { variable: `MSG_${x.step}`, expr: 'j.sentList&&j.sentList[0]&&j.sentList[0].messageId' },
    )
    if (!success(ex) && !plainContent(this.content)) return noServerError(x, ex, 'messages.send.shape', what)
    ok(x, ex, 'messages.send.shape', what)
    const body = schema<{ count: { requested: number; sent: number; unsent: number }; sentList: { messageId: string; recipientUsername: string }[] }>(
      x,
      ex,
      'send-result',
      'messages.send.shape',
      what,
    )
    x.must(
      body.count.requested >= ids.length && body.count.requested <= given.length,
      'messages.send.requested',
      `${what}: /count/requested ${body.count.requested}, want ${ids.length === given.length ? ids.length : `${ids.length} (distinct users) to ${given.length} (ids given)`} (all are users of the application)`,
      ex,
    )
    x.must(
      body.count.sent + body.count.unsent === body.count.requested,
      'messages.send.counts-add-up',
      `${what}: sent ${body.count.sent} + unsent ${body.count.unsent}, want requested ${body.count.requested}`,
      ex,
    )
    const strange = body.sentList.filter((e) => !ids.includes(e.recipientUsername))
    x.must(strange.length === 0, 'messages.send.recipients', `${what}: sentList names ${show(strange.map((e) => e.recipientUsername))}, not asked for`, ex)
    const first = body.sentList[0]
    if (!first) return
    const recipients = new Set(body.sentList.filter((e) => e.messageId === first.messageId).map((e) => e.recipientUsername))
    // The delivery status may show the message a moment after the send: read again while the poll time lasts.
    await patiently(x, async () => {
      const st = await x.call(this.by, (api) => api.deliveryStatus(first.messageId))
      const swhat = `${this.by} GET /messages/${first.messageId}`
      ok(x, st, 'messages.status.shape', swhat)
      const records = schema<{ recipient: string; sender: string; messageId: string }[]>(x, st, 'delivery-list', 'messages.status.shape', swhat)
      x.must(records.length > 0, 'messages.status.agrees', `${swhat}: no delivery record for a message that was sent`, st)
      for (const r of records) {
        x.must(
          r.messageId === first.messageId && r.sender === x.userId(this.by) && recipients.has(r.recipient),
          'messages.status.agrees',
          `${swhat}: record ${show(r)}, want messageId ${first.messageId}, sender ${x.userId(this.by)} and a recipient among ${show([...recipients])}`,
          st,
        )
      }
    })
  }
}

class Push extends Cmd {
  readonly slot = null
  /** `keys`: predefined payload keys besides title and body (§4.4: title, body, sound, badge, icon). */
  constructor(
    public by: AccountKey,
    readonly to: AccountKey,
    readonly action: 'PUSH' | 'WAKEUP',
    readonly title: string,
    readonly keys: string[] = [],
  ) {
    super()
  }
  toString(): string {
    return `${this.by} pushes ${this.action} to ${this.to}${this.keys.length ? ` (payload keys title, body, ${this.keys.join(', ')})` : ''}`
  }
  async exec(x: Exec): Promise<void> {
    const what = `${this.by} POST /push/user/${x.userId(this.to)} (${this.action})`
    const ex = await x.call(this.by, (api) =>
      api.pushToUser(x.userId(this.to), {
        action: this.action,
        name: `${x.prefix}-push`,
        payload: { title: this.title, body: 'explore', ...Object.fromEntries(this.keys.map((k) => [k, k === 'badge' ? '1' : 'default'])) },
      }),
    )
    // The spec gives badge no type (a number on the platforms, a string in a key/value map): a refusal with it is open.
    if (!success(ex) && (!PLAIN.test(this.title) || this.keys.includes('badge'))) return noServerError(x, ex, 'push.shape', what)
    ok(x, ex, this.keys.length ? 'push.payload-keys' : 'push.actions', what)
    const body = schema<{ count: { sent: number; unsent: number }; sentList: unknown[]; unsentList: unknown[] }>(x, ex, 'push-result', 'push.shape', what)
    x.must(
      // The unsentList's elements are not shown (one may list several devices): only empty exactly when unsent is 0.
      body.count.sent === body.sentList.length && (body.count.unsent === 0) === (body.unsentList.length === 0),
      'push.counts',
      `${what}: count ${show(body.count)}, lists of ${body.sentList.length} sent and ${body.unsentList.length} unsent`,
      ex,
    )
  }
}

// ── the command arbitrary ──────────────────────────────────────────────────────────────────────────

export function commandArbitraries(): fc.Arbitrary<fc.AsyncCommand<Exec, Exec>>[] {
  const w = <T>(arbitrary: fc.Arbitrary<T>, weight: number) => ({ arbitrary, weight })
  const create = fc
    .tuple(
      slotArb,
      account,
      fc.option(fc.boolean(), { nil: undefined }),
      fc.option(fc.constantFrom<Permission>('anyone', 'owner', 'subscribers'), { nil: undefined }),
      fc.option(fc.constantFrom(-1, 1, 1, 2, 3, 5), { nil: undefined }),
      fc.option(fc.boolean(), { nil: undefined }),
      descriptionArb,
    )
    .map(([s, by, p, perm, max, sub, d]) => new Create(s, by, p, perm, max, sub, d))
  const all = fc.oneof(
    w(create, 6),
    w(
      fc.tuple(slotArb, account).map(([s, by]) => new CreateAgain(s, by)),
      1,
    ),
    w(
      fc
        .tuple(slotArb, fc.option(fc.constantFrom(-1, 1, 2, 3), { nil: undefined }), fc.option(fc.boolean(), { nil: undefined }))
        .map(([s, max, sub]) => new Recreate(s, max, sub)),
      2,
    ),
    w(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new GetChannel(s, 'A', a), by)),
      3,
    ),
    w(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new Summary(s, 'A', a), by)),
      2,
    ),
    w(
      fc
        .tuple(slotArb, fc.constantFrom<'channel' | 'items'>('channel', 'items'), fc.constantFrom<boolean | undefined>(undefined, true, false))
        .map(([s, k, p]) => acting(new HashDelete(s, 'A', k, p), 'other')),
      1,
    ),
    w(
      fc
        .tuple(slotArb, fc.constantFrom<Actor>('owner', 'owner', 'owner', 'other', 'subscriber', 'A', 'B', 'C'), personalArb)
        .map(([s, by, p]) => acting(withPersonal(new DeleteChannel(s, 'A', undefined), p), by)),
      4,
    ),
    w(
      fc
        .tuple(
          slotArb,
          actorArb,
          fc.constantFrom<SearchKind>('exact', 'tag', 'description', 'prefix'),
          fc.constantFrom(...TAGS),
          fc.constantFrom(0, 1, 2, 3),
          fc.constantFrom(1, 2, 10, 20),
          fc.integer({ min: -1, max: 3 }),
        )
        .map(([s, by, k, t, o, z, pick]) => acting(new Search(s, 'A', k, t, o, z, pick), by)),
      2,
    ),
    w(
      fc.tuple(slotArb, actorArb, addrArb, fc.boolean(), fc.boolean()).map(([s, by, a, u, t]) => acting(new Subscribe(s, 'A', a, u, t), by)),
      5,
    ),
    w(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new ListSubscribers(s, 'A', a), by)),
      2,
    ),
    // Races: one account's subscribes and unsubscribes at once, or several accounts' at once.
    w(
      fc.tuple(slotArb, actorArb, fc.array(fc.boolean(), { minLength: 2, maxLength: 4 })).map(
        ([s, by, us]) =>
          new SubscribeRace(
            s,
            us.map((u) => ({ who: by, unsubscribe: u })),
          ),
      ),
      1,
    ),
    w(
      fc
        .tuple(slotArb, fc.array(fc.record({ who: actorArb, unsubscribe: fc.boolean() }), { minLength: 2, maxLength: 4 }))
        .map(([s, ops]) => new SubscribeRace(s, ops)),
      1,
    ),
    w(
      fc
        .tuple(slotArb, actorArb, tagsArb, personalArb, fc.integer({ min: -3, max: 2 }))
        .map(([s, by, t, p, k]) => acting(withPersonal(new AddTags(s, 'A', t, undefined, k), p), by)),
      4,
    ),
    w(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new GetTags(s, 'A', a), by)),
      2,
    ),
    w(
      fc
        .tuple(slotArb, actorArb, fc.option(fc.constantFrom(...TAGS), { nil: null, freq: 4 }), personalArb, fc.integer({ min: -1, max: 5 }))
        .map(([s, by, t, p, k]) => acting(withPersonal(new DeleteTags(s, 'A', t, undefined, t === null ? -1 : k), p), by)),
      3,
    ),
    w(
      fc.tuple(slotArb, actorArb, addrArb, contentArb).map(([s, by, a, c]) => acting(new Publish(s, 'A', a, c), by)),
      8,
    ),
    w(
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
    w(
      fc
        .tuple(slotArb, fc.constantFrom<Actor>('owner', 'owner', 'owner', 'other', 'A', 'B', 'C'), fc.integer({ min: 2, max: 4 }))
        .map(([s, by, n]) => acting(new Burst(s, 'A', n), by)),
      2,
    ),
    w(
      fc.tuple(slotArb, actorArb, idPickArb).map(([s, by, p]) => acting(new GetByIds(s, 'A', p), by)),
      2,
    ),
    w(
      fc.tuple(slotArb, actorArb, idPickArb).map(([s, by, p]) => acting(new DeleteByIds(s, 'A', p), by)),
      2,
    ),
    w(
      fc.tuple(slotArb, actorArb, personalArb).map(([s, by, p]) => acting(withPersonal(new DeleteAllItems(s, 'A', undefined), p), by)),
      1,
    ),
    w(
      fc.tuple(slotArb, fc.constantFrom<AnonOp>(...ANON_OPS)).map(([s, op]) => new Anonymous(s, op)),
      1,
    ),
    w(
      fc
        .tuple(account, account, fc.constantFrom(...USER_PROPS, 'list' as const), fc.constantFrom<UserForm>('exact', 'contains', 'nomatch'))
        .map(([by, about, p, f]) => new Users(by, about, p, f)),
      1,
    ),
    w(
      fc
        .tuple(account, fc.array(account, { minLength: 1, maxLength: 3 }), fc.boolean(), contentArb, fc.boolean())
        .map(([by, to, r, c, md]) => new SendMessage(by, to, r, c, md)),
      1,
    ),
    w(
      fc
        .tuple(account, account, fc.constantFrom<'PUSH' | 'WAKEUP'>('PUSH', 'WAKEUP'), textArb, fc.subarray(['sound', 'badge', 'icon']))
        .map(([by, to, a, t, k]) => new Push(by, to, a, t, k)),
      1,
    ),
  )
  return [all]
}

/** What the model holds at the end of a sequence, read back through every path (the audit). */
export async function audit(x: Exec): Promise<void> {
  x.step++
  x.stepTitles.push('audit: every channel read back by its owner and the others')
  for (const slot of x.slots) {
    if (slot.tainted) continue
    const ch = slot.channel
    if (!ch) {
      if (slot.history === 0) continue
      for (const by of ACCOUNT_KEYS) await new GetChannel(slot.index, by, 'plain').exec(x)
      continue
    }
    await new GetChannel(slot.index, ch.owner, 'plain').exec(x)
    await verifyItems(x, slot, 'audit')
    await new Summary(slot.index, ch.owner, 'plain').exec(x)
    await new GetTags(slot.index, ch.owner, 'plain').exec(x)
    await new ListSubscribers(slot.index, ch.owner, 'plain').exec(x)
    if (ch.private) {
      for (const by of ACCOUNT_KEYS.filter((k) => k !== ch.owner)) {
        await new GetChannel(slot.index, by, 'plain').exec(x)
        await new GetChannel(slot.index, by, 'hash').exec(x)
        await new Fetch(slot.index, by, 'plain', 'all', 'ASC', 0, 50).exec(x)
      }
      await new Search(slot.index, ch.owner === 'A' ? 'B' : 'A', 'exact', '', 0, 20).exec(x)
    }
  }
}
