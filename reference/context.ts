import type { Application, UserRecord } from './model'
import type { PushGateway } from './push-gateway'
import type { Store } from './store'

/** Source of "now" in epoch milliseconds; injected so tests can control time. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** What every route plugin needs; handed to each as its plugin options. */
export interface ServerContext {
  store: Store
  application: Application
  clock: Clock
  gateway: PushGateway
  /** Lifetime of user and application tokens, in seconds (the spec's sample expires_in is 7200). */
  tokenLifetimeSeconds: number
  /**
   * The channel names this server accepts (§2.3: "not shown"); CHANNEL_NAME_RE unless a variant or a fault
   * chooses otherwise in its install(). A create and every path are held to it.
   */
  channelNames: { pattern: RegExp; rule: string }
}

export interface RoutePluginOptions {
  ctx: ServerContext
}

/** Who is calling: set by the authentication hook from the bearer token. */
export type Caller = { kind: 'USER'; user: Readonly<UserRecord>; deviceId: string } | { kind: 'APPLICATION'; deviceId: string }

/** Which credential a route needs; read by the authentication hook from the route's config. */
export type AuthRequirement = 'none' | 'user' | 'application'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Stable route id such as 'channels.getByName', for faults and diagnostics. */
    id?: string
    auth?: AuthRequirement
  }
  interface FastifyRequest {
    caller: Caller | null
  }
  interface FastifyInstance {
    /** The server's store, gateway, clock and application: for tests and tools, not for handlers. */
    reference: ServerContext
  }
}
