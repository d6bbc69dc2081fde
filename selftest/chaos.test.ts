/**
 * Transport faults between the suite and a clean server never make it look non-conformant. Through the
 * chaos proxy: transient resets and 503s on the requests the suite may retry leave the verdict conformant
 * and show up as flaky checks; a lost answer to a create (which must not be repeated) is an `error`, never
 * `failed`; a route that never answers times out, its checks end as `error` and the run ends in bounded time;
 * (an overloaded server that sheds load with 503 and a Retry-After is one of the staging conditions,
 * selftest/staging-conditions.test.ts: a paced run that mostly waits, it need not hold a quiet machine.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChaosProxy, type ChaosProxy } from '../testing/chaos-proxy'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { runSuite } from '../testing/run-suite'

let ref: ReferenceTarget
const proxies: ChaosProxy[] = []

const leftovers = () => ref.channelNames().filter((n) => /^ct/i.test(n))

async function proxy(opts: Omit<Parameters<typeof startChaosProxy>[0], 'target'>): Promise<ChaosProxy> {
  const p = await startChaosProxy({ target: ref.url, ...opts })
  proxies.push(p)
  return p
}

beforeAll(async () => {
  ref = await startReference()
})
afterAll(async () => {
  for (const p of proxies) await p.close()
  await ref?.close()
})

describe('the suite through a faulty network', () => {
  test('5% resets and 503s on retryable requests: still conformant, the retried checks flaky', async () => {
    const chaos = await proxy({ rate: 0.05, seed: 20240611, latencyMs: 1 })
    const run = await runSuite([], { ...ref.env, BASE_URL: chaos.url })
    const r = run.results
    expect(r, run.stderr).not.toBeNull()
    const bad = r!.checks.filter((c) => c.status === 'failed' || c.status === 'error').map((c) => `${c.status} ${c.id}: ${c.message}`)
    expect(bad).toEqual([])
    expect(r!.verdict).toBe('conformant')
    expect(run.code).toBe(0)
    expect(chaos.stats.resets + chaos.stats.unavailable).toBeGreaterThan(5)
    expect(r!.http.retries).toBeGreaterThan(0)
    const flaky = r!.checks.filter((c) => c.status === 'flaky')
    expect(flaky.length).toBeGreaterThan(0)
    for (const c of flaky) expect(c.retries, c.id).toBeGreaterThan(0)
    expect(leftovers()).toEqual([])
  })

  test('a create whose answer is lost is an error, never a failure, and its channel is still deleted', async () => {
    let lost = 0
    const chaos = await proxy({
      // The first create reaches the server, which makes the channel; the client sees a reset.
      resetAfterForward: (req) => req.method === 'POST' && req.url.split('?')[0] === `${ref.env.MESSAGE_API_PATH}/channels` && lost++ === 0,
    })
    // One attempt per check (no re-run of errored checks): this test is about how that one attempt is reported.
    const run = await runSuite(['--area', 'tags'], { ...ref.env, BASE_URL: chaos.url, RERUN_ERRORED: '0' })
    const r = run.results
    expect(r, run.stderr).not.toBeNull()
    expect(chaos.stats.lostAnswers).toBe(1)
    expect(r!.counts.total.failed, run.stdout).toBe(0)
    const errors = r!.checks.filter((c) => c.status === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0]!.message).toMatch(/TransportError: POST .*\/channels: no answer after 1 attempt/)
    expect(r!.verdict).toBe('incomplete')
    expect(run.code).toBe(2)
    expect(leftovers()).toEqual([])
  })

  test('a route that never answers: its checks time out as errors and the run ends', async () => {
    const chaos = await proxy({ hang: (req) => req.method === 'GET' && /\/channels\/[^/?]+\/summary(\?|$)/.test(req.url) })
    const run = await runSuite(['--area', 'channels'], { ...ref.env, BASE_URL: chaos.url, REQUEST_TIMEOUT_MS: '1000', RERUN_ERRORED: '0' }, 180_000)
    const r = run.results
    expect(r, run.stderr).not.toBeNull()
    expect(chaos.stats.hung).toBeGreaterThan(0)
    expect(r!.counts.total.failed, run.stdout).toBe(0)
    const errors = r!.checks.filter((c) => c.status === 'error')
    expect(errors.length).toBeGreaterThan(0)
    for (const e of errors) expect(e.message, e.id).toMatch(/summary: no answer after 3 attempt\(s\)/)
    expect(r!.verdict).toBe('incomplete')
    expect(run.code).toBe(2)
    expect(leftovers()).toEqual([])
  })
})
