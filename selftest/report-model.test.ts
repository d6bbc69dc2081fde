/**
 * The report model (helpers/reports/model.ts) is computed once, and every output renders it: a static gate over
 * the import lines of the renderers (none imports a computing function of the reports), and the model's fields
 * each renderer reads instead (an entry's state, problem line and causes; a cause's fan-out and quote).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { clause } from '../helpers/spec/clauses'
import { buildAcceptance } from '../helpers/reports/acceptance'
import { problemOf, storedCauses } from '../helpers/reports/causes'
import { outcomeLines } from '../helpers/reports/console'
import { buildHtml } from '../helpers/reports/html'
import { buildJunit } from '../helpers/reports/junit'
import { buildMarkdown } from '../helpers/reports/markdown'
import { reportModel, type EntryView } from '../helpers/reports/model'
import type { RunResults } from '../helpers/reports/results'
import { ROOT } from '../testing/run-suite'
import { blockedRun } from './report-fixtures'

/** The outputs of a run: each a renderer of a ReportModel. */
export const RENDERERS = [
  'helpers/reports/console.ts',
  'helpers/reports/markdown.ts',
  'helpers/reports/html.ts',
  'helpers/reports/junit.ts',
  'helpers/reports/allure.ts',
  'helpers/reports/acceptance.ts',
]

/** What the model computes once; a renderer that imports one of these computes it again. */
export const COMPUTING = [
  'causesOf',
  'storedCauses',
  'rootCauses',
  'clauseMatrix',
  'stateOf',
  'checkState',
  'countStates',
  'problemOf',
  'blockedText',
  'flakyClusterText',
  'notable',
  'verdictText',
  'fanOut',
  'quoteOf',
  'reportModel',
]

/** The modules the computing functions live in (a namespace or dynamic import of one is a way round the names). */
const COMPUTING_MODULES = ['./causes', './matrix', './model']

/** Value imports of computing functions in a source text, with their line numbers (multi-line imports too; `type` imports are fine). */
export function computingImports(source: string): { name: string; line: number }[] {
  const found: { name: string; line: number }[] = []
  const lineAt = (index: number) => source.slice(0, index).split('\n').length
  for (const m of source.matchAll(/\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    if (m[1]) continue
    for (const part of m[2]!.split(',')) {
      const spec = part.trim()
      if (!spec || spec.startsWith('type ')) continue
      const name = spec.split(/\s+as\s+/)[0]!.trim()
      if (COMPUTING.includes(name)) found.push({ name, line: lineAt(m.index!) })
    }
  }
  for (const m of source.matchAll(/\bimport\s+\*\s+as\s+\w+\s+from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = (m[1] ?? m[2]!).replace(/\.ts$/, '')
    if (COMPUTING_MODULES.includes(spec)) found.push({ name: `* of ${spec}`, line: lineAt(m.index!) })
  }
  return found
}

describe('every output is a renderer of the report model', () => {
  test('the gate finds a computing function however it is imported', () => {
    const source = [
      "import { esc } from './html'",
      "import type { Cause } from './causes'",
      "import { type ClauseState, checkState } from './matrix'",
      'import {',
      '  fanOut as fan,',
      '  type ReportModel,',
      "} from './causes'",
      "import * as matrix from './matrix'",
      "const later = await import('./causes')",
    ].join('\n')
    expect(computingImports(source)).toEqual([
      { name: 'checkState', line: 3 },
      { name: 'fanOut', line: 4 },
      { name: '* of ./matrix', line: 8 },
      { name: '* of ./causes', line: 9 },
    ])
  })

  test.each(RENDERERS)('%s imports no computing function of the reports', (file) => {
    const source = readFileSync(join(ROOT, file), 'utf8')
    expect(source).toMatch(/ReportModel/)
    expect(computingImports(source)).toEqual([])
  })
})

/** A run with a MUST failure, a SHOULD failure and a check blocked by a failed publish, its causes stored. */
function run(): RunResults {
  const r = blockedRun({ changes: { 'channels.create.default-max-items': { status: 'failed' }, 'http.json-content-type': { status: 'failed' } } })
  r.causes = storedCauses(r.checks)
  return r
}

describe('the report model', () => {
  test("each entry's state, first problem line and causes are computed once, in the model", () => {
    const r = run()
    const m = reportModel(r)
    const view = (id: string): EntryView => m.views.get(r.checks.find((c) => c.clause === id && !c.parent)!)!
    expect(m.views.size).toBe(r.checks.length)
    expect(view('channels.create.default-max-items')).toMatchObject({
      state: 'fail',
      problem: problemOf(r.checks.find((c) => c.clause === 'channels.create.default-max-items')!),
    })
    expect(view('channels.create.default-max-items').problem).toMatch(/^GET \/channels\/\{name\}: \/maxItems: got 10 \(number\), want -1/)
    expect(view('http.json-content-type').state).toBe('warning')
    expect(reportModel({ ...r, strict: true }).views.get(r.checks.find((c) => c.clause === 'http.json-content-type')!)!.state).toBe('fail')
    expect(view('items.get.shape')).toMatchObject({ state: 'blocked', problem: 'blocked by items.publish.response' })
    expect(view('channels.get.shape')).toEqual({ state: 'pass', problem: '', causes: [] })
    // The blocked check and the failed step are explained by the same deviation.
    const step = m.views.get(r.checks.find((c) => c.parent)!)!
    expect(step.causes).toHaveLength(1)
    expect(view('items.get.shape').causes).toEqual(step.causes)
    expect(m.causeOfEntry.get(r.checks.find((c) => c.parent)!.id)).toBe(step.causes[0])
  })

  test("each cause carries its fan-out and its clause's words", () => {
    const m = reportModel(run())
    const publish = m.causes.find((c) => c.clause === 'items.publish.response')!
    expect(publish.fanOut).toBe('1 deviation → 1 failed check, 1 blocked')
    expect(publish.quote).toBe(clause('items.publish.response').quote)
    expect(m.causesStored).toBe(true)
    // A results.json without stored causes: the model groups them, and says they are not stored.
    const { causes: _, ...unstored } = run()
    const again = reportModel(unstored)
    expect(again.causes.map((c) => c.id)).toEqual(m.causes.map((c) => c.id))
    expect(again.causesStored).toBe(false)
  })

  test('the renderers show what the model says, not what they would compute', () => {
    const r = run()
    const m = reportModel(r)
    const failed = r.checks.find((c) => c.clause === 'channels.create.default-max-items')!
    ;(m.views.get(failed) as EntryView).problem = 'the problem as the model states it'
    ;(m.causes[0] as { fanOut: string }).fanOut = 'the fan-out as the model states it'
    expect(buildMarkdown(m)).toContain('the problem as the model states it')
    expect(buildJunit(m)).toContain('message="[channels.create.default-max-items MUST] the problem as the model states it"')
    for (const text of [buildMarkdown(m), buildHtml(m), buildAcceptance(m), outcomeLines(m, 'results.json').join('\n')])
      expect(text).toContain('the fan-out as the model states it')
  })
})
