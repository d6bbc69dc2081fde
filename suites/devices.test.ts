/**
 * The users × devices model (helpers/spec/models.ts DEVICE_CELLS, docs/coverage.md): who a record names when
 * two users signed in with one device id, and when one user is signed in on two devices. A token is a user's
 * (§2.2 sign-in answers the user's record with it), so the user in a record is the token's user whatever the
 * device: the channel's creator (§2.3), an item's publisher (§2.6), a subscriber (§2.5), a message's sender
 * (§2.7). The device part of creator names the device of the session that created the channel (§2.3, SHOULD).
 *
 * Every sign-in here uses a device id of this run and check, so nothing is shared with another check; the
 * checks hold whatever a server does with a device id two users share (one device record or two).
 */
import type { Api } from '../helpers/http/api'
import type { Exchange } from '../helpers/http/client'
import type { RunAccount, RunContext } from '../helpers/http/run-context'
import type { ChannelFactory, CheckFixtures } from '../helpers/kit/check'
import { check, describe } from '../helpers/kit/check'
import { ensure, isSuccess } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustAddTags, mustSignIn, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { deviceTitle } from '../helpers/spec/models'
import { answered, channelRecord, deliveredAs, sentMessageIds, fetched, publishFound, subscribersOf, tagList } from './support/model'
import { asBody, bodiesOf, userIdKey } from './support/read'
import { match } from './support/match'

/** A device id of this run, told apart by `tag`. */
const deviceOf = (run: RunContext, tag: string): string => `${run.namePrefix}-${run.runId}-${tag}`

/** Signs each of `accounts` in with the one device id, in order; their tokens, in the same order. */
async function onOneDevice(anon: Api, run: RunContext, deviceId: string, accounts: readonly RunAccount[]): Promise<Api[]> {
  const callers: Api[] = []
  for (const u of accounts)
    callers.push(anon.withToken(await mustSignIn(anon, { userName: u.userName, password: u.password, clientId: run.clientId, deviceId })))
  return callers
}

/** The creator of `name` as `reader` gets it; the channel was made by `maker` (a caller with a token of `owner`) and is deleted by `owner`. */
async function createdBy(maker: Api, owner: Api, channels: ChannelFactory): Promise<{ name: string; ch: Record<string, unknown>; ex: Exchange }> {
  const name = channels.name()
  channels.track(owner, name)
  steps.createChannel.response(answered(await maker.createChannel({ channelName: name }), `create ${name}`), { status: '2xx' })
  const { ch, ex } = await channelRecord(owner, name)
  return { name, ch, ex }
}

/** Each caller publishes one item (a unique ref) to A's channel; the fetch that holds them all and their refs. */
async function publishedBy(a: Api, callers: readonly Api[], channels: ChannelFactory, refs: readonly string[]) {
  const name = await channels.create(a, { publishPermission: 'anyone' })
  for (const [i, api] of callers.entries()) {
    const made = answered(await api.publish(name, { content: { ref: refs[i] }, messageType: 'text', contentType: 'application/json' }), 'publish')
    steps.publish.response(made, { status: '2xx' })
  }
  return fetched(a, name, (list) => refs.every((r) => list.some((i) => i.content?.ref === r)))
}

/** Judges that the item of each ref names `userIds[i]` as its publisher. */
function publishersAre(judge: Judge, ex: Exchange, refs: readonly string[], userIds: readonly string[], context: string): void {
  const items = bodiesOf(asBody(ex.json)?.items)
  for (const [i, ref] of refs.entries()) {
    const at = items.findIndex((it) => asBody(it.content)?.ref === ref)
    ensure(
      at >= 0,
      steps.fetchItems,
      match.explain(ex.json, match.contains('/items', ref, { key: (it) => asBody(asBody(it)?.content)?.ref, what: 'a published item' })),
      ex,
    )
    judge.match(ex.json, match.when(context, match.equal(`/items/${at}/publisher/userId`, userIds[i], 'the user whose token published it')), ex)
  }
}

