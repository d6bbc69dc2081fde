/** Blind round 14 (docs/detection.md), people, devices and races: deep faults written from the spec alone, without reading the suite. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ServerContext } from '../context'
import { fail } from '../errors'
import type { ItemRecord } from '../model'
import type { Store } from '../store'
import { itemView } from '../views'
import { RACE_WINDOW_MS, SHORT_RACE_MS, sleep, tryResolve } from './deep-common'
import { aroundHandler, overrideStore, rewriteJson } from './kit'
import type { CatalogFault, OpenFault } from './types'

/** The send result as the messages.send route answers it. */
interface SendResult {
  count: { requested: number; sent: number; unsent: number }
  sentList: { messageId: string; recipientUsername: string }[]
  unsentList: { messageId?: string; recipientUsername?: string }[]
}

/**
 * §4.3 Send to user ids: "`sent` counts users for whom a push was sent, `unsent` counts users for whom it could not
 * be sent" (and `requested` counts matched users). The send loops over each recipient's devices and files the user
 * under sent or unsent from the outcome of a device's push; a matched recipient with no registered device at all
 * (a user who never signed in) runs the loop zero times and lands in neither list: requested 1, sent 0, unsent 0.
 */
const deviceLessRecipientUncounted: CatalogFault = {
  name: 'r14d-messages-deviceless-uncounted',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.send.counts-add-up',
  description:
    'send files a recipient under sent or unsent from the outcome of its devices\u2019 pushes: a matched recipient with no registered device (never signed in) is counted as requested but neither sent nor unsent',
  install(app: FastifyInstance, ctx: ServerContext) {
    rewriteJson(app, 'messages.send', (body: SendResult) => {
      const reached = (userId: string | undefined) => userId !== undefined && ctx.store.listDevices(userId).length > 0
      const unsentList = body.unsentList.filter((u) => reached(u.recipientUsername))
      return { ...body, count: { ...body.count, unsent: unsentList.length }, unsentList }
    })
  },
}

/**
 * §1 "A caller can send a message to one or many users by user id and then read the delivery status of a message
 * by its id"; §4.3 "Get delivery status: GET /messages/{messageId}. Response: array of Message delivery status
 * record." The caller is the user the token belongs to. The server keeps a sender's outbox per session device
 * (user id and MMS-DEVICE-ID): the sender asking from another of its devices (a second sign-in with another device
 * id) is answered 404 for its own message.
 */
function statusOnlyFromSendingDevice(): CatalogFault {
  const sentFrom = new Map<string, string>()
  return {
    name: 'r14d-messages-status-sender-device',
    area: 'messages',
    depth: 'deep',
    clause: 'messages.status.shape',
    description:
      'the outbox is kept per sending device: the sender reading the delivery status of its message with the token of another of its devices (another MMS-DEVICE-ID) gets 404',
    install(app: FastifyInstance, ctx: ServerContext) {
      sentFrom.clear()
      rewriteJson(app, 'messages.send', (body: SendResult, request: FastifyRequest) => {
        const caller = request.caller
        if (caller?.kind === 'USER') {
          for (const entry of [...body.sentList, ...body.unsentList]) if (entry.messageId) sentFrom.set(entry.messageId, caller.deviceId)
        }
        return body
      })
      aroundHandler(app, 'messages.status', (request: FastifyRequest, _reply: FastifyReply, next) => {
        const caller = request.caller
        const { messageId } = request.params as { messageId: string }
        const message = ctx.store.getMessage(messageId)
        const device = sentFrom.get(messageId)
        if (
          caller?.kind === 'USER' &&
          message &&
          message.senderId === caller.user.userId &&
          message.recipientId !== caller.user.userId &&
          device !== undefined &&
          device !== caller.deviceId
        ) {
          throw fail('MESSAGE_NOT_FOUND', `message ${messageId} not found`)
        }
        return next()
      })
    },
  }
}

/**
 * §4.4 Push to user: "Pushes to all active devices of the user." … "Here `sent` and `unsent` count devices." The
 * push takes its targets from the recipient's live sessions (one per sign-in) and counts them, while the
 * gateway's sentList is keyed by device: a recipient who signed in twice on the same MMS-DEVICE-ID is one device in
 * sentList but two in count.sent (and requested).
 */
function pushCountsSessions(): CatalogFault {
  const sessions = new Map<string, string[]>()
  const pair = (userId: string, deviceId: string) => `${userId}\n${deviceId}`
  let store: Store | undefined
  return {
    name: 'r14d-push-counts-sessions',
    area: 'push',
    depth: 'deep',
    clause: 'push.counts',
    description:
      'push counts the recipient\u2019s live sessions, not its devices: after the recipient signed in twice with one MMS-DEVICE-ID, count.sent is 2 while sentList lists that device once',
    wrapStore(inner: Store) {
      sessions.clear()
      store = overrideStore(inner, {
        addToken: (s) => (token) => {
          if (token.kind === 'USER' && token.userId !== null) {
            const k = pair(token.userId, token.deviceId)
            sessions.set(k, [...(sessions.get(k) ?? []), token.token])
          }
          s.addToken(token)
        },
      })
      return store
    },
    install(app: FastifyInstance, ctx: ServerContext) {
      rewriteJson(app, 'push.user', (body: { count: { requested: number; sent: number; unsent: number }; sentList: { deviceId: string }[] }, request) => {
        const { recipientUserId } = request.params as { recipientUserId: string }
        const now = ctx.clock.now()
        const live = (deviceId: string) =>
          Math.max(1, (sessions.get(pair(recipientUserId, deviceId)) ?? []).filter((t) => (store?.getToken(t)?.expiresAt ?? 0) > now).length)
        const sent = body.sentList.reduce((n, d) => n + live(d.deviceId), 0)
        return { ...body, count: { ...body.count, requested: sent + body.count.unsent, sent } }
      })
    },
  }
}

