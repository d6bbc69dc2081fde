/**
 * The address × caller model (helpers/spec/models.ts, docs/coverage.md) on private channels, where a rule
 * enforced for public channels is most often forgotten: every channel endpoint
 * - without a token, by the plain name and by <user_id>#<name> (refused: §4, §5.4);
 * - by the owner, by the plain name (§2.3: "the caller's own private channel is addressed by its plain name");
 * - by another user, by the plain name: it must not reach the owner's channel (§2.3), neither in what it
 *   answers nor in what it changes;
 * - the owner-only deletes by <user_id>#<name>, by a subscriber and by another user (§5.5), and of a public
 *   channel by every form (plain name, personal=false written out, personal=true, <user_id>#<name>).
 * Public channels by their plain name are the endpoint checks' own ground; who else may read or change
 * another user's private channel through its address is not stated, so it is not judged.
 */
import type { Faker } from '@faker-js/faker'
import type { Api, CreateChannelBody } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import type { RunAccount } from '../helpers/http/run-context'
import { check, describe, type ChannelFactory, type CheckFixtures } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustBePrivate, mustPublish, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { CHANNEL_OPERATIONS, OPERATION_LABEL, PERSONAL, addressTitle } from '../helpers/spec/models'
import { aroundNow } from '../helpers/kit/window'
import { answered, callThrough, fetched, itemsOf, publishFound, searchFor, tagList, type CallValues, type StoredItem } from './support/model'
import { match, sameText } from './support/match'
import { bodiesOf, bodyOf, userIdsOf } from './support/read'

/** A's private channel with a description, a tag, an item and A subscribed: everything a call could reach. */
interface Fixture {
  name: string
  description: string
  tag: string
  ref: string
  itemId: string
}

async function privateChannel(a: Api, channels: ChannelFactory, token: () => string, subscribeOnCreate = true, privateChannel = true): Promise<Fixture> {
  const name = channels.name()
  const [description, tag, ref] = [`ct ${token()}`, token(), token()]
  channels.track(a, name, privateChannel)
  steps.createChannel.response(
    answered(
      await a.createChannel({ channelName: name, privateChannel, description, subscribeOnCreate }),
      `create a ${privateChannel ? 'private' : 'public'} channel`,
    ),
    { status: '2xx' },
  )
  if (privateChannel) await mustBePrivate(a, name)
  await mustAddTags(a, name, [tag], privateChannel)
  const { itemId } = await publishFound(a, name, { ref }, ref)
  return { name, description, tag, ref, itemId }
}

/** What a call through an address sends (callThrough): a new tag and item made from the fixture's, its tag, its item's id. */
function valuesOf(f: Fixture): CallValues {
  return {
    newTag: `x${f.tag}`,
    tag: f.tag,
    item: { content: { ref: `x${f.ref}` }, messageType: 'text', contentType: 'text/plain' },
    itemIds: [f.itemId],
  }
}

/** What A's channel holds, as A reads it: each part polled until it reads as `want` (reads may lag). */
async function stateOf(a: Api, f: Fixture, userB: RunAccount, want?: string): Promise<{ text: string; ex: Exchange }> {
  const read = async (): Promise<{ text: string; ex: Exchange }> => {
    const got = await a.getChannel(f.name)
    const tags = await a.getTags(f.name)
    const items = await a.fetchItems(f.name, aroundNow({ size: 50 }))
    const subs = await a.subscriptions(f.name)
    const tagList = (tags.json as { tags?: unknown } | undefined)?.tags
    // Only B's presence among the subscribers: others (a deployment's bots) may come and go.
    const subscribers = Array.isArray(subs.json) ? subs.json.some((s) => (s as { userId?: unknown })?.userId === userB.userId) : subs.status
    const text = JSON.stringify({
      channel: isSuccess(got) ? (got.json as { description?: unknown })?.description : got.status,
      tags: Array.isArray(tagList) ? [...tagList].sort() : tags.status,
      items: isSuccess(items) ? itemsOf(items).map((i) => i.content?.ref) : items.status,
      bSubscribed: subscribers,
    })
    return { text, ex: got }
  }
  if (want === undefined) return read()
  return eventually(read, (r) => r.text === want)
}

