/**
 * §4.4 push to a user, §2.8 push result. Pushes go only to the run's own accounts (A pushes to B). Here
 * `sent` and `unsent` count devices (§4.4). A sentList element names one device (`pushId`, `deviceId`, §2.8),
 * so `sent` is the length of sentList; the element shape of unsentList is not shown (one element may stand for
 * several devices, one per reason), so `unsent` is judged only against whether unsentList is empty. What
 * `requested` counts is not stated and is only recorded.
 */
import type { Faker } from '@faker-js/faker'
import type { Api } from '../helpers/http/api'
import { check, describe } from '../helpers/kit/check'
import { isUnavailable, type Exchange } from '../helpers/http/client'
import { isSuccess, show } from '../helpers/kit/expect'
import { mustSignInAnotherDevice } from '../helpers/kit/setup'
import { ALSO, type Judge } from '../helpers/kit/judge'
import { deviceTitle } from '../helpers/spec/models'
import { match, type Matcher } from './support/match'

interface PushResult {
  count: { requested: number; sent: number; unsent: number }
  sentList: { pushId: string; deviceId: string }[]
  unsentList: unknown[]
}

type Action = 'PUSH' | 'WAKEUP'
const ACTIONS: readonly Action[] = ['PUSH', 'WAKEUP']

/** A push with the predefined title and body keys; the name marks it as the suite's own. */
function pushBody(fake: Faker, action: Action) {
  return {
    action,
    name: `ct-${action.toLowerCase()}-${fake.string.alphanumeric(8)}`,
    payload: { title: `ct ${fake.lorem.words(2)}`, body: `ct ${fake.lorem.words(4)}` },
  }
}

/**
 * What the counts of a push result must agree with: `sent` is the length of sentList (an element names one sent
 * device); `unsent` is 0 exactly when unsentList is empty. Its length is not judged: "Element shape of
 * unsentList: not shown", so an element may list several devices.
 */
function counts(body: PushResult): Matcher[] {
  const unsentListed = (body.unsentList?.length ?? 0) > 0
  return [
    match.equal('/count/sent', body.sentList?.length, 'the length of /sentList'),
    match.that(
      '/count/unsent',
      (unsent) => (unsent === 0) === !unsentListed,
      `0 exactly when /unsentList is empty (it has ${body.unsentList?.length} element(s); their shape is not shown, so their number is not judged)`,
    ),
  ]
}

/** A pushes `action` to `userId` (one of the run's accounts); the push must succeed with a push-result body. */
/** Each of `actions` pushed to `userId` in turn, each answered 2xx. */
async function pushesAccepted(a: Api, fake: Faker, userId: string, actions: readonly Action[], judge: Judge): Promise<void> {
  for (const action of actions) {
    const ex = await a.pushToUser(userId, pushBody(fake, action))
    judge.response(ex, { status: '2xx' })
  }
}

/** A push to `userId` whose counts agree with its lists (`counts`); `context` says whose push, in a failure. */
async function countsAgree(a: Api, fake: Faker, userId: string, action: Action, judge: Judge, context?: string): Promise<void> {
  const { ex, body } = await push(a, fake, userId, action, judge)
  judge.match(body, context === undefined ? counts(body) : counts(body).map((m) => match.when(context, m)), ex)
}

async function push(a: Api, fake: Faker, userId: string, action: Action, judge: Judge): Promise<{ ex: Exchange; body: PushResult }> {
  const ex = await a.pushToUser(userId, pushBody(fake, action))
  const body = judge.response<PushResult>(ex, { status: '2xx', schema: 'push-result' })
  return { ex, body }
}

