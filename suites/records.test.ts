/**
 * The records model (helpers/spec/models.ts RECORD_MODEL, docs/coverage.md): one channel, one record (§2.3).
 * Get-by-name and search both answer with Channel records (§4.2), so a channel's fields read the same in each
 * view of it and in each caller's view, and the calls the spec gives after a create (a tag added, an item
 * published, a subscribe) change none of them. Two families of fields:
 *
 * - what the create request set (§4.2 body: description, maxItems, publishPermission, privateChannel): each view
 *   shows the value given (channels.create.fields-stored); search names the permission publishPermission and
 *   get-by-name publisherPermission (§2.3);
 * - what the server sets once (§2.3: creator, the owner's identifier; creationDate): the same in every view and
 *   after every later call as in the owner's first read (channels.record.fixed). creationDate is compared as the
 *   instant it names (views may write one instant in different ISO 8601 forms). modifiedDate, userId and the
 *   fields with no stated meaning (persistent, subscriptionEnabled, collection) are not judged.
 *
 * The world: A's public channel P and A's private channel Q, both created with values other than the defaults.
 * Another user (B) reads P by its name and Q through `<A's id>#Q` (§2.3); who may read another user's private
 * channel is not stated, so a refusal of that read is recorded and leaves Q's part unjudged.
 */
import type { Faker } from '@faker-js/faker'
import type { Api, CreateChannelBody } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import type { RunAccount } from '../helpers/http/run-context'
import { check, describe, type ChannelFactory, type CheckFixtures } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustBePrivate, mustPublish, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { parseTimestamp } from '../helpers/spec/schemas'
import { recordTitle } from '../helpers/spec/models'
import { answered, channelRecord, fetched, searchFor } from './support/model'
import { publishAll, pageOf, wide, type Content, type Page } from './support/items'
import { at, match, pointer, sameText, type Matcher } from './support/match'
import { asBody, bodiesOf, itemIdKey, nameKey, resultNamed, type Body } from './support/read'

/** What the create request set, as sent. */
type Given = Required<Pick<CreateChannelBody, 'description' | 'maxItems' | 'publishPermission' | 'privateChannel'>>

/** A channel of the world: its plain name, what it was created with, and the address B reads it by. */
interface Made {
  name: string
  given: Given
  address: string
}

const given = (fake: Faker, privateChannel: boolean): Given => ({
  description: `${uniqueToken(fake)} ${privateChannel ? 'private' : 'public'} record`,
  maxItems: privateChannel ? 4 : 6,
  publishPermission: privateChannel ? 'owner' : 'subscribers',
  privateChannel,
})

/** Creates the channel with its given values (the creator left unsubscribed) and waits until its owner reads it. */
async function make(a: Api, userA: RunAccount, channels: ChannelFactory, fake: Faker, privateChannel: boolean): Promise<Made> {
  const values = given(fake, privateChannel)
  const name = await channels.create(a, { ...values, subscribeOnCreate: false })
  if (privateChannel) await mustBePrivate(a, name)
  else await channelRecord(a, name)
  return { name, given: values, address: privateChannel ? `${userA.userId}#${name}` : name }
}

/** The matchers of the created values on a record; `permission` is the key the view names the permission by. */
function asCreated(values: Given, permission: 'publisherPermission' | 'publishPermission', view: string): Matcher[] {
  return [
    match.equal('/description', values.description, 'as created'),
    match.equal('/maxItems', values.maxItems, 'as created'),
    // A view without the key names the permission otherwise: the permission checks' deviation, not this one.
    match.that(`/${permission}`, (v) => v === undefined || v === values.publishPermission, `${show(values.publishPermission)} (as created), or no such key`),
    match.equal('/privateChannel', values.privateChannel, 'as created'),
  ].map((m) => match.when(view, m))
}

/**
 * B's read of the channel through its address: the record, or undefined when B's read of A's private channel
 * was refused (recorded; the spec does not say who may read it). A public channel's record is get's step.
 */
