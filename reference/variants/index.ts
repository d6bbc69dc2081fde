import { COMMON_VARIANTS } from './common'
import { ITEM_VARIANTS } from './items'
import { MESSAGE_VARIANTS, PUSH_VARIANTS } from './messages'
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
  ...TIMESTAMP_VARIANTS,
  ...ITEM_VARIANTS,
  ...USER_VARIANTS,
  ...SIGNIN_VARIANTS,
  ...MESSAGE_VARIANTS,
  ...PUSH_VARIANTS,
]

/** The variants to switch on: names are looked up in the catalogue (an unknown name is an error listing the known ones). */
export function resolveVariants(wanted: readonly (string | Variant)[]): Variant[] {
  const unknown = wanted.filter((w): w is string => typeof w === 'string' && !VARIANTS.some((v) => v.name === w))
  if (unknown.length > 0) {
    throw new Error(`unknown variant(s): ${unknown.join(', ')}; known variants: ${VARIANTS.map((v) => v.name).join(', ') || '(none yet)'}`)
  }
  return wanted.map((w) => (typeof w === 'string' ? VARIANTS.find((v) => v.name === w)! : w))
}
