/**
 * §4.3 direct messages, §2.7 delivery status record, §2.8 send result. Messages go only to the run's own
 * accounts: A sends, B and C receive. In a send, `requested` counts matched users, `sent` the users a push
 * was sent for, `unsent` the users it could not be sent for (§4.3); `recipientUsername` holds the user id.
 */
import type { Faker } from '@faker-js/faker'
import type { TestContext } from 'vitest'
import type { Api } from '../helpers/http/api'
import { check, describe } from '../helpers/kit/check'
import type { Exchange } from '../helpers/http/client'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import { together } from '../helpers/kit/together'
import { mustSignInAnotherDevice, uniqueToken } from '../helpers/kit/setup'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { match, type Matcher } from './support/match'
import { UNKNOWN_IDS_PLACED } from '../helpers/spec/models'

interface Count {
  requested: number
  sent: number
  unsent: number
}

interface SentEntry {
  messageId: string
  deviceId: string | null
  recipientUsername: string
}

interface SendResult {
  count: Count
  sentList: SentEntry[]
  unsentList: unknown[]
}

interface DeliveryRecord {
  state: string
  recipient: string
  sender: string
  appId: string
  deviceId: string
  messageId: string
  queuedAt: string
  receivedAt: string | null
}

/** A small message with a receipt flag of false; content and metadata are marked as the suite's own. */
function message(fake: Faker, recipientUserIds: string[]) {
  return {
    receipt: false,
    recipientUserIds,
    content: { text: `ct ${fake.lorem.words(3)}`, ref: fake.string.alphanumeric(10) },
  }
}

/** A made-up user id in the shape of the spec's ids: 32 lowercase hex digits. */
function unknownUserId(fake: Faker): string {
  return uniqueToken(fake, 32)
}

/** A sends to the given ids; the send must succeed with a send-result body (judged by `judge`). */
async function send(a: Api, fake: Faker, ids: string[], judge: Judge): Promise<{ ex: Exchange; body: SendResult }> {
  const ex = await a.sendToUserIds(message(fake, ids))
  const body = judge.response<SendResult>(ex, { status: '2xx', schema: 'send-result' })
  return { ex, body }
}

/** sent plus unsent is requested (§4.3): the matcher of /count/requested against the other two counts. */
function addsUp(body: { count: { sent: number; unsent: number } }): Matcher {
  const { sent, unsent } = body.count
  return match.equal('/count/requested', sent + unsent, `/count/sent ${sent} + /count/unsent ${unsent}`)
}