/** `sender` sends to `to`; every delivery record of the sent message, read by the sender, names `senderId`. */
async function sendersAre(sender: Api, to: string, senderId: string, judge: Judge, ref: string, context: string): Promise<void> {
  const sent = answered(await sender.sendToUserIds({ receipt: false, recipientUserIds: [to], content: { text: 'ct', ref } }), 'send')
  await deliveredAs(sender, sent, senderId, judge, context)
}

/** The creator ends in a slash and the device id (§2.3: "… then a slash and device id"). */
const endsInDevice = (device: string, which: string) =>
  match.that('/creator', (cr) => typeof cr === 'string' && cr.endsWith(`/${device}`), `a creator ending in "/" and the id of ${which}, ${device}`)

describe('two users signed in with one device id × creator, publisher, sender (§2.3, §2.6, §2.7)', () => {
  check('items.publisher', deviceTitle.sharedPublisher, async ({ a, anon, users, run, channels, fake, judge }) => {
    const deviceId = deviceOf(run, 'dvp')
    const [asC, asB] = await onOneDevice(anon, run, deviceId, [users.C, users.B])
    const refs = [uniqueToken(fake), uniqueToken(fake)]
    const { ex } = await publishedBy(a, [asB!, asC!], channels, refs)
    publishersAre(judge, ex, refs, [users.B.userId, users.C.userId], `B and C signed in with one device id ${deviceId}, C first`)
  })

  check('channels.get.creator', deviceTitle.sharedCreator, async ({ anon, b, c, users, run, channels, judge }) => {
    const deviceId = deviceOf(run, 'dvc')
    const [asC, asB] = await onOneDevice(anon, run, deviceId, [users.C, users.B])
    for (const [who, maker, owner, user] of [
      ['B', asB!, b, users.B],
      ['C', asC!, c, users.C],
    ] as const) {
      const { name, ch, ex } = await createdBy(maker, owner, channels)
      const context = `${name}, created by ${who} from device id ${deviceId} that both signed in with`
      judge.match(ch, match.when(context, match.startsWith('/creator', user.userId, `${who}'s user id`)), ex)
      const device = match.when(context, endsInDevice(deviceId, 'the shared device'))(ch)
      judge.should(device === undefined, device ?? `${context}: creator ends in its device id`, ALSO.creatorDevice)
      // Deleted here by the token that made it (the fixture's delete after the check then meets a 404): a replay of
      // the check (npm run reproduce) cleans up each channel with the token that made it.
      answered(await maker.deleteChannel(name), `delete ${name}`)
    }
  })

  check('messages.status.agrees', deviceTitle.sharedSender, async ({ anon, users, run, fake, judge }) => {
    const deviceId = deviceOf(run, 'dvs')
    const [, asB] = await onOneDevice(anon, run, deviceId, [users.C, users.B])
    await sendersAre(asB!, users.A.userId, users.B.userId, judge, uniqueToken(fake), `B's send from device id ${deviceId}, which C signed in with first`)
  })
})

describe('two users signed in with one device id × recipients (§4.3)', () => {
  check('messages.status.agrees', deviceTitle.sharedStatusRecipient, async ({ a, anon, users, run, fake, judge }) => {
    const deviceId = deviceOf(run, 'dvq')
    await onOneDevice(anon, run, deviceId, [users.C, users.B])
    const sent = answered(
      await a.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId], content: { text: 'ct', ref: uniqueToken(fake) } }),
      'send',
    )
    await deliveredAs(a, sent, users.A.userId, judge, `A's send to B, signed in on device id ${deviceId}, which C signed in with first`, users.B.userId)
  })

  check('messages.send.counts-add-up', deviceTitle.sharedRecipients, async ({ a, anon, users, run, fake, judge }) => {
    const deviceId = deviceOf(run, 'dvr')
    await onOneDevice(anon, run, deviceId, [users.B, users.C])
    // sent and unsent count users (§4.3): two users on one device are two users, whatever one device record holds.
    const ex = answered(
      await a.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId, users.C.userId], content: { text: 'ct', ref: uniqueToken(fake) } }),
      'send to B and C',
    )
    const body = judge.response<{ count: { requested: number; sent: number; unsent: number } }>(ex, { status: '2xx', schema: 'send-result' })
    const { sent, unsent } = body.count
    judge.match(
      body,
      match.when(
        `B and C signed in with one device id ${deviceId}`,
        match.equal('/count/requested', sent + unsent, `/count/sent ${sent} + /count/unsent ${unsent}`),
      ),
      ex,
    )
  })
})