async function readByB(b: Api, made: Made, judge: Judge): Promise<{ ch: Body; ex: Exchange } | undefined> {
  const ex = answered(
    await eventually(
      () => b.getChannel(made.address),
      (e) => e.status !== 404,
    ),
    `B's GET of ${made.address}`,
  )
  if (!isSuccess(ex) && made.given.privateChannel) {
    judge.observe(`B's read of A's private channel through ${made.address}: status ${ex.status}, so its part is not judged`, ALSO.otherUserRead)
    return undefined
  }
  const ch = steps.getChannel.response<Body | undefined>(ex, { status: '2xx' })
  // The address names A's channel: a record of another name is the address's (or get's) deviation, not this check's.
  // (Whether the name reads plain or as the address is not stated: either is the channel's.)
  const named = match.when(`B's GET of ${made.address}`, match.oneOf('/name', [...new Set([made.name, made.address])], 'the channel addressed'))
  ;(made.given.privateChannel ? steps.addressResolves : steps.getMatches).match(ch, named, ex)
  return { ch: ch!, ex }
}

/** The search result of P by its exact name (a search that never lists it is channels.search.by-name's deviation). */
async function searchResult(api: Api, name: string): Promise<{ hit: Body; ex: Exchange }> {
  const ex = answered(await searchFor(api, { channelName: name }, name), `search channelName=${name}`)
  steps.searchAnswered.response(ex, { status: '2xx' })
  const hit = resultNamed(ex, name)
  ensure(
    hit,
    steps.foundByName,
    match.explain(ex.json, match.contains('/results', name, { key: nameKey, what: 'the channel searched for by its exact name' })),
    ex,
  )
  return { hit, ex }
}

/** The calls the spec gives after a create, none of which touches the record: a tag, a publish, a subscribe. */
async function change(a: Api, b: Api, fake: Faker, made: Made): Promise<void> {
  const personal = made.given.privateChannel
  // The owner subscribes first (P lets only subscribers publish); B too, to the public channel (who may subscribe
  // to another user's private channel is not stated).
  await mustSubscribe(a, made.name)
  if (!personal) await mustSubscribe(b, made.name)
  await mustAddTags(a, made.name, [uniqueToken(fake)], personal)
  await mustPublish(a, made.name, { content: { text: 'record check' }, messageType: 'text', contentType: 'text/plain' })
}

/** creationDate as the instant it names, so two forms of one instant compare equal. */
const creationMs = (record: Body | undefined): number | undefined => {
  const text = record?.creationDate
  return typeof text === 'string' ? parseTimestamp(text)?.ms : undefined
}

/** The owner's first read, the reference of creator and creationDate: a creationDate that names no instant is get's deviation. */
async function firstRecord(a: Api, name: string): Promise<{ ch: Body; ex: Exchange }> {
  const first = await channelRecord(a, name)
  steps.getChannel.match(
    first.ch,
    match.that('/creationDate', (v) => creationMs({ creationDate: v }) !== undefined, 'an ISO 8601 timestamp'),
    first.ex,
  )
  return first
}

/** creator and creationDate of `record` as the owner's first read showed them. */
function fixedAs(first: Body, view: string): Matcher[] {
  const created = creationMs(first)
  return [
    match.equal('/creator', first.creator, "as the owner's first GET showed it"),
    // The same instant in any form passes; a creationDate that names no instant is the view's shape deviation
    // (channels.get.shape, channels.search.shape). Otherwise the first GET's value is what is wanted.
    (record: unknown) => {
      const got = creationMs({ creationDate: at(record, '/creationDate') })
      return got === undefined || got === created ? undefined : match.equal('/creationDate', first.creationDate, "the owner's first GET's")(record)
    },
  ].map((m) => match.when(view, m))
}

