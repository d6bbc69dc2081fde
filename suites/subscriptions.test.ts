/**
 * §4.2 subscribe, unsubscribe and list subscribers, §2.5 Subscription. A owns the channel (created with
 * subscribeOnCreate false, so the only subscription is the one the check makes); B subscribes to it.
 * The spec shows no failure statuses; every success status judged here is the stated `Response 200`.
 */
import type { Api } from '../helpers/http/api'
import type { RunAccount, RunContext } from '../helpers/http/run-context'
import { isUnavailable, type Exchange } from '../helpers/http/client'
import { check, describe } from '../helpers/kit/check'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import { acceptedOfRace, mustSignIn } from '../helpers/kit/setup'
import { together } from '../helpers/kit/together'
import { ALSO, type Judge, steps } from '../helpers/kit/judge'
import { deviceTitle } from '../helpers/spec/models'
import { sameText } from './support/match'
import { match, type Matcher } from './support/match'
import { userIdKey } from './support/read'

interface Subscription {
  userId: string
  channelName: string
  subscriptionId: string
  deviceId: string | null
}

/** The entries of a subscription list that are `userId`'s subscription to `channel`. */
function entriesOf(list: Subscription[], userId: string, channel: string): Subscription[] {
  return list.filter((s) => s?.userId === userId && sameText(s?.channelName, channel))
}

/** Each of the accounts has an entry in a subscription list (by /userId alone, as entriesOfUser); `who` prefixes their names. */
function listed(accounts: readonly RunAccount[], who = ''): Matcher {
  return match.containsAll(
    '',
    accounts.map((u) => u.userId),
    { key: userIdKey, what: accounts.map((u) => `${who}${u.key}`).join(' and ') },
  )
}

/** A subscription list holds an entry of `userId` for the channel `channel` (as entriesOf). */
function entryOf(userId: string, channel: string): Matcher {
  return match.that(
    '',
    (l) => Array.isArray(l) && entriesOf(l as Subscription[], userId, channel).length > 0,
    `an entry with /userId ${show(userId)} and /channelName ${show(channel)}`,
  )
}

/** A user's entries in one channel's list, by userId alone: the unsubscribe checks judge who stays, not the entries' other fields (subscriptions.list.shape does). */
function entriesOfUser(list: Subscription[], userId: string): Subscription[] {
  return list.filter((s) => s?.userId === userId)
}

/**
 * Set-up of the checks that judge what follows a subscribe: any success will do, charged to
 * subscriptions.subscribe.response (helpers/kit/setup.ts), which also judges the exact answer. Returns the
 * subId it answered, if a string (an unsubscribe message may name it).
 */
function subscribed(ex: Exchange): string[] {
  const subId = steps.subscribe.response<{ subId?: unknown } | undefined>(ex, { status: '2xx' })?.subId
  return typeof subId === 'string' ? [subId] : []
}

/** The subId of a subscribe answer that may be a refusal (a second subscribe), if it is a string. */
function subIdOf(ex: Exchange): string[] {
  const subId = isSuccess(ex) ? (ex.json as { subId?: unknown } | undefined)?.subId : undefined
  return typeof subId === 'string' ? [subId] : []
}

/**
 * The subscription list, for the checks that read it (its status and schema are judged by subscriptions.list.shape).
 * Polled until `settled` holds: reads may lag the subscribe or unsubscribe just made.
 */
async function listOf(api: Api, name: string, judge: Judge, settled: (list: Subscription[]) => boolean): Promise<{ list: Subscription[]; ex: Exchange }> {
  const ex = await eventually(
    () => api.subscriptions(name),
    (e) => isSuccess(e) && Array.isArray(e.json) && settled(e.json as Subscription[]),
  )
  const list = judge.match(judge.response<unknown>(ex, { status: '2xx' }), match.array('an array of Subscription'), ex)
  return { list: list as Subscription[], ex }
}

/**
 * Set-up of the checks that judge what an unsubscribe leaves: polls until each of `who` is listed after its
 * subscribe. One never listed fails subscriptions.subscribe.listed (the check ends blocked), not the check's clause.
 */
