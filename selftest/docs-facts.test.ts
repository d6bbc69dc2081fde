/**
 * Facts the documentation states, tied to the code they describe, so a change to one that forgets the other
 * fails here: the results format, the size of the fault and variant catalogues, the npm scripts the docs tell
 * people to run, the headings links point at. (docs/detection.md is a dated record of measurements and is left as it was measured;
 * docs/clauses.md is generated and has its own self-test.)
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { RESULTS_FORMAT } from '../helpers/reports/results'
import { FILTER_AREAS } from '../helpers/runner/pipeline'
import { DEEP_FAULTS, FAULTS } from '../reference/faults/index'
import { VARIANTS } from '../reference/variants/index'
import { ROOT } from '../testing/run-suite'

/** The prose people read: the READMEs and docs/, but not the dated measurements nor the generated matrix. */
const PROSE = [
  'README.md',
  'helpers/README.md',
  'reference/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((n) => n.endsWith('.md') && n !== 'detection.md' && n !== 'clauses.md')
    .map((n) => `docs/${n}`),
]
const text = (file: string): string => readFileSync(join(ROOT, file), 'utf8')

/** Every match of `pattern` in the prose, with the file and line it is on. */
function statements(pattern: RegExp): { where: string; m: RegExpMatchArray }[] {
  return PROSE.flatMap((file) =>
    text(file)
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(pattern)].map((m) => ({ where: `${file}:${i + 1}`, m }))),
  )
}

/** The anchors GitHub gives the headings of a Markdown text: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchors(markdown: string): Set<string> {
  const out = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const m = !fenced && /^#{1,6} (.+)$/.exec(line)
    if (m)
      out.add(
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\- _]/gu, '')
          .replace(/ /g, '-'),
      )
  }
  return out
}

/** A count stated as "about N" holds within a tenth; a bare count must be exact. */
function holds(stated: number, about: boolean, actual: number): boolean {
  return about ? Math.abs(actual - stated) <= stated / 10 : actual === stated
}

describe('facts the docs state', () => {
  test('the results format named anywhere is the one runs write', () => {
    const named = statements(/mcrs-conformance-results\/\d+/g)
    expect(named.length).toBeGreaterThan(0)
    expect(named.filter((s) => s.m[0] !== RESULTS_FORMAT).map((s) => `${s.where}: ${s.m[0]}, runs write ${RESULTS_FORMAT}`)).toEqual([])
    expect(text('docs/contract.md')).toContain(`| \`format\` | \`${RESULTS_FORMAT}\``)
  })

  test('counts of faults, deep faults and variants are those of the catalogue', () => {
    const wrong: string[] = []
    const claims = statements(/\b(about |more than )?(\d+) (deep faults|faults|variants)\b/g)
    for (const { where, m } of claims) {
      const [, qualifier, n, what] = m
      const actual = what === 'deep faults' ? DEEP_FAULTS.length : what === 'faults' ? FAULTS.length : VARIANTS.length
      const ok = qualifier === 'more than ' ? actual > Number(n) : holds(Number(n), qualifier === 'about ', actual)
      if (!ok) wrong.push(`${where}: "${m[0]}", the catalogue has ${actual}`)
    }
    expect(claims.length, 'the docs state some count (else this test checks nothing)').toBeGreaterThan(0)
    expect(wrong).toEqual([])
  })

  test('every `npm run <script>` the docs name is a script of package.json', () => {
    const scripts = (JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts
    const named = statements(/npm run ([a-z][a-z0-9:-]*[a-z0-9])/g)
    expect(named.length).toBeGreaterThan(10)
    expect(named.filter((s) => !(s.m[1]! in scripts)).map((s) => `${s.where}: npm run ${s.m[1]}`)).toEqual([])
  })

  test('the areas the README lists are those --area takes', () => {
    const line = text('README.md')
      .split('\n')
      .find((l) => l.startsWith('Areas: '))
    expect(line, 'README.md has an "Areas: " line').toBeDefined()
    expect([...line!.matchAll(/`([a-z]+)`/g)].map((m) => m[1])).toEqual(FILTER_AREAS)
  })

  test('every link to a heading of a Markdown file names a heading that is there', () => {
    const mdFiles = [...PROSE, 'docs/detection.md', 'expectations/README.md', 'reports/README.md']
    const broken: string[] = []
    let checked = 0
    for (const file of mdFiles) {
      for (const m of text(file).matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
        const [, path, anchor] = m
        if (/^[a-z][a-z0-9+.-]*:/i.test(path!)) continue
        const target = path ? join(dirname(file), path) : file
        if (!target.endsWith('.md')) continue
        checked++
        if (!headingAnchors(text(target)).has(anchor!)) broken.push(`${file}: ${path}#${anchor}`)
      }
    }
    expect(checked).toBeGreaterThan(5)
    expect(broken).toEqual([])
  })

  test('the checks of this file fail on a wrong statement', () => {
    expect(headingAnchors('## Running against staging\n### reports/results.json\n')).toEqual(new Set(['running-against-staging', 'reportsresultsjson']))
    expect(holds(61, false, 130)).toBe(false)
    expect(holds(200, true, 202)).toBe(true)
    expect(holds(200, true, 250)).toBe(false)
    expect('mcrs-conformance-results/1').not.toBe(RESULTS_FORMAT)
  })
})
