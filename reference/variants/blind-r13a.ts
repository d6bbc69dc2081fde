import type { Variant } from './types'

/** Blind round 13 (a): correct servers that choose differently where the spec leaves the choice open. */
export const R13A_VARIANTS: readonly Variant[] = []
