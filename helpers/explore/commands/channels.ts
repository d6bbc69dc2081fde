/** Channels: create (and create again), get, summary, delete, re-create, and the `#` form of another user's delete (§4.2, suites/channels.test.ts, suites/private-channels.test.ts, suites/addresses.test.ts). */
import fc from 'fast-check'
import type { CreateChannelBody } from '../../http/api'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import type { AccountKey } from '../../config/config'
import { show } from '../../kit/expect'
import { type Addr, addressOf, noServerError, ok, personalMatches, reachOf, refused, schema, verifyItems } from '../judge'
import { Exec, type Permission, type Slot, success } from '../state'
import {
  account,
  acting,
  type Actor,
  actorArb,
  addrArb,
  Cmd,
  descriptionArb,
  dropChannel,
  patiently,
  personalArb,
  PLAIN,
  PUBLISHED_FINE_MS,
  sameName,
  slotArb,
  slotOf,
  stillThere,
  type Weighted,
  weighted,
  withPersonal,
} from './base'

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

export class GetChannel extends Cmd {
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

export class Summary extends Cmd {
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

/** The channels commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function channelCommands(): Weighted[] {
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
  return [
    weighted(create, 6),
    weighted(
      fc.tuple(slotArb, account).map(([s, by]) => new CreateAgain(s, by)),
      1,
    ),
    weighted(
      fc
        .tuple(slotArb, fc.option(fc.constantFrom(-1, 1, 2, 3), { nil: undefined }), fc.option(fc.boolean(), { nil: undefined }))
        .map(([s, max, sub]) => new Recreate(s, max, sub)),
      2,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new GetChannel(s, 'A', a), by)),
      3,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new Summary(s, 'A', a), by)),
      2,
    ),
    weighted(
      fc
        .tuple(slotArb, fc.constantFrom<'channel' | 'items'>('channel', 'items'), fc.constantFrom<boolean | undefined>(undefined, true, false))
        .map(([s, k, p]) => acting(new HashDelete(s, 'A', k, p), 'other')),
      1,
    ),
    weighted(
      fc
        .tuple(slotArb, fc.constantFrom<Actor>('owner', 'owner', 'owner', 'other', 'subscriber', 'A', 'B', 'C'), personalArb)
        .map(([s, by, p]) => acting(withPersonal(new DeleteChannel(s, 'A', undefined), p), by)),
      4,
    ),
  ]
}
