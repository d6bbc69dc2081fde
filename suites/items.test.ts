/**
 * §4.2 publish, get by id, fetch by date range, delete by id and delete all items; §2.6 Published item;
 * §2.3 maxItems, maxPayloadSize and publishPermission. A owns every channel; B and C publish where the
 * permission rules are judged.
 *
 * The server's clock is not ours, and the spec states no range a fetch must accept (a server may refuse one
 * that reaches further back than it keeps items): items are published one after the other and the fetch
 * checks work with ranges near the server's now (helpers/kit/window.ts) that surely hold all of them (a
 * quarter of an hour either side) or surely none (a range that starts half an hour from now, or one that
 * ended half an hour ago). The defaults and requiredness of fetch's five parameters are not shown, so every
 * fetch sends all five, except where a default is what is observed. Set-up publishes ask
 * only for a 2xx; the exact 201 is judged once, by items.publish.response.
 *
 * Item times have no stated precision: items published a few ms apart may share a time, and their order is
 * then the server's. Order is judged on items 15 ms apart when they come back in publish order, otherwise
 * again on items published more than a second apart (orderJudged). Nothing promises read-after-write
 * consistency either: every read-back of a write is polled for.
 *
 * Content is "key/value pairs" (§4.2, §2.6): set-up content holds string values only; what typed and
 * nested values become is only observed (items.content-types). The spec does not say that publish's
 * messageId is the stored item's itemId, so item ids come from a fetch, matched by a unique content value.
 */