async function allListed(api: Api, name: string, judge: Judge, who: readonly RunAccount[]): Promise<void> {
  const { list, ex } = await listOf(api, name, judge, (l) => who.every((u) => entriesOfUser(l, u.userId).length > 0))
  steps.subscribedListed.match(list, match.when('set-up: after subscribing', listed(who)), ex)
}

/**
 * A second subscribe by the same user: what it does is not stated (a second subscription, the same one kept,
 * or a refusal such as 409 are all readings), so its answer judges nothing; a 502/503/504 still stops the check.
 */
async function subscribeAgain(api: Api, name: string): Promise<Exchange> {
  const ex = await api.subscribe(name)
  if (isUnavailable(ex.status)) throw steps.subscribe.unavailable(ex)
  return ex
}

/**
 * B and C signed in on one device id of this check's own (`tag`): their tokens. "any value" (§4.1, §5.2) includes a
 * device id another user signed in with.
 */
async function bAndCOnOneDevice(
  anon: Api,
  users: Record<'B' | 'C', RunAccount>,
  run: RunContext,
  tag: string,
): Promise<{ deviceId: string; tb: string; tc: string }> {
  const deviceId = `${run.namePrefix}-${run.runId}-${tag}`
  const tokenOf = (u: RunAccount) => mustSignIn(anon, { userName: u.userName, password: u.password, clientId: run.clientId, deviceId })
  return { deviceId, tb: await tokenOf(users.B), tc: await tokenOf(users.C) }
}

/**
 * `caller`'s unsubscribe from `name`, judged on its count (§4.2: "the message states the number of subscriptions
 * cancelled"): the caller's entries `mine` picks from the owner's list before it (polled until one shows), less
 * those after. The message may name the channels `names`, the ids `subIds` (those the subscribes answered; the
 * list's are added) and the run's users; `what` tells where the subscriptions came from, for the message.
 */
async function judgeUnsubscribeCount(
  owner: Api,
  caller: Api,
  name: string,
  mine: (l: Subscription[]) => Subscription[],
  known: { names: readonly string[]; subIds: readonly string[]; userIds: readonly string[] },
  judge: Judge,
  what: string,
  listedStep: Judge | null = steps.subscribedListed,
): Promise<void> {
  const { list: before, ex: listed } = await listOf(owner, name, judge, (l) => mine(l).length > 0)
  const had = mine(before).length
  // Not listed before the unsubscribe: the subscribe's step where a PUT subscribe made the subscription; where a
  // create made it (`listedStep` null), recorded, the create's default being channels.create.default-subscribe's.
  if (had === 0) {
    if (!listedStep) return judge.observe(`${what}: not listed on ${name} before the unsubscribe: the count is not judged`)
    ensure(false, listedStep, `set-up: ${what}: not listed on ${name} before the unsubscribe`, listed)
  }
  const subIds = [...known.subIds]
  for (const entry of mine(before)) if (typeof entry.subscriptionId === 'string' && !subIds.includes(entry.subscriptionId)) subIds.push(entry.subscriptionId)
  const ex = await caller.unsubscribe(name)
  const message = judge.response<{ message?: unknown }>(ex, { status: 200 })?.message
  ensure(typeof message === 'string', judge, match.explain({ message }, match.type('/message', 'string')), ex)
  const left = mine((await listOf(owner, name, judge, (l) => mine(l).length < had)).list).length
  // A list that never shows the unsubscribe tells no count (a read may lag; a removal that never happens is
  // subscriptions.unsubscribe.removed's to judge): recorded.
  if (left === had)
    return judge.observe(`${what}: still listed ${had} time(s) on ${name} after an unsubscribe answered ${show(message)}: the count is not judged`)
  const cancelled = had - left
  ensure(
    statesNumber(message, cancelled, { ...known, subIds }),
    judge,
    `/message: ${show(message)} does not state ${cancelled} (${what}: listed ${had} time(s) on ${name} before the unsubscribe and ${left} after)`,
    ex,
  )
}

