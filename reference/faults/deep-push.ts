import type { FastifyReply, FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { platformOf } from '../push-gateway'
import { sleep } from './deep-common'
import { addRouteHook, overrideStore, rewriteJson } from './kit'
import type { CatalogFault, OpenFault } from './types'

/**
 * Deep faults of push to devices (§4.4), written in the blind rounds 5 to 12 from the spec's words only
 * (docs/detection.md): each shows only for a particular input, state, address, pair of users, device or concurrent
 * pair of requests. The comment on each names the spec words it breaks; its name says its round. The catalogued
 * ones are gathered as BLIND_FAULTS, the open ones (with why) as BLIND_OPEN; the earlier deep faults of the area
 * are in deep-users-messages.ts.
 */

/**
 * §4.4 "Here sent and unsent count devices" (push.counts: sent equals the length of sentList). count.sent is read
 * from one shared accumulator, reset when a push starts: two pushes within ~15 ms of each other both answer the
 * devices of both in count.sent, while each sentList lists its own.
 */
let pushSentAccumulator = 0

const lastUserOfDevice = new Map<string, string>()

/** §4.4 "Here sent and unsent count devices": with several devices, sent counts the user (1). */
const pushSentCountsUsers: CatalogFault = {
  name: 'r6-push-sent-counts-users',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description: 'push to a user with two or more reachable devices answers count.sent 1 (the user) while sentList has one entry per device',
  install(app) {
    rewriteJson(app, 'push.user', (body) => (body.sentList.length > 1 ? { ...body, count: { ...body.count, sent: 1 } } : body))
  },
}

/** §4.4 "predefined keys … title, body, sound, badge, icon" are accepted: badge 0 (clear the badge) is refused by a truthiness check. */
const pushBadgeZero: CatalogFault = {
  name: 'r6-push-badge-zero',
  area: 'push',
  depth: 'deep',
  clause: 'push.payload-keys',
  description: 'push refuses (400) a payload whose badge is 0 ("badge must be a positive integer")',
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
      const payload = (request.body as { payload?: Record<string, unknown> })?.payload
      if (payload && 'badge' in payload && !payload.badge) throw fail('BAD_REQUEST', 'payload/badge must be a positive integer')
    })
  },
}

/**
 * §4.4 predefined keys title, body, sound, badge, icon (push.payload-keys). The notification text is encoded for
 * a legacy ASCII-only channel: a title or body holding any non-ASCII character ("Grüße", "café", an emoji) is
 * refused 400.
 */
const pushNonAsciiTextRefused: CatalogFault = {
  name: 'r7-push-non-ascii-text-refused',
  area: 'push',
  depth: 'deep',
  clause: 'push.payload-keys',
  description: 'push refuses (400) a payload whose title, body, sound or icon holds a non-ASCII character',
  install(app) {
    addRouteHook(app, 'push.user', 'preValidation', async (request: FastifyRequest) => {
      const payload = (request.body as { payload?: Record<string, unknown> } | undefined)?.payload
      if (!payload || typeof payload !== 'object') return
      for (const key of ['title', 'body', 'sound', 'icon']) {
        const v = payload[key]
        if (typeof v === 'string' && /[^\x00-\x7f]/.test(v)) throw fail('BAD_REQUEST', `${key} must be ASCII`)
      }
    })
  },
}

/**
 * §4.4 "action (PUSH for visible push, WAKEUP for silent push)" (push.actions: both accepted). A silent push is
 * only allowed to the caller's own devices: WAKEUP to another user is refused 403; PUSH to another user, and
 * WAKEUP to oneself, work.
 */
const pushWakeupOtherUserRefused: CatalogFault = {
  name: 'r7-push-wakeup-other-user-refused',
  area: 'push',
  depth: 'deep',
  clause: 'push.actions',
  description: 'push refuses (403) action WAKEUP to another user; WAKEUP to oneself and PUSH to anyone work',
  consequences: [
    { clause: 'push.shape', reason: 'a WAKEUP to another user is answered 403 instead of the push result' },
    { clause: 'push.counts', reason: 'a WAKEUP to another user is answered 403, so it has no counts' },
  ],
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
      const action = (request.body as { action?: unknown } | undefined)?.action
      const recipient = (request.params as { recipientUserId: string }).recipientUserId
      if (action === 'WAKEUP' && request.caller?.kind === 'USER' && request.caller.user.userId !== recipient) {
        throw fail('PUBLISH_FORBIDDEN', 'silent push is allowed to your own devices only')
      }
    })
  },
}

const pushConcurrentSharedCounter: CatalogFault = {
  name: 'r7-push-concurrent-shared-counter',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description: 'two pushes within ~15 ms: count.sent of each adds the devices of both (one shared counter), sentList has its own',
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async () => {
      pushSentAccumulator = 0
      await sleep(15)
    })
    addRouteHook(app, 'push.user', 'onSend', async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (typeof payload !== 'string' || reply.statusCode >= 400) return payload
      const body = JSON.parse(payload)
      if (!Array.isArray(body?.sentList) || !body.count) return payload
      pushSentAccumulator += body.sentList.length
      await sleep(15)
      return JSON.stringify({ ...body, count: { ...body.count, sent: pushSentAccumulator } })
    })
  },
}

