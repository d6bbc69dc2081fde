/**
 * docs/writing-checks.md cannot drift from the code: its worked example is written into a scratch suite file and
 * run through the real pipeline (it passes against the reference server and fails under its own clause with the
 * fault the page names), the vocabulary it teaches is the one the kit and suites/support export, and every file
 * it tells an author to touch exists.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { Judge, steps, ALSO } from '../helpers/kit/judge'
import * as setup from '../helpers/kit/setup'
import { runConformance } from '../helpers/runner/pipeline'
import { match } from '../suites/support/match'

const ROOT = join(import.meta.dirname, '..')
const DOC = readFileSync(join(ROOT, 'docs/writing-checks.md'), 'utf8')

/** The fenced block after the worked-example marker. */
function workedExample(doc: string): string {
  const at = doc.indexOf('<!-- worked example: run by selftest/writing-checks.test.ts -->')
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at))
  if (at < 0 || !block) throw new Error('docs/writing-checks.md has no worked example block')
  return block[1]!
}

/** The example as a suite file would hold it, moved to selftest/fixtures/ (its imports one folder deeper). */
function scratchFile(source: string): string {
  const file = join(ROOT, 'selftest', 'fixtures', `scratch-${process.pid}-${Date.now()}.check.ts`)
  writeFileSync(file, source.replaceAll("from '../helpers/", "from '../../helpers/").replaceAll("from './support/", "from '../../suites/support/"))
  return file
}

async function runScratch(faults: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'ct-writing-checks-'))
  const file = scratchFile(workedExample(DOC))
  const lines: string[] = []
  try {
    const out = await runConformance({
      env: { BASE_URL: 'embedded', REPORT_DIR: join(dir, 'reports'), STRICT: 'false' },
      faults,
      suiteFiles: [file.slice(ROOT.length + 1)],
      log: (l) => lines.push(l),
      warn: (l) => lines.push(l),
    })
    return { out, lines }
  } finally {
    rmSync(file, { force: true })
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('the worked example of docs/writing-checks.md', () => {
  test('passes against the reference server', async () => {
    const { out, lines } = await runScratch([])
    const checks = out.results?.checks.filter((c) => !c.parent) ?? []
    expect(
      checks.map((c) => [c.clause, c.status]),
      lines.join('\n'),
    ).toEqual([['channels.create.default-max-items', 'passed']])
    expect(out.exitCode).toBe(0)
  })

  test('fails under its own clause, with a got/want line, against the fault the page names', async () => {
    const fault = /fault `([a-z0-9-]+)`/.exec(DOC.slice(DOC.indexOf('## A worked example')))?.[1]
    expect(fault).toBe('channels-default-max-items-100')
    const { out, lines } = await runScratch([fault!])
    const own = out.results?.checks.find((c) => !c.parent && c.clause === 'channels.create.default-max-items')
    expect(own?.status, lines.join('\n')).toBe('failed')
    expect(own?.message).toContain('/maxItems: got 100 (number), want -1 (number)')
    expect(out.exitCode).toBe(1)
  })
})

describe('the vocabulary docs/writing-checks.md teaches', () => {
  const named = (re: RegExp) => [...new Set([...DOC.matchAll(re)].map((m) => m[1]!))]

  test('every judge.x it names is a method of Judge', () => {
    const methods = named(/`judge\.(\w+)\(/g)
    expect(methods.length).toBeGreaterThan(4)
    expect(methods.filter((m) => typeof (Judge.prototype as unknown as Record<string, unknown>)[m] !== 'function')).toEqual([])
  })

  test('every matcher it names is one of suites/support/match.ts', () => {
    const table = DOC.split('\n').find((l) => l.startsWith('| matchers |')) ?? ''
    const names = [...table.matchAll(/`(?:match\.)?(\w+)[(`]/g)].map((m) => m[1]!)
    expect(names.length).toBeGreaterThan(10)
    expect(names.filter((n) => !(n in match))).toEqual([])
    expect(Object.keys(match).filter((n) => !names.includes(n))).toEqual([])
  })

  test('every step, ALSO clause and must* helper it names exists', () => {
    expect(named(/`steps\.(\w+)[.`]/g).filter((s) => s !== 'x' && !(s in steps))).toEqual([])
    expect(named(/ALSO\.(\w+)/g).filter((s) => s !== 'x' && !(s in ALSO))).toEqual([])
    expect(named(/`(must\w+)`/g).filter((s) => !(s in setup))).toEqual([])
  })

  test('every file it tells an author to touch exists', () => {
    const paths = named(/`((?:helpers|suites|selftest|reference|schemas|docs)\/[\w./-]+\.(?:ts|md|json))`/g)
    expect(paths.length).toBeGreaterThan(10)
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([])
  })
})