describe('PUT /channels/{channel_name}/subscribe (§4.2 subscribe)', () => {
  check('subscriptions.subscribe.response', 'answers 200 with code, a non-empty subId and msg', async ({ a, b, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    const ex = await b.subscribe(name)
    const body = judge.response<{ subId?: unknown }>(ex, { status: 200, schema: 'subscribe-response' })
    judge.match(
      body,
      match.that('/subId', (v) => typeof v === 'string' && v.trim().length > 0, 'a non-empty string'),
      ex,
    )
  })

  check('subscriptions.subscribe.listed', 'lists the new subscriber with its user id and the channel name', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    const { list, ex } = await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length > 0)
    judge.match(list, entryOf(users.B.userId, name), ex)
  })

  check('subscriptions.subscribe.listed', 'lists both of two users who subscribed from one device id', async ({ a, anon, users, run, channels, judge }) => {
    // A subscription is the user's, whatever device it came from.
    const { deviceId, tb, tc } = await bAndCOnOneDevice(anon, users, run, 'subdev')
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await anon.withToken(tb).subscribe(name))
    subscribed(await anon.withToken(tc).subscribe(name))
    const { list, ex } = await listOf(a, name, judge, (l) => [users.B, users.C].every((u) => entriesOfUser(l, u.userId).length > 0))
    judge.match(list, match.when(`B and C subscribed from the same device id ${show(deviceId)}`, listed([users.B, users.C])), ex)
  })

  // A sign-in × the subscriptions made before it: a subscription is the user's, and no later sign-in (the user's
  // own, again on the device or on another, nor another user's on the same device id, "any value" §4.1) cancels it.
  check('subscriptions.subscribe.listed', deviceTitle.subscriptionOutlivesSignIns, async ({ a, anon, users, run, channels, judge }) => {
    const deviceId = `${run.namePrefix}-${run.runId}-subkeep`
    const signIn = (u: RunAccount, device: string) => mustSignIn(anon, { userName: u.userName, password: u.password, clientId: run.clientId, deviceId: device })
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await anon.withToken(await signIn(users.B, deviceId)).subscribe(name))
    await allListed(a, name, judge, [users.B])
    const later: { what: string; by: RunAccount; device: string }[] = [
      { what: `B signs in again on ${show(deviceId)}`, by: users.B, device: deviceId },
      { what: 'B signs in on another device id', by: users.B, device: `${deviceId}-2` },
      { what: `C signs in on ${show(deviceId)}`, by: users.C, device: deviceId },
    ]
    for (const { what, by, device } of later) {
      await signIn(by, device)
      const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.B.userId).length > 0)
      judge.match(list, match.when(`B subscribed from ${show(deviceId)}, then ${what}`, listed([users.B])), ex)
    }
  })

  check('subscriptions.subscribe.listed', 'lists each of B and C who subscribed at the same moment', async ({ a, b, c, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    // Sent together (helpers/kit/together.ts): under a busy run's pace they would otherwise leave milliseconds apart.
    const answers = await together([() => b.subscribe(name), () => c.subscribe(name)])
    const joined = acceptedOfRace([users.B, users.C], answers, steps.subscribe)
    const { list, ex } = await listOf(a, name, judge, (l) => joined.every((u) => entriesOfUser(l, u.userId).length > 0))
    judge.match(list, match.when('B and C subscribed at once (each answered 2xx)', listed(joined)), ex)
  })

  check('subscriptions.subscribe.listed', 'lists a user who unsubscribed and then subscribed again', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length > 0)
    judge.response(await b.unsubscribe(name), { status: '2xx' })
    await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length === 0)
    subscribed(await b.subscribe(name))
    const { list, ex } = await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length > 0)
    judge.match(list, match.when('after subscribe, unsubscribe, subscribe', entryOf(users.B.userId, name)), ex)
  })

  check('subscriptions.subscribe.listed', 'lists both of two users who subscribed', async ({ a, b, c, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    subscribed(await c.subscribe(name))
    const both = (l: Subscription[]): boolean => [users.B, users.C].every((u) => entriesOf(l, u.userId, name).length > 0)
    const { list, ex } = await listOf(a, name, judge, both)
    judge.match(
      list,
      [users.B, users.C].map((u) => match.when('after both subscribed', entryOf(u.userId, name))),
      ex,
    )
  })
})

