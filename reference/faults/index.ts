import type { FastifyInstance } from 'fastify'
import type { ServerContext } from '../context'
import type { PushGateway } from '../push-gateway'
import type { Store } from '../store'

/**
 * The fault catalogue: named deviations from the spec, each tied to the clause it violates, switched on
 * by name at start-up (`buildServer({ faults })`, `npm run serve -- --fault <name>`). The suite's
 * self-tests switch each one on and expect the suite to fail on that clause.
 *
 * A fault changes the server only through these seams (see kit.ts): it wraps the store or the push
 * gateway, or it installs hooks on the Fastify instance before the routes are registered.
 */
export interface Fault {
  /** kebab-case, unique; what `--fault` takes. */
  name: string
  /** Id of the spec clause the fault violates (the suite's clause registry). */
  clause: string
  /** One line: what the server does wrong. */
  description: string
  wrapStore?(store: Store): Store
  wrapGateway?(gateway: PushGateway): PushGateway
  install?(app: FastifyInstance, ctx: ServerContext): void
}

/** Empty until the catalogue is written (its clause ids come from the suite's registry). */
export const FAULTS: readonly Fault[] = []

/**
 * The faults to switch on: names are looked up in the catalogue (an unknown name is an error that lists
 * the known ones); Fault objects are taken as given, so a test can try a fault before it is catalogued.
 */
export function resolveFaults(wanted: readonly (string | Fault)[]): Fault[] {
  const names = wanted.filter((w): w is string => typeof w === 'string')
  const unknown = names.filter((n) => !FAULTS.some((f) => f.name === n))
  if (unknown.length > 0) {
    const known = FAULTS.length > 0 ? FAULTS.map((f) => f.name).join(', ') : '(none yet)'
    throw new Error(`unknown fault(s): ${unknown.join(', ')}; known faults: ${known}`)
  }
  return wanted.map((w) => (typeof w === 'string' ? FAULTS.find((f) => f.name === w)! : w))
}