describe('private channels without a token, by plain name and by <user_id>#<name> (§4, §5.4)', () => {
  for (const op of CHANNEL_OPERATIONS) {
    check('auth.token-required', addressTitle.anonymous(op), async ({ a, anon, users, channels, fake, judge }) => {
      const f = await privateChannel(a, channels, () => uniqueToken(fake))
      for (const address of [f.name, `${users.A.userId}#${f.name}`]) {
        for (const personal of op === 'deleteChannel' || op === 'deleteAllItems' || op === 'deleteTags' || op === 'deleteTag' || op === 'addTags'
          ? [true]
          : [undefined]) {
          const ex = answered(await callThrough(op, anon, address, valuesOf(f), personal), `${OPERATION_LABEL[op]} without a token`)
          judge.match(ex, match.when(`${OPERATION_LABEL[op]} on ${address} without a token`, match.status('refusal')), ex)
        }
      }
    })
  }
})

describe("the owner's private channel by its plain name, every endpoint (§2.3)", () => {
  for (const op of CHANNEL_OPERATIONS) {
    check('private.own-plain-name', addressTitle.ownerPrivate(op), async ({ a, channels, fake, judge }) => {
      // Subscribing again may be refused (not shown), so the owner who subscribes is not subscribed yet.
      const f = await privateChannel(a, channels, () => uniqueToken(fake), op !== 'subscribe')
      const ex = answered(await callThrough(op, a, f.name, valuesOf(f), true), `the owner's ${OPERATION_LABEL[op]}`)
      judge.match(ex, match.when(`the owner's ${OPERATION_LABEL[op]} on its private channel ${f.name} by the plain name`, match.status('2xx')), ex)
      // What the call read must be the channel's own.
      if (op === 'getChannel') judge.match(ex.json, match.equal('/description', f.description), ex)
      if (op === 'getTags') {
        const holdsTag = (body: unknown) => JSON.stringify(body).includes(JSON.stringify(f.tag))
        judge.match(ex.json, match.derived('/tags', ex.json, match.that('', holdsTag, `an answer holding the channel's tag ${show(f.tag)}`)), ex)
      }
      if (op === 'fetchItems')
        ensure(
          itemsOf(ex).some((i) => i.content?.ref === f.ref),
          judge,
          `/items: the channel's item (ref ${show(f.ref)}) is not there`,
          ex,
        )
    })
  }
})

describe("another user's call by the plain name of a private channel, every endpoint (§2.3)", () => {
  for (const op of CHANNEL_OPERATIONS) {
    check('private.plain-name-not-shared', addressTitle.otherPlain(op), async ({ a, b, users, channels, fake, judge }) => {
      const f = await privateChannel(a, channels, () => uniqueToken(fake))
      await tagList(a, f.name, (t) => t.includes(f.tag))
      await fetched(a, f.name, (items) => items.some((i) => i.content?.ref === f.ref))
      const before = await stateOf(a, f, users.B)
      // Where the endpoint takes personal, B's personal=true names a private channel of B's own: not A's either.
      for (const personal of PERSONAL.includes(op) ? [undefined, true] : [undefined]) {
        const form = `${f.name}${personal ? ' with personal=true' : ''}`
        const ex = answered(await callThrough(op, b, f.name, valuesOf(f), personal), `B's ${OPERATION_LABEL[op]} by the plain name`)
        // A 2xx is B's own business (the name may be free for B, or B's own); it must not be A's channel's data.
        if (isSuccess(ex)) {
          // A's user id names A's channel too (a summary's or a subscription's userId, a creator).
          const leaked = [f.description, f.tag, f.ref, users.A.userId].filter((secret) => ex.text.includes(secret))
          ensure(leaked.length === 0, judge, `B's ${OPERATION_LABEL[op]} on ${form}: the answer holds ${show(leaked)} of A's private channel`, ex)
        }
        const after = await stateOf(a, f, users.B, before.text)
        ensure(
          after.text === before.text,
          judge,
          `A's private channel after B's ${OPERATION_LABEL[op]} on ${form}: before ${before.text}, after ${after.text}`,
          after.ex,
        )
      }
    })
  }
})