describe('GET /channels/{channel_name}/subscriptions (§4.2 list subscribers)', () => {
  check('subscriptions.list.shape', 'answers 200 and an array of Subscription records', async ({ a, b, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    const ex = await eventually(
      () => a.subscriptions(name),
      (e) => e.status === 200 && Array.isArray(e.json) && e.json.length > 0,
    )
    const list = judge.response<unknown[]>(ex, { status: 200, schema: 'subscription-list' })
    judge.match(list, match.when('after a subscribe', match.atLeast('', 1, 'a Subscription')), ex)
  })

  check('subscriptions.list.shape', 'answers Subscription records when the creator was subscribed on create', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: true })
    subscribed(await b.subscribe(name))
    const ex = await eventually(
      () => a.subscriptions(name),
      (e) => e.status === 200 && Array.isArray(e.json) && entriesOf(e.json as Subscription[], users.B.userId, name).length > 0,
    )
    judge.response<unknown[]>(ex, { status: 200, schema: 'subscription-list' })
  })
})

describe('PUT /channels/{channel_name}/unsubscribe (§4.2 unsubscribe)', () => {
  check('subscriptions.unsubscribe.response', 'answers 200 with message and code', async ({ a, b, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    const ex = await b.unsubscribe(name)
    judge.response(ex, { status: 200, schema: 'unsubscribe-response' })
  })

  check('subscriptions.unsubscribe.count', 'states 1 cancelled subscription in its message after one subscribe', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    const subIds = subscribed(await b.subscribe(name))
    const ex = await b.unsubscribe(name)
    const body = judge.response<{ message?: unknown }>(ex, { status: 200 })
    const message = body?.message
    ensure(typeof message === 'string', judge, match.explain({ message }, match.type('/message', 'string')), ex)
    ensure(
      statesNumber(message, 1, { names: [name], subIds, userIds: [users.A.userId, users.B.userId, users.C.userId] }),
      judge,
      `/message: ${show(message)} does not state 1 (one subscription was cancelled), in digits or in words`,
      ex,
    )
  })

  check('subscriptions.unsubscribe.removed', 'no longer lists the user after it unsubscribes', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    const before = await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length > 0)
    judge.match(before.list, match.when('before unsubscribe', entryOf(users.B.userId, name)), before.ex)
    judge.response(await b.unsubscribe(name), { status: '2xx' })
    const { list, ex: after } = await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length === 0)
    const left = entriesOf(list, users.B.userId, name)
    ensure(left.length === 0, judge, `after unsubscribe B is still listed: ${show(left)}`, after)
  })

  check(
    'subscriptions.unsubscribe.own-only',
    'keeps C subscribed when B, signed in on the same device id, unsubscribes',
    async ({ a, anon, users, run, channels, judge }) => {
      const { deviceId, tb, tc } = await bAndCOnOneDevice(anon, users, run, 'unsdev')
      const name = await channels.create(a, { subscribeOnCreate: false })
      subscribed(await anon.withToken(tb).subscribe(name))
      subscribed(await anon.withToken(tc).subscribe(name))
      await allListed(a, name, judge, [users.B, users.C])
      steps.unsubscribe.response(await anon.withToken(tb).unsubscribe(name), { status: '2xx' })
      const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.B.userId).length === 0)
      judge.match(list, match.when(`after B's unsubscribe (B and C on device ${show(deviceId)})`, listed([users.C])), ex)
    },
  )

  check(
    'subscriptions.unsubscribe.own-only',
    "keeps the owner's subscription when another user unsubscribes through <user_id>#<name>",
    async ({ a, b, users, channels, judge }) => {
      const name = await channels.create(a, { privateChannel: true, subscribeOnCreate: true })
      const address = `${users.A.userId}#${name}`
      // The owner reads its private channel's subscribers by the plain name: a step of private.own-plain-name.
      steps.ownPlainName.response(await eventually(() => a.subscriptions(name), isSuccess), { status: '2xx' })
      await allListed(a, name, judge, [users.A])
      const joined = await b.subscribe(address)
      if (!isSuccess(joined)) {
        // Who may subscribe to another user's private channel is not stated: nothing to unsubscribe then.
        judge.observe(`B's subscribe to ${address}: status ${joined.status}`, ALSO.otherUserRead)
        return
      }
      await allListed(a, name, judge, [users.A, users.B])
      steps.unsubscribe.response(await b.unsubscribe(address), { status: '2xx' })
      const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.B.userId).length === 0)
      judge.match(list, match.when(`after B's unsubscribe through ${address}`, listed([users.A], 'the owner ')), ex)
      steps.unsubscribed.match(
        list,
        match.when(`set-up: after B's unsubscribe through ${address}`, match.lacks('', users.B.userId, { key: userIdKey, what: 'B' })),
        ex,
      )
    },
  )

  check(
    'subscriptions.unsubscribe.count',
    'states as many cancelled subscriptions as left the list after subscribing twice',
    async ({ a, b, users, channels, judge }) => {
      const name = await channels.create(a, { subscribeOnCreate: false })
      const subIds = subscribed(await b.subscribe(name))
      subIds.push(...subIdOf(await subscribeAgain(b, name)))
      // A second subscribe may add a subscription, keep the one there is or be refused: the count is what the list shows.
      const userIds = [users.A.userId, users.B.userId, users.C.userId]
      await judgeUnsubscribeCount(
        a,
        b,
        name,
        (l) => entriesOf(l, users.B.userId, name),
        { names: [name], subIds, userIds },
        judge,
        'B, after subscribing twice',
      )
    },
  )

  // The count × how the caller's subscription came to be: the create's own (subscribeOnCreate left at its default,
  // which subscribes the creator, §4.2, or given true) and a create's followed by a PUT subscribe of the same user.
  // Answered 2xx, the unsubscribe states the number it cancelled: the caller's entries the list showed before it,
  // less those it shows after (a second subscribe may add a subscription, keep the one there is or be refused).
  check(
    'subscriptions.unsubscribe.count',
    'states as many cancelled subscriptions as left the list for a subscription a create made, alone or with a subscribe after it',
    async ({ a, users, channels, judge }) => {
      const ways: { what: string; create: { subscribeOnCreate?: boolean }; again: boolean }[] = [
        { what: 'the create left at its default', create: {}, again: false },
        { what: 'the create with subscribeOnCreate true', create: { subscribeOnCreate: true }, again: false },
        { what: 'the create left at its default, then a PUT subscribe', create: {}, again: true },
      ]
      const userIds = [users.A.userId, users.B.userId, users.C.userId]
      for (const way of ways) {
        const name = await channels.create(a, way.create)
        const subIds = way.again ? subIdOf(await subscribeAgain(a, name)) : []
        // A's entries by /userId alone (as entriesOfUser): the list is of this channel, and an entry that misses its
        // channelName is the list's shape to judge, not this count's.
        const made = `A, after ${way.what}`
        await judgeUnsubscribeCount(a, a, name, (l) => entriesOfUser(l, users.A.userId), { names: [name], subIds, userIds }, judge, made, null)
      }
    },
  )

  // The count × what the caller held before its unsubscribe: one (above), two (above), none ever, none left after an
  // unsubscribe. Whether an unsubscribe that cancels nothing is refused is not shown; answered 2xx, it states 0.
  const statesNone = async (ex: Exchange, judge: Judge, skip: (why: string) => void, known: Parameters<typeof statesNumber>[2], what: string) => {
    if (!isSuccess(ex)) return skip(`${what} answered ${ex.status}: refused, so no count to state`)
    const message = judge.response<{ message?: unknown }>(ex, { status: 200 })?.message
    ensure(typeof message === 'string', judge, match.explain({ message }, match.type('/message', 'string')), ex)
    ensure(statesNumber(message, 0, known), judge, `/message: ${show(message)} does not state 0 (${what} cancelled nothing), in digits or in words`, ex)
  }

  check(
    'subscriptions.unsubscribe.count',
    'states 0 cancelled subscriptions when the caller never subscribed and others did',
    async ({ a, b, c, users, channels, skip, judge }) => {
      const name = await channels.create(a, { subscribeOnCreate: true })
      const subIds = subscribed(await b.subscribe(name))
      await allListed(a, name, judge, [users.A, users.B])
      const userIds = [users.A.userId, users.B.userId, users.C.userId]
      await statesNone(await c.unsubscribe(name), judge, skip, { names: [name], subIds, userIds }, "C's unsubscribe (never subscribed)")
    },
  )

  check(
    'subscriptions.unsubscribe.count',
    'states 0 cancelled subscriptions on a second unsubscribe in a row',
    async ({ a, b, users, channels, skip, judge }) => {
      const name = await channels.create(a, { subscribeOnCreate: false })
      const subIds = subscribed(await b.subscribe(name))
      await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length > 0)
      steps.unsubscribe.response(await b.unsubscribe(name), { status: '2xx' })
      await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length === 0)
      const userIds = [users.A.userId, users.B.userId, users.C.userId]
      await statesNone(await b.unsubscribe(name), judge, skip, { names: [name], subIds, userIds }, "B's second unsubscribe")
    },
  )

  // The count × the caller's subscriptions elsewhere: an unsubscribe cancels (and counts) the caller's subscriptions
  // to the channel named only, not those to another channel.
  check(
    'subscriptions.unsubscribe.count',
    'states only the subscriptions to the channel named when the caller also holds one to another channel',
    async ({ a, b, users, channels, judge }) => {
      const [name, other] = [await channels.create(a, { subscribeOnCreate: false }), await channels.create(a, { subscribeOnCreate: false })]
      const subIds = [...subscribed(await b.subscribe(name)), ...subscribed(await b.subscribe(other))]
      await listOf(a, other, judge, (l) => entriesOf(l, users.B.userId, other).length > 0)
      const userIds = [users.A.userId, users.B.userId, users.C.userId]
      const what = `B, holding a subscription to ${other} too`
      await judgeUnsubscribeCount(a, b, name, (l) => entriesOf(l, users.B.userId, name), { names: [name, other], subIds, userIds }, judge, what)
    },
  )

  // The count × the caller's history on the channel: each unsubscribe states what it cancelled now, not what the
  // user ever held there. Three rounds of subscribe then unsubscribe; each round's count is what left the list.
  check(
    'subscriptions.unsubscribe.count',
    'states on each of three rounds of subscribe then unsubscribe only the subscriptions that round cancelled',
    async ({ a, b, users, channels, judge }) => {
      const name = await channels.create(a, { subscribeOnCreate: false })
      const userIds = [users.A.userId, users.B.userId, users.C.userId]
      const subIds: string[] = []
      for (const round of [1, 2, 3]) {
        subIds.push(...subscribed(await b.subscribe(name)))
        const what = `B, on round ${round} of subscribe then unsubscribe`
        await judgeUnsubscribeCount(a, b, name, (l) => entriesOf(l, users.B.userId, name), { names: [name], subIds, userIds }, judge, what)
      }
    },
  )

  check('subscriptions.unsubscribe.removed', 'no longer lists a user who subscribed twice and unsubscribed once', async ({ a, b, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await b.subscribe(name))
    await subscribeAgain(b, name)
    await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length > 0)
    judge.response(await b.unsubscribe(name), { status: '2xx' })
    const { list, ex } = await listOf(a, name, judge, (l) => entriesOf(l, users.B.userId, name).length === 0)
    const left = entriesOf(list, users.B.userId, name)
    ensure(left.length === 0, judge, `after unsubscribe B is still listed: ${show(left)}`, ex)
  })

  check('subscriptions.unsubscribe.own-only', 'keeps the other subscribers listed when one user unsubscribes', async ({ a, b, c, users, channels, judge }) => {
    const name = await channels.create(a, { subscribeOnCreate: false })
    subscribed(await c.subscribe(name))
    subscribed(await b.subscribe(name))
    await allListed(a, name, judge, [users.B, users.C])
    judge.response(await b.unsubscribe(name), { status: '2xx' })
    // Polled until B is gone (reads may lag), then C must still be there.
    const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.B.userId).length === 0)
    judge.match(list, match.when("after B's unsubscribe", listed([users.C])), ex)
  })

  check(
    'subscriptions.unsubscribe.own-only',
    'keeps the subscribers listed when a user who never subscribed unsubscribes',
    async ({ a, b, c, users, channels, judge }) => {
      const name = await channels.create(a, { subscribeOnCreate: false })
      subscribed(await a.subscribe(name))
      subscribed(await b.subscribe(name))
      await allListed(a, name, judge, [users.A, users.B])
      // What C's unsubscribe answers is C's business (0 cancelled, or a refusal: not shown); it cancels nobody else's.
      const off = await c.unsubscribe(name)
      const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.A.userId).length > 0 && entriesOfUser(l, users.B.userId).length > 0)
      judge.match(list, match.when(`after C's unsubscribe (never subscribed; answered ${off.status})`, listed([users.A, users.B])), ex)
    },
  )

  check(
    'subscriptions.unsubscribe.own-only',
    'keeps the two others listed when the second of three subscribers unsubscribes',
    async ({ a, b, c, users, channels, judge }) => {
      // The owner A first, then B, then C: B's subscription lies between the other two.
      const name = await channels.create(a, { subscribeOnCreate: false })
      subscribed(await a.subscribe(name))
      subscribed(await b.subscribe(name))
      subscribed(await c.subscribe(name))
      await allListed(a, name, judge, [users.A, users.B, users.C])
      judge.response(await b.unsubscribe(name), { status: '2xx' })
      const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.B.userId).length === 0)
      judge.match(list, match.when("after B's unsubscribe", listed([users.A, users.C])), ex)
    },
  )

  check(
    'subscriptions.unsubscribe.own-only',
    "keeps a subscriber listed when the channel's owner unsubscribes",
    async ({ a, b, users, channels, skip, judge }) => {
      // The owner subscribes like anyone; owning the channel gives its unsubscribe no wider reach.
      const name = await channels.create(a, { subscribeOnCreate: false })
      subscribed(await a.subscribe(name))
      subscribed(await b.subscribe(name))
      await allListed(a, name, judge, [users.A, users.B])
      const off = await a.unsubscribe(name)
      // Whether an owner may leave its own channel is not shown; a refusal cancels nothing, so there is nothing to judge.
      if (!isSuccess(off)) return skip(`the owner's unsubscribe answered ${off.status}`)
      const { list, ex } = await listOf(a, name, judge, (l) => entriesOfUser(l, users.A.userId).length === 0)
      judge.match(list, match.when("after the owner A's unsubscribe", listed([users.B])), ex)
    },
  )
})

