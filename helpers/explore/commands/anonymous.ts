/** A caller without a token on every operation (suites/authorization.test.ts). */
import fc from 'fast-check'
import type { Api } from '../../http/api'
import type { Exchange } from '../../http/client'
import { callerName, refused, wide } from '../judge'
import { Exec } from '../state'
import { Cmd, slotArb, slotOf, type Weighted, weighted } from './base'

const ANON_OPS = [
  'get',
  'create',
  'publish',
  'delete',
  'subscribe',
  'unsubscribe',
  'subscriptions',
  'summary',
  'tags',
  'getTags',
  'deleteTag',
  'deleteTags',
  'fetch',
  'getItems',
  'deleteItems',
  'deleteAll',
  'search',
  'users',
  'userQuery',
  'send',
  'status',
  'push',
] as const
type AnonOp = (typeof ANON_OPS)[number]

class Anonymous extends Cmd {
  constructor(
    readonly slot: number,
    readonly op: AnonOp,
  ) {
    super()
  }
  toString(): string {
    return `an anonymous caller (no token) tries ${this.op} on s${this.slot}`
  }
  async exec(x: Exec): Promise<void> {
    const slot = slotOf(x, this.slot)
    const n = slot.name
    const send: Record<AnonOp, (api: Api) => Promise<Exchange>> = {
      get: (api) => api.getChannel(n),
      create: (api) => api.createChannel({ channelName: n }),
      publish: (api) => api.publish(n, { content: { ref: x.newRef(), text: 'anonymous' } }),
      delete: (api) => api.deleteChannel(n),
      subscribe: (api) => api.subscribe(n),
      unsubscribe: (api) => api.unsubscribe(n),
      subscriptions: (api) => api.subscriptions(n),
      summary: (api) => api.summary(n),
      tags: (api) => api.addTags(n, ['anon']),
      getTags: (api) => api.getTags(n),
      deleteTag: (api) => api.deleteTag(n, 'red'),
      deleteTags: (api) => api.deleteTags(n),
      fetch: (api) => api.fetchItems(n, wide()),
      getItems: (api) =>
        api.getItems(
          n,
          [...x.refs.values()]
            .map((r) => r.itemId)
            .filter((id): id is string => id !== null)
            .slice(0, 2)
            .concat('0'),
        ),
      deleteItems: (api) =>
        api.deleteItems(
          n,
          [...x.refs.values()]
            .map((r) => r.itemId)
            .filter((id): id is string => id !== null)
            .slice(0, 2)
            .concat('0'),
        ),
      deleteAll: (api) => api.deleteAllItems(n),
      search: (api) => api.searchChannels({ channelName: n }),
      users: (api) => api.listUsers(),
      userQuery: (api) => api.searchUsers(`userIdentifier:${x.userId('A')}`),
      send: (api) => api.sendToUserIds({ receipt: false, recipientUserIds: [x.userId('B')], content: { text: 'anonymous' } }),
      status: (api) => api.deliveryStatus(`${'0'.repeat(28)}dead`),
      push: (api) => api.pushToUser(x.userId('B'), { action: 'PUSH', name: 'anonymous', payload: { title: 'anonymous' } }),
    }
    if (this.op === 'create') {
      x.shared.ledger.created(n, null, false)
      slot.owners.add(null)
    }
    const ex = await x.call('anon', send[this.op])
    refused(x, ex, 'auth.token-required', `${callerName('anon')} ${ex.request.method} ${ex.request.url}`)
    if (this.op === 'create' && !slot.channel) x.shared.ledger.deleted(n, null, false)
  }
}

/** The anonymous commands the explore run draws from, each with its weight (the order is part of a seed's meaning). */
export function anonymousCommands(): Weighted[] {
  return [
    weighted(
      fc.tuple(slotArb, fc.constantFrom<AnonOp>(...ANON_OPS)).map(([s, op]) => new Anonymous(s, op)),
      1,
    ),
  ]
}
