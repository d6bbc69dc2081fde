/**
 * --clause and --check (helpers/runner/pipeline.ts): which test names a selection runs, which selections are
 * refused with one sentence, and the scope every report states (helpers/reports/results.ts scopeText).
 */
import { describe, expect, test } from 'vitest'
import { scopeText } from '../helpers/reports/results'
import { selectionPattern, selectionProblem } from '../helpers/runner/pipeline'
import { titleWithClause } from '../helpers/spec/clauses'

const name = (title: string, clause: string) => `suites/channels.test.ts create ${titleWithClause(title, clause)}`

describe('selection by clause and check', () => {
  test('a clause id or glob selects the checks of the clauses it matches, and no others', () => {
    const byId = selectionPattern(['channels.create.default-max-items'], [])!
    expect(byId.test(name('defaults maxItems to -1', 'channels.create.default-max-items'))).toBe(true)
    expect(byId.test(name('defaults maxItems to -1', 'channels.create.default-max-items-x'))).toBe(false)
    const glob = selectionPattern(['channels.create.*'], [])!
    expect(glob.test(name('anything', 'channels.create.default-public'))).toBe(true)
    expect(glob.test(name('anything', 'channels.get.shape'))).toBe(false)
    // A title that mentions a clause in brackets is not its clause.
    expect(glob.test(name('like [channels.create.x] but', 'channels.get.shape'))).toBe(false)
  })

  test('a check id selects that check alone; several selections add up', () => {
    const one = selectionPattern([], ['channels.create.default-max-items: defaults maxItems to -1 (the spec: "-1")'])!
    expect(one.test(name('defaults maxItems to -1 (the spec: "-1")', 'channels.create.default-max-items'))).toBe(true)
    expect(one.test(name('defaults maxItems to -1', 'channels.create.default-max-items'))).toBe(false)
    const both = selectionPattern(['tags.*'], ['channels.get.shape: answers the shape'])!
    expect(both.test(name('x', 'tags.add.response'))).toBe(true)
    expect(both.test(name('answers the shape', 'channels.get.shape'))).toBe(true)
    expect(selectionPattern([], [])).toBeUndefined()
  })

  test('a selection that names nothing is refused with one sentence', () => {
    expect(selectionProblem(['channels.create.*'], [])).toBeNull()
    expect(selectionProblem(['no.such.clause'], [])).toMatch(/^--clause 'no\.such\.clause' matches no clause of the spec; /)
    expect(selectionProblem(['http.json-content-type'], [])).toMatch(/matches no clause with checks of its own/)
    expect(selectionProblem([], ['defaults maxItems to -1'])).toMatch(/^--check 'defaults maxItems to -1' is not a check id/)
  })

  test('the scope in words, or null for the whole suite', () => {
    expect(scopeText({ areas: [], level: null })).toBeNull()
    expect(scopeText({ areas: ['channels'], level: 'must', clauses: ['channels.create.*'], checks: ['a.b: c'] })).toBe(
      'areas channels; level must; clauses channels.create.*; checks a.b: c',
    )
    expect(scopeText({ areas: [], level: null, explore: 'explore: 3 sequences' })).toBe('explore: 3 sequences')
  })
})
