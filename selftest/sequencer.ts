/**
 * The order `npm test` starts its files in: the longest first, so the few files that take most of the time
 * (each a queue of whole runs, or whole runs behind slow proxies) start at once and the short ones fill the
 * workers beside them. Vitest's own order (the longest of the last run, else the largest file) does the same on
 * a machine that ran the tests before; a fresh clone (CI) has no durations, and the largest file is not the
 * longest. The rest keep vitest's order.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node'

/** Longest first, as measured from a fresh clone: the fault catalogue, the variants, the staging conditions. */
export const LONGEST = ['selftest/faults.test.ts', 'selftest/variants.test.ts', 'selftest/staging-conditions.test.ts', 'selftest/evidence.test.ts']

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files)
    const rank = (s: TestSpecification) => {
      const i = LONGEST.findIndex((f) => s.moduleId.endsWith(`/${f}`))
      return i === -1 ? LONGEST.length : i
    }
    // Array.prototype.sort is stable: files outside the list keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
