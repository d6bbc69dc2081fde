// Variants that are each correct stay correct together: each one's own state agrees with what the others hold.
import { beforeAll, describe, expect, test } from 'vitest'
import { channelName, signInAccounts, useServer, type Session } from './harness'
import { REPLICA_LAG_MS } from '../../reference/variants/common'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A server with `variants` on the real clock (the lagging variants lag by the wall clock, not by an injected one), Alice signed in. */
function aliceOn(variants: string[]): () => Session {
  const server = useServer({ variants, clock: { now: () => Date.now() } })
  let alice: Session | undefined
  beforeAll(async () => {
    ;({ alice } = await signInAccounts(server.api))
  })
  return () => alice!
}

describe('search-index-lag over lagging-reads', () => {
  const session = aliceOn(['lagging-reads', 'search-index-lag'])

  test('a channel deleted a moment ago is found once, never twice, until it is gone from search', async () => {
    const alice = session()
    const name = channelName('lag')
    await alice.mustCreateChannel({ channelName: name })
    // Past the index's refresh (700 ms) and the replica's lag.
    await sleep(1200)
    const before = await alice.call('GET', '/channels', { query: { channelName: name } })
    expect(before.json.results.map((c: { name: string }) => c.name)).toEqual([name])
    expect((await alice.call('DELETE', `/channels/${name}`)).status).toBe(200)
    // While the replica still holds it and the index lingers: one result, and the total agrees.
    const soon = await alice.call('GET', '/channels', { query: { channelName: name } })
    expect(soon.json.results.map((c: { name: string }) => c.name)).toEqual([name])
    expect(soon.json.total).toBe(1)
    await sleep(REPLICA_LAG_MS + 100)
    const later = await alice.call('GET', '/channels', { query: { channelName: name } })
    expect(later.json.results.length).toBeLessThanOrEqual(1)
    expect(later.json.total).toBe(later.json.results.length)
  })
})

describe('lagging-reads under a variant that puts its own handler in place of a GET route', () => {
  const session = aliceOn(['lagging-reads', 'search-exact'])

  test('the replaced handler reads the replica too: a new channel is found only once the replica has it', async () => {
    const alice = session()
    const name = channelName('rep')
    await alice.mustCreateChannel({ channelName: name })
    const soon = await alice.call('GET', '/channels', { query: { channelName: name } })
    const direct = await alice.call('GET', `/channels/${name}`)
    expect(direct.status).toBe(404)
    expect(soon.json.results).toEqual([])
    await sleep(REPLICA_LAG_MS + 200)
    const later = await alice.call('GET', '/channels', { query: { channelName: name } })
    expect(later.json.results.map((c: { name: string }) => c.name)).toEqual([name])
  })
})
