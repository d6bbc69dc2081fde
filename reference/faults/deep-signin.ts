import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { hashPassword } from '../ids'
import type { TokenRecord } from '../model'
import type { Store } from '../store'
import { OverlapGroups, refuseDeviceId, sleep } from './deep-common'
import { addRouteHook, aroundHandler, overrideStore, rewriteJson } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Deep faults of sign-in, its tokens and the authentication of every route (§4.1, §5), written in the blind rounds
 * 5 to 12 from the spec's words only (docs/detection.md): each shows only for a particular input, state, address,
 * pair of users, device or concurrent pair of requests. The comment on each names the spec words it breaks; its
 * name says its round. The catalogued ones are gathered as BLIND_FAULTS, the open ones (with why) as BLIND_OPEN;
 * the earlier deep faults of the area are in deep-users-messages.ts.
 */

/** Where a sign-in parameter was sent (the body wins over the query string, as in routes/users.ts). */
function signInSource(request: FastifyRequest, name: string): Record<string, unknown> | undefined {
  const body = request.body as Record<string, unknown> | undefined
  if (body && typeof body === 'object' && typeof body[name] === 'string') return body
  const query = request.query as Record<string, unknown>
  if (typeof query?.[name] === 'string') return query
  return undefined
}

function signInParam(request: FastifyRequest, name: string): string | undefined {
  return signInSource(request, name)?.[name] as string | undefined
}

function setSignInParam(request: FastifyRequest, name: string, value: string): void {
  const source = signInSource(request, name)
  if (source) source[name] = value
}

/** Every upper/lower-case spelling of the letters of `text` (at most 2^12; beyond that, three spellings). */
function caseVariants(text: string): string[] {
  const letters = [...text].map((c, i) => (c.toLowerCase() !== c.toUpperCase() ? i : -1)).filter((i) => i >= 0)
  if (letters.length > 12) {
    const swap = [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
    return [text.toLowerCase(), text.toUpperCase(), swap]
  }
  const out: string[] = []
  for (let mask = 0; mask < 1 << letters.length; mask++) {
    const chars = [...text]
    letters.forEach((at, bit) => {
      chars[at] = mask & (1 << bit) ? chars[at]!.toUpperCase() : chars[at]!.toLowerCase()
    })
    out.push(chars.join(''))
  }
  return out
}

/**
 * §5.4 "All other calls send the header Authorization: Bearer <ACCESS_TOKEN>" (signin.bearer.works: the token
 * works for the user who signed in). The handler keeps "the sign-in in progress" in one shared field across its
 * ~25 ms credential lookup: when two different users sign in at the same moment, the first answer carries a token
 * (and user record) of the second user, so the first user's token acts for someone else.
 */
let signinInProgress: { username: string; password: string } | null = null

/** Why a sign-in check other than the race's own meets r11-race-signin-new-device-500 in some runs only. */
const WHY_RACED =
  "the run's sign-in checks share a few device ids per run, and those that meet a new one at the same moment as another get the 500 under their own clause; which ones race depends on how the concurrent checks interleave"

/** §4.1 / §5.2 "MMS-DEVICE-ID (required, any value)": a device id with a "/" (the creator separator) is refused. */
const signinDeviceSlash: CatalogFault = {
  name: 'r6-signin-device-slash',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'sign-in refuses (400) an MMS-DEVICE-ID that contains "/", because "/" separates the device id in creator',
  install(app) {
    refuseDeviceId(app, (id) => (id.includes('/') ? 'MMS-DEVICE-ID must not contain "/"' : undefined))
  },
}

/** §5.4 the access token is used by all later calls: overlapping sign-ins of one user on two devices keep only the last token (session row overwritten). */
const signinOverlapTokenLost: CatalogFault = {
  name: 'r6-signin-overlap-token-lost',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.bearer.works',
  description: 'when two sign-ins of one user on different devices overlap in time, the token answered first stops working (401)',
  consequences: [
    {
      clause: 'tags.delete-one.removes',
      reason: 'the devices checks delete a tag with the token of an overlapping sign-in, which the fault has lost (401)',
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'items.delete.removes',
      reason: 'the devices checks delete items with the token of an overlapping sign-in, which the fault has lost (401)',
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },

    {
      clause: 'channels.delete.removes',
      reason: 'the devices checks delete with the token of an overlapping sign-in, which the fault has lost (401)',
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'subscriptions.unsubscribe.removed',
      reason: 'the devices checks unsubscribe with the token of an overlapping sign-in, which the fault has lost (401)',
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },

    {
      clause: 'messages.status.agrees',
      reason: "a check reads a message's status with a token its own sign-in got, and a 401 to the check's own read is judged under its clause",
      sometimes: "only when that check's sign-in overlapped another sign-in of the same user in the run",
    },
  ],
  ...(() => {
    const revoked = new Set<string>()
    const groups = new OverlapGroups<{ token: string; device: string }>()
    const groupOf = new WeakMap<FastifyRequest, { key: string; group: { inflight: number; members: { token: string; device: string }[] } }>()
    const userOf = (request: FastifyRequest): string | undefined => {
      const q = request.query as Record<string, unknown>
      const b = (request.body ?? {}) as Record<string, unknown>
      const name = b.username ?? q.username
      return typeof name === 'string' ? name.toLowerCase() : undefined
    }
    return {
      wrapStore(store: Store) {
        return overrideStore(store, { getToken: (inner) => (token) => (revoked.has(token) ? undefined : inner.getToken(token)) })
      },
      install(app: any) {
        addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
          const key = userOf(request)
          if (key === undefined) return
          groupOf.set(request, { key, group: groups.enter(key) })
          await sleep(12) // the password check of a real server
        })
        rewriteJson(
          app,
          'users.signIn',
          (body, request, reply) => {
            const entry = groupOf.get(request)
            if (!entry) return body
            groups.leave(entry.key, entry.group)
            if (reply.statusCode >= 400) return body
            const device = String(request.headers['mms-device-id'])
            for (const m of entry.group.members) if (m.device !== device) revoked.add(m.token)
            entry.group.members.push({ token: body.access_token, device })
            return body
          },
          { errors: true },
        )
      },
    }
  })(),
}