describe('POST /messages/send_to_user_ids (§4.3 send to user ids)', () => {
  check('messages.send.shape', 'answers {count, sentList, unsentList} for a send to B and C', async ({ a, users, fake, judge }) => {
    await send(a, fake, [users.B.userId, users.C.userId], judge)
  })

  check('messages.send.requested', 'counts two matched users as requested 2', async ({ a, users, fake, judge }) => {
    const { ex, body } = await send(a, fake, [users.B.userId, users.C.userId], judge)
    judge.match(body, match.equal('/count/requested', 2, 'B and C are both users of the application'), ex)
  })

  check('messages.send.requested', 'counts three matched users as requested 3, in two orders', async ({ a, users, fake, judge }) => {
    // Every id of the list is read, wherever it stands in it: all three accounts, first in one order, last in the other.
    for (const order of [
      [users.A, users.B, users.C],
      [users.C, users.B, users.A],
    ]) {
      const { ex, body } = await send(
        a,
        fake,
        order.map((u) => u.userId),
        judge,
      )
      judge.match(
        body,
        match.when(`recipientUserIds ${order.map((u) => u.key).join(', ')}`, match.equal('/count/requested', 3, 'A, B and C are users of the application')),
        ex,
      )
    }
  })

  check('messages.send.requested', 'counts the sender itself as one matched user', async ({ a, users, fake, judge }) => {
    // A message to oneself: A is a user of the application like any other (§4.3 "requested counts matched users").
    const { ex, body } = await send(a, fake, [users.A.userId], judge)
    judge.match(body, match.equal('/count/requested', 1, 'A sent to A, a user of the application'), ex)
  })

  check('messages.send.counts-add-up', 'gives sent plus unsent equal to requested', async ({ a, users, fake, judge }) => {
    const { ex, body } = await send(a, fake, [users.B.userId, users.C.userId], judge)
    judge.match(body, addsUp(body), ex)
  })

  check(
    'messages.send.counts-add-up',
    'counts users, not devices: B signed in on a second device is still one user',
    async ({ a, anon, users, run, fake, judge }) => {
      // sent and unsent count users (§4.3), so a recipient with several devices counts once in them.
      await mustSignInAnotherDevice(anon, users.B, run, 'b2')
      const { ex, body } = await send(a, fake, [users.B.userId, users.C.userId], judge)
      const atMostTwo = (n: unknown) => typeof n === 'number' && n <= 2
      judge.match(
        body,
        [
          addsUp(body),
          match.that('/count/sent', atMostTwo, 'at most 2: two users (B and C) were sent to'),
          match.that('/count/unsent', atMostTwo, 'at most 2: two users (B and C) were sent to'),
        ],
        ex,
      )
    },
  )

  check('messages.send.options', 'accepts receipt true with a metadata object', async ({ a, users, fake, judge }) => {
    const ex = await a.sendToUserIds({ ...message(fake, [users.B.userId]), receipt: true, metadata: { origin: 'ct', ref: fake.string.alphanumeric(10) } })
    judge.response(ex, { status: '2xx', schema: 'send-result' })
  })

  check('messages.send.options', 'accepts an empty metadata object, with receipt false and true', async ({ a, users, fake, judge }) => {
    // metadata is "object, optional" (§4.3): {} is an object, and leaving it empty asks for nothing.
    for (const receipt of [false, true]) {
      const ex = await a.sendToUserIds({ ...message(fake, [users.B.userId]), receipt, metadata: {} })
      judge.response(ex, { status: '2xx', schema: 'send-result' })
    }
  })

  check('messages.send.recipients', 'names each sent recipient by user id, one distinct recipient per user sent', async ({ a, users, fake, judge }) => {
    const wanted = [users.B.userId, users.C.userId]
    const { ex, body } = await send(a, fake, wanted, judge)
    // B and C may have no active device (the spec does not say that sign-in registers one): then nobody is sent.
    if (body.sentList.length === 0)
      judge.observe(`send to B and C: nobody sent (sent ${body.count.sent}, unsent ${body.count.unsent}), so no sentList entry to judge`, ALSO.sendDevices)
    judge.match(body, match.each('/sentList', match.oneOf('/recipientUsername', wanted, 'the user id of B or C')), ex)
    // `sent` counts users; the distinct recipients named in sentList are exactly those users. Counts that do not add
    // up (sent + unsent against requested) are messages.send.counts-add-up's deviation: a step, which blocks this check.
    steps.sendCounts.match(
      body,
      match.equal('/count/requested', body.count.sent + body.count.unsent, `/count/sent ${body.count.sent} + /count/unsent ${body.count.unsent}`),
      ex,
    )
    const distinct = [...new Set(body.sentList.map((e) => e.recipientUsername))]
    judge.match(body, match.derived('/sentList distinct recipientUsername', distinct, match.size('', body.count.sent)), ex)
    if (body.count.sent === 2) {
      judge.match(
        body,
        match.when(
          '/count/sent is 2',
          match.containsAll('/sentList', wanted, { key: (e) => (e as { recipientUsername?: unknown } | null)?.recipientUsername }),
        ),
        ex,
      )
    }
  })

  check('messages.send.unknown-not-matched', 'leaves an unknown user id out of requested', async ({ a, users, fake, judge }) => {
    const unknown = unknownUserId(fake)
    const { ex, body } = await send(a, fake, [users.B.userId, unknown], judge)
    judge.match(body, match.equal('/count/requested', 1, `only B matches; ${unknown} is no user`), ex)
    const named = body.sentList.findIndex((e) => e.recipientUsername === unknown)
    ensure(named < 0, judge, `/sentList/${named}/recipientUsername: names the unknown id ${unknown}`, ex)
  })

  check('messages.send.requested', UNKNOWN_IDS_PLACED, async ({ a, users, fake, judge }) => {
    // "requested counts matched users" (§4.3): an unknown id matches nobody wherever it stands, and does not stop the
    // ids after it from matching. Known users appear once each (a repeat of a known id is the other check's reading).
    const [u1, u2] = [unknownUserId(fake), unknownUserId(fake)]
    const [B, C] = [users.B.userId, users.C.userId]
    const arrangements: [string, string[], number][] = [
      ['an unknown id first, then B', [u1, B], 1],
      ['B, an unknown id, C', [B, u1, C], 2],
      ['B, C, an unknown id last', [B, C, u1], 2],
      ['one unknown id twice, around B', [u1, B, u1], 1],
      ['two unknown ids, each before a known user', [u1, B, u2, C], 2],
    ]
    for (const [what, ids, matched] of arrangements) {
      const { ex, body } = await send(a, fake, ids, judge)
      judge.match(
        body,
        match.when(`recipientUserIds: ${what}`, match.equal('/count/requested', matched, `the known users among them (${matched}); unknown ids match nobody`)),
        ex,
      )
    }
  })

  /**
   * A's send naming B twice: its answer and send-result body, or no body when the server refused it (recorded: a
   * send naming one recipient twice may be refused, the spec shows no error).
   */
  async function sendToBTwice(a: Api, fake: Faker, users: { B: { userId: string } }, judge: Judge): Promise<{ ex: Exchange; body?: SendResult }> {
    const ex = await a.sendToUserIds(message(fake, [users.B.userId, users.B.userId]))
    if (!isSuccess(ex)) {
      judge.observe(`send to [B, B]: status ${ex.status}`, ALSO.sendRepeatedId)
      return { ex }
    }
    return { ex, body: judge.response<SendResult>(ex, { status: '2xx', schema: 'send-result' }) }
  }

  check('messages.send.requested', 'counts B named twice as one or two matched users, never more or fewer', async ({ a, users, fake, judge }) => {
    const { ex, body } = await sendToBTwice(a, fake, users, judge)
    if (!body) return
    // "requested counts matched users": B is one user, matched by each of the two ids; whether a repeat counts
    // again is not stated, so 1 and 2 are both readings (recorded), and anything else matched nobody or a ghost.
    judge.observe(`send to [B, B]: /count/requested ${show(body.count.requested)}`, ALSO.sendRepeatedId)
    judge.match(body, match.oneOf('/count/requested', [1, 2], "1 (B, one user) or 2 (B's id given twice)"), ex)
  })

  check('messages.send.counts-add-up', 'gives sent plus unsent equal to requested for B named twice', async ({ a, users, fake, judge }) => {
    const { ex, body } = await sendToBTwice(a, fake, users, judge)
    if (!body) return
    // Whichever reading of a repeat the server chose, the three counts count the same thing (users, or ids
    // given): a repeat counted in requested and not in sent or unsent is counted by halves.
    judge.match(body, addsUp(body), ex)
  })
})

