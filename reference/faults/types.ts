import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context'
import type { PushGateway } from '../push-gateway'
import type { Store } from '../store'

/** The types of the fault catalogue; the area files import them from here, and index.ts only lists the faults. */

/** The spec areas of the suite's clause registry (helpers/spec/clauses.ts), repeated so the server imports nothing of the suite. */
export type FaultArea = 'signin' | 'users' | 'channels' | 'private' | 'subscriptions' | 'tags' | 'items' | 'messages' | 'push' | 'auth' | 'http'

export interface Fault {
  /** kebab-case, unique; what `--fault` takes. */
  name: string
  /** Id(s) of the spec clause(s) the fault violates (the suite's clause registry); the suite must fail one of them. */
  clause: string | readonly string[]
  /** The area of the spec the fault belongs to (the area of its first clause); every catalogued fault has one. */
  area?: FaultArea
  /** One line: what the server does wrong. */
  description: string
  /**
   * 'deep': the fault shows only for a particular input, state, sequence or boundary (a name with a dot, a
   * second page, a re-created name, maxItems 1, a resubscribe), never on the first ordinary call.
   */
  depth?: 'deep'
  /**
   * Clauses besides its own that the fault necessarily violates too, each with the reason (a server that
   * refuses every publish also refuses the publisher a publishPermission admits). The fault self-test runs
   * the whole suite and accepts failures exactly on the fault's clauses and these, and wants each of these to
   * fail (unless it says why it shows only `sometimes`).
   */
  consequences?: readonly Consequence[]
  /**
   * Correct variants (reference/variants/) this fault's server is built on, which its install() switches on
   * itself: a correct server of that kind is what the fault is to be told from (a reproducer's clean server).
   */
  builtOn?: readonly string[]
  wrapStore?(store: Store): Store
  wrapGateway?(gateway: PushGateway): PushGateway
  install?(app: FastifyInstance, ctx: ServerContext): void
}

/** A fault of the catalogue: always with its area. */
export type CatalogFault = Fault & { area: FaultArea }

/** A fault written for the catalogue that the fixed run does not catch yet, kept out of it with the reason why. */
export interface OpenFault {
  fault: CatalogFault
  why: string
  /**
   * Not a deviation: a reading the spec allows (its `why` says which words leave it open). The variant self-test
   * runs the suite against each such server and wants it judged conformant, as it does a variant's.
   */
  reading?: true
}

/** A clause a fault violates besides its own, and why. */
export interface Consequence {
  clause: string
  reason: string
  /**
   * Why the fault shows under this clause in some runs only (it depends on how concurrent requests interleave).
   * Without it, the fault self-test wants every run of the fault to fail the clause: a consequence that no
   * longer shows is stale.
   */
  sometimes?: string
}

/** A fault name that is not in the catalogue: a usage error of whoever asked for it. */
export class UnknownFaultError extends Error {
  constructor(
    readonly unknown: readonly string[],
    known: readonly string[],
  ) {
    super(`unknown fault(s): ${unknown.join(', ')}; known faults: ${known.length > 0 ? known.join(', ') : '(none yet)'}`)
    this.name = 'UnknownFaultError'
  }
}
