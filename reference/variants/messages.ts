import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth'
import { overrideStore, rewriteJson, wrapHandler } from '../faults/kit'
import type { PushGateway } from '../push-gateway'
import { before } from './common'
import type { Variant } from './types'

/**
 * Direct messages (§4.3, §2.7) and push (§4.4, §2.8) where the spec leaves the choice open, and the
 * deployment where nothing can be pushed: devices signed in over REST have no push token.
 */

/** A gateway with no push token for any device: every push is refused. */
const noPushToken = (): PushGateway => ({ send: () => ({ ok: false, reason: 'no push token registered for this device' }) })

export const MESSAGE_VARIANTS: readonly Variant[] = [
  {
    name: 'messages-delivery-states',
    area: 'messages',
    description: 'delivery records report states other than WAKEUP_REQUIRED (DELIVERED with receivedAt set, PENDING with null)',
    reading: '§3: "Other values of state: not shown"; §2.7 receivedAt is "timestamp or null"',
    install: (app) =>
      rewriteJson(app, 'messages.status', (records) =>
        Array.isArray(records)
          ? records.map((r, i) => (i % 2 === 0 ? { ...r, state: 'DELIVERED', receivedAt: r.queuedAt } : { ...r, state: 'PENDING', receivedAt: null }))
          : records,
      ),
  },
  {
    name: 'messages-sent-per-device',
    area: 'messages',
    description: 'sentList has one entry per device woken, with its deviceId (sent still counts users)',
    reading: '§2.8: a sentList element has "deviceId (string or null)"; §4.3 counts users in sent, but does not say sentList has one entry per user',
    install: (app, ctx) =>
      rewriteJson(app, 'messages.send', (result) => ({
        ...result,
        sentList: result.sentList.flatMap((e: { messageId: string }) =>
          (ctx.store.getMessage(e.messageId)?.deliveries ?? []).map((d) => ({ ...e, deviceId: d.deviceId })),
        ),
      })),
  },
  {
    name: 'messages-one-id-per-send',
    area: 'messages',
    description: "one send has one message id for all its recipients; its delivery status lists every recipient's records",
    reading: '§4.3 gives each sentList element a messageId but does not say the ids differ per recipient',
    install: (app) => {
      const members = new Map<string, string[]>()
      rewriteJson(app, 'messages.send', (result) => {
        const ids = [...result.sentList, ...result.unsentList].map((e: { messageId: string }) => e.messageId)
        if (ids.length === 0) return result
        const shared = ids[0]!
        members.set(shared, ids)
        const relabel = (e: object) => ({ ...e, messageId: shared })
        return { ...result, sentList: result.sentList.map(relabel), unsentList: result.unsentList.map(relabel) }
      })
      wrapHandler(
        app,
        'messages.status',
        (original) =>
          async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
            const params = request.params as { messageId: string }
            const ids = members.get(params.messageId)
            if (!ids) return (original as (...a: unknown[]) => unknown).call(this, request, reply)
            const shared = params.messageId
            const records: unknown[] = []
            for (const id of ids) {
              params.messageId = id
              try {
                records.push(
                  ...(await (original as (...a: unknown[]) => Promise<object[]>).call(this, request, reply)).map((r) => ({ ...r, messageId: shared })),
                )
              } catch {
                // A recipient's part the caller may not see (or not yet stored) is left out.
              }
            }
            params.messageId = shared
            return records
          } as never,
      )
    },
  },
]

// Written blind, round 4 (docs/detection.md, "Round 4"): correct servers by an author who had not read the suite; listed in the array below.

