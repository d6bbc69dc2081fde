/**
 * §4.1 sign-in, §2.2 Session, §5 authentication. The run has already signed A, B and C in once (preflight);
 * these checks sign in again where the sign-in itself is what is judged. The spec shows no failure status,
 * so a refusal is "not 2xx" (MUST) and 401 is a SHOULD.
 */
import { check, describe } from '../helpers/kit/check'
import type { Exchange } from '../helpers/http/client'
import { ensure, isSuccess, show } from '../helpers/kit/expect'
import { eventually } from '../helpers/kit/poll'
import { together } from '../helpers/kit/together'
import type { RunAccount, RunContext } from '../helpers/http/run-context'
import { registerSecret, swapCase } from '../helpers/http/redact'
import { ALSO, steps } from '../helpers/kit/judge'
import { mustSubscribe } from '../helpers/kit/setup'
import { match, type Matcher } from './support/match'
import { userIdsOf } from './support/read'

/**
 * A few fixed device ids per run (s1 for A, s2 for B, s3 for C, s4 for the token that is used afterwards), so
 * that a sign-in, which may register its device, adds few devices to the accounts; never the preflight's id.
 */
const device = (run: RunContext, n: 1 | 2 | 3 | 4): string => `${run.namePrefix}-${run.runId}-s${n}`

/**
 * A password altered so that it is another string: §1 signs in with the password grant, so a password that is
 * not the account's gets no session, however near it is (a comparison that folds case or reads a prefix lets one
 * through). The case swap leaves a password without ASCII letters equal, so it is skipped there. Spaces around it
 * are not tried: a server that trims what a form sends reads them as no part of the password.
 */
const PASSWORD_ALTERATIONS = {
  swapcase: { what: 'with the case of its letters swapped', alter: swapCase },
  longer: { what: 'with one character added', alter: (p: string) => `${p}0` },
  shorter: { what: 'with its last character removed', alter: (p: string) => p.slice(0, -1) },
} as const
type PasswordAlteration = keyof typeof PASSWORD_ALTERATIONS

/**
 * The cells each account tries, shared out so that no account gets more than two wrong passwords in the run (a
 * server may lock an account after a few failures in a row; A has one more in "refuses a wrong password").
 */
const PASSWORD_CELLS: Readonly<Record<'A' | 'B' | 'C', readonly PasswordAlteration[]>> = {
  A: ['swapcase'],
  B: ['shorter'],
  C: ['longer'],
}

/** The form body's Content-Type as HTTP clients commonly send it: a media type may carry parameters (RFC 9110 §8.3.1). */
const FORM_CONTENT_TYPES = ['application/x-www-form-urlencoded; charset=UTF-8', 'application/x-www-form-urlencoded;charset=utf-8'] as const