import type { Faker } from '@faker-js/faker'
import type { Api, FetchParams } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import { ensure, isSuccess, recordErrorBody, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import { together } from '../helpers/kit/together'
import { acceptedOfRace, mustPublish, mustSubscribe } from '../helpers/kit/setup'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { serverTime, WINDOW_MARGIN_MS } from '../helpers/kit/window'
import { serverNow } from '../helpers/http/server-clock'
import {
  orderedSeries,
  Item,
  Page,
  MAX_PAYLOAD_PROBE,
  MINUTE,
  wide,
  withOffset,
  range,
  ids,
  publish,
  token,
  Content,
  byRef,
  itemIdsOf,
  publishAll,
  publishOne,
  publishSeries,
  orderJudged,
  barrier,
  pageOf,
  fetchPage,
  getPage,
  storedIds,
  richContent,
  typedContent,
} from './support/items'
import { sameText } from './support/match'
import { match, pointer, type Matcher } from './support/match'
import { itemIdKey } from './support/read'
import { answered, fetched, publishFound } from './support/model'

/** A page's itemIds, judged under the label `/items itemIds`. */
const itemIds = (page: Page, m: Matcher): Matcher => match.derived('/items itemIds', ids(page), m)

/** An item of the channel `name` (its channelName in any case). */
const ofChannel = (name: string): Matcher => match.that('/channelName', (got) => sameText(got, name), `${show(name)} in any case`)

/** An item whose itemId is one of `published`. */
const oneOfThem = (published: string[]): Matcher => match.oneOf('/itemId', published, 'one of the items published')

/** A page holding the item `id`, published by the user `userId`. */
function storedBy(id: string, userId: string, what: string): Matcher {
  const key = (i: unknown) => ({ itemId: (i as Partial<Item> | null)?.itemId, publisherUserId: (i as Partial<Item> | null)?.publisher?.userId })
  return match.contains('/items', { itemId: id, publisherUserId: userId }, { key, what })
}

/** A fetch of [since, until] lists every item of `published`, all published within it. */
async function holdsAll(api: Api, name: string, since: string, until: string, published: string[], judge: Judge): Promise<void> {
  const { page, ex } = await fetchPage(api, name, range(since, until), judge)
  judge.match(
    page,
    match.when(`since=${since}&until=${until}`, match.containsAll('/items', published, { key: itemIdKey, what: 'published within that range' })),
    ex,
  )
}

async function storedAll(api: Api, name: string, judge: Judge): Promise<{ stored: string[]; ex: Exchange }> {
  const { page, ex } = await fetchPage(api, name, wide({ sort_order: 'ASC', offset: 0, size: 100 }), judge)
  return { stored: ids(page), ex }
}

/**
 * Publishes one item; its id, and the whole seconds (ms since the epoch) its publish most likely fell in, best
 * first: the second of the summary's lastPublishedTime, then the server's now (known to about half a second) and
 * the seconds either side of it.
 */
async function publishedWithSeconds(a: Api, name: string, fake: Faker, judge: Judge): Promise<{ itemId: string; seconds: number[] }> {
  const itemId = await publishOne(a, name, fake, judge)
  const now = serverNow()
  const sum = await a.summary(name)
  const last = Date.parse(String((sum.json as { lastPublishedTime?: unknown } | undefined)?.lastPublishedTime))
  const whole = (ms: number) => Math.floor(ms / 1000) * 1000
  const hints = [...(Number.isFinite(last) && Math.abs(last - now) < 5000 ? [whole(last)] : []), whole(now), whole(now) - 1000, whole(now) + 1000]
  return { itemId, seconds: [...new Set(hints)] }
}

describe('POST /channels/{channel_name}/items (§4.2 publish item)', () => {
  check('items.publish.response', 'answers 201 with message, status and a non-empty messageId', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const ex = await a.publish(name, { content: { text: fake.lorem.sentence() }, messageType: 'text', contentType: 'application/json' })
    const body = judge.response<{ messageId?: unknown }>(ex, { status: 201, schema: 'publish-response' })
    judge.match(
      body,
      match.that('/messageId', (v) => typeof v === 'string' && v.trim().length > 0, 'a non-empty string'),
      ex,
    )
  })

  check('items.publish.message-id', 'records whether the messageId of publish is the itemId of the stored item', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const ref = token(fake)
    const messageId = await publish(a, name, { ref, text: fake.lorem.sentence() })
    const [itemId] = await itemIdsOf(a, name, [ref], judge)
    judge.observe(
      messageId === itemId
        ? 'the messageId of publish equals the itemId of the stored item'
        : `the messageId of publish differs from the itemId (messageId ${show(messageId)}, itemId ${show(itemId)})`,
    )
  })

  check('items.publish.optional-fields', 'records the answer to a publish without messageType and contentType', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const ref = token(fake)
    const ex = await a.publish(name, { content: { ref, text: fake.lorem.sentence() } })
    if (!isSuccess(ex)) recordErrorBody(ex)
    const after = isSuccess(ex)
      ? await eventually(
          () => a.fetchItems(name, wide()),
          (e) => isSuccess(e) && byRef(e.json as Partial<Page> | undefined).has(ref),
        )
      : await a.fetchItems(name, wide())
    const stored = Array.isArray((after.json as Partial<Page> | undefined)?.items) ? byRef(after.json as Page).has(ref) : undefined
    judge.observe(
      `publish without messageType and contentType: status ${ex.status}; item ${stored === undefined ? `not readable (fetch answered ${after.status})` : stored ? 'stored' : 'not stored'}`,
    )
  })

  check('items.content-types', 'records how nested objects, numbers, booleans and null in content come back', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const content = typedContent(fake)
    const ex = await a.publish(name, { content, messageType: 'text', contentType: 'application/json' })
    if (!isSuccess(ex)) {
      recordErrorBody(ex)
      judge.observe(`publish of typed and nested values: status ${ex.status} (not taken)`)
      return
    }
    const ref = content.ref as string
    const after = await eventually(
      () => a.fetchItems(name, wide()),
      (e) => isSuccess(e) && byRef(e.json as Partial<Page> | undefined).has(ref),
    )
    const items = (after.json as Partial<Page> | undefined)?.items
    const item = Array.isArray(items) ? items.find((i) => i?.content?.ref === ref) : undefined
    if (!item) {
      judge.observe(`publish of typed and nested values: status ${ex.status}; item not found by fetch (status ${after.status})`)
      return
    }
    const back = item.content as Record<string, unknown>
    const lines = Object.keys(content)
      .filter((k) => k !== 'ref')
      .map((k) => {
        return `${k}: ${match.same('', content[k])(back[k]) ? `sent ${show(content[k])}, came back ${k in back ? show(back[k]) : 'missing'}` : 'unchanged'}`
      })
    judge.observe(`publish status ${ex.status}; ${lines.join('; ')}`)
  })

  /** Publishes `content` to a new channel and judges that the item read back (by id, or by a wide fetch) carries it unchanged. */
  async function contentComesBack(a: Api, channels: ChannelFactory, content: Content, judge: Judge, read: 'id' | 'fetch'): Promise<void> {
    const name = await channels.create(a)
    const [id] = await publishAll(a, name, [content], judge)
    const { page, ex } = read === 'id' ? await getPage(a, name, [id!], judge) : await fetchPage(a, name, wide(), judge)
    const item = page.items.find((i) => i.itemId === id)
    ensure(item, judge, match.explain(page, match.contains('/items', id, { key: itemIdKey, what: 'the item published' })), ex)
    judge.match(page, match.same(pointer('items', page.items.indexOf(item), 'content'), content), ex)
  }

  check('items.content-intact', 'returns the published content unchanged from get by id', async ({ a, channels, fake, judge }) => {
    await contentComesBack(a, channels, richContent(fake), judge, 'id')
  })

  check('items.content-intact', 'returns the published content unchanged from fetch', async ({ a, channels, fake, judge }) => {
    await contentComesBack(a, channels, richContent(fake), judge, 'fetch')
  })

  check('items.content-intact', 'returns content keys holding ".", "-" and spaces unchanged', async ({ a, channels, fake, judge }) => {
    // Any string is a key of a key/value map: a key that looks like a path is still one key. (Keys a document
    // store reserves, "$…" or a lone ".", are left out: a server may well refuse those, and this is no check of refusals.)
    const content: Content = { ref: token(fake), 'a.b': fake.lorem.word(), 'x.y.z': 'deep', 'dash-key': 'd', 'two words': 'w' }
    await contentComesBack(a, channels, content, judge, 'id')
  })

  check(
    'items.max-payload',
    'refuses content larger than maxPayloadSize and stores nothing',
    async ({ a, channels, fake, skip, judge }) => {
      const name = await channels.create(a)
      // Polled: reads may lag the create.
      const got = await eventually(
        () => a.getChannel(name),
        (e) => e.status === 200,
      )
      const max = (got.json as { maxPayloadSize?: unknown } | undefined)?.maxPayloadSize
      if (!isSuccess(got) || typeof max !== 'number' || !Number.isInteger(max) || max <= 0 || max > MAX_PAYLOAD_PROBE) {
        judge.observe(
          `get-by-name answered ${got.status} with /maxPayloadSize ${show(max)}: not a positive integer up to 8 MiB, so no content over it is sent`,
          ALSO.maxPayloadValue,
        )
        return skip('maxPayloadSize of the channel is not a usable limit (recorded)')
      }
      // One string value longer than maxPayloadSize: the content's JSON is larger, however the size is measured.
      const ex = await a.publish(name, { content: { ref: token(fake), data: 'x'.repeat(max + 1) }, messageType: 'text', contentType: 'application/json' })
      judge.refused(ex)
      const marker = await barrier(a, name, fake, judge)
      const { stored, ex: after } = await storedIds(a, name, judge)
      const others = stored.filter((i) => i !== marker)
      judge.match(
        after.json,
        match.when('after the refused publish', match.derived('/items itemIds besides a later marker item', others, match.size('', 0))),
        after,
      )
    },
    { timeout: 120_000 },
  )
})

