/** Tags: add, get, delete one or all (§4.4, suites/tags.test.ts). */
import fc from 'fast-check'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import type { AccountKey } from '../../config/config'
import { show } from '../../kit/expect'
import { type Addr, addressOf, noServerError, ok, personalMatches, reachOf, schema, settle } from '../judge'
import { Exec, success } from '../state'
import {
  acting,
  actorArb,
  addrArb,
  adoptTags,
  Cmd,
  patiently,
  personalArb,
  plainTag,
  slotArb,
  slotOf,
  TAGS,
  tagsArb,
  type Weighted,
  weighted,
  withPersonal,
} from './base'

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

export class GetTags extends Cmd {
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

/** The tags commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function tagCommands(): Weighted[] {
  return [
    weighted(
      fc
        .tuple(slotArb, actorArb, tagsArb, personalArb, fc.integer({ min: -3, max: 2 }))
        .map(([s, by, t, p, k]) => acting(withPersonal(new AddTags(s, 'A', t, undefined, k), p), by)),
      4,
    ),
    weighted(
      fc.tuple(slotArb, actorArb, addrArb).map(([s, by, a]) => acting(new GetTags(s, 'A', a), by)),
      2,
    ),
    weighted(
      fc
        .tuple(slotArb, actorArb, fc.option(fc.constantFrom(...TAGS), { nil: null, freq: 4 }), personalArb, fc.integer({ min: -1, max: 5 }))
        .map(([s, by, t, p, k]) => acting(withPersonal(new DeleteTags(s, 'A', t, undefined, t === null ? -1 : k), p), by)),
      3,
    ),
  ]
}