/**
 * §1 "An application signs in on behalf of a user with the OAuth 2.0 password grant" (signin.wrong-password.refused:
 * a wrong password gets no session). The password is compared ignoring case (a case-insensitive column collation),
 * so the right password with its letters' case changed (ALL CAPS, first letter flipped) gets a session.
 */
const signinPasswordCaseInsensitive: CatalogFault = {
  name: 'r7-signin-password-case-insensitive',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.wrong-password.refused',
  description: 'sign-in compares the password ignoring case: the right password with its letters in another case gets a session',
  install(app, ctx) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const username = signInParam(request, 'username')
      const password = signInParam(request, 'password')
      if (username === undefined || password === undefined) return
      const user = ctx.store.findUserByName(ctx.application.clientId, username)
      if (!user || hashPassword(password, user.passwordSalt) === user.passwordHash) return
      const match = caseVariants(password).find((p) => hashPassword(p, user.passwordSalt) === user.passwordHash)
      if (match !== undefined) setSignInParam(request, 'password', match)
    })
  },
}

/**
 * §4.1 "Parameters, sent as query string or form body" (signin.params.form). The form body is recognised by
 * comparing the whole Content-Type header with "application/x-www-form-urlencoded": a form body whose header
 * carries a charset parameter ("application/x-www-form-urlencoded; charset=UTF-8", what many HTTP clients send)
 * is refused 415.
 */
const signinFormCharsetRefused: CatalogFault = {
  name: 'r7-signin-form-charset-refused',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.params.form',
  description: 'sign-in refuses (415) a form body whose Content-Type carries a charset parameter ("application/x-www-form-urlencoded; charset=UTF-8")',
  install(app) {
    addRouteHook(app, 'users.signIn', 'onRequest', async (request: FastifyRequest) => {
      const type = request.headers['content-type']
      if (typeof type === 'string' && /^application\/x-www-form-urlencoded\s*;/i.test(type)) throw fail('UNSUPPORTED_MEDIA_TYPE')
    })
  },
}

