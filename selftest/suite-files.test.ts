/**
 * A filtered run loads only the suite files that hold a check of its areas and level, found from the clause
 * ids their check() calls write out (helpers/runner/suite-files.ts). That holds only while every check() call
 * writes its id out, so each call of every suite file is held to it here: an id computed at run time would
 * leave its file out of the runs filtered to its area.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkClauses, filesFor, suiteFiles } from '../helpers/runner/suite-files'
import { clause, isClauseId } from '../helpers/spec/clauses'
import { ROOT } from '../testing/run-suite'

describe('the suite files a filter needs', () => {
  const files = suiteFiles(ROOT)

  test('every check() call of the suite names its clause id as a written-out, registered string', () => {
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const source = readFileSync(join(ROOT, file), 'utf8')
      // Every call, not a mention in a comment (`check()`) or the import.
      const calls = [...source.matchAll(/\bcheck\(\s*(?!\))/g)].length
      const ids = checkClauses(source)
      expect(ids.length, `${file}: a check() call whose first argument is not a written-out clause id`).toBe(calls)
      expect(
        ids.filter((id) => !isClauseId(id)),
        `${file}: unregistered clause ids`,
      ).toEqual([])
    }
  })

  test('a filter keeps exactly the files with a check of its areas and level, and no filter keeps vitest’s include', () => {
    expect(filesFor(ROOT, [], null)).toBeNull()
    const areasOf = (file: string) => new Set(checkClauses(readFileSync(join(ROOT, file), 'utf8')).map((id) => clause(id).area))
    const tags = filesFor(ROOT, ['tags'], null)!
    expect(tags).toContain('suites/tags.test.ts')
    expect(tags.length).toBeLessThan(files.length)
    expect(tags.every((f) => areasOf(f).has('tags'))).toBe(true)
    expect(files.filter((f) => !tags.includes(f)).every((f) => !areasOf(f).has('tags'))).toBe(true)
    // Every area's checks are somewhere; all areas together are every file that has a check.
    const all = filesFor(ROOT, ['signin', 'users', 'channels', 'private', 'subscriptions', 'tags', 'items', 'messages', 'push', 'auth'], null)!
    expect(all).toEqual(files.filter((f) => areasOf(f).size > 0 && [...areasOf(f)].some((a) => a !== 'http')))
    const info = filesFor(ROOT, [], 'info')!
    expect(info.every((f) => checkClauses(readFileSync(join(ROOT, f), 'utf8')).some((id) => clause(id).level === 'INFO'))).toBe(true)
  })
})