/** C (subscribed through the address where the server lets it) and B each try `op` on A's private channel by its address. */
async function ownerOnlyByAddress(
  op: 'deleteChannel' | 'deleteAllItems',
  fx: { a: Api; b: Api; c: Api; userA: RunAccount; userB: RunAccount; channels: ChannelFactory; fake: Faker; judge: Judge },
): Promise<void> {
  const { a, b, c, userA, userB, judge } = fx
  const f = await privateChannel(a, fx.channels, () => uniqueToken(fx.fake))
  const address = `${userA.userId}#${f.name}`
  answered(await c.subscribe(address), "C's subscribe by the address")
  await fetched(a, f.name, (items) => items.some((i) => i.content?.ref === f.ref))
  const before = await stateOf(a, f, userB)
  for (const [who, api] of [
    ['C (subscriber)', c],
    ['B (other)', b],
  ] as const) {
    for (const personal of [true, false, undefined]) {
      const ex = answered(await callThrough(op, api, address, valuesOf(f), personal), `${who}'s ${OPERATION_LABEL[op]}`)
      judge.match(
        ex,
        match.when(`${who}'s ${OPERATION_LABEL[op]} of ${address}${personal === undefined ? '' : `?personal=${personal}`}`, match.status('refusal')),
        ex,
      )
    }
  }
  const after = await stateOf(a, f, userB, before.text)
  ensure(after.text === before.text, judge, `A's private channel after the refused deletes: before ${before.text}, after ${after.text}`, after.ex)
}

/**
 * The owner-only deletes of A's public channel by C (subscribed) and B (not), every form a client may send (§4.2,
 * §5.5): the plain name with personal absent and with personal=false written out (the default, §4.2) are refused;
 * personal=true (a private channel of the caller's own) and <user_id>#<name> (§2.3: another user's private
 * channel) may be refused or answered, and change nothing. A's channel is read after each call.
 */
async function ownerOnlyPublic(
  op: 'deleteChannel' | 'deleteAllItems',
  fx: { a: Api; b: Api; c: Api; userA: RunAccount; userB: RunAccount; channels: ChannelFactory; fake: Faker; judge: Judge },
): Promise<void> {
  const { a, b, c, userA, userB, judge } = fx
  const f = await privateChannel(a, fx.channels, () => uniqueToken(fx.fake), true, false)
  await mustSubscribe(c, f.name)
  await fetched(a, f.name, (items) => items.some((i) => i.content?.ref === f.ref))
  const before = await stateOf(a, f, userB)
  const forms = [
    { address: f.name, personal: undefined, refused: true },
    { address: f.name, personal: false, refused: true },
    { address: f.name, personal: true, refused: false },
    { address: `${userA.userId}#${f.name}`, personal: undefined, refused: false },
  ] as const
  for (const [who, api] of [
    ['C (subscriber)', c],
    ['B (other)', b],
  ] as const) {
    for (const { address, personal, refused } of forms) {
      const form = `${address}${personal === undefined ? '' : `?personal=${personal}`}`
      const ex = answered(await callThrough(op, api, address, valuesOf(f), personal), `${who}'s ${OPERATION_LABEL[op]}`)
      if (refused) judge.match(ex, match.when(`${who}'s ${OPERATION_LABEL[op]} of A's public channel ${form}`, match.status('refusal')), ex)
      const after = await stateOf(a, f, userB, before.text)
      ensure(
        after.text === before.text,
        judge,
        `A's public channel after ${who}'s ${OPERATION_LABEL[op]} of ${form} (status ${ex.status}): before ${before.text}, after ${after.text}`,
        after.ex,
      )
    }
  }
}

