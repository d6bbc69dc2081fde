/**
 * What the items checks (suites/items.test.ts) share: the page and item shapes they read, fetch ranges near the
 * server's now, publishing and reading back items (set-up steps, or the act a check judges), and the
 * content they publish.
 */
import type { Faker } from '@faker-js/faker'
import type { Api, CreateChannelBody, FetchParams } from '../../helpers/http/api'
import type { Exchange } from '../../helpers/http/client'
import { ensure, isSuccess, show } from '../../helpers/kit/expect'
import { eventually } from '../../helpers/kit/poll'
import { mustPublish, uniqueToken } from '../../helpers/kit/setup'
import { ALSO, steps, type Judge } from '../../helpers/kit/judge'
import { aroundNow } from '../../helpers/kit/window'
import { match } from './match'
import { itemIdKey } from './read'

export interface Item {
  itemId: string
  channelName: string
  publisher: { userId: string; deviceId: string | null }
  content: Record<string, unknown>
}

export interface Page {
  totalCount: number
  items: Item[]
}

/** The largest maxPayloadSize the payload check sends content over (8 MiB): a larger limit is recorded, not probed. */
export const MAX_PAYLOAD_PROBE = 8 * 1024 * 1024
export const MINUTE = 60_000
/** A page larger than any channel of these checks holds (at most 5 items), and no larger than a common default. */
export const PAGE = 10
/**
 * All five fetch parameters, for a range that holds every item the check publishes (a quarter of an hour
 * either side of the server's now), oldest first, from the first item.
 */
export const wide = (extra: FetchParams = {}): FetchParams => aroundNow({ size: PAGE, ...extra })
/** The instant `ms` written in ISO 8601 with a numeric offset of `minutes` east of UTC (`…T…+09:00`). */
export function withOffset(ms: number, minutes: number): string {
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 23)
  const abs = Math.abs(minutes)
  return `${local}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`
}
/** A range with all five parameters (see wide). */
export const range = (since: string, until: string): FetchParams => ({ since, until, sort_order: 'ASC', offset: 0, size: PAGE })

export const ids = (page: Page): string[] => page.items.map((i) => i?.itemId)

/**
 * Publishes and returns the messageId (a 2xx and a non-empty messageId). A set-up step, charged to
 * items.publish.response (helpers/kit/setup.ts), unless `act` names the check that judges this very publish (a
 * publishPermission check's allowed publisher).
 */
export async function publish(api: Api, name: string, content: Record<string, unknown>, act?: Judge): Promise<string> {
  const body = { content, messageType: 'text', contentType: 'application/json' }
  if (!act) return mustPublish(api, name, body)
  const ex = await api.publish(name, body)
  const messageId = act.response<{ messageId?: unknown } | undefined>(ex, { status: '2xx' })?.messageId
  ensure(typeof messageId === 'string' && messageId.length > 0, act, match.explain({ messageId }, match.nonEmptyString('/messageId')), ex)
  return messageId
}

/** A value no other item, check or run has. */
export const token = (fake: Faker): string => uniqueToken(fake)

/** Content of string values only, marked with a unique `ref` to find the item by. */
export type Content = Record<string, string> & { ref: string }

/** The itemIds of the items on a page (any answer body: no items array, no ids), by their content's `ref`. */
export function byRef(page: Partial<Page> | undefined): Map<string, string> {
  const out = new Map<string, string>()
  for (const item of Array.isArray(page?.items) ? page.items : []) {
    const ref = item?.content?.ref
    if (typeof ref === 'string' && typeof item.itemId === 'string') out.set(ref, item.itemId)
  }
  return out
}

/**
 * The itemIds of the items whose content carries the given refs, in that order, read from a fetch over a
 * range that holds them all; polled, since a deployment may store an item a moment after answering.
 */
export async function itemIdsOf(api: Api, name: string, refs: string[], judge: Judge): Promise<string[]> {
  const ex = await eventually(
    () => api.fetchItems(name, wide()),
    (e) => isSuccess(e) && refs.every((r) => byRef(e.json as Partial<Page> | undefined).has(r)),
  )
  const page = pageOf(ex, judge, false)
  const found = byRef(page)
  // The /content/ref of each item that has a string itemId (byRef's reading).
  const refOf = (i: unknown) => (typeof (i as Item | null)?.itemId === 'string' ? (i as Item).content?.ref : undefined)
  judge.match(
    page.items,
    match.when('fetch after publish', match.containsAll('', refs, { key: refOf, what: '/content/ref of the published items, each with a string itemId' })),
    ex,
  )
  return refs.map((r) => found.get(r)!)
}

