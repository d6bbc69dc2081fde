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
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import type { RunAccount } from '../helpers/http/run-context'
import { check, describe, type ChannelFactory } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustBePrivate, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { CHANNEL_OPERATIONS, OPERATION_LABEL, PERSONAL, addressTitle } from '../helpers/spec/models'
import { aroundNow } from '../helpers/kit/window'
import { answered, callThrough, fetched, itemsOf, publishFound, tagList, type CallValues } from './support/model'
import { match } from './support/match'
import { userIdsOf } from './support/read'

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