const unknownTargetsEmpty: Variant = {
  name: 'unknown-targets-empty',
  area: 'push',
  description:
    'push to an unknown user id answers 200 with all counts 0 and empty lists; delivery status of an unknown (or not visible) message id answers 200 []',
  reading:
    '§4.4 "Pushes to all active devices of the user" and counts devices — an unknown id has none; §4.3 delivery status: "Response: array of Message delivery status record" — an unknown id has no records; §7 shows no error for either',
  install: (app, ctx) => {
    before(app, 'push.user', async (request, next) => {
      const { user } = callerOf(request)
      const recipient = ctx.store.getUser((request.params as { recipientUserId: string }).recipientUserId)
      if (recipient && recipient.clientId === user.clientId) return next()
      return { count: { requested: 0, sent: 0, unsent: 0 }, sentList: [], unsentList: [] }
    })
    before(app, 'messages.status', async (request, next) => {
      const { user } = callerOf(request)
      const message = ctx.store.getMessage((request.params as { messageId: string }).messageId)
      if (message && (message.senderId === user.userId || message.recipientId === user.userId)) return next()
      return []
    })
  },
}

export const PUSH_VARIANTS: readonly Variant[] = [
  {
    name: 'push-no-push-token',
    area: 'push',
    description: 'no device has a push token: every push and every direct message is unsent (empty sentList, unsent counts)',
    reading: '§4.4 pushes to "active devices"; a device signed in over REST has none of the platform tokens APNs or FCM need, and §4.3 has unsent for that',
    wrapGateway: noPushToken,
  },
  {
    name: 'push-unsent-strings',
    area: 'push',
    description: 'no device has a push token, and unsentList elements are plain strings (device ids for push, user ids for messages)',
    reading: '§4.3 and §4.4: "Element shape of unsentList: not shown"',
    wrapGateway: noPushToken,
    install: (app) => {
      rewriteJson(app, 'push.user', (result) => ({ ...result, unsentList: result.unsentList.map((e: { deviceId: string }) => e.deviceId) }))
      rewriteJson(app, 'messages.send', (result) => ({
        ...result,
        unsentList: result.unsentList.map((e: { recipientUsername: string }) => e.recipientUsername),
      }))
    },
  },
  {
    name: 'unsent-grouped-by-reason',
    area: 'push',
    description:
      'no device has a push token, and unsentList has one element per reason, listing every device (push) or every recipient and message id (messages) it holds',
    reading: '§4.3 and §4.4: "Element shape of unsentList: not shown"; the counts count devices (push) or users (messages), not unsentList elements',
    wrapGateway: noPushToken,
    install: (app) => {
      /** Elements of one reason together: `{reason, <key>: [values…]}` for each key the elements carry. */
      const grouped = (list: Record<string, unknown>[], keys: Record<string, string>) => {
        const byReason = new Map<string, Record<string, unknown[]>>()
        for (const e of list) {
          const reason = String(e.reason ?? 'not sent')
          const group = byReason.get(reason) ?? Object.fromEntries(Object.values(keys).map((k) => [k, [] as unknown[]]))
          byReason.set(reason, group)
          for (const [from, to] of Object.entries(keys)) if (e[from] !== undefined) group[to]!.push(e[from])
        }
        return [...byReason].map(([reason, group]) => ({ reason, ...group }))
      }
      rewriteJson(app, 'push.user', (result) => ({ ...result, unsentList: grouped(result.unsentList, { deviceId: 'deviceIds' }) }))
      rewriteJson(app, 'messages.send', (result) => ({
        ...result,
        unsentList: grouped(result.unsentList, { recipientUsername: 'recipientUserIds', messageId: 'messageIds' }),
      }))
    },
  },
  {
    name: 'push-no-devices',
    area: 'push',
    description: 'a sign-in registers no device: users have no active device, so a push reaches nothing (all counts 0) and messages are unsent',
    reading: 'the spec does not say that a sign-in registers a device (§4.1 only requires the MMS-DEVICE-ID header)',
    wrapStore: (store) => overrideStore(store, { registerDevice: () => () => undefined }),
  },
  // written blind, round 4 (docs/detection.md, "Round 4")
  unknownTargetsEmpty,
]
