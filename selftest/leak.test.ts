/**
 * Leak check: after a run against a server given by BASE_URL — complete, or interrupted halfway by SIGINT —
 * the server holds no channel named with the suite's prefix, and the run's ledger is gone. The reference
 * server runs in this process, so its store is inspected directly, not through the API under test.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChaosProxy, type ChaosProxy } from '../testing/chaos-proxy'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { runSuite, type SuiteRun } from '../testing/run-suite'

let ref: ReferenceTarget
let proxy: ChaosProxy

const leftovers = () => ref.channelNames().filter((n) => /^ct/i.test(n))
const ledgers = (run: SuiteRun) => {
  const dir = join(run.reportDir, '.ledger')
  return existsSync(dir) ? readdirSync(dir) : []
}

beforeAll(async () => {
  ref = await startReference()
  // No faults: the proxy only counts requests, so the interrupt can come halfway through the run.
  proxy = await startChaosProxy({ target: ref.url })
})
afterAll(async () => {
  await proxy?.close()
  await ref?.close()
})

describe('no channel is left behind', () => {
  test('after a complete run', async () => {
    const run = await runSuite([], ref.env)
    expect(run.results?.verdict, run.stdout + run.stderr).toBe('conformant')
    expect(run.code).toBe(0)
    expect(run.results!.cleanup).toEqual([])
    expect(leftovers()).toEqual([])
    expect(ledgers(run)).toEqual([])
  })

  test('after a run interrupted by SIGINT halfway', async () => {
    const start = proxy.stats.requests
    let signalled = false
    let child: ChildProcess | undefined
    let out = ''
    // Halfway: a suite file has finished, or about 150 requests have gone through (a full run makes ~700).
    const timer = setInterval(() => {
      if (signalled || !child) return
      if (/✓ suites\//.test(out) || proxy.stats.requests - start >= 150) {
        signalled = true
        child.kill('SIGINT')
      }
    }, 20)
    const run = await runSuite([], { ...ref.env, BASE_URL: proxy.url }, 180_000, (c, stdout) => {
      child = c
      out = stdout
    }).finally(() => clearInterval(timer))
    expect(signalled, run.stdout).toBe(true)
    expect(run.code, run.stdout + run.stderr).toBe(2)
    expect(run.results, run.stderr).not.toBeNull()
    expect(run.results!.interrupted).toBe(true)
    expect(run.results!.verdict).toBe('incomplete')
    expect(run.results!.counts.total.failed).toBe(0)
    expect(run.stdout).toMatch(/SIGINT: interrupted/)
    expect(leftovers()).toEqual([])
    expect(ledgers(run)).toEqual([])
  })
})
