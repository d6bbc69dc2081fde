/**
 * What the model-generated checks (suites/inputs.test.ts, views, addresses, neighbours, races and devices .test.ts)
 * share: the "answered" step every request of theirs passes, polled reads of the views they compare, and the call of
 * one channel operation through an address.
 */
import type { Api, CreateChannelBody, SearchParams } from '../../helpers/http/api'
import type { Exchange } from '../../helpers/http/client'
import { ensure, isSuccess, show } from '../../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../../helpers/kit/judge'
import { eventually } from '../../helpers/kit/poll'
import type { ChannelFactory } from '../../helpers/kit/check'
import { aroundNow } from '../../helpers/kit/window'
import type { ChannelOperation, NAME_CLASSES, NameClassId } from '../../helpers/spec/models'
import { match, sameText } from './match'
import { bodiesOf, resultNames, userIdsOf } from './read'

/** 502/503/504 are a gateway's or an overloaded server's: the client and the kit make them unjudged, not failed. */
const GATEWAY = new Set([502, 503, 504])

/** A 5xx that is the server's own, not a gateway's 502/503/504. */
export const isServerError = (ex: Exchange): boolean => ex.status >= 500 && !GATEWAY.has(ex.status)

/**
 * A valid request is answered: a refusal (4xx) may be the server's right where the spec is silent, a 5xx
 * never is. Judged as a step, so a server error fails http.valid-request-answered and blocks the check.
 */
export function answered(ex: Exchange, what: string): Exchange {
  if (isServerError(ex)) ensure(false, steps.answered, `${what}: status ${ex.status}, a server error for a valid request`, ex)
  return ex
}

/** Shows a long text by its length and ends, so a message stays readable and still tells two values apart. */
export function brief(value: unknown): string {
  if (typeof value !== 'string' || value.length <= 80) return show(value)
  return `${show(value.slice(0, 40))}…${show(value.slice(-20))} (${value.length} characters)`
}

export { resultNames }
export const listsName = (ex: Exchange, name: string): boolean => resultNames(ex).some((n) => sameText(n, name))

/** Searches until `name` is listed (or, with `present` false, until it is not): reads may lag the write. */
export function searchFor(api: Api, params: SearchParams, name: string, present = true): Promise<Exchange> {
  return eventually(
    () => api.searchChannels({ offset: 0, size: 50, ...params }),
    (ex) => isSuccess(ex) && listsName(ex, name) === present,
  )
}

/**
 * A search for a value the server accepted when it was stored: polled until `name` is listed. A 4xx is recorded
 * and undefined returned (the matching rules are not shown, and a search syntax may refuse some characters);
 * a 5xx fails http.valid-request-answered.
 */
export async function searchAccepted(api: Api, params: SearchParams, name: string, judge: Judge, what: string): Promise<Exchange | undefined> {
  const ex = answered(await searchFor(api, params, name), `search by ${what}`)
  if (ex.status >= 400) {
    judge.observe(`search by ${what}: status ${ex.status}`, ALSO.inputRefused)
    return undefined
  }
  return ex
}

/** Tag lists compared as a case-insensitive set: the spec does not say whether tags keep their case. */
export const hasTag = (tags: readonly string[], tag: string): boolean => tags.some((t) => typeof t === 'string' && t.toLowerCase() === tag.toLowerCase())

/** The channel record by name (a 2xx with an object, judged as get channel's step), polled past a lagging read. */
export async function channelRecord(api: Api, name: string): Promise<{ ch: Record<string, unknown>; ex: Exchange }> {
  const ex = answered(
    await eventually(
      () => api.getChannel(name),
      (e) => isSuccess(e),
    ),
    `GET /channels/${name}`,
  )
  const ch = steps.getChannel.response<Record<string, unknown> | undefined>(ex, { status: '2xx' })
  ensure(
    ch !== null && typeof ch === 'object',
    steps.getChannel,
    match.explain(
      ch,
      match.that('', (v) => v !== null && typeof v === 'object', 'a Channel object'),
    ),
    ex,
  )
  return { ch, ex }
}

