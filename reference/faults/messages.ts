import type { FastifyRequest } from 'fastify'
import { fail } from '../errors'
import type { CatalogFault } from './types'
import { addRouteHook, rewriteJson } from './kit'

/** Direct messages (§4.3, §2.7, §2.8) and push (§4.4, §2.8). */

export const MESSAGE_FAULTS: readonly CatalogFault[] = [
  {
    name: 'messages-unknown-ids-counted',
    area: 'messages',
    clause: ['messages.send.unknown-not-matched', 'messages.send.requested'],
    description: 'send counts every id given as requested, unknown user ids included',
    install: (app) =>
      rewriteJson(app, 'messages.send', (result, request) => ({
        ...result,
        count: { ...result.count, requested: new Set((request.body as { recipientUserIds: string[] }).recipientUserIds).size },
      })),
  },
  {
    name: 'messages-sent-counts-devices',
    area: 'messages',
    clause: ['messages.send.counts-add-up', 'messages.send.recipients'],
    description: 'send counts the devices woken as sent, not the users',
    install: (app, ctx) =>
      rewriteJson(app, 'messages.send', (result) => ({
        ...result,
        count: {
          ...result.count,
          sent: result.sentList.reduce((n: number, e: { recipientUsername: string }) => n + ctx.store.listDevices(e.recipientUsername).length, 0),
        },
      })),
  },
  {
    name: 'messages-recipient-user-name',
    area: 'messages',
    clause: 'messages.send.recipients',
    description: "recipientUsername holds the recipient's user name, as its name says, instead of the user id",
    consequences: [{ clause: 'messages.status.agrees', reason: "a delivery record's recipient is compared with the recipientUsername of the sentList entry" }],
    install: (app, ctx) =>
      rewriteJson(app, 'messages.send', (result) => ({
        ...result,
        sentList: result.sentList.map((e: { recipientUsername: string }) => ({ ...e, recipientUsername: ctx.store.getUser(e.recipientUsername)?.userName })),
      })),
  },
  {
    name: 'messages-sent-message-id-renamed',
    area: 'messages',
    clause: 'messages.send.shape',
    description: 'send-result sentList entries carry the message id as sentMessageId instead of messageId',
    // The checks of counts, recipients and options read their send result against the send-result schema, which
    // requires messageId: they end blocked by messages.send.shape, not failed under their own clauses.
    consequences: [{ clause: 'http.no-extra-fields', reason: 'the renamed field is an undocumented one' }],
    install: (app) =>
      rewriteJson(app, 'messages.send', (result) => ({
        ...result,
        sentList: result.sentList.map(({ messageId, ...e }: Record<string, unknown>) => ({ sentMessageId: messageId, ...e })),
      })),
  },
  {
    name: 'messages-status-no-state',
    area: 'messages',
    clause: 'messages.status.shape',
    description: 'delivery status records leave out state',
    consequences: [{ clause: 'messages.status.agrees', reason: 'the records are read against the delivery-list schema, which requires state' }],
    install: (app) => rewriteJson(app, 'messages.status', (list: Record<string, unknown>[]) => list.map(({ state: _, ...r }) => r)),
  },
]

export const PUSH_FAULTS: readonly CatalogFault[] = [
  {
    name: 'push-wakeup-refused',
    area: 'push',
    clause: 'push.actions',
    description: 'push refuses action WAKEUP (400): only visible pushes are accepted',
    consequences: [
      { clause: 'push.counts', reason: 'the check pushes with action WAKEUP' },
      { clause: 'push.shape', reason: 'the check pushes with action WAKEUP' },
    ],
    install: (app) =>
      addRouteHook(app, 'push.user', 'preHandler', async (request: FastifyRequest) => {
        if ((request.body as { action: string }).action === 'WAKEUP') throw fail('BAD_REQUEST', 'action must be PUSH')
      }),
  },
  {
    name: 'push-sent-message-id',
    area: 'push',
    clause: 'push.shape',
    description: 'push sentList entries carry messageId instead of pushId',
    consequences: [{ clause: 'http.no-extra-fields', reason: 'the renamed field is an undocumented one' }],
    install: (app) =>
      rewriteJson(app, 'push.user', (result) => ({
        ...result,
        sentList: result.sentList.map(({ pushId, ...e }: Record<string, unknown>) => ({ messageId: pushId, ...e })),
      })),
  },
  {
    name: 'push-counts-swapped',
    area: 'push',
    clause: 'push.counts',
    description: 'push answers count.sent and count.unsent the wrong way round',
    install: (app) =>
      rewriteJson(app, 'push.user', (result) => ({ ...result, count: { ...result.count, sent: result.count.unsent, unsent: result.count.sent } })),
  },
]
