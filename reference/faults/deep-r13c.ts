import type { CatalogFault } from './types'

/** Blind round 13 (c): faults written from the spec's words only. */
export const R13C_FAULTS: readonly CatalogFault[] = []