describe('GET /channels/{channel_name}/items?id= (§4.2 get items by id)', () => {
  check('items.get.shape', 'answers totalCount and Published items of the channel', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [first, , third] = await publishSeries(a, name, 3, fake, judge)
    const { page, ex } = await getPage(a, name, [first!, third!], judge, true)
    judge.match(page, [match.atLeast('/items', 1, 'the items asked for'), match.each('/items', ofChannel(name))], ex)
  })

  check('items.get.by-ids', 'returns exactly the two items asked for out of three', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [first, , third] = await publishSeries(a, name, 3, fake, judge)
    const want = [first!, third!]
    const { page, ex } = await getPage(a, name, want, judge)
    judge.match(page, match.exactly('/items', want, { key: itemIdKey }), ex)
  })

  check('items.publisher', 'names the publishing user in publisher.userId', async ({ a, b, users, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'anyone' })
    const id = await publishOne(b, name, fake, judge, a)
    const { page, ex } = await getPage(a, name, [id], judge)
    const item = page.items.find((i) => i.itemId === id)
    ensure(item, judge, match.explain(page, match.contains('/items', id, { key: itemIdKey, what: "B's item" })), ex)
    judge.match(page, match.equal(pointer('items', page.items.indexOf(item), 'publisher', 'userId'), users.B.userId, "the publisher B's user id"), ex)
  })

  check('items.get.unknown-id', 'records the answer to an unknown item id', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    // A set-up step: an INFO check judges nothing, so an item its fetch cannot find blocks it (items.fetch.range).
    const known = await publishOne(a, name, fake, steps.fetchItems)
    const unknown = fake.string.uuid()
    for (const asked of [[unknown], [known, unknown]]) {
      const ex = await a.getItems(name, asked)
      const body = ex.json as Partial<Page> | undefined
      const got = Array.isArray(body?.items) ? body.items.map((i) => (i as Partial<Item>)?.itemId) : undefined
      judge.observe(
        `ids ${asked.length === 1 ? '[unknown]' : '[known, unknown]'}: status ${ex.status}, ${got ? `itemIds ${show(got.map((i) => (i === known ? 'known' : i === unknown ? 'unknown' : i)))}, totalCount ${show(body?.totalCount)}` : `body ${ex.json === undefined ? 'not JSON' : show(ex.json)}`}`,
      )
    }
  })

  check('items.get.by-ids', 'returns exactly the four items asked for out of five', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { maxItems: 10 })
    const published = await publishSeries(a, name, 5, fake, judge)
    const want = [published[0]!, published[1]!, published[3]!, published[4]!]
    const { page, ex } = await getPage(a, name, want, judge)
    judge.match(page, match.exactly('/items', want, { key: itemIdKey }), ex)
  })
})