const signinConcurrentCrossed: CatalogFault = {
  name: 'r7-signin-concurrent-crossed',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.bearer.works',
  description: 'two sign-ins of different users within ~25 ms: the first one is answered with a session (token and user) of the second user',
  consequences: [
    {
      clause: 'channels.delete.removes',
      reason: "the devices checks delete a channel from a second device while other checks sign in: a crossed token is another user's",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'items.delete.removes',
      reason: "the devices checks delete items from a second device while other checks sign in: a crossed token is another user's",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'tags.delete-one.removes',
      reason: "the devices checks delete a tag from a second device while other checks sign in: a crossed token is another user's",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'tags.delete-all.status',
      reason: "the devices checks delete all tags from a second device while other checks sign in: a crossed token is another user's, refused",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'items.delete-all.status',
      reason: "the devices checks delete all items from a second device while other checks sign in: a crossed token is another user's, refused",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },

    {
      clause: 'subscriptions.unsubscribe.removed',
      reason: 'the devices checks sign in on second devices while other checks sign in: a crossed token unsubscribes another user',
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'users.record.agrees',
      reason: "the user record check signs each account in on its own device while other checks sign in: a crossed sign-in answers another user's record",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },
    {
      clause: 'messages.status.shape',
      reason:
        "the devices check signs the sender in on a second device while other checks sign in: a crossed token is another user's, who has no such message to read",
      sometimes: 'whether a sign-in of the check overlaps another one on the same account depends on how the concurrent checks interleave',
    },

    {
      clause: 'channels.get.creator',
      reason: 'a user whose sign-in was crossed creates channels as the other user',
      sometimes: 'only when two sign-ins overlap in the ~25 ms window',
    },
    {
      clause: 'items.publisher',
      reason: 'a user whose sign-in was crossed publishes as the other user',
      sometimes: 'only when two sign-ins overlap in the ~25 ms window',
    },
    {
      clause: 'messages.status.agrees',
      reason: 'a user whose sign-in was crossed sends as the other user',
      sometimes: 'only when two sign-ins overlap in the ~25 ms window',
    },
    {
      clause: 'signin.wrong-password.refused',
      reason: "a wrong-password sign-in overlapping a right one of the same user is answered with the right one's session",
      sometimes: 'only when the wrong-password sign-in overlaps another',
    },
    ...(
      [
        'signin.session.shape',
        'signin.session.token-type',
        'signin.user.no-email',
        'signin.user.status',
        'signin.user.password-masked',
        'signin.user.otp-masked',
        'signin.params.query',
        'signin.params.form',
        'signin.device-id.any-value',
      ] as const
    ).map((clause) => ({
      clause,
      reason:
        "a right-password sign-in overlapping a wrong-password one (signin.wrong-password.refused's checks send several) is refused with the wrong one's credentials",
      sometimes: 'only when the sign-in overlaps a wrong-password sign-in in the ~25 ms window',
    })),
    {
      clause: 'subscriptions.subscribe.listed',
      reason: 'a crossed user subscribes as the other user',
      sometimes: 'only when two sign-ins overlap in the ~25 ms window',
    },
    {
      clause: 'subscriptions.unsubscribe.own-only',
      reason: 'a crossed user unsubscribes the other user',
      sometimes: 'only when two sign-ins overlap in the ~25 ms window',
    },
  ],
  install(app) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const username = signInParam(request, 'username')
      const password = signInParam(request, 'password')
      if (username === undefined || password === undefined) return
      const mine = { username, password }
      signinInProgress = mine
      await sleep(25)
      const current = signinInProgress
      if (current !== null && current !== mine) {
        setSignInParam(request, 'username', current.username)
        setSignInParam(request, 'password', current.password)
      }
    })
  },
}

