import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import { channelOf } from './deep-common'
import { addRouteHook } from './kit'
import type { CatalogFault } from './types'

/** Blind round 13 (c): faults written from the spec's words only. */

/**
 * §4.2 Delete all items: "Only the channel owner may delete items this way." §4.2: "Success of the four delete
 * operations ... (delete channel, delete one tag, delete all tags, delete all items) is status 200." §2.3 creator:
 * "composite owner identifier: user id, then a separator, then a user-name and domain part, then a slash and device id".
 *
 * The owner check compares the channel's composite `creator` with the same composite built from the caller's
 * session, device id included: the owner signed in on a second device (another MMS-DEVICE-ID) is refused with 403.
 * From the device the channel was created on, and for every other user, the answer is right.
 */
const deleteAllOwnerByCreatorDevice: CatalogFault = {
  name: 'r13c-items-deleteall-creator-device',
  area: 'items',
  depth: 'deep',
  clause: 'items.delete-all.status',
  description: "delete all items compares the channel's creator (user and device) with the caller's session: the owner on a second device gets 403",
  install(app, ctx) {
    addRouteHook(app, 'items.deleteAll', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      const channel = channelOf(ctx, request)
      if (caller?.kind !== 'USER' || !channel) return
      const creator = `${channel.ownerId}/${channel.ownerDeviceId}`
      const session = `${caller.user.userId}/${caller.deviceId}`
      if (channel.ownerId === caller.user.userId && creator !== session) throw fail('NOT_OWNER')
    })
  },
}

/**
 * §4.3 Send to user ids: "In this operation `requested` counts matched users, `sent` counts users for whom a push
 * was sent". §1: "A caller can send a message to one or many users by user id".
 *
 * A "do not notify yourself" filter is applied to the recipient list before matching instead of to the devices
 * woken: a sender who lists its own user id is dropped from the matched users. Sending to itself alone answers
 * requested 0; to itself and another user, requested 1, and no message id for itself.
 */
const sendDropsSender: CatalogFault = {
  name: 'r13c-messages-self-not-counted',
  area: 'messages',
  depth: 'deep',
  clause: 'messages.send.requested',
  description: "send_to_user_ids drops the caller's own user id from the recipients before matching: a sender listing itself is not counted nor sent to",
  install(app) {
    addRouteHook(app, 'messages.send', 'preHandler', async (request: FastifyRequest) => {
      const caller = request.caller
      if (caller?.kind !== 'USER') return
      const body = request.body as { recipientUserIds: string[] }
      body.recipientUserIds = body.recipientUserIds.filter((id) => id !== caller.user.userId)
    })
  },
}

export const R13C_FAULTS: readonly CatalogFault[] = [deleteAllOwnerByCreatorDevice, sendDropsSender]