describe("owner-only deletes of another user's public channel, every form of its address (§5.5, §4.2)", () => {
  check('channels.delete.owner-only', addressTitle.ownerOnlyPublic('deleteChannel'), async ({ a, b, c, users, channels, fake, judge }) =>
    ownerOnlyPublic('deleteChannel', { a, b, c, userA: users.A, userB: users.B, channels, fake, judge }),
  )
  check('items.delete-all.owner-only', addressTitle.ownerOnlyPublic('deleteAllItems'), async ({ a, b, c, users, channels, fake, judge }) =>
    ownerOnlyPublic('deleteAllItems', { a, b, c, userA: users.A, userB: users.B, channels, fake, judge }),
  )
})

describe('owner-only deletes of a private channel by <user_id>#<name> (§5.5, §2.3)', () => {
  check('channels.delete.owner-only', addressTitle.ownerOnlyHash('deleteChannel'), async ({ a, b, c, users, channels, fake, judge }) =>
    ownerOnlyByAddress('deleteChannel', { a, b, c, userA: users.A, userB: users.B, channels, fake, judge }),
  )
  check('items.delete-all.owner-only', addressTitle.ownerOnlyHash('deleteAllItems'), async ({ a, b, c, users, channels, fake, judge }) =>
    ownerOnlyByAddress('deleteAllItems', { a, b, c, userA: users.A, userB: users.B, channels, fake, judge }),
  )
})

/**
 * publishPermission × <user_id>#<name> (§4.2 create, §2.3): who may publish is the channel's permission, whatever
 * address the publisher uses. Whether another user may publish to a private channel at all is not stated, so it
 * is asked first: B's publish through the address to A's private channel with permission anyone. Only where that
 * is accepted is a subscriber's publish judged through the address; the owner permission refuses another user
 * whatever the address.
 */
describe('publishPermission through <user_id>#<name> (§4.2, §2.3)', () => {
  check(
    'items.permission.subscribers',
    'lets a subscriber publish through <user_id>#<name> where another user may publish that way, and refuses a non-subscriber',
    async ({ a, b, c, users, channels, fake, judge }) => {
      const open = await channels.create(a, { privateChannel: true, publishPermission: 'anyone' })
      const item = { content: { ref: uniqueToken(fake) }, messageType: 'text', contentType: 'application/json' }
      const probe = answered(await b.publish(`${users.A.userId}#${open}`, item), "B's publish to A's private channel with permission anyone")
      if (!isSuccess(probe)) {
        judge.observe(
          `B's publish to A's private channel (permission anyone) through its address: status ${probe.status}; who may publish that way is the server's choice`,
          ALSO.otherUserRead,
        )
        return
      }
      const name = await channels.create(a, { privateChannel: true, publishPermission: 'subscribers' })
      const address = `${users.A.userId}#${name}`
      const outsider = answered(await c.publish(address, item), "C's publish, not subscribed")
      judge.match(outsider, match.when(`C's publish to ${address} (permission subscribers), C not subscribed`, match.status('refusal')), outsider)
      const sub = answered(await b.subscribe(address), "B's subscribe through the address")
      if (!isSuccess(sub)) {
        judge.observe(
          `B's subscribe to A's private channel through its address: status ${sub.status}; who may subscribe that way is the server's choice`,
          ALSO.otherUserRead,
        )
        return
      }
      // Polled: the list may lag the subscribe. A subscribe that never shows is subscriptions.subscribe.listed's to judge.
      const listed = await eventually(
        () => a.subscriptions(name),
        (e) => isSuccess(e) && userIdsOf(e).includes(users.B.userId),
      )
      if (!userIdsOf(listed).includes(users.B.userId)) return
      const ex = answered(await b.publish(address, { ...item, content: { ref: uniqueToken(fake) } }), "B's publish as a subscriber")
      judge.match(ex, match.when(`B's publish to ${address} (permission subscribers), B listed as a subscriber`, match.status('2xx')), ex)
    },
  )

  check('items.permission.owner', 'refuses a subscribed non-owner publishing through <user_id>#<name>', async ({ a, b, users, channels, fake, judge }) => {
    const name = await channels.create(a, { privateChannel: true, publishPermission: 'owner' })
    const address = `${users.A.userId}#${name}`
    answered(await b.subscribe(address), "B's subscribe through the address")
    const ex = answered(await b.publish(address, { content: { ref: uniqueToken(fake) }, messageType: 'text', contentType: 'application/json' }), "B's publish")
    judge.match(ex, match.when(`B's publish to ${address} (permission owner)`, match.status('refusal')), ex)
  })
})

