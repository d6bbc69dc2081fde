/**
 * The suite files a filtered run needs: vitest collects a file only to find its checks, so a run filtered to
 * one area (or level) need not load, transform and collect the files that hold none of them. Every check is a
 * `check('<clause id>', …)` call with its clause id written out (selftest/suite-files.test.ts holds every
 * suite file to that), so the clause ids of a file, and through the registry their areas and levels, are
 * read from its source. The vitest tags filter still picks the checks within the files chosen.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { clause, isClauseId } from '../spec/clauses'

/** `check(` followed by its first argument, a quoted clause id; the id is group 1. */
export const CHECK_CALL = /\bcheck\(\s*(['"`])([^'"`]*)\1/g

/** The clause ids the `check()` calls of a source text name, in order (an unregistered id is kept: collection reports it). */
export function checkClauses(source: string): string[] {
  return [...source.matchAll(CHECK_CALL)].map((m) => m[2]!)
}

/** The suite's test files, relative to `root` (`suites/x.test.ts`), sorted. */
export function suiteFiles(root: string): string[] {
  return readdirSync(join(root, 'suites'))
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => `suites/${f}`)
}

/**
 * The suite files with a check of one of `areas` (none: any area) at `level` (null: any level), relative to
 * `root`; null when there is no filter, so the run keeps vitest's own include.
 */
export function filesFor(root: string, areas: readonly string[], level: string | null): string[] | null {
  if (!areas.length && !level) return null
  const wanted = level?.toUpperCase() ?? null
  return suiteFiles(root).filter((file) =>
    checkClauses(readFileSync(join(root, file), 'utf8')).some((id) => {
      // An id the registry does not know: keep the file, so the run reports it as vitest collects it.
      if (!isClauseId(id)) return true
      const c = clause(id)
      return (!areas.length || areas.includes(c.area)) && (!wanted || c.level === wanted)
    }),
  )
}