const NUMBER_WORDS = ['no|none|zero|nothing|not', 'one|single', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten']

/**
 * Whether the message states `n` as a number of its own. Whole numbers standing alone count (the 1 of "1.5",
 * "10" or "v1" does not); the spec does not say the number is in digits, so a word standing alone counts too
 * ("one", "single", "two"; "someone" does not).
 *
 * The message may also name the channel, the subscriptions cancelled and users, whose ids can hold digits or be
 * numbers themselves ("1 subscription(s) cancelled (subscription 4)" from a server with ids "1", "2", …). Names
 * and ids with other characters than digits are left out of the text first (a digit group inside them is no
 * count). Then a number equal to a subscription id is taken for that id, once per id, and after that one equal
 * to a user id; but a step that would leave no number at all is not taken: the number left may be the count
 * although it equals an id ("1 subscription(s) cancelled" to user "1").
 */
function statesNumber(message: string, n: number, known: { names: readonly string[]; subIds: readonly string[]; userIds: readonly string[] }): boolean {
  const isNumber = (id: string) => /^\d+$/.test(id)
  let rest = message
  for (const text of [...known.names, ...known.subIds, ...known.userIds].filter((id) => id.length > 0 && !isNumber(id)))
    rest = rest.replace(new RegExp(escapeRegExp(text), 'gi'), ' ')
  let numbers = [...rest.matchAll(/(?<![\w.])\d+(?:\.\d+)?(?!\w)/g)].map((m) => m[0]).filter((m) => !m.includes('.'))
  for (const ids of [known.subIds, known.userIds]) {
    const left = [...numbers]
    for (const id of new Set(ids.filter(isNumber))) {
      const at = left.findIndex((m) => Number(m) === Number(id))
      if (at >= 0) left.splice(at, 1)
    }
    if (left.length > 0) numbers = left
  }
  const words = NUMBER_WORDS[n]
  return numbers.some((m) => Number(m) === n) || (words !== undefined && new RegExp(`(?<![\\w-])(${words})(?![\\w-])`, 'i').test(rest))
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
