import type { CatalogFault } from './types'

/** Blind round 13 (b): faults written from the spec's words only. */
export const R13B_FAULTS: readonly CatalogFault[] = []