/**
 * Publishes the contents one after the other as `api`, then returns their itemIds in publish order (found
 * by `reader`'s fetch).
 */
export async function publishAll(
  api: Api,
  name: string,
  contents: Content[],
  judge: Judge,
  reader: Api = api,
  { act, gapMs = 15 }: { act?: Judge; gapMs?: number } = {},
): Promise<string[]> {
  for (let i = 0; i < contents.length; i++) {
    // Apart in time, so that a server with fine item times orders them; see orderJudged for coarse ones.
    if (i > 0) await new Promise((r) => setTimeout(r, gapMs))
    await publish(api, name, contents[i]!, act)
  }
  return itemIdsOf(
    reader,
    name,
    contents.map((c) => c.ref),
    judge,
  )
}

/** Publishes one item and returns its itemId. */
export async function publishOne(api: Api, name: string, fake: Faker, judge: Judge, reader: Api = api, act?: Judge): Promise<string> {
  const [itemId] = await publishAll(api, name, [{ ref: token(fake), text: fake.lorem.sentence() }], judge, reader, { act })
  return itemId!
}

/** Publishes `n` small items one after the other (so the server sees them in this order); their itemIds. */
export async function publishSeries(api: Api, name: string, n: number, fake: Faker, judge: Judge, gapMs = 15): Promise<string[]> {
  const contents = Array.from({ length: n }, (_, i): Content => ({ ref: token(fake), seq: String(i + 1), text: fake.lorem.words(3) }))
  return publishAll(api, name, contents, judge, api, { gapMs })
}

/** More than a second: items this far apart have distinct times at any precision a timestamp commonly has. */
export const SECOND_APART_MS = 1100

/**
 * A fresh channel of `n` items whose order the server's times decide, published one after the other: 15 ms
 * apart when a full ASC and a full DESC fetch give them in publish order and in reverse (their times then
 * differ, at whatever precision the server keeps them), otherwise (their times may be equal: item time
 * precision is not stated, and a server may keep whole seconds even where it shows milliseconds) on a second
 * fresh channel, published more than a second apart. The spacing is learned from what the server answers, so
 * a server with fine item times costs no waiting.
 */
export async function orderedSeries(
  a: Api,
  channels: { create(owner: Api, overrides?: Partial<CreateChannelBody>): Promise<string> },
  n: number,
  fake: Faker,
  judge: Judge,
  overrides: Partial<CreateChannelBody> = {},
): Promise<{ channel: string; series: string[]; apart: string }> {
  const name = await channels.create(a, overrides)
  const published = await publishSeries(a, name, n, fake, judge)
  const asc = ids((await fetchPage(a, name, wide({ sort_order: 'ASC' }), judge)).page)
  const desc = ids((await fetchPage(a, name, wide({ sort_order: 'DESC' }), judge)).page)
  if (show(asc) === show(published) && show(desc) === show([...published].reverse()))
    return { channel: name, series: published, apart: '15 ms apart, in publish order ASC and in reverse DESC' }
  const position = (got: string[]) => show(got.map((i) => published.indexOf(i) + 1))
  judge.observe(
    `items 15 ms apart came back ASC as ${position(asc)} and DESC as ${position(desc)} (publish order 1…${n}): their times may be equal, so the order is judged on items more than a second apart`,
    ALSO.timePrecision,
  )
  const channel = await channels.create(a, overrides)
  return { channel, series: await publishSeries(a, channel, n, fake, judge, SECOND_APART_MS), apart: `${SECOND_APART_MS} ms apart` }
}

/**
 * Judges the order of a fetch over `n` published items (orderedSeries): `want` gives the expected itemIds
 * from the publish order.
 */
export async function orderJudged(
  a: Api,
  channels: { create(owner: Api, overrides?: Partial<CreateChannelBody>): Promise<string> },
  n: number,
  fake: Faker,
  judge: Judge,
  params: FetchParams,
  want: (published: string[]) => string[],
): Promise<void> {
  const { channel, series, apart } = await orderedSeries(a, channels, n, fake, judge)
  const { page, ex } = await fetchPage(a, channel, wide(params), judge)
  judge.match(page, match.derived('/items itemIds', ids(page), match.equal('', want(series), `publish order ${show(series)}, items published ${apart}`)), ex)
}

