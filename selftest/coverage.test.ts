/**
 * The models of the spec's spaces (helpers/spec/models.ts) hold together with the endpoint table and the
 * suite: every field of every endpoint has a row of the input model, every channel endpoint a row of the
 * address model, every cell is covered or says why not, every check a cell names is one the suite has, and
 * docs/coverage.md is what `npm run openapi` writes now.
 */
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { coverageMarkdown, modelCells, stateOf } from '../helpers/spec/coverage'
import { ENDPOINTS } from '../helpers/spec/endpoints'
import { CHANNEL_OPERATIONS, INPUT_MODEL } from '../helpers/spec/models'
import { ROOT, runChild } from '../testing/run-suite'

/** Parameter and body field names of an endpoint, as the input model names them. */
function fieldsOf(e: (typeof ENDPOINTS)[number]): string[] {
  const params = e.params.filter((p) => p.name !== 'channel_name' && p.name !== 'Authorization').map((p) => p.name)
  const body = Object.values(e.body?.content ?? {}).flatMap((schema) => Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {}))
  return [...new Set([...params, ...body])]
}

/** The fields a row names: "a / b (path)" names a and b. */
const rowFields = (field: string): string[] => field.split(' / ').map((f) => f.replace(/ \(.*\)$/, '').trim())
const rowOperations = (operationId: string): string[] => operationId.split(' / ').map((o) => o.trim())

describe('the models against the endpoint table', () => {
  test('every parameter and body field of every endpoint has a row of the input model', () => {
    const missing: string[] = []
    for (const e of ENDPOINTS) {
      const rows = INPUT_MODEL.filter((r) => rowOperations(r.operationId).includes(e.operationId))
      const named = new Set(rows.flatMap((r) => rowFields(r.field)))
      for (const f of fieldsOf(e)) if (!named.has(f) && !(f === 'q' && named.has('q'))) missing.push(`${e.operationId} ${f}`)
    }
    expect(missing).toEqual([])
  })

  test('every row of the input model names a real endpoint', () => {
    const ids = new Set(ENDPOINTS.map((e) => e.operationId))
    expect(INPUT_MODEL.flatMap((r) => rowOperations(r.operationId)).filter((o) => !ids.has(o))).toEqual([])
  })

  test('the address model has exactly the endpoints that address a channel by name', () => {
    const byName = ENDPOINTS.filter((e) => e.params.some((p) => p.name === 'channel_name')).map((e) => e.operationId)
    expect([...CHANNEL_OPERATIONS].sort()).toEqual(byName.sort())
  })

  test('every cell is covered, or not applicable with a reason', () => {
    const cells = modelCells()
    expect(cells.filter((c) => stateOf(c.cover) === 'open').map((c) => `${c.model}: ${c.row} × ${c.column}`)).toEqual([])
    for (const c of cells) if ('na' in c.cover) expect(c.cover.na.length, `${c.model}: ${c.row} × ${c.column}`).toBeGreaterThan(10)
  })

  test('docs/coverage.md is what npm run openapi writes now', () => {
    expect(readFileSync(join(ROOT, 'docs/coverage.md'), 'utf8')).toBe(coverageMarkdown())
  })
})

describe('the checks the cells name', () => {
  let titles: string[] = []
  beforeAll(async () => {
    // The suite's tests as vitest collects them: the real titles, generated ones included.
    const out = join(mkdtempSync(join(tmpdir(), 'ct-list-')), 'list.json')
    const run = await runChild(
      process.execPath,
      [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'list', '--config', 'vitest.config.ts', `--json=${out}`],
      // The embedded reference server by name, so a CI machine (CI=true, no BASE_URL) lists the suite too.
      { cwd: ROOT, env: { ...process.env, BASE_URL: 'embedded' } },
      120_000,
    )
    expect(run.code, run.stderr).toBe(0)
    titles = (JSON.parse(readFileSync(out, 'utf8')) as { name: string }[]).map((t) => t.name)
  }, 150_000)

  test('exist in the suite, under the clause the cell names', () => {
    const wanted = new Set(modelCells().flatMap((c) => ('checks' in c.cover && c.cover.checks ? c.cover.checks.map((k) => `${k.title} [${k.clause}]`) : [])))
    const absent = [...wanted].filter((w) => !titles.some((t) => t.endsWith(`> ${w}`) || t === w))
    expect(absent).toEqual([])
  })
})