describe('POST {user}/user/session (§4.1 sign in)', () => {
  check('signin.session.shape', 'answers a Session for good credentials', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.A.userName, password: users.A.password, clientId: run.clientId, deviceId: device(run, 1) })
    judge.response(ex, { status: '2xx', schema: 'session' })
  })

  // A device id a user signs in with for the first time may be registered by the sign-in: two such sign-ins at one
  // moment (an app retrying, two tabs) are two valid requests, each answered with a Session (its status judged
  // here; what a Session holds is judged by the sign-in checks one at a time).
  check(
    'signin.session.shape',
    'answers a Session to each of two sign-ins of one user with one new device id at the same moment',
    async ({ anon, users, run, judge }) => {
      const deviceId = `${run.namePrefix}-${run.runId}-twice`
      const params = { userName: users.C.userName, password: users.C.password, clientId: run.clientId, deviceId }
      const answers = await together([() => anon.signIn(params), () => anon.signIn(params)])
      answers.forEach((ex, i) => judge.match(ex, match.when(`sign-in ${i + 1} of two at once on the new device id ${show(deviceId)}`, match.status('2xx')), ex))
    },
  )

  check('signin.session.token-type', 'answers token_type USER', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.B.userName, password: users.B.password, clientId: run.clientId, deviceId: device(run, 2) })
    const body = judge.response<{ token_type?: unknown }>(ex, { status: '2xx' })
    judge.match(body, match.equal('/token_type', 'USER'), ex)
  })

  check('signin.session.expires-in-value', 'records the expires_in it gives', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.A.userName, password: users.A.password, clientId: run.clientId, deviceId: device(run, 1) })
    // An INFO check judges nothing: a refused sign-in is a broken step, which blocks it.
    const body = steps.signIn.response<{ expires_in?: unknown }>(ex, { status: '2xx' })
    const v = body?.expires_in
    // The unit is not stated (§5.3): say what the value would mean in seconds and in milliseconds.
    const reading = typeof v === 'number' && v > 0 ? `; as seconds ${(v / 3600).toFixed(2)} h, as milliseconds ${(v / 3_600_000).toFixed(2)} h` : ''
    judge.observe(`expires_in = ${show(v)} (spec sample: 7200, unit not stated${reading})`)
  })

  check('signin.user.no-email', 'leaves email out of the user record', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.C.userName, password: users.C.password, clientId: run.clientId, deviceId: device(run, 3) })
    const body = judge.response<{ user?: Record<string, unknown> }>(ex, { status: '2xx' })
    judge.match(body, [match.type('/user', 'object'), match.absent('/user/email')], ex)
  })

  check('signin.user.status', 'gives the userStatus of the user', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.A.userName, password: users.A.password, clientId: run.clientId, deviceId: device(run, 1) })
    const body = judge.response<{ user?: { userStatus?: unknown } }>(ex, { status: '2xx' })
    judge.match(body, match.type('/user/userStatus', 'string'), ex)
  })

  check('signin.user.values', 'records the userStatus and roles values of the sign-in user', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.A.userName, password: users.A.password, clientId: run.clientId, deviceId: device(run, 1) })
    const user = (ex.json as { user?: { userStatus?: unknown; roles?: unknown } } | undefined)?.user
    judge.observe(`status ${ex.status}: /user/userStatus ${show(user?.userStatus)}, /user/roles ${show(user?.roles)} (spec shows ACTIVE and USER)`)
  })

  check('signin.user.password-masked', 'masks the password with one fixed placeholder', async ({ anon, users, run, judge }) => {
    const [a, b] = await Promise.all(
      [users.A, users.B].map((u, i) =>
        anon.signIn({ userName: u.userName, password: u.password, clientId: run.clientId, deviceId: device(run, i === 0 ? 1 : 2) }),
      ),
    )
    const masks = [a!, b!].map((ex, i) => {
      const body = judge.response<{ user?: { password?: unknown } }>(ex, { status: '2xx' })
      const pw = body?.user?.password
      const real = [users.A, users.B][i]!.password
      ensure(
        typeof pw === 'string',
        judge,
        match.explain(
          body,
          match.that('/user/password', (v) => typeof v === 'string', 'the masked placeholder string'),
        ),
        ex,
      )
      ensure(pw !== real && !pw.includes(real), judge, '/user/password: carries the real password', ex)
      return pw
    })
    judge.match(b!.json, match.equal('/user/password', masks[0], "A's: a fixed placeholder is the same for every user"), b)
  })

  check('signin.user.otp-masked', 'gives one fixed otpCode placeholder', async ({ anon, users, run, judge }) => {
    const [a, c] = await Promise.all(
      [users.A, users.C].map((u, i) =>
        anon.signIn({ userName: u.userName, password: u.password, clientId: run.clientId, deviceId: device(run, i === 0 ? 1 : 3) }),
      ),
    )
    const codes = [a!, c!].map((ex) => {
      const body = judge.response<{ user?: { otpCode?: unknown } }>(ex, { status: '2xx' })
      judge.match(body, match.type('/user/otpCode', 'string'), ex)
      return body.user?.otpCode
    })
    judge.match(c!.json, match.equal('/user/otpCode', codes[0], "A's: a fixed placeholder is the same for every user"), c)
  })

  check('signin.params.query', 'accepts the parameters as a query string', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.B.userName, password: users.B.password, clientId: run.clientId, via: 'query', deviceId: device(run, 2) })
    const body = judge.response<{ access_token?: unknown }>(ex, { status: '2xx' })
    ensure(typeof body?.access_token === 'string' && body.access_token.length > 0, judge, '/access_token: missing or empty', ex)
  })

  check('signin.params.form', 'accepts the parameters as a form body', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.B.userName, password: users.B.password, clientId: run.clientId, via: 'form', deviceId: device(run, 2) })
    const body = judge.response<{ access_token?: unknown }>(ex, { status: '2xx' })
    ensure(typeof body?.access_token === 'string' && body.access_token.length > 0, judge, '/access_token: missing or empty', ex)
  })

  check('signin.params.form', 'accepts a form body whose Content-Type carries a charset', async ({ anon, users, run, judge }) => {
    for (const contentType of FORM_CONTENT_TYPES) {
      const ex = await anon.signIn({ userName: users.B.userName, password: users.B.password, clientId: run.clientId, contentType, deviceId: device(run, 2) })
      const body = judge.response<{ access_token?: unknown }>(ex, { status: '2xx' })
      judge.match(body, match.when(`a form body sent as ${contentType}`, match.nonEmptyString('/access_token')), ex)
    }
  })

  check('signin.device-id.any-value', 'accepts an arbitrary MMS-DEVICE-ID', async ({ anon, users, run, fake, judge }) => {
    const deviceId = `${run.namePrefix}-${fake.string.alphanumeric(12)}-${fake.string.uuid()}`
    const ex = await anon.signIn({ userName: users.C.userName, password: users.C.password, clientId: run.clientId, deviceId })
    judge.response(ex, { status: '2xx' })
  })

  check('signin.device-id.required', 'refuses a sign-in without MMS-DEVICE-ID', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.A.userName, password: users.A.password, clientId: run.clientId, deviceId: null })
    judge.refused(ex)
  })

  check('signin.wrong-password.refused', 'refuses a wrong password', async ({ anon, users, run, fake, judge }) => {
    const ex = await anon.signIn({
      userName: users.A.userName,
      password: `${users.A.password}-${fake.string.alphanumeric(6)}`,
      clientId: run.clientId,
      deviceId: device(run, 1),
    })
    judge.refused(ex)
    const body = ex.json as { access_token?: unknown } | undefined
    ensure(!body?.access_token, judge, 'a refused sign-in still carries an access_token', ex)
  })

  check(
    'signin.wrong-password.refused',
    'refuses the password with its letters in the other case, one character more or less',
    async ({ anon, users, run, judge }) => {
      for (const [key, cells] of Object.entries(PASSWORD_CELLS) as ['A' | 'B' | 'C', readonly PasswordAlteration[]][]) {
        const user: RunAccount = users[key]
        for (const cell of cells) {
          const { what, alter } = PASSWORD_ALTERATIONS[cell]
          const wrong = alter(user.password)
          if (wrong === user.password) continue
          // Near copies of a password are as secret as it.
          registerSecret(wrong)
          const ex = await anon.signIn({
            userName: user.userName,
            password: wrong,
            clientId: run.clientId,
            deviceId: device(run, key === 'A' ? 1 : key === 'B' ? 2 : 3),
          })
          const sent = `${key}'s password ${what}`
          judge.match(ex, match.when(sent, match.status('refusal', 'a wrong password gets no session')), ex)
          judge.match(
            ex.json ?? {},
            match.when(
              sent,
              match.that('/access_token', (v) => !v, 'no access_token in a refused sign-in'),
            ),
            ex,
          )
        }
      }
    },
  )

  check('signin.wrong-client.refused', 'refuses an unknown client_id', async ({ anon, users, run, fake, judge }) => {
    const ex = await anon.signIn({
      userName: users.A.userName,
      password: users.A.password,
      clientId: `${run.clientId}-${fake.string.alphanumeric(8)}`,
      deviceId: device(run, 1),
    })
    judge.refused(ex)
  })

  check('signin.bearer.works', 'issues a token that works as a bearer token', async ({ anon, users, run, judge }) => {
    const ex = await anon.signIn({ userName: users.C.userName, password: users.C.password, clientId: run.clientId, deviceId: device(run, 4) })
    const body = judge.response<{ access_token?: unknown }>(ex, { status: '2xx' })
    ensure(typeof body?.access_token === 'string', judge, '/access_token: missing', ex)
    const list = await anon.withToken(body.access_token).listUsers()
    judge.response(list, { status: '2xx' })
  })

  check(
    'signin.bearer.works',
    'keeps a token acting for its user after another user signs in on the same device id',
    async ({ a, c, anon, users, run, channels, judge }) => {
      // The device id is shared on purpose; it is this check's own, so no other check's tokens are touched.
      const deviceId = `${run.namePrefix}-${run.runId}-shared`
      const first = await anon.signIn({ userName: users.A.userName, password: users.A.password, clientId: run.clientId, deviceId })
      const token = judge.response<{ access_token?: unknown }>(first, { status: '2xx' })?.access_token
      ensure(typeof token === 'string' && token.length > 0, judge, '/access_token: missing or empty', first)
      // B's sign-in is set-up (its refusal is signin.device-id.any-value's to judge): this check judges A's token after it.
      steps.signIn.response(await anon.signIn({ userName: users.B.userName, password: users.B.password, clientId: run.clientId, deviceId }), { status: '2xx' })
      // C's channel: A subscribes as anyone does, not as its owner.
      const name = await channels.create(c, { subscribeOnCreate: false })
      const sub = await a.withToken(token).subscribe(name)
      if (!isSuccess(sub)) {
        // Ending A's session when another user signs in on its device is token revocation, which the spec leaves open.
        judge.observe(`A's token after B signed in on the same device id: subscribe answered ${sub.status} (the token no longer works)`, ALSO.tokenRevocation)
        return
      }
      // Polled until A or B is listed (reads may lag the subscribe; other clients may subscribe too).
      const ours = (e: Exchange): boolean =>
        Array.isArray(e.json) && e.json.some((s) => [users.A.userId, users.B.userId].includes((s as Record<string, unknown> | null)?.userId as string))
      const ex = await eventually(
        () => c.subscriptions(name),
        (e) => isSuccess(e) && ours(e),
      )
      const list = judge.response<unknown>(ex, { status: '2xx' })
      const userIds = Array.isArray(list) ? list.map((s) => (s && typeof s === 'object' ? (s as Record<string, unknown>).userId : undefined)) : []
      const subscribers = (m: Matcher) =>
        match.when("subscribe with A's token after B signed in on the same device id", match.derived("subscribers' /userId", userIds, m))
      judge.match(list, [subscribers(match.contains('', users.A.userId, { what: 'A' })), subscribers(match.lacks('', users.B.userId, { what: 'B' }))], ex)
    },
  )

  check(
    'signin.bearer.works',
    'keeps both tokens of one user signed in on two devices at the same moment, where two sign-ins one after the other both keep theirs',
    async ({ anon, users, run, judge }) => {
      const params = (tag: string) => ({
        userName: users.C.userName,
        password: users.C.password,
        clientId: run.clientId,
        deviceId: `${run.namePrefix}-${run.runId}-${tag}`,
      })
      const tokenOf = (ex: Exchange, what: string): string => {
        const token = judge.response<{ access_token?: unknown }>(ex, { status: '2xx' })?.access_token
        ensure(
          typeof token === 'string' && token.length > 0,
          judge,
          match.explain({ access_token: token }, match.when(what, match.nonEmptyString('/access_token'))),
          ex,
        )
        return token
      }
      const works = async (token: string) => anon.withToken(token).listUsers()
      // First one after the other: whether an earlier session survives a sign-in on another device is not stated.
      const one = tokenOf(await anon.signIn(params('seq1')), 'the first of two sign-ins one after the other')
      const two = tokenOf(await anon.signIn(params('seq2')), 'the second of two sign-ins one after the other')
      const kept = await works(one)
      judge.response(await works(two), { status: '2xx' })
      if (!isSuccess(kept)) {
        judge.observe(`C's first token after a sign-in on another device: list users answered ${kept.status} (one session a user)`, ALSO.tokenRevocation)
        return
      }
      // Then at the same moment: the server kept both sessions above, so it keeps both here too.
      const both = await together([() => anon.signIn(params('par1')), () => anon.signIn(params('par2'))])
      for (const [i, ex] of both.entries()) {
        const token = tokenOf(ex, `sign-in ${i + 1} of two at the same moment`)
        const used = await works(token)
        judge.match(used, match.when(`list users with the token of sign-in ${i + 1} of two on two devices at the same moment`, match.status('2xx')), used)
      }
    },
  )

  check(
    'signin.bearer.works',
    'gives each of two users signing in at the same moment a session of their own, in each of three rounds',
    async ({ a, b, c, anon, users, run, channels, judge }) => {
      const pair = [users.A, users.B] as const
      // The subscriber list is the witness of whom a token acts for: first it must list A and B subscribed with the
      // run's own tokens (a step of subscriptions.subscribe.listed, whose deviation would otherwise show here).
      // C's channels: A and B subscribe as anyone does, neither as its owner.
      const witness = await channels.create(c, { subscribeOnCreate: false })
      for (const api of [a, b]) await mustSubscribe(api, witness)
      const seen = await eventually(
        () => c.subscriptions(witness),
        (e) => isSuccess(e) && pair.every((u) => userIdsOf(e).includes(u.userId)),
      )
      const seenIds = userIdsOf(seen)
      steps.subscribedListed.match(
        seenIds,
        match.when("set-up: the subscribers of a channel A and B subscribed to with the run's tokens", match.containsAll('', [users.A.userId, users.B.userId])),
        seen,
      )
      for (let round = 1; round <= 3; round++) {
        // Devices of this check and round: a sign-in elsewhere on them cannot end these sessions.
        const answers = await together(
          pair.map(
            (u) => () =>
              anon.signIn({
                userName: u.userName,
                password: u.password,
                clientId: run.clientId,
                deviceId: `${run.namePrefix}-${run.runId}-pair${round}${u.key}`,
              }),
          ),
        )
        const tokens = answers.map((ex, i) => {
          const u = pair[i]!
          const context = `round ${round}: ${u.key}'s sign-in at the same moment as ${pair[1 - i]!.key}'s`
          const body = judge.response<{ access_token?: unknown }>(ex, { status: '2xx' })
          // The Session is the signing-in user's: its user record (§2.2 "user | User") and the token it carries.
          judge.match(
            body,
            [match.when(context, match.nonEmptyString('/access_token')), match.when(context, match.equal('/user/userIdentifier', u.userId, `${u.key}'s id`))],
            ex,
          )
          return body.access_token as string
        })
        // Each token acts for its own user: both subscribe to a channel of this round, whose subscribers are then A and B.
        const name = await channels.create(c, { subscribeOnCreate: false })
        const acting: RunAccount[] = []
        for (const [i, token] of tokens.entries()) {
          const sub = await anon.withToken(token).subscribe(name)
          if (isSuccess(sub)) acting.push(pair[i]!)
          // Ending a session when the same user signs in elsewhere (another check, at the same time) is token revocation, which the spec leaves open.
          else
            judge.observe(
              `round ${round}: ${pair[i]!.key}'s token from two sign-ins at the same moment: subscribe answered ${sub.status}`,
              ALSO.tokenRevocation,
            )
        }
        if (acting.length === 0) continue
        const ex = await eventually(
          () => c.subscriptions(name),
          (e) => isSuccess(e) && acting.every((u) => userIdsOf(e).includes(u.userId)),
        )
        const list = judge.response<unknown>(ex, { status: '2xx' })
        const userIds = userIdsOf(ex)
        const subscribers = (m: Matcher) =>
          match.when(`round ${round}: subscribe with the tokens of two sign-ins at the same moment`, match.derived("subscribers' /userId", userIds, m))
        judge.match(
          list,
          acting.map((u) => subscribers(match.contains('', u.userId, { what: u.key }))),
          ex,
        )
      }
    },
  )

  check('signin.device-id.any-value', 'accepts an MMS-DEVICE-ID with spaces, dots, colons and slashes', async ({ anon, users, run, fake, judge }) => {
    // "any value is accepted": device ids in the field are model names and platform tokens, not only [A-Za-z0-9-].
    const deviceId = `${run.namePrefix} ${run.runId}: Phone (v1.2)/${fake.string.alphanumeric(8)}+x=y;z,w@k`
    const ex = await anon.signIn({ userName: users.C.userName, password: users.C.password, clientId: run.clientId, deviceId })
    judge.response(ex, { status: '2xx' })
  })

  check('signin.session.token-type', 'answers token_type USER to each of two sign-ins on the same device id', async ({ anon, users, run, judge }) => {
    for (const attempt of ['first', 'second']) {
      const ex = await anon.signIn({ userName: users.B.userName, password: users.B.password, clientId: run.clientId, deviceId: device(run, 2) })
      const body = judge.response<{ token_type?: unknown }>(ex, { status: '2xx' })
      judge.match(body, match.when(`the ${attempt} sign-in on one device id`, match.equal('/token_type', 'USER')), ex)
    }
  })
})
