/**
 * npm run report:merge: the shards of a real explore run against the reference server merge into one run
 * with every report; conformance runs of disjoint areas merge into the run they make together; inputs that
 * cannot be one run (missing, another target, another format, overlapping areas) exit 2 with one sentence.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../helpers/config/config'
import { explore } from '../helpers/explore/run'
import { mergeResults, readMergeInput } from '../helpers/reports/merge'
import { CLAUSES } from '../helpers/spec/clauses'
import { fixtureRun, targetOf } from './report-fixtures'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { ROOT } from '../testing/run-suite'

const dirs: string[] = []
const targets: ReferenceTarget[] = []
afterAll(async () => {
  for (const t of targets) await t.close()
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'ct-merge-'))
  dirs.push(d)
  return d
}

function merge(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/report-merge.ts', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A fixture run written as <dir>/results.json. */
function written(run: object): string {
  const dir = tempDir()
  writeFileSync(join(dir, 'results.json'), JSON.stringify(run))
  return dir
}

const areaOf = (id: string) => CLAUSES.find((c) => c.id === id)!.area
const others = (area: string) => CLAUSES.filter((c) => c.area !== area).map((c) => c.id)
const only = (area: string) => CLAUSES.filter((c) => c.area === area).map((c) => c.id)

describe('npm run report:merge', () => {
  it('merges the shards of an explore run into one results.json and its reports', async () => {
    const ref = await startReference()
    targets.push(ref)
    const shards = [tempDir(), tempDir()]
    const outs = []
    for (const [i, dir] of shards.entries()) {
      const config = loadConfig({ ...ref.env, REPORT_DIR: dir, SEED: '77' })
      outs.push(await explore({ config, budgetS: 4, shard: { index: i, count: 2 }, pollMs: 150 }))
    }
    expect(outs.map((o) => o.exitCode)).toEqual([0, 0])
    const out = join(tempDir(), 'merged')
    const r = merge(...shards, '--out', out)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const merged = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    expect(merged.mode).toBe('explore')
    expect(merged.verdict).toBe('conformant')
    expect(merged.explore.seeds).toBe(outs[0]!.seeds + outs[1]!.seeds)
    expect(merged.explore.steps).toBe(outs[0]!.steps + outs[1]!.steps)
    expect(merged.explore.shards).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ])
    expect(merged.merged.sources).toHaveLength(2)
    // One entry per id: the shards judged mostly the same clauses.
    const ids = merged.checks.map((c: { id: string }) => c.id)
    expect(new Set(ids).size).toBe(ids.length)
    const shardIds = shards.flatMap((d) => JSON.parse(readFileSync(join(d, 'results.json'), 'utf8')).checks.map((c: { id: string }) => c.id))
    expect(new Set(ids)).toEqual(new Set(shardIds))
    for (const f of ['junit.xml', 'report.html', 'summary.md']) expect(existsSync(join(out, f)), f).toBe(true)
  }, 120_000)

  it('judges the merged shards again: a finding of one shard fails the merged run, and drops that clause\'s "agree" entry', () => {
    const base = { mode: 'explore', targetSlug: 'embedded--explore', explore: { seeds: 3, steps: 90, shard: { index: 0, count: 2 }, findings: [] } }
    const passed = fixtureRun({ runId: 'run-a', targetSlug: 'embedded--explore' })
    const failing = fixtureRun({
      runId: 'run-b',
      targetSlug: 'embedded--explore',
      changes: { 'items.max-items': { status: 'failed', message: 'kept 3 items' } },
    })
    const merged = mergeResults([
      { path: 'a', results: { ...passed, ...base } },
      { path: 'b', results: { ...failing, ...base, explore: { ...base.explore, shard: { index: 1, count: 2 }, findings: [{ clause: 'items.max-items' }] } } },
    ])
    expect(merged.exitCode).toBe(1)
    expect(merged.verdict).toBe('non-conformant')
    expect(merged.checks.filter((c) => c.clause === 'items.max-items').map((c) => c.status)).toEqual(['failed'])
    expect(merged.explore?.findings).toEqual([{ clause: 'items.max-items' }])
    expect(merged.explore?.seeds).toBe(6)
  })

  it('merges conformance runs of disjoint areas into the run they make together', () => {
    const t = targetOf('https://staging.example.com (user API /u, message API /m)')
    const channels = written(
      fixtureRun({ runId: 'c1', target: t.display, omit: others('channels'), changes: { [only('channels')[0]!]: { status: 'failed' } } }),
    )
    const rest = written(fixtureRun({ runId: 'c2', target: t.display, omit: only('channels') }))
    const out = tempDir()
    const r = merge(channels, join(rest, 'results.json'), '--out', out)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    const merged = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'))
    expect(merged.runId).toBe('c1+c2')
    expect(merged.checks.length).toBe(CLAUSES.filter((c) => !c.notTestable).length)
    expect(merged.checks.filter((c: { status: string }) => c.status === 'failed').map((c: { clause: string }) => areaOf(c.clause))).toEqual(['channels'])
  })

  it.each([
    ['a missing input', () => [join(tempDir(), 'nothing-here')], /^report:merge: cannot read .*results\.json: no such file\n$/],
    [
      'different targets',
      () => [
        written(fixtureRun({ target: 'https://a.example.com (user API /u, message API /m)', omit: others('channels') })),
        written(fixtureRun({ target: 'https://b.example.com (user API /u, message API /m)', omit: only('channels') })),
      ],
      /^report:merge: different targets: .*\n$/,
    ],
    [
      'different formats',
      () => [
        written(fixtureRun({ runId: 'x1', omit: others('channels') })),
        written({ ...fixtureRun({ runId: 'x2', omit: only('channels') }), mode: 'explore' }),
      ],
      /^report:merge: different formats: .* is mcrs-conformance-results\/2, mode conformance, .* is mcrs-conformance-results\/2, mode explore\n$/,
    ],
    [
      'overlapping conformance runs',
      () => [written(fixtureRun({ runId: 'o1' })), written(fixtureRun({ runId: 'o2', omit: only('channels') }))],
      /^report:merge: the runs overlap: check '.*' is in both .*\n$/,
    ],
    ['something else than a results.json', () => [written({ hello: 'world' })], /^report:merge: .* is not a results\.json of the suite .*\n$/],
  ])('exits 2 with one sentence on %s', (_what, inputs, message) => {
    const out = tempDir()
    const r = merge(...inputs(), '--out', out)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(existsSync(join(out, 'results.json'))).toBe(false)
  })

  it('reads a directory or the results.json in it alike, and wants --out', () => {
    const dir = written(fixtureRun({ runId: 'd1' }))
    expect(readMergeInput(dir).results.runId).toBe('d1')
    expect(readMergeInput(join(dir, 'results.json')).results.runId).toBe('d1')
    const r = merge(dir)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--out <dir> is required/)
  })
})
