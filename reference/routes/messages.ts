import type { FastifyPluginAsync } from 'fastify'
import { callerOf } from '../auth'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { newId } from '../ids'
import type { DeliveryRecord, MessageRecord } from '../model'
import { MAX_PAGE_SIZE, objectSchema } from '../schemas'
import { MAX_PAYLOAD_SIZE, payloadSize } from '../limits'
import { deliveryViews } from '../views'

/**
 * Direct messages (§4.3). Each matched recipient gets a message id of its own; the message wakes each of
 * the recipient's active devices through the push gateway, and the delivery status lists one record per
 * device woken (state WAKEUP_REQUIRED until a device fetches it, which no endpoint of the spec does).
 */

const sendSchema = {
  type: 'object',
  required: ['receipt', 'recipientUserIds', 'content'],
  properties: {
    receipt: { type: 'boolean' },
    recipientUserIds: { type: 'array', minItems: 1, maxItems: MAX_PAGE_SIZE, items: { type: 'string' } },
    content: objectSchema,
    metadata: objectSchema,
  },
} as const

interface SendBody {
  receipt: boolean
  recipientUserIds: string[]
  content: Record<string, unknown>
  metadata?: Record<string, unknown>
}

const messageRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, clock, gateway, application } = ctx

  app.post<{ Body: SendBody }>(
    '/messages/send_to_user_ids',
    { config: { id: 'messages.send', auth: 'user' }, schema: { body: sendSchema } },
    async (request) => {
      const { user: sender } = callerOf(request)
      const { receipt, recipientUserIds, content, metadata } = request.body
      const size = payloadSize({ content, metadata })
      if (size > MAX_PAYLOAD_SIZE) throw fail('PAYLOAD_TOO_LARGE', `message is ${size} bytes; the limit is ${MAX_PAYLOAD_SIZE}`)

      // Unknown ids are not counted; an id given twice is one recipient.
      const recipients = [...new Set(recipientUserIds)].flatMap((id) => {
        const user = store.getUser(id)
        return user && user.clientId === sender.clientId ? [user] : []
      })
      const sentList: { messageId: string; deviceId: null; recipientUsername: string }[] = []
      const unsentList: { messageId: string; recipientUsername: string; reason: string }[] = []

      for (const recipient of recipients) {
        const messageId = newId()
        const now = clock.now()
        const devices = store.listDevices(recipient.userId)
        const deliveries: DeliveryRecord[] = []
        let reason = 'no active device'
        for (const device of devices) {
          const outcome = gateway.send({
            pushId: newId(),
            kind: 'message',
            userId: recipient.userId,
            deviceId: device.deviceId,
            action: 'WAKEUP',
            name: 'message',
            payload: { messageId, sender: sender.userId },
          })
          if (outcome.ok) deliveries.push({ deviceId: device.deviceId, state: 'WAKEUP_REQUIRED', queuedAt: now, receivedAt: null })
          else reason = outcome.reason
        }
        const message: MessageRecord = {
          messageId,
          appId: application.appId,
          senderId: sender.userId,
          recipientId: recipient.userId,
          receipt,
          content,
          metadata: metadata ?? null,
          queuedAt: now,
          deliveries,
        }
        store.addMessage(message)
        if (deliveries.length > 0) sentList.push({ messageId, deviceId: null, recipientUsername: recipient.userId })
        else unsentList.push({ messageId, recipientUsername: recipient.userId, reason })
      }
      return {
        count: { requested: recipients.length, sent: sentList.length, unsent: unsentList.length },
        sentList,
        unsentList,
      }
    },
  )

  app.get<{ Params: { messageId: string } }>('/messages/:messageId', { config: { id: 'messages.status', auth: 'user' } }, async (request) => {
    const { user } = callerOf(request)
    const message = store.getMessage(request.params.messageId)
    // Only the sender and the recipient learn that a message exists.
    if (!message || (message.senderId !== user.userId && message.recipientId !== user.userId)) {
      throw fail('MESSAGE_NOT_FOUND', `message ${request.params.messageId} not found`)
    }
    return deliveryViews(message)
  })
}

export default messageRoutes