/**
 * §4.2 Fetch items by date range: "Response: {totalCount (integer), items (array of Published item)}." and §4
 * "Request and response bodies are JSON." The fetch takes the page's item ids from the date index, then loads each
 * item's record in a second step after an I/O wait; an item deleted by id in between (a delete sent together with
 * the fetch) is a missing row the loader dereferences: the fetch answers 500.
 */
const fetchDeleteRace: CatalogFault = {
  name: 'r14d-items-fetch-delete-race',
  area: 'items',
  depth: 'deep',
  clause: ['items.fetch.shape', 'http.valid-request-answered'],
  description: `fetch reads the page's ids, waits ${RACE_WINDOW_MS} ms, then loads each item: an item deleted by id during that window makes the fetch answer 500`,
  install(app: FastifyInstance, ctx: ServerContext) {
    aroundHandler(app, 'items.fetch', async (request: FastifyRequest, _reply: FastifyReply, next) => {
      const page = (await next()) as { totalCount: number; items: { itemId: string }[] }
      const channel = tryResolve(ctx, request)
      if (!channel) return page
      await sleep(RACE_WINDOW_MS)
      const load = (id: string) => ctx.store.getItem(channel.channelId, id) as ItemRecord
      return { totalCount: page.totalCount, items: page.items.map((i) => itemView(channel, load(i.itemId))) }
    })
  },
}

/**
 * §4.1 Sign in: "Header: MMS-DEVICE-ID (required, any value)"; §2.3 creator: "user id, then a separator, then a
 * user-name and domain part, then a slash and device id"; §5 the password grant (a wrong password gets no session).
 * Concurrent sign-ins of one user name are coalesced (a single-flight around the slow password hash): a sign-in
 * that arrives while another of the same user name is in flight is answered that one's session. Two devices of
 * one user signing in together get one token, bound to the first device (so the second device's channels name the
 * first device in creator), and a sign-in with a wrong password sent together with a right one gets the session.
 */
function signInCoalesced(): CatalogFault {
  const inFlight = new Map<string, Promise<unknown>>()
  const userNameOf = (request: FastifyRequest): string | undefined => {
    const body = request.body as Record<string, unknown> | undefined
    const query = request.query as Record<string, unknown> | undefined
    const name = (body && typeof body === 'object' ? body.username : undefined) ?? query?.username
    return typeof name === 'string' ? name.toLowerCase() : undefined
  }
  return {
    name: 'r14d-signin-coalesced-by-user',
    area: 'signin',
    depth: 'deep',
    clause: ['channels.get.creator-device', 'signin.wrong-password.refused'],
    description: `sign-ins of one user name within ~${SHORT_RACE_MS} ms are coalesced: the later one (another device, even a wrong password) is answered the first one's session and token`,
    consequences: [
      {
        clause: 'signin.bearer.works',
        reason: "a sign-in coalesced with another user's sign-in of the same account on a shared device id is answered that sign-in's session",
        sometimes: "only when the run's sign-ins of one account meet within the coalescing window, which depends on how the checks interleave",
      },
      {
        clause: 'signin.device-id.required',
        reason: 'a sign-in without MMS-DEVICE-ID coalesced with a sign-in of the same account is answered its session instead of a refusal',
        sometimes: "only when the run's sign-ins of one account meet within the coalescing window, which depends on how the checks interleave",
      },
    ],
    install(app: FastifyInstance) {
      aroundHandler(app, 'users.signIn', async (request: FastifyRequest, reply: FastifyReply, next) => {
        const key = userNameOf(request)
        if (key === undefined) return next()
        const pending = inFlight.get(key)
        if (pending) {
          reply.header('cache-control', 'no-store')
          return pending
        }
        const run = (async () => {
          await sleep(SHORT_RACE_MS) // the password hash
          return next()
        })()
        inFlight.set(key, run)
        try {
          return await run
        } finally {
          inFlight.delete(key)
        }
      })
    },
  }
}

/** Round 14's faults of this region kept out of the catalogue, and why. */
export const ROUND14_DEVICE_RACE_OPEN: OpenFault[] = [
  {
    fault: deviceLessRecipientUncounted,
    why: "needs a recipient who never signed in (no device at all): every account of a run signs in, the spec has no way to make a user, and sending to a deployment's other users would message real people",
  },
  {
    fault: signInCoalesced(),
    why: "caught in every run on its own clauses, but not precise: every sign-in of an account that meets another of the same account inside the window gets that one's answer (a token of another device, a 401 of a wrong password), so which further sign-in checks fail depends on how the run's checks interleave",
  },
]

/** Blind round 14's faults of devices, people and races (docs/detection.md). */
export const ROUND14_DEVICE_RACE_FAULTS: CatalogFault[] = [statusOnlyFromSendingDevice(), pushCountsSessions(), fetchDeleteRace]