/**
 * A's public channel and B's private channel of one name (§2.3: the plain name addresses a public channel or the
 * caller's own private one). They are two channels: each keeps its own owner, settings, subscribers and items,
 * whichever of them a lookup by the plain name finds first. B's private create of a name A holds publicly may be
 * refused (names may be one space, §2.3 shows no constraint); then there is nothing to judge.
 */
describe('a public channel and a private channel of the same name (§2.3, §4.2, §5.5)', () => {
  /** A get answered with a private channel's record. */
  const isPrivate = (e: Exchange) => isSuccess(e) && (e.json as { privateChannel?: unknown } | undefined)?.privateChannel === true

  /** A's public channel (with `publicBody`) and B's private one of the same name (with `privateBody`), or a skip note. */
  async function namesakes(
    a: Api,
    b: Api,
    channels: ChannelFactory,
    publicBody: Partial<CreateChannelBody> = {},
    privateBody: Partial<CreateChannelBody> = {},
  ): Promise<{ name: string; own: boolean } | { refused: string }> {
    const name = await channels.create(a, publicBody)
    const made = answered(await b.createChannel({ channelName: name, privateChannel: true, ...privateBody }), "B's private channel of the same name")
    if (!isSuccess(made)) return { refused: `B's private create of ${name}, a name A holds publicly, was refused (status ${made.status})` }
    channels.track(b, name, true)
    // Which of the two B's plain name reaches is the server's reading (§2.3 names both): `own` when its get answers
    // B's private channel (polled: a read may lag the create).
    return { name, own: isPrivate(await eventually(() => b.getChannel(name), isPrivate)) }
  }

  /**
   * B, holding a private channel of the name, deletes the name (or its items) with personal absent and false: a
   * public channel (§4.2 "personal defaults to false, meaning a public channel"), A's, so B is refused (§5.5) and
   * A's channel and item stay. The reason to skip when B's private create was refused.
   */
  async function namesakeDeletes(
    op: 'deleteChannel' | 'deleteAllItems',
    { a, b, channels, fake, judge }: Pick<CheckFixtures, 'a' | 'b' | 'channels' | 'fake' | 'judge'>,
  ): Promise<string | undefined> {
    const made = await namesakes(a, b, channels)
    if ('refused' in made) return made.refused
    const { name } = made
    const ref = uniqueToken(fake)
    await publishFound(a, name, { ref }, ref)
    for (const personal of [undefined, false] as const) {
      const form = `${name}${personal === undefined ? '' : '?personal=false'}`
      const ex = answered(await (op === 'deleteChannel' ? b.deleteChannel(name, personal) : b.deleteAllItems(name, personal)), `B's ${OPERATION_LABEL[op]}`)
      judge.match(
        ex,
        match.when(`B's ${OPERATION_LABEL[op]} of ${form}, A's public channel, B holding a private one of that name`, match.status('refusal')),
        ex,
      )
      const kept = answered(await a.getChannel(name), "A's get of its public channel")
      ensure(
        isSuccess(kept),
        judge,
        `A's public channel ${name} after B's ${OPERATION_LABEL[op]} of ${form} (status ${ex.status}): status ${kept.status}`,
        kept,
      )
      const items = answered(await a.fetchItems(name, aroundNow({ size: 10 })), "A's fetch of its public channel")
      ensure(
        itemsOf(items).some((i) => i.content?.ref === ref),
        judge,
        `A's item in its public channel ${name} after B's ${OPERATION_LABEL[op]} of ${form} (status ${ex.status}): not returned by A's fetch (status ${items.status})`,
        items,
      )
    }
    return undefined
  }

  check('channels.delete.owner-only', addressTitle.namesakeDelete('deleteChannel'), async ({ a, b, channels, fake, skip, judge }) => {
    const refused = await namesakeDeletes('deleteChannel', { a, b, channels, fake, judge })
    if (refused) return skip(refused)
  })
  check('items.delete-all.owner-only', addressTitle.namesakeDelete('deleteAllItems'), async ({ a, b, channels, fake, skip, judge }) => {
    const refused = await namesakeDeletes('deleteAllItems', { a, b, channels, fake, judge })
    if (refused) return skip(refused)
  })

  /**
   * What a delete of one of the two leaves of the other (§4.2 delete channel removes the channel named, §2.3 they
   * are two channels): each side furnished by its owner before the other's delete, then read back by its owner.
   */
  check('channels.delete.only-named', addressTitle.namesakeOwnDelete('private'), async ({ a, b, c, users, channels, fake, skip, judge }) => {
    const made = await namesakes(a, b, channels)
    if ('refused' in made) return skip(made.refused)
    const { name } = made
    // A has no private channel of the name: A's and C's plain name is A's public channel. Each aspect is read back
    // as a set-up step before B's delete, so what is judged after it is only what the delete changed.
    const [ref, tag] = [uniqueToken(fake), uniqueToken(fake)]
    await mustSubscribe(c, name)
    await publishFound(a, name, { ref }, ref)
    await mustAddTags(a, name, [tag], false)
    const hasC = (e: Exchange) => isSuccess(e) && userIdsOf(e).includes(users.C.userId)
    const subscribers = () => eventually(() => a.subscriptions(name), hasC)
    const hasItem = (list: StoredItem[]) => list.some((i) => i.content?.ref === ref)
    const setUp = `set-up: A's public channel ${name}, before B's delete of its own private one`
    ensure(hasC(await subscribers()), steps.subscribedListed, `${setUp}: C is not listed as a subscriber`)
    const itemsBefore = await fetched(a, name, hasItem)
    ensure(hasItem(itemsBefore.items), steps.fetchItems, `${setUp}: A's item is not fetched`, itemsBefore.ex)
    const tagsBefore = await tagList(a, name, (t) => t.includes(tag))
    ensure(tagsBefore.tags.includes(tag), steps.tagsStored, `${setUp}: get tags lists ${show(tagsBefore.tags)}`, tagsBefore.ex)
    steps.deleteChannel.response(answered(await b.deleteChannel(name, true), "B's delete of its own private channel with personal=true"), {
      status: '2xx',
    })
    const after = `after B deleted its own private channel ${name} with personal=true`
    const kept = answered(await eventually(() => a.getChannel(name), isSuccess), "A's get of its public channel")
    ensure(isSuccess(kept), judge, `A's public channel ${name} ${after}: status ${kept.status}`, kept)
    const { items, ex: itemsEx } = await fetched(a, name, hasItem)
    ensure(hasItem(items), judge, `A's item in its public channel ${name} ${after}: not returned by A's fetch`, itemsEx)
    const { tags, ex: tagsEx } = await tagList(a, name, (t) => t.includes(tag))
    ensure(tags.includes(tag), judge, `A's tag ${show(tag)} on its public channel ${name} ${after}: get tags lists ${show(tags)}`, tagsEx)
    const subs = answered(await subscribers(), "A's list of its public channel's subscribers")
    ensure(hasC(subs), judge, `C's subscription to A's public channel ${name} ${after}: not listed (status ${subs.status})`, subs)
  })

  check('channels.delete.only-named', addressTitle.namesakeOwnDelete('public'), async ({ a, b, channels, fake, skip, judge }) => {
    const made = await namesakes(a, b, channels)
    if ('refused' in made) return skip(made.refused)
    const { name, own } = made
    // B's private channel is read back by B's plain name before A's delete, which only a server whose plain name
    // reaches the caller's own private channel first allows (§2.3 orders neither).
    if (!own) return skip(`B's plain name ${name} reaches A's public channel, not B's own private one: B's side cannot be read back before the delete`)
    // B's tag on its own private channel, added with personal=true (§4.2 add tags), read back as a set-up step.
    const tag = uniqueToken(fake)
    await mustAddTags(b, name, [tag], true)
    steps.deleteChannel.response(answered(await a.deleteChannel(name, false), "A's delete of its public channel"), { status: '2xx' })
    const after = `after A deleted its public channel ${name}`
    const mine = answered(await eventually(() => b.getChannel(name), isPrivate), "B's get of its private channel by the plain name")
    ensure(
      isPrivate(mine),
      judge,
      `B's private channel ${name} ${after}: B's get by the plain name answers status ${mine.status}, not its private channel`,
      mine,
    )
    const { tags, ex } = await tagList(b, name, (t) => t.includes(tag))
    ensure(tags.includes(tag), judge, `B's tag ${show(tag)} on its private channel ${name} ${after}: get tags lists ${show(tags)}`, ex)
  })

  // Search lists public channels (§4.2 "Search public channels"): a caller holding a private channel of a public
  // channel's name gets the public one's record in the results, never its own private one.
  check('channels.search.public-only', addressTitle.namesakeSearch, async ({ a, b, channels, fake, skip, judge }) => {
    const [publicText, privateText] = [`ct ${uniqueToken(fake)}`, `ct ${uniqueToken(fake)}`]
    const made = await namesakes(a, b, channels, { description: publicText }, { description: privateText })
    if ('refused' in made) return skip(made.refused)
    const { name } = made
    const ex = answered(await searchFor(b, { channelName: name }, name), `B's search by the name ${name}`)
    const results = bodiesOf(bodyOf(ex)?.results).filter((r) => typeof r.name === 'string' && sameText(r.name, name))
    if (results.length === 0) return skip(`B's search by ${name} lists no channel of that name (status ${ex.status}): nothing to judge`)
    judge.match(
      results,
      match.when(
        `B's search by ${name}, B holding a private channel of that name (description ${show(privateText)}) beside A's public one (${show(publicText)})`,
        match.each(
          '',
          match.that(
            '',
            (r) => (r as { privateChannel?: unknown }).privateChannel !== true && (r as { description?: unknown }).description !== privateText,
            "A's public channel, not B's private one",
          ),
        ),
      ),
      ex,
    )
  })

  check('items.max-items.unlimited', addressTitle.namesakeMaxItems, async ({ a, b, channels, fake, skip, judge }) => {
    const notJudged: string[] = []
    for (const [limited, what] of [
      ['private', "B's private channel holds maxItems 2; A's public one no limit"],
      ['public', "A's public channel holds maxItems 2; B's private one no limit"],
    ] as const) {
      const made = await namesakes(
        a,
        b,
        channels,
        limited === 'public' ? { maxItems: 2 } : { maxItems: -1 },
        limited === 'private' ? { maxItems: 2 } : { maxItems: -1 },
      )
      if ('refused' in made) return skip(made.refused)
      // A has no private channel of the name, so A's plain name is its public one; B's reaches its private one only
      // where the server reads it so (a server may take the public one first: nothing to judge then).
      if (limited === 'public' && !made.own) {
        notJudged.push(`B's plain name ${made.name} reaches A's public channel, not B's own private one`)
        continue
      }
      const owner = limited === 'public' ? b : a
      const refs = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
      for (const ref of refs) await mustPublish(owner, made.name, { content: { ref }, messageType: 'text', contentType: 'application/json' })
      const { items, ex } = await fetched(owner, made.name, (list) => refs.every((r) => list.some((i) => i.content?.ref === r)))
      if (limited === 'public') {
        // A server may resolve B's plain name one way for a get and another for a publish or a fetch (§2.3 orders
        // neither): B's side is judged only when its publishes stayed out of A's channel and its fetch reaches them.
        const inPublic = itemsOf(answered(await a.fetchItems(made.name, aroundNow({ size: 10 })), "A's fetch of its public channel"))
        if (inPublic.some((i) => refs.includes(i.content?.ref as string)) || !items.some((i) => refs.includes(i.content?.ref as string))) {
          notJudged.push(`B's publishes or fetch by the plain name ${made.name} reach A's public channel`)
          continue
        }
      }
      judge.match(
        ex.json,
        match.when(
          `${what}: 4 items published to the unlimited one by its owner`,
          match.derived(
            '/items refs',
            items.map((i) => i.content?.ref),
            match.containsAll('', refs, { what: 'every item published to a channel with maxItems -1' }),
          ),
        ),
        ex,
      )
    }
    if (notJudged.length) judge.observe(`not judged: ${notJudged.join('; ')}`)
  })

  check('channels.create.default-subscribe', addressTitle.namesakeSubscribeOnCreate, async ({ a, b, users, channels, skip, judge }) => {
    // What another user sees of a channel's subscribers is not stated (§4.2): first, whether B's list of an ordinary
    // public channel of A's shows A, subscribed by its create.
    const plain = await channels.create(a)
    const shown = await eventually(
      () => b.subscriptions(plain),
      (e) => (isSuccess(e) && userIdsOf(e).includes(users.A.userId)) || (e.status >= 400 && e.status < 500),
    )
    if (!(isSuccess(shown) && userIdsOf(shown).includes(users.A.userId)))
      return skip(
        `B's list of the subscribers of A's channel ${plain} does not show A (status ${shown.status}): another user's view of subscribers is the server's`,
      )
    const name = channels.name()
    const mine = answered(await a.createChannel({ channelName: name, privateChannel: true }), "A's private channel")
    steps.createChannel.response(mine, { status: '2xx' })
    channels.track(a, name, true)
    const pub = answered(await a.createChannel({ channelName: name }), "A's public channel of the same name")
    if (!isSuccess(pub)) return skip(`A's public create of ${name}, the name of its own private channel, was refused (status ${pub.status})`)
    channels.track(a, name, false)
    // B reads by the plain name, which for B is the public channel only (§2.3): its subscribers are its own. Who
    // may list subscribers is not stated, so B's list may be refused (recorded).
    const ex = answered(
      await eventually(
        () => b.subscriptions(name),
        (e) => (isSuccess(e) && userIdsOf(e).includes(users.A.userId)) || (e.status >= 400 && e.status < 500),
      ),
      `B's GET /channels/${name}/subscriptions`,
    )
    if (ex.status >= 400 && ex.status < 500) return skip(`B's list of the subscribers of A's public channel ${name} was refused (status ${ex.status})`)
    judge.match(
      judge.response(ex, { status: '2xx' }),
      match.when(
        `A's public channel ${name}, created with subscribeOnCreate absent after A's private channel of that name`,
        match.contains('', users.A.userId, {
          key: (s) => (s as { userId?: unknown } | null)?.userId,
          what: 'A, subscribed by its create (subscribeOnCreate defaults to true)',
        }),
      ),
      ex,
    )
  })
})

