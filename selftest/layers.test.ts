/**
 * The import direction of the project's folders. Each layer may import only the layers listed for it; an
 * import that breaks the table fails here with the file, the line and the rule, before it becomes a tangle.
 * The layers and what they know are described in helpers/README.md.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve, dirname } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from './run-suite'

/** A layer's name and the layers it may import (its own folder is always allowed). */
export const LAYERS: Record<string, readonly string[]> = {
  // The service spec as data: clause registry and JSON Schemas. Knows nothing else.
  'helpers/spec': [],
  // Talking to a target: HTTP client, pace, tokens, redaction, evidence, the run's ledger.
  'helpers/http': ['helpers/spec'],
  // Reading the configuration (environment, env file, defaults).
  'helpers/config': ['helpers/spec', 'helpers/http'],
  // results.json and every report made from it: pure functions of the results, plus writing them.
  'helpers/reports': ['helpers/spec', 'helpers/http', 'helpers/config'],
  // What a check imports: check(), expectations, set-up steps, polling. Runs in test workers.
  'helpers/kit': ['helpers/spec', 'helpers/http', 'helpers/config', 'helpers/reports'],
  // The main process of a run: prepare, sweep, reporter, the embedded server, interrupts, the pipeline.
  'helpers/runner': ['helpers/spec', 'helpers/http', 'helpers/config', 'helpers/reports', 'reference'],
  // Model-based exploring: its own runner, judging with the kit's expectations.
  'helpers/explore': ['helpers/spec', 'helpers/http', 'helpers/config', 'helpers/reports', 'helpers/kit', 'helpers/runner'],
  // The checks themselves: only the kit and what it hands them.
  suites: ['helpers/spec', 'helpers/http', 'helpers/kit'],
  // The reference server shares nothing with the suite, so it cannot share the suite's mistakes.
  reference: [],
  // Thin command-line entry points over the library.
  scripts: ['helpers/spec', 'helpers/http', 'helpers/config', 'helpers/reports', 'helpers/runner', 'helpers/explore', 'reference'],
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p)
    return /\.(ts|mts)$/.test(e.name) ? [p] : []
  })
}

/** The layer a repository path belongs to: the longest table key it lies in. */
export function layerOf(path: string): string | undefined {
  const rel = relative(ROOT, path).split('\\').join('/')
  return Object.keys(LAYERS)
    .filter((l) => rel === l || rel.startsWith(`${l}/`))
    .sort((x, y) => y.length - x.length)[0]
}

/** Relative module specifiers of a source file, with their line numbers (static, dynamic and type imports). */
export function importsOf(source: string): { spec: string; line: number }[] {
  const found: { spec: string; line: number }[] = []
  source.split('\n').forEach((text, i) => {
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/g)) found.push({ spec: m[2], line: i + 1 })
  })
  return found
}

export interface Violation {
  file: string
  line: number
  target: string
  rule: string
}

export function violations(files: string[]): Violation[] {
  const out: Violation[] = []
  for (const file of files) {
    const from = layerOf(file)
    if (!from) continue
    for (const { spec, line } of importsOf(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), spec)
      const to = layerOf(target)
      if (!to || to === from) continue
      if (!LAYERS[from].includes(to)) {
        out.push({
          file: relative(ROOT, file),
          line,
          target: relative(ROOT, target),
          rule: `${from} may import ${LAYERS[from].join(', ') || 'nothing outside itself'}, not ${to}`,
        })
      }
    }
  }
  return out
}

describe('import direction between layers', () => {
  test('every import of helpers/, suites/, reference/ and scripts/ follows the table', () => {
    const files = ['helpers', 'suites', 'reference', 'scripts'].flatMap((d) => walk(join(ROOT, d)))
    expect(files.length).toBeGreaterThan(50)
    const found = violations(files).map((v) => `${v.file}:${v.line} imports ${v.target}: ${v.rule}`)
    expect(found).toEqual([])
  })

  test('every folder under helpers/ is a layer of the table (a new folder states what it may import)', () => {
    const folders = readdirSync(join(ROOT, 'helpers'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `helpers/${e.name}`)
    expect(folders.filter((f) => !(f in LAYERS))).toEqual([])
    const loose = readdirSync(join(ROOT, 'helpers')).filter((n) => n.endsWith('.ts'))
    expect(loose, 'helpers/ holds only layer folders').toEqual([])
  })

  test('the rule catches a wrong-way import (a spec file importing the HTTP client)', () => {
    const fake = join(ROOT, 'helpers/spec/fake.ts')
    const spec = importsOf(`import { HttpClient } from '../http/client'\nconst x = await import('../kit/check')\n`)
    expect(spec.map((s) => s.spec)).toEqual(['../http/client', '../kit/check'])
    const layerTargets = spec.map((s) => layerOf(resolve(dirname(fake), s.spec)))
    expect(layerTargets).toEqual(['helpers/http', 'helpers/kit'])
    expect(layerTargets.every((t) => !LAYERS['helpers/spec'].includes(t!))).toBe(true)
    expect(layerOf(join(ROOT, 'suites/items.test.ts'))).toBe('suites')
    expect(layerOf(join(ROOT, 'selftest/layers.test.ts'))).toBeUndefined()
  })
})
