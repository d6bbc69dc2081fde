/**
 * The import direction of the project's folders. Each layer may import only the layers listed for it; an
 * import that breaks the table fails here with the file, the line and the rule, before it becomes a tangle.
 * The layers and what they know are described in helpers/README.md.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, relative, resolve, dirname } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../testing/run-suite'

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
  // What a check imports: check(), expectations, set-up steps, polling, its Allure labels. Runs in test workers.
  'helpers/kit': ['helpers/spec', 'helpers/http', 'helpers/config'],
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
  // The one script that measures the suite runs it the way the self-tests do, through their harnesses.
  'scripts/bench.ts': [
    'helpers/spec',
    'helpers/http',
    'helpers/config',
    'helpers/reports',
    'helpers/runner',
    'helpers/explore',
    'reference',
    'testing',
    'scripts',
  ],
  // Harnesses of the self-tests and the bench: the reference server as a target, proxies, running the suite.
  testing: ['helpers/spec', 'helpers/http', 'helpers/config', 'helpers/reports', 'reference'],
  // The self-tests: may import everything; nothing imports them.
  selftest: [
    'helpers/spec',
    'helpers/http',
    'helpers/config',
    'helpers/reports',
    'helpers/kit',
    'helpers/runner',
    'helpers/explore',
    'suites',
    'reference',
    'scripts',
    'testing',
  ],
}

/** Top-level folders that hold no code of the project's own (generated, installed or report output). */
const NOT_CODE = new Set(['node_modules', 'dist', 'reports', '.git'])

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

/** The file a relative specifier names, as the bundler resolution of tsconfig.json finds it. */
function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec)
  return [base, `${base}.ts`, `${base}.mts`, join(base, 'index.ts')].find((p) => existsSync(p) && statSync(p).isFile())
}

/**
 * The import circles among `files`, type-only imports included (a circle of types is still two files that
 * must be read together): each as the files in order, the first repeated at the end.
 */
export function circles(files: string[], read: (file: string) => string = (f) => readFileSync(f, 'utf8')): string[][] {
  const edges = new Map<string, string[]>()
  for (const f of files) {
    const targets = importsOf(read(f))
      .map(({ spec }) => resolveImport(f, spec))
      .filter((t): t is string => t !== undefined && t !== f)
    edges.set(f, [...new Set(targets)])
  }
  const found: string[][] = []
  const seen = new Set<string>()
  const keys = new Set<string>()
  const visit = (file: string, path: string[]): void => {
    const at = path.indexOf(file)
    if (at >= 0) {
      const loop = path.slice(at)
      // The same circle met from another of its files is reported once.
      const key = [...loop].sort().join('|')
      if (!keys.has(key)) {
        keys.add(key)
        found.push([...loop, file].map((p) => relative(ROOT, p).split('\\').join('/')))
      }
      return
    }
    if (seen.has(file)) return
    path.push(file)
    for (const t of edges.get(file) ?? []) visit(t, path)
    path.pop()
    seen.add(file)
  }
  for (const f of files) visit(f, [])
  return found
}

/** Every top-level folder of the repository that holds TypeScript of the project's own. */
function codeFolders(): string[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !NOT_CODE.has(e.name))
    .map((e) => e.name)
    .filter((d) => walk(join(ROOT, d)).length > 0)
}

describe('import direction between layers', () => {
  test('every import of every code folder follows the table', () => {
    const files = codeFolders().flatMap((d) => walk(join(ROOT, d)))
    expect(files.length).toBeGreaterThan(50)
    const found = violations(files).map((v) => `${v.file}:${v.line} imports ${v.target}: ${v.rule}`)
    expect(found).toEqual([])
  })

  test('every top-level folder with code, and every folder under helpers/, is a layer of the table', () => {
    const files = codeFolders().flatMap((d) => walk(join(ROOT, d)))
    expect(files.filter((f) => !layerOf(f)).map((f) => relative(ROOT, f))).toEqual([])
    const folders = readdirSync(join(ROOT, 'helpers'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `helpers/${e.name}`)
    expect(folders.filter((f) => !(f in LAYERS))).toEqual([])
    const loose = readdirSync(join(ROOT, 'helpers')).filter((n) => n.endsWith('.ts'))
    expect(loose, 'helpers/ holds only layer folders').toEqual([])
  })

  test('no layer imports the self-tests, and product code imports no test harness', () => {
    for (const [layer, may] of Object.entries(LAYERS)) expect(may, layer).not.toContain('selftest')
    const product = Object.keys(LAYERS).filter((l) => l.startsWith('helpers/') || l === 'suites' || l === 'reference' || l === 'scripts')
    for (const layer of product) expect(LAYERS[layer], layer).not.toContain('testing')
  })

  test('no import circle of any kind, type-only imports included', () => {
    const files = codeFolders().flatMap((d) => walk(join(ROOT, d)))
    expect(circles(files).map((c) => c.join(' → '))).toEqual([])
  })

  test('the circle finder finds a circle of type-only imports', () => {
    const a = join(ROOT, 'helpers/http/api.ts')
    const b = join(ROOT, 'helpers/http/client.ts')
    const text: Record<string, string> = { [a]: `import type { X } from './client'\n`, [b]: `import {\n  type Y,\n} from './api'\n` }
    expect(circles([a, b], (f) => text[f])).toEqual([['helpers/http/api.ts', 'helpers/http/client.ts', 'helpers/http/api.ts']])
    expect(circles([a, b], (f) => (f === a ? text[a] : ''))).toEqual([])
  })

  test('the rule catches a wrong-way import (a spec file importing the HTTP client)', () => {
    const fake = join(ROOT, 'helpers/spec/fake.ts')
    const spec = importsOf(`import { HttpClient } from '../http/client'\nconst x = await import('../kit/check')\n`)
    expect(spec.map((s) => s.spec)).toEqual(['../http/client', '../kit/check'])
    const layerTargets = spec.map((s) => layerOf(resolve(dirname(fake), s.spec)))
    expect(layerTargets).toEqual(['helpers/http', 'helpers/kit'])
    expect(layerTargets.every((t) => !LAYERS['helpers/spec'].includes(t!))).toBe(true)
    expect(layerOf(join(ROOT, 'suites/items.test.ts'))).toBe('suites')
    expect(layerOf(join(ROOT, 'selftest/layers.test.ts'))).toBe('selftest')
    expect(layerOf(join(ROOT, 'scripts/bench.ts'))).toBe('scripts/bench.ts')
    expect(layerOf(join(ROOT, 'scripts/cli.ts'))).toBe('scripts')
  })

  test('the rule catches product code importing a test folder', () => {
    const dir = mkdtempSync(join(ROOT, 'helpers/runner/.layers-'))
    try {
      const file = join(dir, 'x.ts')
      writeFileSync(file, `import { ROOT } from '../../../testing/run-suite'\nimport { LAYERS } from '../../../selftest/layers.test'\n`)
      expect(violations([file]).map((v) => v.target)).toEqual(['testing/run-suite', 'selftest/layers.test'])
      writeFileSync(file, `import { startChaosProxy } from '../../../testing/chaos-proxy'\n`)
      const cli = join(ROOT, 'scripts/cli.ts')
      expect(violations([file]).map((v) => v.rule)).toEqual([expect.stringContaining('not testing')])
      expect(importsOf(`import { startChaosProxy } from '../testing/chaos-proxy'`).map((s) => layerOf(resolve(dirname(cli), s.spec)))).toEqual(['testing'])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