/**
 * §4.4 "predefined keys for the platform notification services are title, body, sound, badge, icon"
 * (push.payload-keys: a payload with them is accepted). badge 0 (what clears the badge) is refused 400: the
 * check is "badge must be positive".
 */
const pushBadgeZeroRefused: CatalogFault = {
  name: 'r7-push-badge-zero-refused',
  area: 'push',
  depth: 'deep',
  clause: 'push.payload-keys',
  description: 'push refuses (400) a payload whose badge is 0 (the badge check wants a positive count)',
  install(app) {
    addRouteHook(app, 'push.user', 'preValidation', async (request: FastifyRequest) => {
      const payload = (request.body as { payload?: Record<string, unknown> } | undefined)?.payload
      if (payload && typeof payload === 'object' && payload.badge === 0) throw fail('BAD_REQUEST', 'badge must be a positive count')
    })
  },
}

const r8PushSentCountsUser: CatalogFault = {
  // §4.4: "Here sent and unsent count devices."
  name: 'r8-push-sent-counts-user',
  depth: 'deep',
  area: 'push',
  clause: 'push.counts',
  description: 'push to a user with two or more active devices lists each device in sentList but answers count.sent 1 (counts the user, as send does)',
  install(app) {
    rewriteJson(app, 'push.user', (body: { count: { sent: number }; sentList: unknown[] }) =>
      body.sentList.length > 1 ? { ...body, count: { ...body.count, sent: 1 } } : body,
    )
  },
}

/** §4.4 "Pushes to all active devices of the user"; §2.8 sent counts devices and sentList lists them. */
const pushSharedDeviceDropped: CatalogFault = {
  name: 'r9-push-shared-device-dropped',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description:
    "push counts the recipient's devices from its device list but builds sentList from a registry keyed by device id: a device id on which another user signed in later is left out of sentList while still counted in sent",
  wrapStore(store) {
    lastUserOfDevice.clear()
    return overrideStore(store, {
      registerDevice: (inner) => (userId, deviceId, at) => {
        lastUserOfDevice.set(deviceId, userId)
        return inner.registerDevice(userId, deviceId, at)
      },
    })
  },
  install(app) {
    rewriteJson(app, 'push.user', (body, request) => {
      const recipient = (request.params as { recipientUserId: string }).recipientUserId
      if (!Array.isArray(body.sentList)) return body
      const kept = body.sentList.filter((e: { deviceId: string }) => (lastUserOfDevice.get(e.deviceId) ?? recipient) === recipient)
      return { ...body, sentList: kept }
    })
  },
}

/** §4.4 payload: predefined keys title, body, sound, badge, icon; action PUSH or WAKEUP — no combination is excluded. */
const pushWakeupTitleRefused: CatalogFault = {
  name: 'r9-push-wakeup-title-refused',
  area: 'push',
  depth: 'deep',
  clause: ['push.payload-keys', 'push.actions'],
  description: 'push refuses (400) action WAKEUP when the payload carries a visible key (title or body): silent pushes are taken to allow data keys only',
  consequences: [
    {
      clause: 'push.counts',
      reason: 'the push checks send WAKEUP with a title and a body, which the fault refuses, so their counts cannot be judged',
    },
    {
      clause: 'push.shape',
      reason: 'the push checks send WAKEUP with a title and a body, which the fault refuses, so their answer is no push result',
    },
  ],
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { action?: string; payload?: Record<string, unknown> }
      if (body?.action === 'WAKEUP' && body.payload && ('title' in body.payload || 'body' in body.payload)) {
        throw fail('BAD_REQUEST', 'a WAKEUP push carries no title or body')
      }
    })
  },
}

/**
 * §4.4 "action (PUSH for visible push, WAKEUP for silent push)": both are accepted. A silent push is kept
 * pending per recipient for 60 s, and a visible push to that recipient meanwhile is refused.
 */
function pushAfterWakeupRefused(): CatalogFault {
  const pending = new Map<string, number>()
  return {
    name: 'r10-push-visible-after-wakeup-refused',
    area: 'push',
    depth: 'deep',
    clause: 'push.actions',
    consequences: [
      {
        clause: 'push.counts',
        reason: 'a visible push refused after a silent one leaves no counts to judge',
        sometimes: "whether a visible push to B follows a silent one within the minute depends on the order the run's push checks take",
      },
      {
        clause: 'push.payload-keys',
        reason: 'a visible push with the predefined keys is refused after a silent one',
        sometimes: "whether a visible push to B follows a silent one within the minute depends on the order the run's push checks take",
      },
      {
        clause: 'push.shape',
        reason: 'a visible push refused after a silent one answers no {count, sentList, unsentList}',
        sometimes: "whether a visible push to B follows a silent one within the minute depends on the order the run's push checks take",
      },
    ],
    description: 'a PUSH to a user within 60 s after a WAKEUP to that user is refused (400: a silent push is pending); PUSH alone and WAKEUP always work',
    install(app, ctx) {
      addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
        const recipient = (request.params as { recipientUserId: string }).recipientUserId
        const action = (request.body as { action?: string })?.action
        const now = ctx.clock.now()
        if (action === 'WAKEUP') pending.set(recipient, now)
        else if (action === 'PUSH' && now - (pending.get(recipient) ?? -Infinity) < 60_000) {
          throw fail('BAD_REQUEST', 'a silent push to this user is pending')
        }
      })
    },
  }
}