describe('GET /channels/{channel_name}/items/fetch (§4.2 fetch items by date range)', () => {
  check('items.fetch.shape', 'answers totalCount and Published items', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    await publishSeries(a, name, 2, fake, judge)
    const { page, ex } = await fetchPage(a, name, wide(), judge, true)
    judge.match(page, [match.atLeast('/items', 1, 'the published items'), match.each('/items', ofChannel(name))], ex)
  })

  check(
    'items.fetch.order',
    'lists items oldest first with sort_order=ASC',
    async ({ a, channels, fake, judge }) => {
      await orderJudged(a, channels, 4, fake, judge, { sort_order: 'ASC' }, (published) => published)
    },
    { timeout: 60_000 },
  )

  check(
    'items.fetch.order',
    'lists items newest first with sort_order=DESC',
    async ({ a, channels, fake, judge }) => {
      await orderJudged(a, channels, 4, fake, judge, { sort_order: 'DESC' }, (published) => [...published].reverse())
    },
    { timeout: 60_000 },
  )

  check('items.fetch.size', 'returns at most 2 items with size=2 out of 4', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 4, fake, judge)
    const { page, ex } = await fetchPage(a, name, wide({ size: 2 }), judge)
    judge.match(
      page,
      [match.atMost('/items', 2), match.atLeast('/items', 1, 'up to 2 of the 4 items in range'), match.each('/items', oneOfThem(published))],
      ex,
    )
  })

  check(
    'items.fetch.offset',
    'returns the 2nd and 3rd item with offset=1, size=2 in ASC order',
    async ({ a, channels, fake, judge }) => {
      await orderJudged(a, channels, 4, fake, judge, { sort_order: 'ASC', offset: 1, size: 2 }, (published) => published.slice(1, 3))
    },
    { timeout: 60_000 },
  )

  check(
    'items.fetch.offset',
    'returns the 3rd and 2nd item with offset=1, size=2 in DESC order',
    async ({ a, channels, fake, judge }) => {
      await orderJudged(a, channels, 4, fake, judge, { sort_order: 'DESC', offset: 1, size: 2 }, (published) => [...published].reverse().slice(1, 3))
    },
    { timeout: 60_000 },
  )

  check('items.fetch.range', 'returns every item for a range around them', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 4, fake, judge)
    const { page, ex } = await fetchPage(a, name, wide(), judge)
    const within = "published between since (a quarter of an hour before the server's now) and until (a quarter of an hour after)"
    judge.match(page, match.containsAll('/items', published, { key: itemIdKey, what: within }), ex)
  })

  check('items.fetch.range', 'returns no item for a range that starts half an hour from now', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 4, fake, judge)
    const { page, ex } = await fetchPage(a, name, range(serverTime(30 * MINUTE), serverTime(60 * MINUTE)), judge)
    const inside = ids(page).filter((id) => published.includes(id))
    judge.match(page, match.when(`a range in the future (${inside.length} of the items published now)`, itemIds(page, match.size('', 0))), ex)
  })

  check('items.fetch.range', 'returns no item for a range that ended half an hour ago', async ({ a, channels, fake, skip, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 4, fake, judge)
    const [since, until] = [serverTime(-45 * MINUTE), serverTime(-30 * MINUTE)]
    const ex = await a.fetchItems(name, range(since, until))
    // A range before the items may reach further back than the server keeps items: the spec states no range a
    // fetch must accept, so a refusal (4xx) leaves nothing to judge. Items in the answer are judged.
    if (ex.status >= 400 && ex.status < 500) {
      recordErrorBody(ex)
      return skip(`since=${since}&until=${until}, before the items, was refused (${ex.status}): no answer to judge`)
    }
    const page = pageOf(ex, judge, false)
    const inside = ids(page).filter((id) => published.includes(id))
    judge.match(page, match.when(`a range that ended at ${until} (${inside.length} of the items published now)`, itemIds(page, match.size('', 0))), ex)
  })

  check('items.fetch.range', 'reads since and until written without a fraction of a second', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 2, fake, judge)
    // ISO 8601 lets the fraction go: a quarter of an hour either side of the server's now, on whole seconds.
    const whole = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z')
    const [since, until] = [whole(serverTime(-15 * MINUTE)), whole(serverTime(15 * MINUTE))]
    await holdsAll(a, name, since, until, published, judge)
  })

  check('items.fetch.range', 'reads since and until written with six and nine digits of a fraction of a second', async ({ a, channels, fake, skip, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 2, fake, judge)
    // ISO 8601 gives the fraction of a second no fixed number of digits: ".300000" is 300 ms and ".000300000"
    // 0.3 ms, as ".300" and ".0003" are. Since two minutes before the server's now and until ten minutes after, on
    // whole seconds plus those fractions: a reader that takes the digits for milliseconds puts since 300 s later,
    // after every item (and still before until, so the range is no error).
    const at = (offset: number, fraction: string) => `${serverTime(offset).replace(/\.\d{3}Z$/, '')}.${fraction}Z`
    const forms = [
      { digits: 6, since: at(-2 * MINUTE, '300000'), until: at(10 * MINUTE, '100000') },
      { digits: 9, since: at(-2 * MINUTE, '000300000'), until: at(10 * MINUTE, '000100000') },
    ]
    const refused: string[] = []
    for (const { digits, since, until } of forms) {
      const ex = answered(await a.fetchItems(name, range(since, until)), `fetch since=${since}&until=${until}`)
      // Which forms of an instant a server parses is its own (a refusal is recorded); a form it takes names its instant.
      if (ex.status >= 400 && ex.status < 500) {
        recordErrorBody(ex)
        judge.observe(`since=${since}&until=${until} (${digits} digits of a fraction of a second) was refused: status ${ex.status}`, ALSO.inputRefused)
        refused.push(`${digits} digits: ${ex.status}`)
        continue
      }
      const page = pageOf(ex, judge, false)
      const what = `published within that range (${digits} digits of a fraction of a second)`
      judge.match(page, match.when(`since=${since}&until=${until}`, match.containsAll('/items', published, { key: itemIdKey, what })), ex)
    }
    if (refused.length === 2) return skip(`both forms were refused (${refused.join(', ')}): no answer to judge`)
  })

  check('items.fetch.range', 'reads since and until written with +09:00 and -08:00 offsets as the instants they name', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 2, fake, judge)
    // A quarter of an hour either side of the server's now, each written in a zone far from UTC: read without
    // its offset, since lands nearly nine hours ahead and until nearly eight hours behind, and the range holds nothing.
    const since = withOffset(serverNow() - 15 * MINUTE, 9 * 60)
    const until = withOffset(serverNow() + 15 * MINUTE, -8 * 60)
    await holdsAll(a, name, since, until, published, judge)
  })

  // Instants with a fraction of a second (§2: ISO 8601), inside the second an item was published in. The item's
  // time is not a field (§2.6), so the server's own answers place it: a since that returns the item and a later
  // since that does not bracket its time, and every window holding that bracket must return it; an until that
  // returns the item bounds its time, and a since after that bound must not return it. The second to probe comes
  // from the summary's lastPublishedTime and the server's clock; where no probe places the item (a server that keeps
  // whole seconds, say), nothing is judged.
  check('items.fetch.range', 'returns an item for an until a fraction of a second after it, in its second', async ({ a, channels, fake, skip, judge }) => {
    const name = await channels.create(a)
    const { itemId, seconds } = await publishedWithSeconds(a, name, fake, judge)
    const holds = async (params: FetchParams) => ids((await fetchPage(a, name, params, steps.fetchItems)).page).includes(itemId)
    const far = serverTime(WINDOW_MARGIN_MS)
    for (const second of seconds) {
      const [lo, hi] = [new Date(second + 1).toISOString(), new Date(second + 998).toISOString()]
      // Bracketed: published at lo or after (since=lo returns it) and before hi (since=hi does not).
      if (!(await holds(range(lo, far))) || (await holds(range(hi, far)))) continue
      const ex = answered(await a.fetchItems(name, range(lo, hi)), `fetch since=${lo}&until=${hi}`)
      const page = pageOf(ex, judge, false)
      judge.match(
        page,
        match.when(
          `since=${lo}&until=${hi}, the item returned for since=${lo} and not for since=${hi}`,
          match.contains('/items', itemId, { key: itemIdKey, what: 'the item published within since..until' }),
        ),
        ex,
      )
      return
    }
    return skip(`no probe placed the item inside a second at millisecond bounds (seconds tried: ${seconds.map((t) => new Date(t).toISOString()).join(', ')})`)
  })

  check('items.fetch.range', 'leaves out an item for a since a fraction of a second after it, in its second', async ({ a, channels, fake, skip, judge }) => {
    const name = await channels.create(a)
    const { itemId, seconds } = await publishedWithSeconds(a, name, fake, judge)
    const holds = async (params: FetchParams) => ids((await fetchPage(a, name, params, steps.fetchItems)).page).includes(itemId)
    const past = serverTime(-WINDOW_MARGIN_MS)
    const far = serverTime(WINDOW_MARGIN_MS)
    for (const second of seconds) {
      const [before, bound, after] = [new Date(second - 1).toISOString(), new Date(second + 998).toISOString(), new Date(second + 999).toISOString()]
      // Published at bound or before (until=bound returns it), and in this second (until=before does not).
      if (!(await holds(range(past, bound))) || (await holds(range(past, before)))) continue
      const ex = answered(await a.fetchItems(name, range(after, far)), `fetch since=${after}`)
      const page = pageOf(ex, judge, false)
      judge.match(
        page,
        match.when(
          `since=${after}, after the item (returned for until=${bound})`,
          match.lacks('/items', itemId, { key: itemIdKey, what: 'an item published before since' }),
        ),
        ex,
      )
      return
    }
    return skip(`no probe placed the item inside a second at millisecond bounds (seconds tried: ${seconds.map((t) => new Date(t).toISOString()).join(', ')})`)
  })

  check('items.fetch.defaults', 'records what a fetch without parameters returns and what totalCount counts', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    // An INFO check judges nothing of its own: the items it needs are a set-up step (fetch's), which blocks it.
    const published = await publishSeries(a, name, 4, fake, steps.fetchItems)
    const orderOf = (got: string[]): string =>
      show(got) === show(published)
        ? 'publish order (oldest first)'
        : show(got) === show([...published].reverse())
          ? 'reverse publish order (newest first)'
          : `other order ${show(got.map((id) => published.indexOf(id) + 1))}`
    const bare = await a.fetchItems(name)
    const body = bare.json as Partial<Page> | undefined
    if (isSuccess(bare) && Array.isArray(body?.items)) {
      const got = body.items.map((i) => (i as Partial<Item>)?.itemId as string)
      judge.observe(`no parameters: status ${bare.status}, ${got.length} of 4 items, ${orderOf(got)}, totalCount ${show(body.totalCount)}`)
    } else {
      judge.observe(`no parameters: status ${bare.status}, body ${bare.json === undefined ? 'not JSON' : show(bare.json)}`)
    }
    const paged = await a.fetchItems(name, wide({ size: 2 }))
    const pb = paged.json as Partial<Page> | undefined
    const total = pb?.totalCount
    const meaning =
      total === 4 ? 'every item in range' : total === 2 || total === pb?.items?.length ? 'the items of the page' : 'neither the page nor the range'
    judge.observe(
      `4 items in range, size=2: status ${paged.status}, ${Array.isArray(pb?.items) ? pb.items.length : '?'} items, totalCount ${show(total)} (${meaning})`,
    )
  })

  check('items.fetch.offset', 'pages from the newest item with sort_order=DESC: offset 0 and 1, size 2, out of 5', async ({ a, channels, fake, judge }) => {
    // maxItems 10 states room for all five, whatever the server does with an unlimited channel. Their order is
    // judged here, so they are spaced as far as the server's item times need (orderedSeries).
    const { channel, series, apart } = await orderedSeries(a, channels, 5, fake, judge, { maxItems: 10 })
    const newest = [...series].reverse()
    for (const offset of [0, 1]) {
      const want = newest.slice(offset, offset + 2)
      const { page, ex } = await fetchPage(a, channel, wide({ sort_order: 'DESC', offset, size: 2 }), judge)
      const order = `newest first: ${show(newest)}, items published ${apart}`
      judge.match(page, match.when(`sort_order=DESC&offset=${offset}&size=2`, itemIds(page, match.equal('', want, order))), ex)
    }
  })

  check('items.fetch.size', 'returns all three items with size=3 and none with offset=3', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 3, fake, judge)
    const all = await fetchPage(a, name, wide({ sort_order: 'ASC', offset: 0, size: 3 }), judge)
    judge.match(all.page, match.when('size=3 of 3 items', match.containsAll('/items', published, { key: itemIdKey })), all.ex)
    const past = await fetchPage(a, name, wide({ sort_order: 'ASC', offset: 3, size: 3 }), judge)
    judge.match(past.page, match.when('offset=3 of 3 items', itemIds(past.page, match.size('', 0))), past.ex)
  })

  check('items.fetch.size', 'returns exactly 1 item with size=1 out of 3', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 3, fake, judge)
    const { page, ex } = await fetchPage(a, name, wide({ sort_order: 'ASC', offset: 0, size: 1 }), judge)
    judge.match(page, [match.when('size=1', match.size('/items', 1)), match.when('size=1', match.each('/items', oneOfThem(published)))], ex)
  })
})

