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
import type { ChannelFactory } from '../helpers/kit/check'
import { check, describe } from '../helpers/kit/check'
import { ensure, isSuccess } from '../helpers/kit/expect'
import { ALSO, steps, type Judge } from '../helpers/kit/judge'
import { eventually } from '../helpers/kit/poll'
import { mustSignIn, mustSubscribe, uniqueToken } from '../helpers/kit/setup'
import { deviceTitle } from '../helpers/spec/models'
import { answered, channelRecord, fetched } from './support/model'
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

/**
 * `sender` sends to `to`; every delivery record of the sent message, read by the sender, names `senderId`.
 * Nobody sent (no device to push to) leaves nothing to read: recorded, and the check ends.
 */
async function sendersAre(sender: Api, to: string, senderId: string, judge: Judge, ref: string, context: string): Promise<void> {
  const sent = answered(await sender.sendToUserIds({ receipt: false, recipientUserIds: [to], content: { text: 'ct', ref } }), 'send')
  steps.send.response(sent, { status: '2xx' })
  const ids = bodiesOf(asBody(sent.json)?.sentList)
    .map((e) => e.messageId)
    .filter((id): id is string => typeof id === 'string')
  if (ids.length === 0) {
    judge.observe(`${context}: the send reached nobody (empty sentList), so there is no delivery status to read`, ALSO.sendDevices)
    return
  }
  for (const messageId of new Set(ids)) {
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
      ],
      ex,
    )
  }
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
})