/**
 * Publishes a marker item as `api` and polls until `reader` sees it: whatever an earlier write changed is
 * then visible too, on a server whose reads lag behind its writes in order. Returns the marker's itemId.
 */
export async function barrier(api: Api, name: string, fake: Faker, judge: Judge, reader: Api = api): Promise<string> {
  return publishOne(api, name, fake, judge, reader)
}

/**
 * The page of a get-by-id or fetch answer. The shape checks judge it against the items-page schema; the
 * others only need a 2xx and an items array to read, so a wrong field elsewhere fails only the shape checks.
 */
export function pageOf(ex: Exchange, judge: Judge, judgeShape: boolean): Page {
  if (judgeShape) return judge.response<Page>(ex, { status: '2xx', schema: 'items-page' })
  const body = judge.response<Partial<Page> | undefined>(ex, { status: '2xx' })
  ensure(Array.isArray(body?.items), judge, match.explain(body, match.that('/items', Array.isArray, 'an array of Published items')), ex)
  return { totalCount: body.totalCount as number, items: body.items.map((i) => (i !== null && typeof i === 'object' ? i : ({} as Item))) }
}

export async function fetchPage(api: Api, name: string, params: FetchParams, judge: Judge, judgeShape = false): Promise<{ page: Page; ex: Exchange }> {
  const ex = await api.fetchItems(name, params)
  return { page: pageOf(ex, judge, judgeShape), ex }
}

/**
 * Get by id of items the check published and needs back. An id left out that a fetch of the channel holds is
 * items.get.by-ids' deviation, not the reading check's: a set-up step then, and the check is blocked by it. An
 * id the fetch lacks too (never stored, say) stays the check's to judge. The fetch is made only when an id is
 * left out.
 */
export async function getPage(api: Api, name: string, itemIds: string[], judge: Judge, judgeShape = false): Promise<{ page: Page; ex: Exchange }> {
  const ex = await api.getItems(name, itemIds)
  const page = pageOf(ex, judge, judgeShape)
  const missing = itemIds.filter((id) => !ids(page).includes(id))
  if (missing.length > 0) {
    const held = await api.fetchItems(name, wide())
    const fetched = (held.json as Partial<Page> | undefined)?.items
    if (isSuccess(held) && Array.isArray(fetched) && missing.every((id) => fetched.some((i) => i?.itemId === id))) {
      steps.itemsById.match(page, match.containsAll('/items', missing, { key: itemIdKey, what: 'the ids asked for, which a fetch of the channel holds' }), ex)
    }
  }
  return { page, ex }
}

/** The item ids the channel holds, oldest first, by a fetch over a range that holds them all. */
export async function storedIds(api: Api, name: string, judge: Judge, until?: (e: Exchange) => boolean): Promise<{ stored: string[]; ex: Exchange }> {
  const ex = until ? await eventually(() => api.fetchItems(name, wide()), until) : await api.fetchItems(name, wide())
  return { stored: ids(pageOf(ex, judge, false)), ex }
}

/** Content of several string values: non-ASCII text, JSON-special characters, an empty string, a digit string, a long text. */
export function richContent(fake: Faker): Content {
  return {
    ref: token(fake),
    title: `Grüße, 你好, ¡hola! ${fake.lorem.words(2)} 🚀`,
    label: 'ünïcødé ✓ — “quotes” "double" \\ back / slash\nnew line\ttab',
    empty: '',
    digits: '007',
    padded: `  ${fake.lorem.word()}  `,
    long: Array.from({ length: 150 }, () => fake.lorem.sentence()).join(' '),
  }
}

/** Typed and nested values, which the spec's "key/value pairs" neither allows nor forbids (items.content-types). */
export function typedContent(fake: Faker): Record<string, unknown> {
  return {
    ref: token(fake),
    count: 42,
    negative: -7,
    ratio: 3.25,
    large: 1_234_567_890_123,
    flag: true,
    off: false,
    nothing: null,
    list: ['x', 1, true],
    single: ['only'],
    nested: { level: 2, label: 'ünïcødé', inner: { ok: true, name: fake.person.firstName() } },
  }
}
