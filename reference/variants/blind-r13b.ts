import type { Variant } from './types'

/** Blind round 13 (b): correct servers that choose differently where the spec leaves the choice open. */
export const R13B_VARIANTS: readonly Variant[] = []
