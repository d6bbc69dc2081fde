import { callerOf } from '../auth'
import { before } from './common'
import type { Variant } from './types'

/**
 * Correct servers written from the spec alone, each choosing differently from the
 * reference where the spec's words or its silence allow it. Written without looking at the suite: any
 * check that fails one of them is a candidate false alarm.
 */

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

export const BLIND_SERVER_VARIANTS: readonly Variant[] = [unknownTargetsEmpty]