describe('DELETE /channels/{channel_name}/items?id= (§4.2 delete items by id)', () => {
  check('items.delete.result', 'answers one integer status per item id asked', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [first, second] = await publishSeries(a, name, 3, fake, judge)
    const asked = [first!, second!]
    const ex = await a.deleteItems(name, asked)
    const body = judge.response<Record<string, unknown>>(ex, { status: '2xx', schema: 'delete-items-result' })
    judge.match(
      body,
      [match.derived('(root) keys', Object.keys(body), match.exactly('', asked, { what: 'the ids asked' })), ...asked.map((id) => match.integer(pointer(id)))],
      ex,
    )
  })

  check('items.delete.removes', 'removes the two items deleted and keeps the third', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const [first, second, third] = await publishSeries(a, name, 3, fake, judge)
    const del = await a.deleteItems(name, [first!, second!])
    judge.response(del, { status: '2xx' })
    // A deployment may remove the items a moment after answering: poll until the deleted ones are gone.
    const gone = (e: Exchange) =>
      isSuccess(e) && Array.isArray((e.json as Partial<Page> | undefined)?.items) && !ids(e.json as Page).some((i) => i === first || i === second)
    const { stored, ex } = await storedIds(a, name, judge, gone)
    judge.match(ex.json, match.when('fetch after delete', match.derived('/items itemIds', stored, match.equal('', [third], 'only the item not deleted'))), ex)
    // Get by id of the kept item only: what deleted (now unknown) ids get is not shown (§4.2), and only recorded.
    const kept = await getPage(a, name, [third!], judge)
    judge.match(kept.page, match.when('get by id after delete', match.contains('/items', third, { key: itemIdKey, what: 'the kept item' })), kept.ex)
    const asked = await a.getItems(name, [first!, third!])
    const body = asked.json as Partial<Page> | undefined
    judge.observe(
      `ids [deleted, kept]: status ${asked.status}, ${Array.isArray(body?.items) ? `itemIds ${show(ids(body as Page).map((i) => (i === first ? 'deleted' : i === third ? 'kept' : i)))}` : `body ${asked.json === undefined ? 'not JSON' : show(asked.json)}`}`,
      ALSO.getUnknownId,
    )
  })
})

