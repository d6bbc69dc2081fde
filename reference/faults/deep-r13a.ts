import type { CatalogFault } from './types'

/** Blind round 13 (a): faults written from the spec's words only. */
export const R13A_FAULTS: readonly CatalogFault[] = []