describe('GET /messages/{messageId} (§4.3 get delivery status)', () => {
  /**
   * A's send to the given accounts; the sentList entries to read back. Nobody sent (the accounts may have no
   * active device: the spec does not say that sign-in registers one) leaves no status to read: recorded, skipped.
   */
  async function sentEntries(a: Api, fake: Faker, ids: string[], judge: Judge, skip: TestContext['skip']): Promise<SentEntry[]> {
    const ex = await a.sendToUserIds(message(fake, ids))
    steps.send.response(ex, { status: '2xx' })
    const list = (ex.json as Partial<SendResult> | undefined)?.sentList
    if (!Array.isArray(list) || list.length === 0) {
      judge.observe(`send to ${ids.length} test account(s): nobody sent (empty sentList), so no delivery status to read`, ALSO.sendDevices)
      return skip('the send reached nobody, so there is no delivery status to read (recorded)')
    }
    return list.filter((e) => e && typeof e.messageId === 'string')
  }

  /** The delivery status of a message just sent; polled, since a deployment may write the records a moment later. */
  function statusOf(a: Api, messageId: string): Promise<Exchange> {
    return eventually(
      () => a.deliveryStatus(messageId),
      (e) => isSuccess(e) && Array.isArray(e.json) && e.json.length > 0,
    )
  }

  check('messages.status.shape', 'answers an array of delivery records for an unsent message it knows', async ({ a, users, fake, skip, judge }) => {
    // Where nothing can be pushed (no device has a push token), unsentList elements may still carry a
    // messageId (their shape is not shown). A status the server gives for one is an array of records too.
    const ex = await a.sendToUserIds(message(fake, [users.B.userId, users.C.userId]))
    steps.send.response(ex, { status: '2xx' })
    const unsent = (ex.json as Partial<SendResult> | undefined)?.unsentList
    const known = (Array.isArray(unsent) ? unsent : []).flatMap((e) => {
      const id = (e as { messageId?: unknown } | null)?.messageId
      return typeof id === 'string' && id.length > 0 ? [id] : []
    })
    if (known.length === 0) {
      judge.observe(
        `send to B and C: no unsentList element carries a messageId (${Array.isArray(unsent) ? `${unsent.length} element(s)` : 'no unsentList'}), so no unsent message status to read`,
        ALSO.sendDevices,
      )
      return skip('no unsent message with a messageId (recorded)')
    }
    for (const messageId of new Set(known)) {
      // Polled to a 2xx, since the record may be written a moment later; a status never given is only recorded.
      const st = await eventually(() => a.deliveryStatus(messageId), isSuccess)
      if (!isSuccess(st)) {
        judge.observe(`status of unsent message ${messageId}: ${st.status}, not given`, ALSO.sendDevices)
        continue
      }
      judge.response(st, { status: '2xx', schema: 'delivery-list' })
    }
  })

  check('messages.status.shape', 'answers an array of delivery records for a sent message', async ({ a, users, fake, skip, judge }) => {
    const entries = await sentEntries(a, fake, [users.B.userId, users.C.userId], judge, skip)
    for (const messageId of new Set(entries.map((e) => e.messageId))) {
      const ex = await statusOf(a, messageId)
      const records = judge.response<DeliveryRecord[]>(ex, { status: '2xx', schema: 'delivery-list' })
      judge.match(records, match.when(`message ${messageId}, which was sent`, match.atLeast('', 1, 'its delivery records')), ex)
    }
  })

  check('messages.status.agrees', 'names the message id, A as sender and the sent recipient in every record', async ({ a, users, fake, skip, judge }) => {
    const entries = await sentEntries(a, fake, [users.B.userId, users.C.userId], judge, skip)
    const recipientsOf = new Map<string, Set<string>>()
    for (const e of entries) recipientsOf.set(e.messageId, (recipientsOf.get(e.messageId) ?? new Set()).add(e.recipientUsername))
    for (const [messageId, recipients] of recipientsOf) {
      const ex = await statusOf(a, messageId)
      const records = judge.response<DeliveryRecord[]>(ex, { status: '2xx', schema: 'delivery-list' })
      judge.match(
        records,
        [
          match.when(`message ${messageId}, which was sent`, match.atLeast('', 1, 'its delivery records')),
          match.each('', match.equal('/messageId', messageId)),
          match.each('', match.equal('/sender', users.A.userId, "A's user id")),
          match.each('', match.oneOf('/recipient', [...recipients], 'the recipientUsername of the sentList entry')),
        ],
        ex,
      )
    }
  })

  check('messages.status.agrees', 'names A as sender and B as recipient to B reading the status', async ({ a, b, users, fake, skip, judge }) => {
    const entries = await sentEntries(a, fake, [users.B.userId], judge, skip)
    for (const messageId of new Set(entries.map((e) => e.messageId))) {
      const ex = await eventually(
        () => b.deliveryStatus(messageId),
        (e) => !isSuccess(e) || (Array.isArray(e.json) && e.json.length > 0),
      )
      if (!isSuccess(ex)) {
        // Who besides the sender may read a message's status is not stated.
        judge.observe(`B's read of the status of A's message to B: status ${ex.status}`, ALSO.sendDevices)
        continue
      }
      const records = judge.response<DeliveryRecord[]>(ex, { status: '2xx', schema: 'delivery-list' })
      const byB = (m: Matcher) => match.when("B's read", match.each('', m))
      judge.match(records, [byB(match.equal('/sender', users.A.userId, "A's user id")), byB(match.equal('/recipient', users.B.userId, "B's user id"))], ex)
    }
  })

  check('messages.status.states', 'records the delivery state values it reports', async ({ a, users, fake, skip, judge }) => {
    const entries = await sentEntries(a, fake, [users.B.userId], judge, skip)
    const seen: string[] = []
    for (const messageId of new Set(entries.map((e) => e.messageId))) {
      const ex = await statusOf(a, messageId)
      if (!Array.isArray(ex.json)) {
        seen.push(`status ${ex.status}, no array`)
        continue
      }
      for (const r of ex.json as Partial<DeliveryRecord>[]) seen.push(show(r?.state))
    }
    judge.observe(`state values right after a send: ${[...new Set(seen)].join(', ') || '(no records)'} (spec shows WAKEUP_REQUIRED)`)
  })

  check(
    'messages.status.agrees',
    'names its own recipient in the status of each of the messages A sends to B and to C at once',
    async ({ a, users, fake, skip, judge }) => {
      // One sender, two sends leaving together (three times): each send is its own message, whatever lands in one instant.
      const to = [users.B.userId, users.C.userId]
      const sent: { recipient: string; messageId: string }[] = []
      for (let round = 0; round < 3; round++) {
        const answers = await together(to.map((id) => () => a.sendToUserIds(message(fake, [id]))))
        answers.forEach((ex, i) => {
          steps.send.response(ex, { status: '2xx' })
          const list = (ex.json as Partial<SendResult> | undefined)?.sentList
          for (const e of Array.isArray(list) ? list : []) if (e && typeof e.messageId === 'string') sent.push({ recipient: to[i]!, messageId: e.messageId })
        })
      }
      if (sent.length === 0) {
        judge.observe('sends to B and to C: nobody sent (empty sentList), so no delivery status to read', ALSO.sendDevices)
        return skip('the sends reached nobody, so there is no delivery status to read (recorded)')
      }
      // Each send's message read on its own (a sentList may name a message once per device): two sends that came back
      // with one message id are read twice, once for each recipient they were addressed to.
      for (const { recipient, messageId } of new Map(sent.map((e) => [`${e.messageId} ${e.recipient}`, e])).values()) {
        const ex = await eventually(
          () => a.deliveryStatus(messageId),
          (e) => isSuccess(e) && Array.isArray(e.json) && e.json.length > 0,
        )
        const records = judge.response<DeliveryRecord[]>(ex, { status: '2xx', schema: 'delivery-list' })
        judge.match(
          records,
          [
            match.each('', match.equal('/messageId', messageId)),
            match.each('', match.equal('/recipient', recipient, `the user id the send of ${messageId} was addressed to`)),
          ],
          ex,
        )
      }
    },
  )

  check(
    'messages.status.agrees',
    'names its own sender in the status of each of several messages A and B send to C at once',
    async ({ a, b, users, fake, skip, judge }) => {
      // Sent together so that some land in the same instant: message ids and records must stay apart.
      const senders = [
        { api: a, id: users.A.userId, key: 'A' },
        { api: b, id: users.B.userId, key: 'B' },
      ]
      // Each round's two sends leave together (helpers/kit/together.ts): under a busy run's pace they would otherwise
      // start milliseconds apart and never meet.
      const sends: { s: (typeof senders)[number]; ex: Exchange }[] = []
      for (let round = 0; round < 6; round++) {
        const answers = await together(senders.map((s) => () => s.api.sendToUserIds(message(fake, [users.C.userId]))))
        answers.forEach((ex, i) => sends.push({ s: senders[i]!, ex }))
      }
      const sent: { s: (typeof senders)[number]; messageId: string }[] = []
      for (const { s, ex } of sends) {
        steps.send.response(ex, { status: '2xx' })
        const list = (ex.json as Partial<SendResult> | undefined)?.sentList
        for (const e of Array.isArray(list) ? list : []) if (e && typeof e.messageId === 'string') sent.push({ s, messageId: e.messageId })
      }
      if (sent.length === 0) {
        judge.observe('sends to C: nobody sent (empty sentList), so no delivery status to read', ALSO.sendDevices)
        return skip('the sends reached nobody, so there is no delivery status to read (recorded)')
      }
      // One read per message: a sentList may name a message once per device (§2.8 gives sentList a deviceId).
      for (const { s, messageId } of new Map(sent.map((e) => [e.messageId, e])).values()) {
        const ex = await eventually(
          () => s.api.deliveryStatus(messageId),
          (e) => isSuccess(e) && Array.isArray(e.json) && e.json.length > 0,
        )
        const records = judge.response<DeliveryRecord[]>(ex, { status: '2xx', schema: 'delivery-list' })
        judge.match(
          records,
          [
            match.each('', match.equal('/messageId', messageId)),
            match.each('', match.equal('/sender', s.id, `${s.key}'s user id, the sender of ${messageId}`)),
            match.each('', match.equal('/recipient', users.C.userId, "C's user id")),
          ],
          ex,
        )
      }
    },
  )
})