/**
 * §4.1 "client_id (the application's OAuth client id)" (signin.wrong-client.refused: an unknown client_id gets no
 * session). The client id is looked up ignoring case, so "CT-REFERENCE-APP" or "Ct-Reference-App" - client ids
 * that are not the application's - get a session.
 */
const signinClientIdCaseInsensitive: CatalogFault = {
  name: 'r7-signin-client-id-case-insensitive',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.wrong-client.refused',
  description: "sign-in matches client_id ignoring case: the client id in upper case (not the application's id) gets a session",
  install(app, ctx) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const clientId = signInParam(request, 'client_id')
      if (clientId !== undefined && clientId !== ctx.application.clientId && clientId.toLowerCase() === ctx.application.clientId.toLowerCase()) {
        setSignInParam(request, 'client_id', ctx.application.clientId)
      }
    })
  },
}

const r8SigninDeviceIdInnerSpace: CatalogFault = {
  // §4.1 / §5.2: "Header: MMS-DEVICE-ID (required, any value)" — "any value is accepted".
  name: 'r8-signin-device-id-inner-space',
  depth: 'deep',
  area: 'signin',
  clause: 'signin.device-id.any-value',
  description: 'sign-in refuses (400) an MMS-DEVICE-ID whose value has whitespace inside it ("Pixel 7 Pro")',
  install(app) {
    refuseDeviceId(app, (value) => (/\s/.test(value.trim()) ? 'MMS-DEVICE-ID must be one token' : undefined), 'onRequest')
  },
}

const r8SharedDeviceTokenFollowsLastUser: CatalogFault = {
  // §5.4: the access token works as a bearer token — as the user it was issued to.
  name: 'r8-shared-device-token-follows-last-user',
  depth: 'deep',
  area: 'signin',
  clause: 'signin.bearer.works',
  description: "when a second user signs in on the same MMS-DEVICE-ID, the first user's token acts as the second user (session keyed by device)",
  consequences: [
    {
      clause: 'subscriptions.subscribe.listed',
      reason:
        "a token that follows its device acts as the device's last user: of two users who subscribe from one device id, both subscriptions are that user's",
    },
    {
      clause: 'items.publisher',
      reason: "a token that follows its device acts as the device's last user: of two users who publish from one device id, both items are that user's",
    },
    {
      clause: 'channels.get.creator',
      reason: "a token that follows its device acts as the device's last user: of two users who create channels from one device id, both are that user's",
    },
  ],
  wrapStore(store) {
    const lastUserOnDevice = new Map<string, string>()
    return overrideStore(store, {
      addToken: (inner) => (token: TokenRecord) => {
        if (token.kind === 'USER' && token.userId !== null) lastUserOnDevice.set(token.deviceId, token.userId)
        inner.addToken(token)
      },
      getToken: (inner) => (token: string) => {
        const record = inner.getToken(token)
        if (!record || record.kind !== 'USER') return record
        const last = lastUserOnDevice.get(record.deviceId)
        return last !== undefined && last !== record.userId ? { ...record, userId: last } : record
      },
    })
  },
}

/** §2.1 email: "absent from the sign-in response" — whatever device the user signs in on. */
const signinNewDeviceEmail: CatalogFault = {
  name: 'r9-signin-new-device-user-with-email',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.user.no-email',
  description: "a sign-in on a device id other than the user's first registered device answers the user record of the user list (with email)",
  consequences: [
    {
      clause: 'signin.session.shape',
      reason: "the session's user record then carries email, which §2.1 leaves out of the sign-in response: the Session's shape is judged on it",
    },
  ],
  install(app, ctx) {
    rewriteJson(app, 'users.signIn', (body, request) => {
      const userId = body?.user?.userIdentifier
      const device = request.headers['mms-device-id']
      const devices = typeof userId === 'string' ? ctx.store.listDevices(userId) : []
      const user = typeof userId === 'string' ? ctx.store.getUser(userId) : undefined
      if (!user || devices.length < 2 || devices[0]!.deviceId === device) return body
      const { userName, ...rest } = body.user
      return { ...body, user: { ...rest, email: user.email, userName } }
    })
  },
}

