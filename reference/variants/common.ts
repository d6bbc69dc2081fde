import { AsyncLocalStorage } from 'node:async_hooks'
import type { RouteOptions } from 'fastify'
import { MemoryStore, type Store } from '../store'
import type { Variant } from './types'

/** Realities of deployments that touch every area: here, reads served by a replica that lags behind. */

/** How long a write takes to reach the replica GETs read from. */
export const REPLICA_LAG_MS = 400

/** Channel data is replicated; users, devices and tokens are not (a sign-in must work at once). */
const REPLICATED_WRITES = [
  'addChannel',
  'deleteChannel',
  'addTags',
  'removeTag',
  'clearTags',
  'addSubscription',
  'removeSubscriptions',
  'addItem',
  'deleteItem',
  'clearItems',
  'addMessage',
] as const satisfies readonly (keyof Store)[]

const REPLICATED_READS = [
  'getChannel',
  'findPublicChannel',
  'findPrivateChannel',
  'listPublicChannels',
  'findSubscription',
  'listSubscriptions',
  'getItem',
  'listItems',
  'getMessage',
] as const satisfies readonly (keyof Store)[]

/**
 * A primary that takes the writes and a replica that receives each one REPLICA_LAG_MS later, in order.
 * GET handlers run inside `readsFromReplica`, so what they read is the replica; every other method (the
 * writes' own look-ups included) reads the primary, as a write path on a real primary does.
 */
function laggingReads(): Variant {
  const replica = new AsyncLocalStorage<true>()
  return {
    name: 'lagging-reads',
    area: 'http',
    description: `GETs read a replica that receives each write of channel data ${REPLICA_LAG_MS} ms after it was made`,
    reading: 'the spec promises no read-after-write consistency anywhere; a read replica or a cache in front of the reads is a common deployment',
    wrapStore: (primary) => {
      const copy = new MemoryStore()
      let lastApplied = 0
      const writes = new Map<PropertyKey, (...args: unknown[]) => unknown>()
      for (const name of REPLICATED_WRITES) {
        const write = (primary[name] as (...args: unknown[]) => unknown).bind(primary)
        writes.set(name, (...args: unknown[]) => {
          // The replica gets its own copies: the primary's records are changed in place by later writes.
          const later = structuredClone(args)
          const at = Math.max(Date.now() + REPLICA_LAG_MS, lastApplied)
          lastApplied = at
          setTimeout(() => (copy[name] as (...a: unknown[]) => unknown)(...later), at - Date.now()).unref()
          return write(...args)
        })
      }
      const reads = new Set<PropertyKey>(REPLICATED_READS)
      return new Proxy(primary, {
        get(target, prop, receiver) {
          const write = writes.get(prop)
          if (write) return write
          const from = reads.has(prop) && replica.getStore() ? copy : target
          const value = Reflect.get(from, prop, from === target ? receiver : from)
          return typeof value === 'function' ? value.bind(from) : value
        },
      })
    },
    install: (app) => {
      app.addHook('onRoute', (route: RouteOptions) => {
        const methods = Array.isArray(route.method) ? route.method : [route.method]
        if (!methods.includes('GET') && !methods.includes('HEAD')) return
        const handler = route.handler
        route.handler = function readsFromReplica(this: unknown, request, reply) {
          return replica.run(true, () => handler.call(this as never, request, reply))
        } as RouteOptions['handler']
      })
    },
  }
}

/** How often the coarse clock of `clock-ticks-16ms` moves (the default timer of some operating systems). */
export const CLOCK_TICK_MS = 16

/** A server whose clock moves in ticks: every time it stamps (creation, items, lastPublishedTime) is a multiple of the tick. */
const clockTicks: Variant = {
  name: 'clock-ticks-16ms',
  area: 'http',
  description: `the server's clock moves in ${CLOCK_TICK_MS} ms ticks: times still show milliseconds, but two publishes (or a publish and a read) within a tick share one time`,
  reading:
    '§2.3 states millisecond precision for how channel timestamps are written, not the resolution of the clock behind them; §2.4 and §2.6 state no precision at all',
  install: (_app, ctx) => {
    const inner = ctx.clock
    ctx.clock = { ...inner, now: () => Math.floor(inner.now() / CLOCK_TICK_MS) * CLOCK_TICK_MS }
  },
}

export const COMMON_VARIANTS: readonly Variant[] = [laggingReads(), clockTicks]