/** The channel's tags (2xx and an array, get tags' step), polled until `settled` holds. */
export async function tagList(api: Api, name: string, settled: (tags: string[]) => boolean): Promise<{ tags: string[]; ex: Exchange }> {
  const tagsIn = (e: Exchange): unknown => (e.json as { tags?: unknown } | undefined)?.tags
  const ex = answered(
    await eventually(
      () => api.getTags(name),
      (e) => isSuccess(e) && Array.isArray(tagsIn(e)) && settled(tagsIn(e) as string[]),
    ),
    `GET /channels/${name}/tags`,
  )
  const tags = steps.getTags.response<{ tags?: unknown } | undefined>(ex, { status: '2xx' })?.tags
  ensure(Array.isArray(tags), steps.getTags, match.explain({ tags }, match.that('/tags', Array.isArray, 'an array of strings')), ex)
  return { tags: tags as string[], ex }
}

export interface StoredItem {
  itemId: string
  content: Record<string, unknown>
}

/** Items of a fetch or get answer ([] when there are none to read). */
export function itemsOf(ex: Exchange): StoredItem[] {
  const items = (ex.json as { items?: unknown } | undefined)?.items
  return Array.isArray(items) ? items.filter((i): i is StoredItem => !!i && typeof i === 'object' && typeof (i as StoredItem).itemId === 'string') : []
}

/** Fetches around now until `settled` holds on the items (fetch's step: 2xx). */
export async function fetched(api: Api, name: string, settled: (items: StoredItem[]) => boolean): Promise<{ items: StoredItem[]; ex: Exchange }> {
  const ex = answered(
    await eventually(
      () => api.fetchItems(name, aroundNow({ size: 50 })),
      (e) => isSuccess(e) && settled(itemsOf(e)),
    ),
    `GET /channels/${name}/items/fetch`,
  )
  steps.fetchItems.response(ex, { status: '2xx' })
  return { items: itemsOf(ex), ex }
}

/** Publishes content and returns the stored item's id, found by fetch through a unique content value `ref`. */
export async function publishFound(api: Api, name: string, content: Record<string, unknown>, ref: string): Promise<{ itemId: string; ex: Exchange }> {
  const made = answered(await api.publish(name, { content, messageType: 'text', contentType: 'application/json' }), `publish to ${name}`)
  steps.publish.response(made, { status: '2xx' })
  const { items, ex } = await fetched(api, name, (list) => list.some((i) => i.content?.ref === ref))
  const item = items.find((i) => i.content?.ref === ref)
  ensure(
    item,
    steps.fetchItems,
    match.explain(
      items,
      match.when('set-up: fetch after publish', match.contains('', ref, { key: (i) => (i as StoredItem).content?.ref, what: 'the ref of the item published' })),
    ),
    ex,
  )
  return { itemId: item.itemId, ex }
}

/**
 * A channel whose name is of class `cls`, created by `owner` (with `extra` fields): its name, or undefined when
 * the server refused the name (recorded: the alphabet and length are not shown).
 */
export async function namedChannel(
  owner: Api,
  channels: ChannelFactory,
  judge: Judge,
  cls: (typeof NAME_CLASSES)[NameClassId],
  extra: Omit<CreateChannelBody, 'channelName'> = {},
): Promise<string | undefined> {
  const name = cls.name(channels.name())
  const personal = extra.privateChannel === true
  const made = answered(await owner.createChannel({ channelName: name, ...extra }), `create a channel whose name holds ${cls.what}`)
  // Deleted afterwards only when it may exist: a refused name is not one the server can be asked to delete.
  if (isSuccess(made) || made.status >= 500) channels.track(owner, name, personal)
  if (isSuccess(made)) return name
  judge.observe(`a name with ${cls.what}: create answered ${made.status}`, ALSO.nameAlphabet)
  return undefined
}

/** The subscribers of `name` (2xx, the list's step), polled until `settled` holds on their user ids. */
export async function subscribersOf(api: Api, name: string, settled: (ids: unknown[]) => boolean): Promise<{ ids: unknown[]; ex: Exchange }> {
  const ex = answered(
    await eventually(
      () => api.subscriptions(name),
      (e) => isSuccess(e) && Array.isArray(e.json) && settled(userIdsOf(e)),
    ),
    `GET /channels/${name}/subscriptions`,
  )
  steps.listSubscriptions.response(ex, { status: '2xx' })
  return { ids: userIdsOf(ex), ex }
}

