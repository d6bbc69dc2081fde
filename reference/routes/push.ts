import type { FastifyPluginAsync } from 'fastify'
import { callerOf } from '../auth'
import type { RoutePluginOptions } from '../context'
import { fail } from '../errors'
import { newId } from '../ids'
import { MAX_PAYLOAD_SIZE, payloadSize } from '../limits'

/**
 * Push to a user (§4.4): one push per active device through the gateway. The predefined payload keys are
 * type-checked (title, body, sound and icon are strings, badge a count) because the platform services
 * would refuse anything else; other keys pass through as data.
 */

const pushSchema = {
  type: 'object',
  required: ['action', 'name', 'payload'],
  properties: {
    action: { type: 'string', enum: ['PUSH', 'WAKEUP'] },
    name: { type: 'string', minLength: 1, maxLength: 255 },
    payload: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        body: { type: 'string' },
        sound: { type: 'string' },
        icon: { type: 'string' },
        badge: { type: 'integer', minimum: 0 },
      },
    },
  },
} as const

interface PushBody {
  action: 'PUSH' | 'WAKEUP'
  name: string
  payload: Record<string, unknown>
}

const pushRoutes: FastifyPluginAsync<RoutePluginOptions> = async (app, { ctx }) => {
  const { store, gateway } = ctx

  app.post<{ Params: { recipientUserId: string }; Body: PushBody }>(
    '/push/user/:recipientUserId',
    { config: { id: 'push.user', auth: 'user' }, schema: { body: pushSchema } },
    async (request) => {
      const { user: sender } = callerOf(request)
      const recipient = store.getUser(request.params.recipientUserId)
      if (!recipient || recipient.clientId !== sender.clientId) {
        throw fail('USER_NOT_FOUND', `user ${request.params.recipientUserId} not found`)
      }
      const { action, name, payload } = request.body
      const size = payloadSize(payload)
      if (size > MAX_PAYLOAD_SIZE) throw fail('PAYLOAD_TOO_LARGE', `payload is ${size} bytes; the limit is ${MAX_PAYLOAD_SIZE}`)

      const devices = store.listDevices(recipient.userId)
      const sentList: { pushId: string; deviceId: string }[] = []
      const unsentList: { deviceId: string; reason: string }[] = []
      for (const { deviceId } of devices) {
        const pushId = newId()
        const outcome = gateway.send({ pushId, kind: 'push', userId: recipient.userId, deviceId, action, name, payload })
        if (outcome.ok) sentList.push({ pushId, deviceId })
        else unsentList.push({ deviceId, reason: outcome.reason })
      }
      return {
        count: { requested: devices.length, sent: sentList.length, unsent: unsentList.length },
        sentList,
        unsentList,
      }
    },
  )
}

export default pushRoutes
