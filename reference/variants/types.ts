import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context'
import type { PushGateway } from '../push-gateway'
import type { Seed } from '../seed'
import type { Store } from '../store'

/** The spec areas a variant belongs to (the areas of the suite's clause registry, repeated: the server imports nothing of the suite). */
export type VariantArea = 'signin' | 'users' | 'channels' | 'private' | 'subscriptions' | 'tags' | 'items' | 'messages' | 'push' | 'auth' | 'http'

/**
 * A deployment variant: a way a correct server may behave where the spec leaves the choice open (a "not
 * shown", a silence, a broader reading of its words) or a reality of a real deployment (a busy shared
 * server, lagging reads). The suite must give the same verdict against the reference server with any
 * variant on as without: a failure there is a false alarm of the suite, not a fault of the server.
 *
 * A variant changes the server through the same seams as a fault (faults/kit.ts): it wraps the store or the
 * push gateway, or installs hooks before the routes are registered; a variant may also change the seed (the
 * seeded users' ids, say). With none switched on, none of it runs.
 */
export interface Variant {
  /** kebab-case, unique; what `--variant` takes. */
  name: string
  area: VariantArea
  /** One line: what this server does differently. */
  description: string
  /** Why that is conformant: the spec's words (or silence) that allow it. */
  reading: string
  /** The data the server starts with (its application and users), before the store is filled from it. */
  wrapSeed?(seed: Seed): Seed
  wrapStore?(store: Store): Store
  wrapGateway?(gateway: PushGateway): PushGateway
  install?(app: FastifyInstance, ctx: ServerContext): void
}
