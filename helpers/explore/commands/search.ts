/** Channel search by exact name, tag, description and prefix, paged (§4.2, suites/channels.test.ts). */
import fc from 'fast-check'
import type { Exchange } from '../../http/client'
import type { ClauseId } from '../../spec/clauses'
import type { AccountKey } from '../../config/config'
import { show } from '../../kit/expect'
import { checkSchema, formatProblems } from '../../spec/schemas'
import { type ListProblem, settle } from '../judge'
import { Exec, success } from '../state'
import { acting, actorArb, Cmd, plainTag, slotArb, slotOf, TAGS, type Weighted, weighted } from './base'

type SearchKind = 'exact' | 'tag' | 'description' | 'prefix'

export class Search extends Cmd {
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

/** The search commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function searchCommands(): Weighted[] {
  return [
    weighted(
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
  ]
}