/**
 * A send's delivery records, read by `sender` (delivery status of each message id of the 2xx `sent`), each name
 * `senderId` as the sender (§2.7), and `recipientId`, when given (a send to that one user), as the recipient. Nobody sent
 * (no device to push to) leaves nothing to read: recorded, and the check ends.
 */
/** The messageIds a send's sentList names, each once. */
export function sentMessageIds(sent: Exchange): string[] {
  const ids = bodiesOf((sent.json as { sentList?: unknown } | undefined)?.sentList)
    .map((e) => e.messageId)
    .filter((id): id is string => typeof id === 'string')
  return [...new Set(ids)]
}

export async function deliveredAs(sender: Api, sent: Exchange, senderId: string, judge: Judge, context: string, recipientId?: string): Promise<void> {
  steps.send.response(sent, { status: '2xx' })
  const ids = sentMessageIds(sent)
  if (ids.length === 0) {
    judge.observe(`${context}: the send reached nobody (empty sentList), so there is no delivery status to read`, ALSO.sendDevices)
    return
  }
  for (const messageId of ids) {
    const ex = answered(
      await eventually(
        () => sender.deliveryStatus(messageId),
        (e) => isSuccess(e) && Array.isArray(e.json) && e.json.length > 0,
      ),
      `GET /messages/${messageId}`,
    )
    const records = judge.response<unknown[]>(ex, { status: '2xx' })
    judge.match(
      records,
      [
        match.when(`${context}: message ${messageId}, which was sent`, match.atLeast('', 1, 'its delivery records')),
        match.when(context, match.each('', match.equal('/sender', senderId, 'the user whose token sent it'))),
        ...(recipientId === undefined
          ? []
          : [match.when(context, match.each('', match.equal('/recipient', recipientId, 'the one user the message was sent to')))]),
      ],
      ex,
    )
  }
}

/**
 * What a call of a channel operation sends besides its address (callThrough): the tag addTags adds, the tag deleteTag
 * deletes, the item publishItem publishes, and the ids getItems reads and deleteItems deletes.
 */
export interface CallValues {
  newTag: string
  tag: string
  item: Parameters<Api['publish']>[1]
  itemIds: string[]
}

/** The channel operations that send nothing but the address: reads (get items by id sends ids, so it is not one). */
export type AddressRead = 'getChannel' | 'channelSummary' | 'listSubscribers' | 'getTags' | 'fetchItems'

/** The read of one such operation through `address` (a fetch: the range around now that holds a check's items). */
export function readThrough(op: AddressRead, api: Api, address: string): Promise<Exchange> {
  switch (op) {
    case 'getChannel':
      return api.getChannel(address)
    case 'channelSummary':
      return api.summary(address)
    case 'listSubscribers':
      return api.subscriptions(address)
    case 'getTags':
      return api.getTags(address)
    case 'fetchItems':
      return api.fetchItems(address, aroundNow({ size: 50 }))
  }
}

/**
 * The call of one channel operation through `address` (a plain name or <user_id>#<name>), with `personal` on the
 * operations that take it (helpers/spec/models.ts PERSONAL).
 */
export function callThrough(op: ChannelOperation, api: Api, address: string, values: CallValues, personal: boolean | undefined): Promise<Exchange> {
  switch (op) {
    case 'getChannel':
    case 'channelSummary':
    case 'listSubscribers':
    case 'getTags':
    case 'fetchItems':
      return readThrough(op, api, address)
    case 'deleteChannel':
      return api.deleteChannel(address, personal)
    case 'subscribe':
      return api.subscribe(address)
    case 'unsubscribe':
      return api.unsubscribe(address)
    case 'addTags':
      return api.addTags(address, [values.newTag], personal)
    case 'deleteTag':
      return api.deleteTag(address, values.tag, personal)
    case 'deleteTags':
      return api.deleteTags(address, personal)
    case 'publishItem':
      return api.publish(address, values.item)
    case 'getItems':
      return api.getItems(address, values.itemIds)
    case 'deleteItems':
      return api.deleteItems(address, values.itemIds)
    case 'deleteAllItems':
      return api.deleteAllItems(address, personal)
  }
}