describe('one user signed in on two devices × creator, publisher, subscriber, sender (§2.3, §2.5, §2.6, §2.7)', () => {
  check('channels.get.creator-device', deviceTitle.secondCreatorDevice, async ({ a, anon, users, run, channels, judge }) => {
    const deviceId = deviceOf(run, 'dvd')
    const [second] = await onOneDevice(anon, run, deviceId, [users.A])
    for (const [maker, device, which] of [
      [second!, deviceId, 'its second device'],
      [a, users.A.deviceId, 'the device of its first sign-in'],
    ] as const) {
      const { name, ch, ex } = await createdBy(maker, a, channels)
      judge.match(ch, match.when(`${name}, created by A from ${which} while signed in on two`, endsInDevice(device, which)), ex)
    }
  })

  check('channels.get.creator', deviceTitle.secondCreator, async ({ a, anon, users, run, channels, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvo'), [users.A])
    const { name, ch, ex } = await createdBy(second!, a, channels)
    judge.match(ch, match.when(`${name}, created by A from a second device`, match.startsWith('/creator', users.A.userId, "A's user id")), ex)
  })

  check('items.publisher', deviceTitle.secondPublisher, async ({ a, anon, users, run, channels, fake, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvq'), [users.B])
    const refs = [uniqueToken(fake)]
    const { ex } = await publishedBy(a, [second!], channels, refs)
    publishersAre(judge, ex, refs, [users.B.userId], 'B published from a second device')
  })

  check('subscriptions.subscribe.listed', deviceTitle.secondSubscriber, async ({ a, anon, users, run, channels, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvr'), [users.B])
    const name = await channels.create(a, { subscribeOnCreate: false })
    await mustSubscribe(second!, name)
    const ex = answered(
      await eventually(
        () => a.subscriptions(name),
        (e) => isSuccess(e) && Array.isArray(e.json) && e.json.some((s) => userIdKey(s) === users.B.userId),
      ),
      'subscribers',
    )
    steps.listSubscriptions.response(ex, { status: '2xx' })
    judge.match(ex.json, match.when('B subscribed from a second device', match.contains('', users.B.userId, { key: userIdKey, what: 'B' })), ex)
  })

  check('messages.status.agrees', deviceTitle.secondSender, async ({ anon, users, run, fake, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvt'), [users.A])
    await sendersAre(second!, users.B.userId, users.A.userId, judge, uniqueToken(fake), "A's send from its second device")
  })

  // The status is the message's, and the token the user's (§2.2): any device of the sender reads it.
  check('messages.status.shape', deviceTitle.secondStatusReader, async ({ a, anon, users, run, fake, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvm'), [users.A])
    const sent = answered(
      await second!.sendToUserIds({ receipt: false, recipientUserIds: [users.B.userId], content: { text: 'ct', ref: uniqueToken(fake) } }),
      "A's send from its second device",
    )
    steps.send.response(sent, { status: '2xx' })
    const ids = sentMessageIds(sent)
    if (ids.length === 0) {
      judge.observe("A's send from its second device reached nobody (empty sentList): no delivery status to read", ALSO.sendDevices)
      return
    }
    // The status is judged for its shape only here (who it names is messages.status.agrees'): an array of records.
    // The second device's token is this check's own, and not renewed: a server that keeps one session a user may
    // have ended it when the run's token of A was renewed (revocation is not shown, §5.6): recorded.
    for (const [reader, where] of [
      [a, 'its first device'],
      [second!, 'that second device'],
    ] as const) {
      const ex = answered(
        await eventually(
          () => reader.deliveryStatus(ids[0]!),
          (e) => e.status === 401 || (isSuccess(e) && Array.isArray(e.json) && e.json.length > 0),
        ),
        `GET /messages/${ids[0]} on ${where}`,
      )
      if (ex.status === 401 && reader !== a) {
        judge.observe(`A's second device's token was refused (401) when it read the status: its session ended`, ALSO.tokenRevocation)
        continue
      }
      const records = judge.response<unknown[]>(ex, { status: '2xx', schema: 'delivery-list' })
      judge.match(records, match.when(`A's send from its second device, its status read on ${where}`, match.atLeast('', 1, 'its delivery records')), ex)
    }
  })
})

/**
 * A user's subscribes to one channel from its devices: the first, again from the same device, again from a second
 * device. A repeat may be answered with the subscription the user holds, a new one, or a refusal (repeats are not
 * described, §4.2); what a 2xx answered is judged: its subId names a listed subscription, and the user is listed.
 */
describe('one user signed in on two devices × its subscribes to one channel (§4.2 subscribe, §2.5)', () => {
  check('subscriptions.subscribe.listed', deviceTitle.subscribeAgainSubIds, async ({ a, b, anon, users, run, channels, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvk'), [users.B])
    const name = await channels.create(a, { subscribeOnCreate: false })
    const subIdKey = (s: unknown) => asBody(s)?.subscriptionId
    for (const [i, [api, what]] of (
      [
        [b, "B's first subscribe"],
        [b, "B's subscribe again from the same device"],
        [second!, "B's subscribe again from a second device"],
      ] as const
    ).entries()) {
      const sub = answered(await api.subscribe(name), what)
      if (i === 0) steps.subscribe.response(sub, { status: '2xx' })
      else if (!isSuccess(sub)) {
        judge.observe(`${what}: status ${sub.status} (a repeated subscribe may be refused; nothing to judge)`)
        continue
      }
      const subId = asBody(sub.json)?.subId
      const ex = answered(
        await eventually(
          () => a.subscriptions(name),
          (e) =>
            isSuccess(e) &&
            Array.isArray(e.json) &&
            e.json.some((s) => userIdKey(s) === users.B.userId) &&
            (typeof subId !== 'string' || e.json.some((s) => subIdKey(s) === subId)),
        ),
        'subscribers',
      )
      steps.listSubscriptions.response(ex, { status: '2xx' })
      const context = `after ${what}`
      judge.match(ex.json, match.when(context, match.contains('', users.B.userId, { key: userIdKey, what: 'B' })), ex)
      // Judged on the subscribe's own answer: the subId it gave names one of the subscriptions listed after it.
      const listedIds = bodiesOf(ex.json).map(subIdKey)
      if (typeof subId === 'string')
        judge.match(sub.json, match.when(what, match.oneOf('/subId', listedIds, 'the subscriptionId of a subscription listed after it')), sub)
    }
  })
})

describe('sign-in × the state of its device id (§4.1, §5.2)', () => {
  check('signin.device-id.any-value', deviceTitle.signInDeviceStates, async ({ anon, users, run, judge }) => {
    // "any value is accepted" (§5.2): whoever signed in with the id before, and whether they still hold a session.
    const first = deviceOf(run, 'dsa')
    const signIn = async (u: RunAccount, deviceId: string, what: string): Promise<string | undefined> => {
      const ex = answered(await anon.signIn({ userName: u.userName, password: u.password, clientId: run.clientId, deviceId }), `sign-in of ${what}`)
      const body = judge.response<{ access_token?: unknown } | undefined>(ex, { status: '2xx' })
      judge.match(body, match.when(`the sign-in of ${what}`, match.nonEmptyString('/access_token')), ex)
      return typeof body?.access_token === 'string' ? body.access_token : undefined
    }
    const tokenOfB = await signIn(users.B, first, `B on device id ${first}, never used`)
    await signIn(users.B, first, `B again on device id ${first}, which B signed in with`)
    await signIn(users.C, first, `C on device id ${first}, which B signed in with and still holds a session on`)
    await signIn(users.B, deviceOf(run, 'dsb'), `B on a second device id, while signed in on ${first}`)
    // Whether B's first token still works after others signed in on its device id is token revocation: not shown (§5.6).
    if (tokenOfB) {
      const used = answered(await anon.withToken(tokenOfB).listUsers(), "list users with B's first token")
      if (!isSuccess(used)) judge.observe(`B's first token after C signed in on its device id: list users answered ${used.status}`, ALSO.tokenRevocation)
    }
  })
})

/**
 * A's callers besides its first sign-in (the fixture `a`): a second device of its own, and a device id B signed in
 * with first. A token is a user's (§2.2), so the owner's deletes from either are the owner's (§4.2, §5.5).
 */
async function ownerElsewhere(anon: Api, users: CheckFixtures['users'], run: RunContext, tag: string): Promise<(readonly [Api, string])[]> {
  const [second] = await onOneDevice(anon, run, deviceOf(run, `${tag}o`), [users.A])
  const shared = deviceOf(run, `${tag}s`)
  const [, onShared] = await onOneDevice(anon, run, shared, [users.B, users.A])
  return [
    [second!, 'A from its second device'],
    [onShared!, `A from device id ${shared}, which B signed in with first`],
  ]
}

/** B subscribes from its first device (`b`) and unsubscribes through `leaving`; A's list no longer holds B. */
async function unsubscribedFrom(a: Api, b: Api, leaving: Api, users: CheckFixtures['users'], channels: ChannelFactory, judge: Judge, context: string) {
  const name = await channels.create(a, { subscribeOnCreate: false })
  await mustSubscribe(b, name)
  await subscribersOf(a, name, (ids) => ids.includes(users.B.userId))
  judge.response(answered(await leaving.unsubscribe(name), `B's unsubscribe ${context}`), { status: '2xx' })
  const { ex } = await subscribersOf(a, name, (ids) => !ids.includes(users.B.userId))
  judge.match(
    ex.json,
    match.when(`after B's unsubscribe ${context}, B having subscribed from its first device`, match.lacks('', users.B.userId, { key: userIdKey, what: 'B' })),
    ex,
  )
}

describe('one user on two devices, two users on one device id × unsubscriber (§4.2 unsubscribe)', () => {
  check('subscriptions.unsubscribe.removed', deviceTitle.secondUnsubscriber, async ({ a, b, anon, users, run, channels, judge }) => {
    const [second] = await onOneDevice(anon, run, deviceOf(run, 'dvu'), [users.B])
    await unsubscribedFrom(a, b, second!, users, channels, judge, 'from its second device')
  })

  check('subscriptions.unsubscribe.removed', deviceTitle.sharedUnsubscriber, async ({ a, b, anon, users, run, channels, judge }) => {
    const deviceId = deviceOf(run, 'dvw')
    const [, onShared] = await onOneDevice(anon, run, deviceId, [users.C, users.B])
    await unsubscribedFrom(a, b, onShared!, users, channels, judge, `from device id ${deviceId}, which C signed in with first`)
  })
})

describe("the owner's deletes from its second device and from a device id another user signed in with first (§4.2, §5.5)", () => {
  check('tags.delete-one.removes', deviceTitle.ownerDeletesTag, async ({ a, anon, users, run, channels, fake, judge }) => {
    const callers = await ownerElsewhere(anon, users, run, 'dxt')
    const name = await channels.create(a)
    const tags = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    await mustAddTags(a, name, tags, false)
    for (const [i, [api, who]] of callers.entries()) {
      judge.response(answered(await api.deleteTag(name, tags[i]!, false), `delete tag ${tags[i]} by ${who}`), { status: '2xx' })
      const { ex } = await tagList(a, name, (t) => !t.includes(tags[i]!))
      judge.match(ex.json, match.when(`after the delete of ${tags[i]} by ${who}`, match.lacks('/tags', tags[i], { what: 'the tag deleted' })), ex)
    }
    const { ex } = await tagList(a, name, (t) => t.includes(tags[2]!))
    judge.match(ex.json, match.when('after the two deletes', match.contains('/tags', tags[2], { what: 'the tag no delete named' })), ex)
  })

  check('items.delete.removes', deviceTitle.ownerDeletesItems, async ({ a, anon, users, run, channels, fake, judge }) => {
    const callers = await ownerElsewhere(anon, users, run, 'dxi')
    const name = await channels.create(a)
    const refs = [uniqueToken(fake), uniqueToken(fake), uniqueToken(fake)]
    const ids: string[] = []
    for (const ref of refs) ids.push((await publishFound(a, name, { ref }, ref)).itemId)
    for (const [i, [api, who]] of callers.entries()) {
      judge.response(answered(await api.deleteItems(name, [ids[i]!]), `delete item ${ids[i]} by ${who}`), { status: '2xx' })
      const { items, ex } = await fetched(a, name, (list) => !list.some((it) => it.itemId === ids[i]))
      judge.match(
        ex.json,
        match.when(
          `after the delete of item ${ids[i]} by ${who}`,
          match.derived(
            '/items itemIds',
            items.map((it) => it.itemId),
            match.lacks('', ids[i], { what: 'the item deleted' }),
          ),
        ),
        ex,
      )
    }
    const { items, ex } = await fetched(a, name, (list) => list.some((it) => it.itemId === ids[2]))
    judge.match(
      ex.json,
      match.when(
        'after the two deletes',
        match.derived(
          '/items itemIds',
          items.map((it) => it.itemId),
          match.contains('', ids[2], { what: 'the item no delete named' }),
        ),
      ),
      ex,
    )
  })

  check('tags.delete-all.removes', deviceTitle.ownerDeletesAllTags, async ({ a, anon, users, run, channels, fake, judge }) => {
    const callers = await ownerElsewhere(anon, users, run, 'dxa')
    for (const [api, who] of callers) {
      const name = await channels.create(a)
      const tags = [uniqueToken(fake), uniqueToken(fake)]
      await mustAddTags(a, name, tags, false)
      steps.deleteTags.response(answered(await api.deleteTags(name, false), `delete all tags of ${name} by ${who}`), { status: '2xx' })
      const { ex } = await tagList(a, name, (t) => t.length === 0)
      judge.match(ex.json, match.when(`after the delete of all tags by ${who}`, match.size('/tags', 0)), ex)
    }
  })

  check('items.delete-all.empties', deviceTitle.ownerDeletesAllItems, async ({ a, anon, users, run, channels, fake, judge }) => {
    const callers = await ownerElsewhere(anon, users, run, 'dxe')
    for (const [api, who] of callers) {
      const name = await channels.create(a)
      const refs = [uniqueToken(fake), uniqueToken(fake)]
      for (const ref of refs) await publishFound(a, name, { ref }, ref)
      steps.deleteAllItems.response(answered(await api.deleteAllItems(name, false), `delete all items of ${name} by ${who}`), { status: '2xx' })
      const { items, ex } = await fetched(a, name, (list) => list.length === 0)
      judge.match(
        ex.json,
        match.when(
          `after the delete of all items by ${who}`,
          match.derived(
            '/items itemIds',
            items.map((it) => it.itemId),
            match.size('', 0),
          ),
        ),
        ex,
      )
    }
  })

  check('channels.delete.removes', deviceTitle.ownerDeletesChannel, async ({ a, anon, users, run, channels, judge }) => {
    const callers = await ownerElsewhere(anon, users, run, 'dxc')
    for (const [api, who] of callers) {
      const name = await channels.create(a)
      judge.response(answered(await api.deleteChannel(name), `delete ${name} by ${who}`), { status: '2xx' })
      const ex = answered(
        await eventually(
          () => a.getChannel(name),
          (e) => !isSuccess(e),
        ),
        `GET /channels/${name}`,
      )
      judge.match(ex, match.when(`A's GET after the delete of ${name} by ${who}`, match.status('refusal', 'the channel is gone')), ex)
    }
  })
})