describe('DELETE /channels/{channel_name}/items/all (§4.2 delete all items)', () => {
  check('items.delete-all.status', 'answers 200 when the owner deletes all items', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    await publishSeries(a, name, 2, fake, judge)
    judge.response(await a.deleteAllItems(name, false), { status: 200 })
  })

  check('items.delete-all.empties', 'leaves the channel without items', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 2, fake, judge)
    const before = await storedIds(a, name, judge)
    judge.match(before.ex.json, match.when('before delete', match.derived('/items itemIds', before.stored, match.containsAll('', published))), before.ex)
    judge.response(await a.deleteAllItems(name, false), { status: '2xx' })
    const empty = (e: Exchange) => isSuccess(e) && Array.isArray((e.json as Partial<Page> | undefined)?.items) && (e.json as Page).items.length === 0
    const { stored, ex } = await storedIds(a, name, judge, empty)
    judge.match(ex.json, match.when('after delete all', match.derived('/items itemIds', stored, match.size('', 0))), ex)
  })

  check('items.delete-all.owner-only', 'refuses another user and keeps the items', async ({ a, b, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 2, fake, judge)
    const ex = await b.deleteAllItems(name, false)
    judge.refused(ex, { status: 403, clause: ALSO.forbidden403 })
    // Once a later write is visible, so is whatever the refused delete did.
    await barrier(a, name, fake, judge)
    const { stored, ex: after } = await storedIds(a, name, judge)
    judge.match(after.json, match.when('after the refused delete', match.derived('/items itemIds', stored, match.containsAll('', published))), after)
  })

  check(
    'items.delete-all.owner-only',
    "refuses another user's delete all of a private channel addressed as <user_id>#<channel_name>",
    async ({ a, b, users, channels, fake, judge }) => {
      const name = await channels.create(a, { privateChannel: true })
      const published = await publishSeries(a, name, 2, fake, judge)
      for (const personal of [false, true]) {
        const ex = await b.deleteAllItems(`${users.A.userId}#${name}`, personal)
        judge.refused(ex)
      }
      const { stored, ex } = await storedAll(a, name, judge)
      judge.match(ex.json, match.when("after B's refused deletes", match.derived('/items itemIds', stored, match.containsAll('', published))), ex)
    },
  )

  check('items.delete-all.owner-only', 'refuses a subscribed non-owner and keeps the items', async ({ a, b, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 2, fake, judge)
    await mustSubscribe(b, name)
    judge.refused(await b.deleteAllItems(name, false), { status: 403, clause: ALSO.forbidden403 })
    const { stored, ex } = await storedAll(a, name, judge)
    judge.match(ex.json, match.when("after the subscriber B's refused delete", match.derived('/items itemIds', stored, match.containsAll('', published))), ex)
  })

  check('items.delete-all.empties', 'removes the items of other publishers too', async ({ a, b, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'anyone' })
    const theirs = await publishOne(b, name, fake, judge, a)
    const mine = await publishOne(a, name, fake, judge)
    const before = await storedAll(a, name, judge)
    judge.match(before.ex.json, match.when('before delete', match.derived('/items itemIds', before.stored, match.containsAll('', [theirs, mine]))), before.ex)
    judge.response(await a.deleteAllItems(name, false), { status: '2xx' })
    // Polled until empty: reads may lag the delete.
    const ex = await eventually(
      () => a.fetchItems(name, wide({ sort_order: 'ASC', offset: 0, size: 100 })),
      (e) => isSuccess(e) && Array.isArray((e.json as Partial<Page> | undefined)?.items) && (e.json as Page).items.length === 0,
    )
    const stored = ids(pageOf(ex, judge, false))
    judge.match(ex.json, match.when(`after delete all (B's item ${show(theirs)} included)`, match.derived('/items itemIds', stored, match.size('', 0))), ex)
  })
})

/** A fetch of `name`, polled until it holds at most `n` items: a deployment may trim a moment after the publish. */
function trimmedTo(api: Api, name: string, n: number): Promise<Exchange> {
  return eventually(
    () => api.fetchItems(name, wide()),
    (e) => isSuccess(e) && Array.isArray((e.json as Partial<Page> | undefined)?.items) && (e.json as Page).items.length <= n,
  )
}

/** The owner's fetch of `name` (polled) holds each of `refs`: `when` says what the channel went through. */
async function judgeRefsKept(api: Api, name: string, refs: readonly string[], judge: Judge, when: string, what: string): Promise<void> {
  const { items, ex } = await fetched(api, name, (list) => refs.every((r) => list.some((i) => i.content?.ref === r)))
  judge.match(
    ex.json,
    match.when(
      when,
      match.derived(
        '/items refs',
        items.map((i) => i.content?.ref),
        match.containsAll('', refs, { what }),
      ),
    ),
    ex,
  )
}

