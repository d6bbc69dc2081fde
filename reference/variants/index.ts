import { R5_VARIANTS } from './blind-r5'
import { R6_VARIANTS } from './blind-r6'
import { R7_VARIANTS } from './blind-r7'
import { R8_VARIANTS } from './blind-r8'
import { R9_VARIANTS } from './blind-r9'
import { R10_VARIANTS } from './blind-r10'
import { R11_VARIANTS } from './blind-r11'
import { R12_VARIANTS } from './blind-r12'
import { CHANNEL_VARIANTS } from './channels'
import { COMMON_VARIANTS, EDGE_VARIANTS } from './common'
import { ITEM_VARIANTS } from './items'
import { MESSAGE_VARIANTS, PUSH_VARIANTS } from './messages'
import { PRIVATE_VARIANTS } from './private'
import { REFUSAL_VARIANTS } from './refusals'
import { SUBSCRIPTION_VARIANTS } from './subscriptions'
import { TAG_VARIANTS } from './tags'
import { TIMESTAMP_VARIANTS } from './timestamps'
import { SIGNIN_VARIANTS, USER_VARIANTS } from './users'
import type { Variant } from './types'

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
  // Blind round 5 (see the blind5 report).
  ...R5_VARIANTS,
  // Blind round 6 (see the blind6 report).
  ...R6_VARIANTS,
  // Blind round 7 (see the blind7 report).
  ...R7_VARIANTS,
  // Blind round 8 (see the blind8 report).
  ...R8_VARIANTS,
  // Blind round 9 (see the blind9 report).
  ...R9_VARIANTS,
  // Blind round 10 (see the blind10 report).
  ...R10_VARIANTS,
  // Blind round 11 (see the blind11 report).
  ...R11_VARIANTS,
  // Blind round 12 (see the blind12 report).
  ...R12_VARIANTS,
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
