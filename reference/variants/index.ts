import { BLIND_CHANNEL_VARIANTS, CHANNEL_VARIANTS } from './channels'
import { COMMON_VARIANTS, EDGE_VARIANTS } from './common'
import { BLIND_ITEM_VARIANTS, ITEM_VARIANTS } from './items'
import { BLIND_MESSAGE_VARIANTS, BLIND_PUSH_VARIANTS, MESSAGE_VARIANTS, PUSH_VARIANTS } from './messages'
import { BLIND_PRIVATE_VARIANTS, PRIVATE_VARIANTS } from './private'
import { BLIND_REFUSAL_VARIANTS, REFUSAL_VARIANTS } from './refusals'
import { BLIND_SUBSCRIPTION_VARIANTS, SUBSCRIPTION_VARIANTS } from './subscriptions'
import { BLIND_TAG_VARIANTS, TAG_VARIANTS } from './tags'
import { BLIND_TIMESTAMP_VARIANTS, TIMESTAMP_VARIANTS } from './timestamps'
import { BLIND_SIGNIN_VARIANTS, BLIND_USER_VARIANTS, SIGNIN_VARIANTS, USER_VARIANTS } from './users'
import type { Variant } from './types'
import { ROUND14_DEVICE_RACE_VARIANTS } from './round14-devices-races'
import { ROUND14_INPUT_VARIANTS } from './round14-inputs'
import { ROUND14_ISOLATION_VARIANTS } from './round14-isolation'
import { ROUND14_STATE_VARIANTS } from './round14-states'
import { ROUND15_DEVICE_RACE_VARIANTS } from './round15-devices-races'
import { ROUND15_INPUT_VARIANTS } from './round15-inputs'
import { ROUND15_ISOLATION_VARIANTS } from './round15-isolation'
import { ROUND15_STATE_VARIANTS } from './round15-states'

export type { Variant, VariantArea } from './types'

/**
 * The variant catalogue: correct servers that choose differently from the reference where the spec allows
 * it, and realities of deployed servers. Switched on by name at start-up (`buildServer({ variants })`,
 * `npm run serve -- --variant <name>`); selftest/variants.test.ts runs the suite against each and expects
 * the verdict a correct server deserves.
 */
export const VARIANTS: readonly Variant[] = [
  ...COMMON_VARIANTS,
  ...CHANNEL_VARIANTS,
  ...PRIVATE_VARIANTS,
  ...SUBSCRIPTION_VARIANTS,
  ...TAG_VARIANTS,
  ...REFUSAL_VARIANTS,
  ...TIMESTAMP_VARIANTS,
  ...ITEM_VARIANTS,
  ...USER_VARIANTS,
  ...SIGNIN_VARIANTS,
  ...MESSAGE_VARIANTS,
  ...PUSH_VARIANTS,
  // The variants of the blind rounds 5 to 12 (docs/detection.md), kept in their area files.
  ...BLIND_CHANNEL_VARIANTS,
  ...BLIND_TIMESTAMP_VARIANTS,
  ...BLIND_SUBSCRIPTION_VARIANTS,
  ...BLIND_TAG_VARIANTS,
  ...BLIND_ITEM_VARIANTS,
  ...BLIND_USER_VARIANTS,
  ...BLIND_SIGNIN_VARIANTS,
  ...BLIND_MESSAGE_VARIANTS,
  ...BLIND_PUSH_VARIANTS,
  ...BLIND_REFUSAL_VARIANTS,
  ...BLIND_PRIVATE_VARIANTS,
  ...ROUND14_INPUT_VARIANTS,
  ...ROUND14_STATE_VARIANTS,
  ...ROUND14_ISOLATION_VARIANTS,
  ...ROUND14_DEVICE_RACE_VARIANTS,
  ...ROUND15_INPUT_VARIANTS,
  ...ROUND15_STATE_VARIANTS,
  ...ROUND15_ISOLATION_VARIANTS,
  ...ROUND15_DEVICE_RACE_VARIANTS,
  // Last: a gateway in front of the server sees what every variant above answered.
  ...EDGE_VARIANTS,
]

export class UnknownVariantError extends Error {
  constructor(
    readonly names: readonly string[],
    known: readonly string[],
  ) {
    super(`unknown variant(s): ${names.join(', ')}; known variants: ${known.join(', ') || '(none yet)'}`)
    this.name = 'UnknownVariantError'
  }
}

/** The variants to switch on: names are looked up in the catalogue (an unknown name is an error listing the known ones). */
export function resolveVariants(wanted: readonly (string | Variant)[]): Variant[] {
  const unknown = wanted.filter((w): w is string => typeof w === 'string' && !VARIANTS.some((v) => v.name === w))
  if (unknown.length > 0) {
    throw new UnknownVariantError(
      unknown,
      VARIANTS.map((v) => v.name),
    )
  }
  return wanted.map((w) => (typeof w === 'string' ? VARIANTS.find((v) => v.name === w)! : w))
}
