import type { Variant } from './types'

/** Blind round 13 (c): correct servers that choose differently where the spec leaves the choice open. */
export const R13C_VARIANTS: readonly Variant[] = []