describe('delete all items of another user’s channel in every state of its items (§4.2, §5.5)', () => {
  check('items.delete-all.owner-only', addressTitle.ownerOnlyStates, async ({ a, b, channels, fake, judge }) => {
    const name = await channels.create(a, { publishPermission: 'anyone', subscribeOnCreate: false })
    // B subscribes first, so its publish is one every reading of publishPermission anyone takes.
    await mustSubscribe(b, name)
    const ref = uniqueToken(fake)
    await publishFound(b, name, { ref }, ref)
    const own = answered(await b.deleteAllItems(name, false), "B's delete of all items of A's channel holding only B's item")
    judge.match(own, match.when(`B's delete of all items of A's channel ${name}, holding only an item B published`, match.status('refusal')), own)
    const after = answered(await a.fetchItems(name, aroundNow({ size: 10 })), "A's fetch after B's deletes")
    ensure(
      itemsOf(after).some((i) => i.content?.ref === ref),
      judge,
      `B's item in A's channel ${name} after B's refused delete of all items (status ${own.status}): not returned by A's fetch (status ${after.status})`,
      after,
    )
    // Empty (another channel): nothing to lose, so a 2xx takes nothing from anyone: recorded.
    const bare = await channels.create(a, { subscribeOnCreate: false })
    const empty = answered(await b.deleteAllItems(bare, false), "B's delete of all items of A's empty channel")
    if (isSuccess(empty))
      judge.observe(`B's delete of all items of A's channel ${bare} while it was empty: status ${empty.status} (nothing was there to delete)`)
  })
})
