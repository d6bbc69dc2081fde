/**
 * The configuration table (helpers/config/table.ts) is the one list of variables: `.env.example`, the
 * the configuration table of docs/configuration.md and every variable the code reads must agree with it.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'dotenv'
import { describe, expect, test } from 'vitest'
import { CONFIG_TABLE, withConfigMarkdown } from '../helpers/config/table'
import { DEFAULTS } from '../helpers/config/config'
import { ROOT } from '../testing/run-suite'

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

describe('configuration table', () => {
  test('.env.example lists exactly the env-file variables of the table, in its order', () => {
    const example = Object.keys(parse(readFileSync(join(ROOT, '.env.example'))))
    expect(example).toEqual(CONFIG_TABLE.filter((r) => r.scope === 'env').map((r) => r.name))
  })

  test('no secret has a default in code, and names and flags are unique', () => {
    expect(CONFIG_TABLE.filter((r) => r.secret && r.default !== '').map((r) => r.name)).toEqual([])
    expect(CONFIG_TABLE.filter((r) => r.secret).map((r) => r.name)).toEqual(['CLIENT_SECRET', 'USER_A_PASSWORD', 'USER_B_PASSWORD', 'USER_C_PASSWORD'])
    expect(new Set(CONFIG_TABLE.map((r) => r.name)).size).toBe(CONFIG_TABLE.length)
    expect(new Set(CONFIG_TABLE.map((r) => r.flag)).size).toBe(CONFIG_TABLE.length)
    for (const r of CONFIG_TABLE) expect(r.flag).toMatch(/^--[a-z0-9-]+$/)
  })

  test('the loader takes its defaults from the table', () => {
    for (const [name, value] of Object.entries(DEFAULTS)) expect(value, name).toBe(CONFIG_TABLE.find((r) => r.name === name)?.default)
  })

  test('the configuration table of docs/configuration.md is the generated one (npm run docs:config)', () => {
    const readme = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')
    expect(withConfigMarkdown(readme), 'docs/configuration.md lacks the markers').not.toBeNull()
    expect(withConfigMarkdown(readme) === readme, 'docs/configuration.md configuration table is stale: run npm run docs:config').toBe(true)
  })

  test('every variable the code reads is a row of the table', () => {
    const names = new Set(CONFIG_TABLE.map((r) => r.name))
    // Tooling of the project itself, not of a run: vitest's worker ids, the benchmark's knobs and the Node options it passes on.
    const tooling = /^(VITEST_\w+|BENCH_\w+|EXPLORE_BENCH_S|NODE_OPTIONS)$/
    const read = new Set<string>()
    for (const file of ['helpers', 'scripts', 'reference'].flatMap((d) => walk(join(ROOT, d)))) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(
        /process\.env\.([A-Z_][A-Z0-9_]*)|\bget\('([A-Z_][A-Z0-9_]*)'\)|\benv\.([A-Z][A-Z0-9_]*)\b|(?:proxy|file|either\(get,)\s*\(?'([A-Z][A-Z0-9_]*)'/g,
      )) {
        const name = m[1] ?? m[2] ?? m[3] ?? m[4]
        if (name && !tooling.test(name)) read.add(name)
      }
    }
    expect(read.size).toBeGreaterThan(15)
    expect([...read].filter((n) => !names.has(n)).sort()).toEqual([])
  })
})