describe('maxItems (§2.3)', () => {
  check('items.max-items', 'keeps at most 2 items in a channel with maxItems 2', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { maxItems: 2 })
    await publishSeries(a, name, 2, fake, judge)
    // 15 ms apart, as in publishSeries: distinct publish times at millisecond precision.
    await new Promise((r) => setTimeout(r, 15))
    // A third publish may be taken (and an older item dropped) or refused; either keeps at most 2.
    await a.publish(name, { content: { ref: token(fake), seq: '3' }, messageType: 'text', contentType: 'application/json' })
    // A deployment may trim a moment after the publish: poll until at most 2 are left.
    const ex = await trimmedTo(a, name, 2)
    const stored = ids(pageOf(ex, judge, false))
    judge.match(ex.json, match.when('maxItems 2', match.derived('/items itemIds', stored, match.atMost('', 2))), ex)
    judge.match(ex.json, match.derived('/items itemIds', stored, match.atLeast('', 1, 'the items kept')), ex)
  })

  // The publisher × maxItems: the bound is the channel's (§2.3 "maximum number of items kept"), whoever published.
  check(
    'items.max-items',
    'keeps at most 2 items in a channel with maxItems 2 that the owner and another user each published 2 to',
    async ({ a, b, channels, fake, skip, judge }) => {
      const name = await channels.create(a, { maxItems: 2 })
      await publishSeries(a, name, 2, fake, judge)
      // B's publishes (publishPermission anyone, the default) may be taken, an older item dropped, or refused as the
      // channel is full; either keeps at most 2. 15 ms apart, as in publishSeries.
      let taken = 0
      for (const seq of ['3', '4']) {
        await new Promise((r) => setTimeout(r, 15))
        if (isSuccess(await b.publish(name, { content: { ref: token(fake), seq }, messageType: 'text', contentType: 'application/json' }))) taken++
      }
      if (taken === 0) return skip("both of the other user's publishes to the full channel were refused: no item of theirs to bound")
      const ex = await trimmedTo(a, name, 2)
      const stored = ids(pageOf(ex, judge, false))
      judge.match(
        ex.json,
        match.when('maxItems 2, 2 publishes by the owner then 2 by another user', match.derived('/items itemIds', stored, match.atMost('', 2))),
        ex,
      )
    },
  )

  // The owner's other channels × maxItems: the bound counts this channel's items only (§2.3), not its owner's.
  check(
    'items.max-items',
    "keeps both of two items in a channel with maxItems 3 while its owner's other channel holds 3 items",
    async ({ a, channels, fake, judge }) => {
      const other = await channels.create(a)
      await publishSeries(a, other, 3, fake, steps.fetchItems)
      const name = await channels.create(a, { maxItems: 3 })
      const refs = [token(fake), token(fake)]
      for (const ref of refs) await mustPublish(a, name, { content: { ref }, messageType: 'text', contentType: 'application/json' })
      await judgeRefsKept(a, name, refs, judge, "maxItems 3, 2 publishes, the owner's other channel holding 3 items", 'both items, under the bound')
    },
  )

  check('items.max-items.unlimited', 'keeps all 5 items in a channel with the default maxItems', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const published = await publishSeries(a, name, 5, fake, judge)
    const { stored, ex } = await storedIds(a, name, judge)
    judge.match(
      ex.json,
      [
        match.derived('/items itemIds', stored, match.containsAll('', published, { what: 'every item kept (maxItems -1)' })),
        match.derived('/items itemIds', stored, match.size('', 5)),
      ],
      ex,
    )
  })

  check('items.max-items.unlimited', 'keeps each of 4 items published at the same time', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const contents: Content[] = [1, 2, 3, 4].map((n) => ({ ref: token(fake), seq: String(n) }))
    const answers = await Promise.all(contents.map((content) => a.publish(name, { content, messageType: 'text', contentType: 'application/json' })))
    // Each publish answered with a 2xx must have stored its item.
    const kept = acceptedOfRace(contents, answers, steps.publish)
    await itemIdsOf(
      a,
      name,
      kept.map((c) => c.ref),
      judge,
    )
  })

  check('items.get.by-ids', 'returns each of two items published at the same moment by its own id', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const contents: Content[] = [1, 2].map((n) => ({ ref: token(fake), seq: String(n) }))
    const answers = await together(contents.map((content) => () => a.publish(name, { content, messageType: 'text', contentType: 'application/json' })))
    const kept = acceptedOfRace(contents, answers, steps.publish)
    // Each item published is found by the fetch (a set-up step: one lost at one moment is the unlimited channel's deviation).
    const ids = await itemIdsOf(
      a,
      name,
      kept.map((c) => c.ref),
      steps.keptAtOnce,
    )
    for (const [i, id] of ids.entries()) {
      const ex = answered(await a.getItems(name, [id]), `get item ${i + 1} by its id`)
      const body = judge.response<unknown>(ex, { status: '2xx' })
      const own = (m: Matcher) => match.when(`get by the id of item ${i + 1} of ${kept.length} published at once`, m)
      judge.match(body, [own(match.size('/items', 1)), own(match.equal('/items/0/content/ref', kept[i]!.ref, `the ref of item ${i + 1}`))], ex)
    }
  })

  check('items.max-items.eviction', 'records which items a full channel keeps', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { maxItems: 2 })
    // A set-up (an INFO check judges nothing): the items' read-back is the fetch's step.
    await publishSeries(a, name, 2, fake, steps.fetchItems)
    await new Promise((r) => setTimeout(r, 15))
    const third = await a.publish(name, { content: { ref: token(fake), seq: '3' }, messageType: 'text', contentType: 'application/json' })
    const ex = await trimmedTo(a, name, 2)
    const items = (ex.json as Partial<Page> | undefined)?.items
    const kept = Array.isArray(items) ? items.map((i) => i?.content?.seq ?? '?') : `none readable (fetch answered ${ex.status})`
    judge.observe(`maxItems 2, 3 publishes (3rd answered ${third.status}): keeps items ${show(kept)} (by publish order, 1 = oldest)`)
  })

  // A channel's later life: what a delete took away is free again (§2.3 maxItems bounds the items held), and an
  // item published after a delete is a new item beside the ones kept (§2.6: each item has its own itemId).
  check(
    'items.max-items',
    'keeps both of two items published into a channel with maxItems 3 after it was filled and emptied by delete all',
    async ({ a, channels, fake, judge }) => {
      const name = await channels.create(a, { maxItems: 3 })
      await publishSeries(a, name, 3, fake, judge)
      steps.deleteAllItems.response(answered(await a.deleteAllItems(name, false), 'delete all items of the full channel'), { status: '2xx' })
      await fetched(a, name, (list) => list.length === 0)
      const refs = [token(fake), token(fake)]
      for (const ref of refs) await publishFound(a, name, { ref }, ref)
      const when = 'maxItems 3, filled with 3 items, emptied by delete all, then 2 publishes'
      await judgeRefsKept(a, name, refs, judge, when, 'both items published after the delete')
    },
  )

  check('items.get.by-ids', 'returns each item kept by its own id after a delete by id and a later publish', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a)
    const refs = [token(fake), token(fake), token(fake), token(fake)]
    const ids: string[] = []
    for (const ref of refs.slice(0, 3)) ids.push((await publishFound(a, name, { ref }, ref)).itemId)
    steps.deleteItems.response(answered(await a.deleteItems(name, [ids[0]!]), 'delete item 1 by id'), { status: '2xx' })
    await fetched(a, name, (list) => !list.some((i) => i.itemId === ids[0]))
    ids.push((await publishFound(a, name, { ref: refs[3] }, refs[3]!)).itemId)
    for (const i of [1, 2, 3]) {
      const ex = answered(await a.getItems(name, [ids[i]!]), `get item ${i + 1} by its id`)
      const body = judge.response<unknown>(ex, { status: '2xx' })
      const own = (m: Matcher) => match.when(`get by the id of item ${i + 1} (item 1 deleted by id before item 4 was published)`, m)
      judge.match(body, [own(match.size('/items', 1)), own(match.equal('/items/0/content/ref', refs[i], `the ref of item ${i + 1}`))], ex)
    }
  })

  check('items.max-items', 'keeps at most 1 item in a channel with maxItems 1', async ({ a, channels, fake, judge }) => {
    const name = await channels.create(a, { maxItems: 1 })
    await publishOne(a, name, fake, judge)
    await new Promise((r) => setTimeout(r, 15))
    // The second publish may be taken (and the first item dropped) or refused; either keeps exactly 1.
    await a.publish(name, { content: { ref: token(fake), seq: '2' }, messageType: 'text', contentType: 'application/json' })
    // Polled until one item shows: reads may lag (a stale read may still show both, or none yet).
    const ex = await eventually(
      () => a.fetchItems(name, wide({ sort_order: 'ASC', offset: 0, size: 100 })),
      (e) => isSuccess(e) && Array.isArray((e.json as Partial<Page> | undefined)?.items) && (e.json as Page).items.length === 1,
    )
    const stored = ids(pageOf(ex, judge, false))
    judge.match(ex.json, match.when('maxItems 1, two publishes', match.derived('/items itemIds', stored, match.size('', 1))), ex)
  })
})

