import { UnknownFaultError, type CatalogFault, type Fault, type OpenFault } from './types'
import { AUTH_FAULTS } from './auth'
import { CHANNEL_FAULTS } from './channels'
import { DEEP_CHANNEL_FAULTS, DEEP_CHANNEL_OPEN, DEEP_PRIVATE_FAULTS } from './deep-channels'
import { BLIND_CHANNEL_FAULTS, BLIND_CHANNEL_OPEN } from './deep-channels-lifecycle'
import { BLIND_CHANNEL_SEARCH_FAULTS } from './deep-channels-search'
import { DEEP_ITEM_FAULTS } from './deep-items'
import { BLIND_ITEM_CONTENT_FAULTS, BLIND_ITEM_CONTENT_OPEN } from './deep-items-content'
import { BLIND_ITEM_FAULTS } from './deep-items-fetch-delete'
import { BLIND_MESSAGE_FAULTS, BLIND_MESSAGE_OPEN } from './deep-messages'
import { DEEP_NAME_FAULTS } from './deep-names'
import { BLIND_PRIVATE_FAULTS, BLIND_PRIVATE_OPEN } from './deep-private'
import { BLIND_PUSH_FAULTS, BLIND_PUSH_OPEN } from './deep-push'
import { BLIND_AUTH_FAULTS, BLIND_AUTH_OPEN, BLIND_SIGNIN_FAULTS, BLIND_SIGNIN_OPEN } from './deep-signin'
import { BLIND_SUBSCRIPTION_FAULTS, BLIND_SUBSCRIPTION_OPEN } from './deep-subscriptions'
import { DEEP_SUBSCRIPTION_FAULTS, DEEP_TAG_FAULTS } from './deep-subscriptions-tags'
import { BLIND_TAG_FAULTS } from './deep-tags'
import { BLIND_USER_FAULTS, BLIND_USER_OPEN } from './deep-users'
import { DEEP_AUTH_FAULTS, DEEP_MESSAGE_FAULTS, DEEP_PUSH_FAULTS, DEEP_SIGNIN_FAULTS, DEEP_USER_FAULTS, DEEP_USER_OPEN } from './deep-users-messages'
import { HTTP_FAULTS } from './http'
import { ROUND14_DEVICE_RACE_FAULTS, ROUND14_DEVICE_RACE_OPEN } from './deep-round14-devices-races'
import { ROUND14_INPUT_FAULTS, ROUND14_INPUT_OPEN } from './deep-round14-inputs'
import { ROUND14_ISOLATION_FAULTS } from './deep-round14-isolation'
import { ROUND14_STATE_FAULTS } from './deep-round14-states'
import { ROUND15_DEVICE_RACE_FAULTS } from './deep-round15-devices-races'
import { ROUND15_INPUT_FAULTS, ROUND15_INPUT_OPEN } from './deep-round15-inputs'
import { ROUND15_ISOLATION_FAULTS } from './deep-round15-isolation'
import { ROUND15_STATE_FAULTS, ROUND15_STATE_OPEN } from './deep-round15-states'
import { ITEM_FAULTS } from './items'
import { MESSAGE_FAULTS, PUSH_FAULTS } from './messages'
import { PRIVATE_FAULTS } from './private'
import { PROOF_FAULTS } from './proofs'
import { SIGNIN_FAULTS, USER_FAULTS } from './users'
import { SUBSCRIPTION_FAULTS, TAG_FAULTS } from './subscriptions-tags'

export { UnknownFaultError, type CatalogFault, type Consequence, type Fault, type FaultArea, type OpenFault } from './types'

/**
 * The fault catalogue: named deviations from the spec, each tied to the clause(s) it violates, switched on
 * by name at start-up (`buildServer({ faults })`, `npm run serve -- --fault <name>`). The suite's
 * self-test (selftest/faults.test.ts) switches each one on and expects the suite to fail on its clause.
 *
 * A fault changes the server only through these seams (see kit.ts): it wraps the store or the push
 * gateway, or it installs hooks on the Fastify instance before the routes are registered. With no fault
 * switched on, none of this code runs: buildServer calls into a fault only for the faults it was given.
 */

/** The deep section of the catalogue (rounds 1 to 4, in deep-*.ts beside the blind rounds' BLIND_FAULTS); every one is marked `depth: 'deep'`. */
export const DEEP_FAULTS: readonly CatalogFault[] = [
  ...DEEP_SIGNIN_FAULTS,
  ...DEEP_USER_FAULTS,
  ...DEEP_CHANNEL_FAULTS,
  ...DEEP_PRIVATE_FAULTS,
  ...DEEP_SUBSCRIPTION_FAULTS,
  ...DEEP_TAG_FAULTS,
  ...DEEP_ITEM_FAULTS,
  ...DEEP_MESSAGE_FAULTS,
  ...DEEP_PUSH_FAULTS,
  ...DEEP_AUTH_FAULTS,
  ...DEEP_NAME_FAULTS,
]