/** §4.1 "Parameters, sent as query string or form body": a form body is application/x-www-form-urlencoded, where "+" is a space. */
const signinFormPlusNotSpace: CatalogFault = {
  name: 'r9-signin-form-plus-not-space',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.params.form',
  description:
    'sign-in decodes a form body with decodeURIComponent only: a "+" (an encoded space) stays "+", so a user name or password holding a space sent as a form is refused',
  install(app) {
    addRouteHook(app, 'users.signIn', 'preHandler', async (request: FastifyRequest) => {
      const type = String(request.headers['content-type'] ?? '')
      if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return
      const body = request.body as Record<string, unknown> | undefined
      if (!body || typeof body !== 'object') return
      for (const [k, v] of Object.entries(body)) if (typeof v === 'string') body[k] = v.replace(/ /g, '+')
    })
  },
}

/**
 * §4.1/§5.2 "MMS-DEVICE-ID (required, any value)", "any value is accepted". Node joins a repeated header
 * with ", ", so a developer guarding against two device ids refuses any value holding a comma.
 */
const signinDeviceIdComma: CatalogFault = {
  name: 'r10-signin-device-id-comma',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'sign-in refuses (400) an MMS-DEVICE-ID containing a comma ("Pixel 7, work"), taking it for a header given twice',
  install(app) {
    refuseDeviceId(app, (value) => (value.includes(',') ? 'MMS-DEVICE-ID must be given once' : undefined))
  },
}

/**
 * §2.1 "otpCode | fixed masked placeholder". A "new device" step puts a fresh six-digit verification code in
 * the user record of a sign-in from a device id other than the user's first one.
 */
const signinSecondDeviceOtp: CatalogFault = {
  name: 'r10-signin-second-device-otp',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.user.otp-masked',
  description: "a sign-in on a device id other than the user's first registered one answers otpCode as a fresh six-digit code instead of the fixed placeholder",
  install(app, ctx) {
    rewriteJson(app, 'users.signIn', (body, request) => {
      const userId = body?.user?.userIdentifier
      const deviceId = request.headers['mms-device-id']
      const devices = typeof userId === 'string' ? ctx.store.listDevices(userId) : []
      if (devices.length > 1 && devices[0]!.deviceId !== deviceId) {
        body.user.otpCode = String(100000 + Math.floor(Math.random() * 900000))
      }
      return body
    })
  },
}

const r11SigninDeviceIdEqualsSign: CatalogFault = {
  // §4.1 / §5.2: "The header MMS-DEVICE-ID must be present on that call; any value is accepted."
  name: 'r11-signin-device-id-equals-sign',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'sign-in refuses (400) an MMS-DEVICE-ID containing "=" or ";" (the header is parsed as key=value pairs; base64 push tokens end with "=")',
  install(app) {
    refuseDeviceId(app, (value) => (/[=;]/.test(value) ? 'MMS-DEVICE-ID must be a plain device id' : undefined))
  },
}