/**
 * `caller`'s publish to `name`, which the channel's publishPermission refuses (403 is the convention); then the owner
 * A's marker, which once visible shows whatever the refused publish stored before it: the channel holds the marker
 * alone, as `read` reads it. `after` says when, for the message.
 */
async function refusedThenMarkerOnly(
  caller: Api,
  a: Api,
  name: string,
  fake: Faker,
  judge: Judge,
  after: string,
  read: (api: Api, name: string, judge: Judge) => Promise<{ stored: string[]; ex: Exchange }>,
): Promise<void> {
  const refused = await caller.publish(name, { content: { text: fake.lorem.sentence() }, messageType: 'text', contentType: 'application/json' })
  judge.refused(refused, { status: 403, clause: ALSO.forbidden403 })
  const marker = await barrier(a, name, fake, judge)
  const none = await read(a, name, judge)
  judge.match(none.ex.json, match.when(after, match.derived('/items itemIds', none.stored, match.equal('', [marker], 'only the marker'))), none.ex)
}

describe('publishPermission (§2.3, §4.2)', () => {
  check('items.permission.owner', 'refuses a subscribed non-owner and lets the owner publish', async ({ a, b, users, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'owner' })
    await mustSubscribe(b, name)
    const refused = await b.publish(name, { content: { text: fake.lorem.sentence() }, messageType: 'text', contentType: 'application/json' })
    judge.refused(refused, { status: 403, clause: ALSO.forbidden403 })
    // The owner's item, once visible, shows whatever B's refused publish stored before it.
    const id = await publishOne(a, name, fake, judge, a, judge)
    const none = await storedIds(a, name, judge)
    judge.match(
      none.ex.json,
      match.when("after B's refused publish and the owner's", match.derived('/items itemIds', none.stored, match.equal('', [id], "only the owner's item"))),
      none.ex,
    )
    const { page, ex } = await getPage(a, name, [id], judge)
    judge.match(page, storedBy(id, users.A.userId, "the owner's item"), ex)
  })

  check('items.permission.subscribers', 'refuses a non-subscriber and lets it publish once subscribed', async ({ a, c, users, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'subscribers' })
    await refusedThenMarkerOnly(c, a, name, fake, judge, "after C's refused publish and the owner's marker", storedIds)
    await mustSubscribe(c, name)
    const id = await publishOne(c, name, fake, judge, a, judge)
    const { page, ex } = await getPage(a, name, [id], judge)
    judge.match(page, storedBy(id, users.C.userId, "the subscriber C's item"), ex)
  })

  check('items.permission.anyone', 'lets a user who is not subscribed publish', async ({ a, b, users, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'anyone', subscribeOnCreate: false })
    const id = await publishOne(b, name, fake, judge, a, judge)
    const { page, ex } = await getPage(a, name, [id], judge)
    judge.match(page, storedBy(id, users.B.userId, "B's item"), ex)
  })

  check('items.permission.subscribers', 'refuses a user who subscribed and then unsubscribed', async ({ a, c, users, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'subscribers' })
    await mustSubscribe(c, name)
    steps.unsubscribe.response(await c.unsubscribe(name), { status: '2xx' })
    // Seen gone from the list first, so the refusal is not judged against a subscription still being removed.
    await eventually(
      () => a.subscriptions(name),
      (e) => isSuccess(e) && Array.isArray(e.json) && !(e.json as { userId?: unknown }[]).some((s) => s?.userId === users.C.userId),
    )
    await refusedThenMarkerOnly(c, a, name, fake, judge, "after the refused publish of C, who unsubscribed, and the owner's marker", storedAll)
  })
})