/**
 * The deep faults of the blind rounds 5 to 14 (docs/detection.md), written from the spec alone; kept in the
 * deep area files (round 14's in four files of its own, one per region) beside the earlier deep faults but outside DEEP_FAULTS, whose count and table
 * (docs/detection.md) are those of rounds 1 to 4.
 */
export const BLIND_FAULTS: readonly CatalogFault[] = [
  ...BLIND_SIGNIN_FAULTS,
  ...BLIND_USER_FAULTS,
  ...BLIND_CHANNEL_FAULTS,
  ...BLIND_CHANNEL_SEARCH_FAULTS,
  ...BLIND_PRIVATE_FAULTS,
  ...BLIND_SUBSCRIPTION_FAULTS,
  ...BLIND_TAG_FAULTS,
  ...BLIND_ITEM_CONTENT_FAULTS,
  ...BLIND_ITEM_FAULTS,
  ...BLIND_MESSAGE_FAULTS,
  ...BLIND_PUSH_FAULTS,
  ...BLIND_AUTH_FAULTS,
  ...ROUND14_INPUT_FAULTS,
  ...ROUND14_STATE_FAULTS,
  ...ROUND14_ISOLATION_FAULTS,
  ...ROUND14_DEVICE_RACE_FAULTS,
  ...ROUND15_INPUT_FAULTS,
  ...ROUND15_STATE_FAULTS,
  ...ROUND15_ISOLATION_FAULTS,
  ...ROUND15_DEVICE_RACE_FAULTS,
]

/**
 * Faults of the blind rounds the fixed run does not catch, or that proved not to be deviations, each with why
 * (kept in their area files beside the catalogued ones); out of the catalogue, whose self-test wants every fault
 * caught, and listed in docs/detection.md. `--fault` (and SELFTEST_FAULTS) finds them by name, for the author of the cell that is to catch one.
 */
export const BLIND_OPEN: readonly OpenFault[] = [
  ...DEEP_USER_OPEN,
  ...DEEP_CHANNEL_OPEN,
  ...BLIND_SIGNIN_OPEN,
  ...BLIND_USER_OPEN,
  ...BLIND_CHANNEL_OPEN,
  ...BLIND_PRIVATE_OPEN,
  ...BLIND_SUBSCRIPTION_OPEN,
  ...BLIND_ITEM_CONTENT_OPEN,
  ...BLIND_MESSAGE_OPEN,
  ...BLIND_PUSH_OPEN,
  ...BLIND_AUTH_OPEN,
  ...ROUND14_INPUT_OPEN,
  ...ROUND14_DEVICE_RACE_OPEN,
  ...ROUND15_INPUT_OPEN,
  ...ROUND15_STATE_OPEN,
]

export const FAULTS: readonly CatalogFault[] = [
  ...SIGNIN_FAULTS,
  ...USER_FAULTS,
  ...CHANNEL_FAULTS,
  ...PRIVATE_FAULTS,
  ...SUBSCRIPTION_FAULTS,
  ...TAG_FAULTS,
  ...ITEM_FAULTS,
  ...MESSAGE_FAULTS,
  ...PUSH_FAULTS,
  ...AUTH_FAULTS,
  ...HTTP_FAULTS,
  ...PROOF_FAULTS,
  ...DEEP_FAULTS,
  ...BLIND_FAULTS,
]

/** The clause ids of a fault, as a list. */
export function clausesOf(fault: Fault): readonly string[] {
  return typeof fault.clause === 'string' ? [fault.clause] : fault.clause
}

/**
 * The faults to switch on: names are looked up in the catalogue (an unknown name is an error that lists
 * the known ones); Fault objects are taken as given, so a test can try a fault before it is catalogued.
 */
export function resolveFaults(wanted: readonly (string | Fault)[]): Fault[] {
  const names = wanted.filter((w): w is string => typeof w === 'string')
  // A blind round's open fault is found too, so that whoever writes the cell that catches it can run it by name.
  const known = (n: string) => FAULTS.find((f) => f.name === n) ?? BLIND_OPEN.find((o) => o.fault.name === n)?.fault
  const unknown = names.filter((n) => !known(n))
  if (unknown.length > 0)
    throw new UnknownFaultError(
      unknown,
      FAULTS.map((f) => f.name),
    )
  return wanted.map((w) => (typeof w === 'string' ? known(w)! : w))
}