describe('POST /push/user/{recipientUserId} (§4.4 push to user)', () => {
  check('push.actions', 'accepts a visible PUSH and a silent WAKEUP to B', async ({ a, users, fake, judge }) => {
    await pushesAccepted(a, fake, users.B.userId, ACTIONS, judge)
  })

  // Either action after the other (the spec sets no order between them): a visible push right after a silent one.
  check('push.actions', 'accepts a visible PUSH to B right after a silent WAKEUP to B', async ({ a, users, fake, judge }) => {
    await pushesAccepted(a, fake, users.B.userId, ['WAKEUP', 'PUSH'], judge)
  })

  check('push.shape', 'answers {count, sentList, unsentList} with a pushId for every sent device', async ({ a, users, fake, judge }) => {
    for (const action of ACTIONS) {
      const { ex, body } = await push(a, fake, users.B.userId, action, judge)
      // B may have no active device (the spec does not say that sign-in registers one): then no entry to judge.
      if (body.sentList.length === 0)
        judge.observe(`${action} to B: no sent device (sent ${body.count.sent}, unsent ${body.count.unsent}), so no pushId to judge`, ALSO.pushDevices)
      judge.match(body, match.when(action, match.each('/sentList', match.nonEmptyString('/pushId'))), ex)
    }
  })

  check('push.counts', 'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty', async ({ a, users, fake, judge }) => {
    for (const action of ACTIONS) {
      const { ex, body } = await push(a, fake, users.B.userId, action, judge)
      if (body.count.sent + body.count.unsent === 0)
        judge.observe(`${action} to B: sent 0 and unsent 0, no device to judge the counts against (0 = 0 still judged)`, ALSO.pushDevices)
      judge.match(
        body,
        counts(body).map((m) => match.when(action, m)),
        ex,
      )
    }
  })

  check('push.payload-keys', 'accepts a payload with title, body, sound, badge and icon', async ({ a, users, fake, judge }) => {
    const payload = { title: `ct ${fake.lorem.words(2)}`, body: `ct ${fake.lorem.words(4)}`, sound: 'default', icon: 'ct-icon' }
    const name = `ct-keys-${fake.string.alphanumeric(8)}`
    // The spec gives badge no type: the platforms' badge is a number, a key/value map may want a string.
    let ex = await a.pushToUser(users.B.userId, { action: 'PUSH', name, payload: { ...payload, badge: 1 } })
    if (!isSuccess(ex) && !isUnavailable(ex.status)) ex = await a.pushToUser(users.B.userId, { action: 'PUSH', name, payload: { ...payload, badge: '1' } })
    judge.response(ex, { status: '2xx', schema: 'push-result' })
  })

  check('push.requested', 'records requested against sent plus unsent', async ({ a, users, fake, judge }) => {
    const ex = await a.pushToUser(users.C.userId, pushBody(fake, 'WAKEUP'))
    const count = (ex.json as Partial<PushResult> | undefined)?.count
    judge.observe(
      count && typeof count === 'object'
        ? `status ${ex.status}: requested ${show(count.requested)}, sent ${show(count.sent)}, unsent ${show(count.unsent)}` +
            ` (requested ${count.requested === count.sent + count.unsent ? '=' : '≠'} sent + unsent)`
        : `status ${ex.status}: no count in the answer`,
    )
  })

  check('push.counts', 'gives sent equal to the length of sentList for a push to oneself', async ({ a, users, fake, judge }) => {
    // A push to the caller's own user: its own device is one of the user's devices like any other (§4.4).
    await countsAgree(a, fake, users.A.userId, 'WAKEUP', judge, "A's push to A")
  })

  check(
    'push.counts',
    'gives sent equal to the length of sentList, and unsent 0 exactly when unsentList is empty, for a user signed in on a second device',
    async ({ a, anon, users, run, fake, judge }) => {
      // A sign-in may register its device (the spec does not say); B's second device makes two where it does.
      await mustSignInAnotherDevice(anon, users.B, run, 'pb2')
      await countsAgree(a, fake, users.B.userId, 'PUSH', judge)
    },
  )

  // The counts × how many devices the recipient holds and who else signed in on them (DEVICE_MODEL 'push recipient'):
  // whatever a server keeps for a device id two users signed in with (one record or two), sent counts what sentList lists.
  check('push.counts', deviceTitle.morePushDevices, async ({ a, anon, users, run, fake, judge }) => {
    // Three more devices: however a server groups devices (by platform service, by kind), two of four share a group.
    for (const tag of ['pb3a', 'pb3b', 'pb3c']) await mustSignInAnotherDevice(anon, users.B, run, tag)
    await countsAgree(a, fake, users.B.userId, 'PUSH', judge, 'B signed in on three more devices')
  })

  check('push.counts', deviceTitle.sharedPushRecipient, async ({ a, anon, users, run, fake, judge }) => {
    // B signs in on a device id, then C on the same one.
    await mustSignInAnotherDevice(anon, users.B, run, 'pbs')
    await mustSignInAnotherDevice(anon, users.C, run, 'pbs')
    await countsAgree(a, fake, users.B.userId, 'PUSH', judge, 'B signed in on a device id that C signed in with afterwards')
  })
})
