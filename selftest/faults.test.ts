/**
 * The suite proves itself: for every fault of the reference server's catalogue, the suite run against the
 * server with that one fault on must end with exit 1 and a failure on the clause the fault violates, at
 * the clause's level (a SHOULD-level fault is caught at SHOULD, and then the exit code stays 0 unless STRICT).
 * A missed fault fails its test and is named in the closing score.
 */
import { availableParallelism } from 'node:os'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { clause } from '../helpers/clauses'
import { FAULTS, type Fault } from '../reference/faults'
import { runSuite, type SuiteRun } from './run-suite'

const runs = new Map<string, SuiteRun>()
const caught = new Set<string>()

/** Faults run side by side, one suite run each, bounded by the machine's cores. */
async function runAll(faults: readonly Fault[], width: number): Promise<void> {
  const queue = [...faults]
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let f = queue.shift(); f; f = queue.shift()) runs.set(f.name, await runSuite(['--fault', f.name]))
    }),
  )
}

function clausesOf(f: Fault): string[] {
  return Array.isArray(f.clause) ? f.clause : [f.clause]
}

beforeAll(async () => {
  await runAll(FAULTS, Math.max(2, Math.min(4, availableParallelism())))
}, 900_000)

afterAll(() => {
  const missed = FAULTS.filter((f) => !caught.has(f.name)).map((f) => f.name)
  process.stdout.write(`\nfaults caught: ${caught.size}/${FAULTS.length}${missed.length ? `; missed: ${missed.join(', ')}` : ''}\n`)
})

describe('every catalogued fault is caught', () => {
  test('the catalogue has at least 40 faults with registered clauses', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(40)
    for (const f of FAULTS) for (const id of clausesOf(f)) expect(() => clause(id), `${f.name}: ${id}`).not.toThrow()
    const names = FAULTS.map((f) => f.name)
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
  })

  test.each(FAULTS.map((f) => [f.name, f] as const))('catches %s', (_name, fault) => {
    const run = runs.get(fault.name)!
    expect(run.results, `no results.json; stderr: ${run.stderr}`).not.toBeNull()
    const wanted = clausesOf(fault)
    const levels = new Set(wanted.map((id) => clause(id).level))
    const failedOn = run.results!.checks.filter((c) => c.status === 'failed' && wanted.includes(c.clause))
    expect(
      failedOn.length,
      `fault ${fault.name} (${fault.description}) was not caught on ${wanted.join(' or ')}; failures seen: ${
        run.results!.checks.filter((c) => c.status === 'failed').map((c) => c.clause).join(', ') || 'none'
      }`,
    ).toBeGreaterThan(0)
    expect(run.results!.counts.total.error, `errors: ${run.results!.checks.filter((c) => c.status === 'error').map((c) => c.id).join('; ')}`).toBe(0)
    if (levels.has('MUST')) expect(run.code).toBe(1)
    caught.add(fault.name)
  })
})