const r11RaceSigninNewDevice500: CatalogFault = {
  // §2.2 / §4.1: sign-in "Response: Session (2.2)" for good credentials, and §4: a valid request gets no 5xx.
  name: 'r11-race-signin-new-device-500',
  area: 'signin',
  depth: 'deep',
  clause: ['signin.session.shape', 'http.valid-request-answered'],
  description:
    'sign-in checks that the (user, device id) row is absent, waits ~20 ms, then inserts it: a second sign-in of the same user with the same new device id within that window hits the unique key and is answered 500',
  consequences: [
    { clause: 'signin.params.form', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
    { clause: 'signin.params.query', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
    {
      clause: 'signin.session.token-type',
      reason: 'a sign-in of this check raced another one on a new device id and was answered 500',
      sometimes: WHY_RACED,
    },
    { clause: 'signin.user.status', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
    {
      clause: 'signin.user.password-masked',
      reason: 'a sign-in of this check raced another one on a new device id and was answered 500',
      sometimes: WHY_RACED,
    },
    { clause: 'signin.user.otp-masked', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
    { clause: 'signin.user.no-email', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
    { clause: 'signin.bearer.works', reason: 'a sign-in of this check raced another one on a new device id and was answered 500', sometimes: WHY_RACED },
  ],
  install(app, ctx) {
    const inFlight = new Set<string>()
    aroundHandler(app, 'users.signIn', async (request, reply, next) => {
      const deviceId = request.headers['mms-device-id']
      const body = (request.body ?? {}) as Record<string, unknown>
      const query = (request.query ?? {}) as Record<string, unknown>
      const userName = typeof body.username === 'string' ? body.username : typeof query.username === 'string' ? query.username : undefined
      const user = userName === undefined ? undefined : ctx.store.findUserByName(ctx.application.clientId, userName)
      if (typeof deviceId === 'string' && user && !ctx.store.listDevices(user.userId).some((d) => d.deviceId === deviceId)) {
        const key = `${user.userId}\n${deviceId}`
        if (inFlight.has(key)) {
          await sleep(20)
          throw new Error('duplicate key value violates unique constraint "user_devices_pkey"')
        }
        inFlight.add(key)
        try {
          await sleep(20)
          return await next()
        } finally {
          inFlight.delete(key)
        }
      }
      return next()
    })
  },
}

/**
 * §4.1 / §5.2 "Header: MMS-DEVICE-ID (required, any value)" / "any value is accepted": a device id with a
 * colon (a MAC address `AA:BB:CC:…`, `ios:…`) is read as `<platform>:<token>` and refused unless the part
 * before the first colon is a known platform.
 */
const signinDeviceIdColon: CatalogFault = {
  name: 'r12-signin-device-id-colon',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'an MMS-DEVICE-ID holding a colon is parsed as <platform>:<token> and refused (400) unless the platform is ios, android or web',
  install(app) {
    refuseDeviceId(app, (value) => {
      const colon = value.indexOf(':')
      if (colon < 0) return undefined
      const platform = value.slice(0, colon).toLowerCase()
      return ['ios', 'android', 'web'].includes(platform) ? undefined : `unknown device platform "${value.slice(0, colon)}"`
    })
  },
}

/**
 * §4.1 / §5.2 "MMS-DEVICE-ID … any value is accepted": the device table is unique on the device id, so a
 * second user who signs in on a device id another user signed in on first is refused (two users, one device).
 */
const signinDeviceOfOtherUser: CatalogFault = {
  name: 'r12-signin-device-of-other-user-refused',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.device-id.any-value',
  description: 'a sign-in on a device id another user signed in on before is refused (401): device ids are unique across users',
  consequences: [
    {
      clause: 'signin.session.shape',
      reason: 'the set-up sign-ins of other checks on a device id another user signed in with first are refused, so they answer no Session',
    },
  ],
  wrapStore(store) {
    const ownerOf = new Map<string, string>()
    return overrideStore(store, {
      registerDevice: (inner) => (userId, deviceId, at) => {
        const owner = ownerOf.get(deviceId)
        if (owner !== undefined && owner !== userId) throw fail('INVALID_CREDENTIALS', 'this device is registered to another user')
        ownerOf.set(deviceId, userId)
        inner.registerDevice(userId, deviceId, at)
      },
    })
  },
}

/** §4 / §5.4 every call needs a valid bearer token: a token is looked up by its first 24 characters (a truncated column). */
const authTokenPrefix: CatalogFault = {
  name: 'r6-auth-token-prefix',
  area: 'auth',
  depth: 'deep',
  clause: ['auth.token-required', 'auth.token-required.401'],
  description: 'a bearer token is accepted when its first 24 characters match an issued token (a changed or appended tail passes)',
  wrapStore(store) {
    const byPrefix = new Map<string, string>()
    return overrideStore(store, {
      addToken: (inner) => (token) => {
        byPrefix.set(token.token.slice(0, 24), token.token)
        inner.addToken(token)
      },
      getToken: (inner) => (token) => {
        const exact = inner.getToken(token)
        if (exact || token.length < 24) return exact
        const full = byPrefix.get(token.slice(0, 24))
        return full === undefined ? undefined : inner.getToken(full)
      },
    })
  },
}

/**
 * §4 "All endpoints except sign-in require Authorization: Bearer <ACCESS_TOKEN>" (auth.token-required: a call
 * without a valid bearer token is refused). Tokens are looked up ignoring case (a case-insensitive index), so a
 * token that is not the one issued - the issued one with its letters in upper case - is accepted.
 */
const authTokenCaseInsensitive: CatalogFault = {
  name: 'r7-auth-token-case-insensitive',
  area: 'auth',
  depth: 'deep',
  clause: 'auth.token-required',
  description: 'bearer tokens are looked up ignoring case: the issued token in upper case (a token never issued) is accepted',
  wrapStore(store) {
    return overrideStore(store, {
      getToken: (inner) => (token) => inner.getToken(token) ?? inner.getToken(token.toLowerCase()),
    })
  },
}

/**
 * §4.1 Sign in: "Parameters, sent as query string or form body: `grant_type` (the value password), `username`,
 * `password`, `client_id` …". A form body is decoded with a hand-rolled `unescape()`-style decoder, byte by byte as
 * Latin-1: a password with a non-ASCII character (sent percent-encoded as UTF-8) arrives mangled and the sign-in is
 * refused, while the same parameters in the query string (parsed by the framework) sign in.
 */
const signinFormLatin1: CatalogFault = {
  name: 'r13a-signin-form-latin1',
  area: 'signin',
  depth: 'deep',
  clause: 'signin.params.form',
  description: 'the sign-in form body is percent-decoded as Latin-1 bytes: a non-ASCII password sent as a form is refused (the query string works)',
  install(app) {
    addRouteHook(app, 'users.signIn', 'preValidation', async (request: FastifyRequest) => {
      const type = String(request.headers['content-type'] ?? '')
      if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return
      const form = request.body as Record<string, unknown> | undefined
      if (!form || typeof form !== 'object') return
      for (const [k, v] of Object.entries(form)) {
        // What unescape() gives for %XX sequences of UTF-8: one Latin-1 character per byte.
        if (typeof v === 'string') form[k] = Buffer.from(v, 'utf8').toString('latin1')
      }
    })
  },
}

export const BLIND_SIGNIN_FAULTS: readonly CatalogFault[] = [
  signinDeviceSlash,
  signinOverlapTokenLost,
  signinPasswordCaseInsensitive,
  signinFormCharsetRefused,
  signinConcurrentCrossed,
  r8SigninDeviceIdInnerSpace,
  r8SharedDeviceTokenFollowsLastUser,
  signinNewDeviceEmail,
  signinDeviceIdComma,
  signinSecondDeviceOtp,
  r11SigninDeviceIdEqualsSign,
  r11RaceSigninNewDevice500,
  signinDeviceIdColon,
  signinDeviceOfOtherUser,
]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_SIGNIN_OPEN: readonly OpenFault[] = [
  {
    fault: signinClientIdCaseInsensitive,
    why: "§4.1 calls client_id the application's OAuth client id and says nothing of how it is compared: a server whose identifiers are matched without case (a case-insensitive collation) reads the spec too",
    reading: true,
  },
  {
    fault: signinFormPlusNotSpace,
    why: "shows only for a user name or password that holds a space or a '+'; the accounts are the deployment's, and the suite creates none",
  },
  {
    fault: signinFormLatin1,
    why: "needs an account whose password holds a character outside ASCII: the accounts are the deployment's, and the suite enrols users only when none are configured",
  },
]

export const BLIND_AUTH_FAULTS: readonly CatalogFault[] = [authTokenPrefix]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_AUTH_OPEN: readonly OpenFault[] = [
  {
    fault: authTokenCaseInsensitive,
    why: "this server's tokens are hex digits, a value either case writes: a server that keeps a token as such a value (a uuid column) finds it whatever the case, and the spec gives the token no form, so the suite judges the case of a token only when it holds other letters",
    reading: true,
  },
]