describe("a channel's record in every view (§2.3, §4.2 get channel by name, search public channels)", () => {
  check('channels.create.fields-stored', recordTitle.searchStored, async ({ a, users, channels, fake, judge }) => {
    const p = await make(a, users.A, channels, fake, false)
    const { hit, ex } = await searchResult(a, p.name)
    judge.match(hit, asCreated(p.given, 'publishPermission', 'search result'), ex)
  })

  check('channels.create.fields-stored', recordTitle.otherStored, async ({ a, b, users, channels, fake, judge }) => {
    for (const privateChannel of [false, true]) {
      const made = await make(a, users.A, channels, fake, privateChannel)
      const got = await readByB(b, made, judge)
      if (got) judge.match(got.ch, asCreated(made.given, 'publisherPermission', `B's GET of ${made.address}`), got.ex)
    }
  })

  check('channels.create.fields-stored', recordTitle.changedStored, async ({ a, b, users, channels, fake, judge }) => {
    for (const privateChannel of [false, true]) {
      const made = await make(a, users.A, channels, fake, privateChannel)
      await change(a, b, fake, made)
      const own = await channelRecord(a, made.name)
      judge.match(own.ch, asCreated(made.given, 'publisherPermission', "the owner's GET after a tag, a publish and a subscribe"), own.ex)
      const other = await readByB(b, made, judge)
      if (other) judge.match(other.ch, asCreated(made.given, 'publisherPermission', `B's GET of ${made.address} after them`), other.ex)
      if (!privateChannel) {
        const { hit, ex } = await searchResult(a, made.name)
        judge.match(hit, asCreated(made.given, 'publishPermission', 'the search result after them'), ex)
      }
    }
  })

  check('channels.record.fixed', recordTitle.fixedEverywhere, async ({ a, b, users, channels, fake, judge }) => {
    for (const privateChannel of [false, true]) {
      const made = await make(a, users.A, channels, fake, privateChannel)
      const first = await firstRecord(a, made.name)
      const other = await readByB(b, made, judge)
      if (other) judge.match(other.ch, fixedAs(first.ch, `B's GET of ${made.address}`), other.ex)
      if (!privateChannel) {
        const { hit, ex } = await searchResult(b, made.name)
        judge.match(hit, fixedAs(first.ch, "B's search result"), ex)
      }
    }
  })

  check('channels.record.fixed', recordTitle.fixedAfter, async ({ a, b, users, channels, fake, judge }) => {
    for (const privateChannel of [false, true]) {
      const made = await make(a, users.A, channels, fake, privateChannel)
      const first = await firstRecord(a, made.name)
      await change(a, b, fake, made)
      const own = await channelRecord(a, made.name)
      judge.match(own.ch, fixedAs(first.ch, "the owner's GET after a tag, a publish and a subscribe"), own.ex)
      const other = await readByB(b, made, judge)
      if (other) judge.match(other.ch, fixedAs(first.ch, `B's GET of ${made.address} after them`), other.ex)
      if (!privateChannel) {
        const { hit, ex } = await searchResult(a, made.name)
        judge.match(hit, fixedAs(first.ch, 'the search result after them'), ex)
      }
    }
  })
})

// ── an item's record in every view ─────────────────────────────────────────────────────────────────────

/** An item the check published: who published it (user id) and its content, found by its unique `ref`. */
interface Published {
  by: string
  content: Content
  itemId: string
}

/** One reader's page of the channel's items, by get-by-id or by fetch, with the exchange it came in. */
interface Seen {
  view: string
  page: Page
  ex: Exchange
}

/**
 * `reader`'s views of `items` (get by their ids, and a fetch of the channel), each polled until it holds them
 * all (reads may lag). Only the owner is promised a read (another user's read of items is not ruled on, §4.2):
 * another reader's refusal is recorded and that view left out. What a view lacks is the read's own deviation
 * (get by id or fetch), charged as a step.
 */
async function views(reader: Api, who: string, owner: boolean, address: string, items: Published[], judge: Judge): Promise<Seen[]> {
  const wanted = items.map((i) => i.itemId)
  const holdsAll = (e: Exchange) => isSuccess(e) && wanted.every((id) => (e.json as Partial<Page> | undefined)?.items?.some?.((i) => i?.itemId === id))
  const seen: Seen[] = []
  for (const [view, read, step] of [
    ['get by id', () => reader.getItems(address, wanted), steps.itemsById],
    ['fetch', () => reader.fetchItems(address, wide()), steps.fetchItems],
  ] as const) {
    // Polled past a lagging read (404 too); another refusal is an answer at once.
    const ex = answered(await eventually(read, (e) => (isSuccess(e) ? holdsAll(e) : e.status !== 404)), `${who}'s ${view} of ${address}`)
    if (!isSuccess(ex) && !owner) {
      judge.observe(`${who}'s ${view} of the items of ${address}: status ${ex.status}, so that view is not judged`, ALSO.otherUserRead)
      continue
    }
    const page = pageOf(ex, step, false)
    step.match(page, match.containsAll('/items', wanted, { key: itemIdKey, what: 'the items published, each by its id' }), ex)
    seen.push({ view: `${who}'s ${view}`, page, ex })
  }
  return seen
}

/** Each published item as `seen` shows it, held to `want(item)` at that item's place on the page. */
function judgeItems(judge: Judge, seen: Seen[], items: Published[], want: (item: Published, at: string) => Matcher, when: string): void {
  for (const { view, page, ex } of seen)
    for (const item of items) {
      const i = page.items.findIndex((x) => x.itemId === item.itemId)
      judge.match(page, match.when(`${view}${when}`, want(item, pointer('items', i))), ex)
    }
}