/**
 * §4.4 "predefined keys for the platform notification services are title, body, sound, badge, icon". A
 * truthiness check on badge refuses badge 0, the value that clears an app's badge.
 */
const r10PushBadgeZeroRefused: CatalogFault = {
  name: 'r10-push-badge-zero-refused',
  area: 'push',
  depth: 'deep',
  clause: 'push.payload-keys',
  description: 'push refuses (400) a payload whose badge is 0 (a truthiness check: "badge must be a positive count")',
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
      const payload = (request.body as { payload?: Record<string, unknown> })?.payload
      if (payload && 'badge' in payload && !payload.badge) throw fail('BAD_REQUEST', 'badge must be a positive count')
    })
  },
}

const r11PushCountCachedDevices: CatalogFault = {
  // §4.4 "Pushes to all active devices of the user … Here sent and unsent count devices."
  name: 'r11-push-count-cached-devices',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description:
    "push caches the count of a recipient's first push and answers it for every later push to that user, while sentList lists the devices of now: once the recipient signed in on another device, count.sent no longer equals the length of sentList",
  install(app) {
    const counts = new Map<string, { requested: number; sent: number; unsent: number }>()
    rewriteJson(app, 'push.user', (body, request) => {
      const recipient = (request.params as { recipientUserId: string }).recipientUserId
      const cached = counts.get(recipient)
      if (!cached) {
        if (body?.count) counts.set(recipient, { ...body.count })
        return body
      }
      return { ...body, count: { ...cached } }
    })
  },
}

/**
 * §4.4 Push body `name (string identifying the push)`: the name is validated as an identifier token, so a
 * name with a space ("order shipped") is refused (400) and nothing is pushed.
 */
const pushNameWithSpace: CatalogFault = {
  name: 'r12-push-name-with-space-refused',
  area: 'push',
  depth: 'deep',
  clause: 'push.shape',
  description: 'a push whose name contains whitespace is refused with 400 (name checked as an identifier)',
  install(app) {
    addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
      const body = request.body as { name?: unknown }
      if (typeof body?.name === 'string' && /\s/.test(body.name)) throw fail('BAD_REQUEST', 'body/name must be an identifier')
    })
  },
}

/**
 * §4.4 "Here sent and unsent count devices": sent counts the platform batches (one per APNs/FCM request),
 * so a recipient with several devices on one platform shows fewer sent than its sentList holds.
 */
const pushSentCountsPlatforms: CatalogFault = {
  name: 'r12-push-sent-counts-platforms',
  area: 'push',
  depth: 'deep',
  clause: 'push.counts',
  description: 'count.sent is the number of distinct platforms (APNs/FCM) reached, not of devices: wrong for a recipient with two devices on one platform',
  install(app) {
    rewriteJson(app, 'push.user', (body) => {
      if (!Array.isArray(body?.sentList) || !body.count) return body
      const platforms = new Set(body.sentList.map((e: { deviceId: string }) => platformOf(e.deviceId)))
      return { ...body, count: { ...body.count, sent: platforms.size } }
    })
  },
}

export const BLIND_PUSH_FAULTS: readonly CatalogFault[] = [
  pushSentCountsUsers,
  pushNonAsciiTextRefused,
  pushWakeupOtherUserRefused,
  pushConcurrentSharedCounter,
  r8PushSentCountsUser,
  pushSharedDeviceDropped,
  pushWakeupTitleRefused,
  pushAfterWakeupRefused(),
  r11PushCountCachedDevices,
  pushSentCountsPlatforms,
]

/** Faults of this area kept out of the catalogue, each with why; index.ts gathers them as BLIND_OPEN. */
export const BLIND_PUSH_OPEN: readonly OpenFault[] = [
  {
    fault: pushBadgeZero,
    why: 'not a deviation the spec states: §4.4 names badge among the predefined payload keys but gives it no type nor range, so a server may refuse 0 (as round 2 found for the same fault)',
    reading: true,
  },
  {
    fault: pushBadgeZeroRefused,
    why: 'not a deviation the spec states: §4.4 names badge among the predefined payload keys but gives it no type nor range, so a server may refuse 0 (rounds 2 and 6 wrote the same fault)',
    reading: true,
  },
  {
    fault: r10PushBadgeZeroRefused,
    why: 'not a deviation the spec states: §4.4 names badge among the predefined payload keys but gives it no type nor range, so a server may refuse 0 (rounds 2, 6 and 7 wrote the same fault)',
    reading: true,
  },
  {
    fault: pushNameWithSpace,
    why: 'not a deviation the spec states: §4.5 gives name as "string identifying the push", with no alphabet; the suite lets a server refuse a text value the spec leaves open (http.input-refused) and judges what it accepted',
    reading: true,
  },
]