const contentOf = (item: Published, at: string): Matcher => match.same(`${at}/content`, item.content)
const publisherOf = (item: Published, at: string): Matcher => match.equal(`${at}/publisher/userId`, item.by, 'the user who published it')

/**
 * A's public channel: B and C each publish an item; every reader (A, B, C) reads both by id and by fetch; then
 * C publishes again, A deletes C's first item and adds a tag, and every reader reads B's item and C's second again.
 */
async function publicWorld(
  { a, b, c, users, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'b' | 'c' | 'users' | 'channels' | 'fake' | 'judge'>,
  want: (item: Published, at: string) => Matcher,
): Promise<void> {
  const name = await channels.create(a, { publishPermission: 'anyone' })
  const made = async (api: Api, by: string): Promise<Published> => {
    const content: Content = { ref: uniqueToken(fake), text: fake.lorem.sentence() }
    const [itemId] = await publishAll(api, name, [content], steps.fetchItems, a)
    return { by, content, itemId: itemId! }
  }
  const ofB = await made(b, users.B.userId)
  const ofC = await made(c, users.C.userId)
  const readers = [
    [a, 'A', true],
    [b, 'B', false],
    [c, 'C', false],
  ] as const
  for (const [api, who, owner] of readers) judgeItems(judge, await views(api, who, owner, name, [ofB, ofC], judge), [ofB, ofC], want, '')
  const again = await made(c, users.C.userId)
  steps.deleteItems.response(answered(await a.deleteItems(name, [ofC.itemId]), "A's delete of C's first item"), { status: '2xx' })
  await mustAddTags(a, name, [uniqueToken(fake)])
  for (const [api, who, owner] of readers)
    judgeItems(
      judge,
      await views(api, who, owner, name, [ofB, again], judge),
      [ofB, again],
      want,
      ", after C's second publish, the delete of C's first item and a tag",
    )
}

/** A's private channel: A publishes; B reads it through <A's id>#<name> by id and by fetch. */
async function privateWorld(
  { a, b, users, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'b' | 'users' | 'channels' | 'fake' | 'judge'>,
  want: (item: Published, at: string) => Matcher,
): Promise<void> {
  const name = await channels.create(a, { privateChannel: true })
  await mustBePrivate(a, name)
  const content: Content = { ref: uniqueToken(fake), text: fake.lorem.sentence() }
  const [itemId] = await publishAll(a, name, [content], steps.fetchItems)
  const item: Published = { by: users.A.userId, content, itemId: itemId! }
  judgeItems(judge, await views(b, 'B', false, `${users.A.userId}#${name}`, [item], judge), [item], want, ' through <user_id>#<name>')
}

/**
 * A's private channel (anyone may publish): B publishes through <A's id>#<name>. Who may publish to another user's
 * private channel is not stated, so a refusal is recorded; a publish accepted is B's item, whoever reads it.
 */
async function publishedThroughAddress({
  a,
  b,
  users,
  channels,
  fake,
  judge,
}: Pick<CheckFixtures, 'a' | 'b' | 'users' | 'channels' | 'fake' | 'judge'>): Promise<void> {
  const name = await channels.create(a, { privateChannel: true, publishPermission: 'anyone' })
  await mustBePrivate(a, name)
  const address = `${users.A.userId}#${name}`
  const content: Content = { ref: uniqueToken(fake), text: fake.lorem.sentence() }
  const ex = answered(await b.publish(address, { content, messageType: 'text', contentType: 'application/json' }), `B's publish through ${address}`)
  if (!isSuccess(ex)) {
    judge.observe(`B's publish to A's private channel through ${address}: status ${ex.status}, so no item to judge`, ALSO.otherUserRead)
    return
  }
  // The owner reads it back by the plain name: an accepted publish that A's channel never shows is the fetch's deviation.
  const [itemId] = await publishAllFound(a, name, content)
  const item: Published = { by: users.B.userId, content, itemId }
  judgeItems(judge, await views(a, 'A', true, name, [item], judge), [item], publisherOf, `, of an item B published through ${address}`)
}

/** The id of the item carrying `content.ref` in `name`, as the owner's fetch shows it (a step: items.fetch.range). */
async function publishAllFound(a: Api, name: string, content: Content): Promise<[string]> {
  const { items, ex } = await fetched(a, name, (held) => held.some((i) => i.content?.ref === content.ref))
  const found = items.find((i) => i.content?.ref === content.ref)
  ensure(
    found,
    steps.fetchItems,
    match.explain(items, match.contains('', content.ref, { key: (i) => asBody(asBody(i)?.content)?.ref, what: 'the item B published' })),
    ex,
  )
  return [found.itemId]
}

describe("an item's record in every view (§2.6, §4.2 get items by id, fetch items by date range)", () => {
  check('items.publisher', recordTitle.itemPublisherThroughAddress, async ({ a, b, users, channels, fake, judge }) =>
    publishedThroughAddress({ a, b, users, channels, fake, judge }),
  )
  check('items.content-intact', recordTitle.itemContent, async ({ a, b, c, users, channels, fake, judge }) =>
    publicWorld({ a, b, c, users, channels, fake, judge }, contentOf),
  )
  check('items.publisher', recordTitle.itemPublisher, async ({ a, b, c, users, channels, fake, judge }) =>
    publicWorld({ a, b, c, users, channels, fake, judge }, publisherOf),
  )
  check('items.content-intact', recordTitle.itemContentAddress, async ({ a, b, users, channels, fake, judge }) =>
    privateWorld({ a, b, users, channels, fake, judge }, contentOf),
  )
  check('items.publisher', recordTitle.itemPublisherAddress, async ({ a, b, users, channels, fake, judge }) =>
    privateWorld({ a, b, users, channels, fake, judge }, publisherOf),
  )
})

// ── a user's record in every view ──────────────────────────────────────────────────────────────────────

/** The fields of a User (§2.1) that are the user's own facts in every view that carries them. */
const USER_FIELDS = ['userIdentifier', 'userName', 'firstName', 'lastName', 'userRealm'] as const
/** Fields a user may have typed in another case at sign-in, compared without case. */
const ANY_CASE = new Set(['userName', 'email'])

/** `record` (from `view`) agrees with `reference` on every field both carry, and on email when both carry it. */
function agreesWith(reference: Body, view: string, why: string): Matcher[] {
  return [...USER_FIELDS, 'email']
    .filter((f) => reference[f] !== undefined)
    .map((f) =>
      match.when(
        view,
        ANY_CASE.has(f)
          ? match.that(`/${f}`, (v) => v === undefined || sameText(v, reference[f]), `${show(reference[f])} in any case (${why}), or no such field`)
          : match.that(`/${f}`, (v) => v === undefined || v === reference[f], `${show(reference[f])} (${why}), or no such field`),
      ),
    )
}

/** The target's record in a list or search answer, by userIdentifier (a missing one is the list's or search's step). */
function recordIn(ex: Exchange, target: RunAccount, step: Judge): Body {
  const list = step.match(step.response(ex, { status: '2xx' }), match.array('an array of User'), ex)
  const record = list.find((u) => asBody(u)?.userIdentifier === target.userId)
  // In the words of the list checks' own step (users.list.contains-accounts), so a report groups them as one cause.
  ensure(record, step, `no element with /userIdentifier of account(s) ${target.key} (${target.userId})`, ex)
  return asBody(record)!
}

/**
 * Every caller's views of every account: the account's own sign-in record is the reference; each caller's list
 * of all users and search by userIdentifier and by userName must show the same values (email as the list shows
 * it), before and after each account signs in on another device.
 */
async function usersEverywhere({ a, b, anon, users, run, judge }: Pick<CheckFixtures, 'a' | 'b' | 'anon' | 'users' | 'run' | 'judge'>): Promise<void> {
  const targets = [users.A, users.B, users.C]
  const callers = [
    [a, 'A'],
    [b, 'B'],
  ] as const
  for (const round of ['', ' after a sign-in on another device']) {
    for (const target of targets) {
      const signIn = answered(
        await anon.signIn({
          userName: target.userName,
          password: target.password,
          clientId: run.clientId,
          deviceId: `${run.namePrefix}-${run.runId}-ur${round ? 2 : 1}${target.key}`,
        }),
        `${target.key}'s sign-in`,
      )
      const own = asBody(steps.signIn.response<{ user?: unknown } | undefined>(signIn, { status: '2xx' })?.user)
      ensure(own, steps.signIn, match.explain(signIn.json, match.object('a Session whose /user is a User object')), signIn)
      for (const [api, who] of callers) {
        const listEx = answered(await api.listUsers(), `${who}'s GET /user/all`)
        const listed = recordIn(listEx, target, steps.accountListed)
        judge.match(listed, agreesWith(own, `${who}'s list of all users, ${target.key}'s record${round}`, `${target.key}'s sign-in record`), listEx)
        const reference = { ...own, email: listed.email }
        for (const property of ['userIdentifier', 'userName'] as const) {
          const q = `${property}:${String(own[property] ?? target.userName)}`
          const searchEx = answered(await api.searchUsers(q), `${who}'s search ${q}`)
          // Finding the account is users.search.property's to judge (it may sit past a first page of other matches).
          const found = (isSuccess(searchEx) ? bodiesOf(searchEx.json) : []).find((u) => u.userIdentifier === target.userId)
          if (!found) continue
          judge.match(
            found,
            agreesWith(reference, `${who}'s search ${q}, ${target.key}'s record${round}`, `${target.key}'s sign-in record and the list's email`),
            searchEx,
          )
        }
      }
    }
  }
}

/**
 * Each account's sign-in record on every kind of device id, against the list of all users (§4.1: both answer User
 * records, §2.1). First each account signs in on a device id of its own, and the list is held to that record (as
 * usersEverywhere does: a list that disagrees is the list's deviation). Then, with the list as the reference, each
 * signs in on a device id another account signed in with first (all three in turn on one device id, then each on
 * another's own device id): a token and the record it comes with are the user's whose credentials were given
 * (§2.2), whatever the device. email is absent from sign-in (§2.1): compared where present.
 */
async function signInsAgree({ a, anon, users, run, judge }: Pick<CheckFixtures, 'a' | 'anon' | 'users' | 'run' | 'judge'>): Promise<void> {
  const targets = [users.A, users.B, users.C]
  const own = (t: RunAccount) => `${run.namePrefix}-${run.runId}-uo${t.key}`
  const shared = `${run.namePrefix}-${run.runId}-us`
  const signedIn = async (target: RunAccount, deviceId: string): Promise<{ record: Body; ex: Exchange }> => {
    const ex = answered(
      await anon.signIn({ userName: target.userName, password: target.password, clientId: run.clientId, deviceId }),
      `${target.key}'s sign-in`,
    )
    const record = asBody(steps.signIn.response<{ user?: unknown } | undefined>(ex, { status: '2xx' })?.user)
    ensure(record, steps.signIn, match.explain(ex.json, match.object('a Session whose /user is a User object')), ex)
    return { record, ex }
  }
  const reference = new Map<string, Body>()
  for (const target of targets) {
    const { record } = await signedIn(target, own(target))
    const listEx = answered(await a.listUsers(), "A's GET /user/all")
    const listed = recordIn(listEx, target, steps.accountListed)
    judge.match(
      listed,
      agreesWith(record, `A's list of all users, ${target.key}'s record`, `${target.key}'s sign-in on a device id of its own, ${own(target)}`),
      listEx,
    )
    reference.set(target.key, listed)
  }
  const elsewhere: [RunAccount, string, string][] = [
    ...targets.map((t, i): [RunAccount, string, string] => [
      t,
      shared,
      i === 0 ? `device id ${shared}, the first to sign in with it` : `device id ${shared}, which ${targets[0]!.key} signed in with first`,
    ]),
    ...targets.map((t, i): [RunAccount, string, string] => {
      const other = targets[(i + 1) % targets.length]!
      return [t, own(other), `device id ${own(other)}, which ${other.key} signed in with first`]
    }),
  ]
  for (const [target, deviceId, where] of elsewhere) {
    const { record, ex } = await signedIn(target, deviceId)
    judge.match(
      record,
      agreesWith(reference.get(target.key)!, `${target.key}'s sign-in on ${where}: /user`, `${target.key}'s record in the list of all users`),
      ex,
    )
  }
}

describe("a user's record in every view (§2.1, §4.1 sign in, list all users, search users)", () => {
  check('users.record.agrees', recordTitle.userEverywhere, async ({ a, b, anon, users, run, judge }) => usersEverywhere({ a, b, anon, users, run, judge }))
  check('users.record.agrees', recordTitle.userSignIn, async ({ a, anon, users, run, judge }) => signInsAgree({ a, anon, users, run, judge }))
})
