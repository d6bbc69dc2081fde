/**
 * pastGateway (helpers/kit/gateway.ts): a request whose answer was a gateway's 502/503/504 is repeated, and each
 * gateway answer repeated past, or settled by a look, leaves the check's count of unjudged answers.
 */
import { describe, expect, test } from 'vitest'
import type { Exchange } from '../helpers/http/client'
import { pastGateway, type GatewayStep } from '../helpers/kit/gateway'

const answer = (status: number) => ({ status }) as Exchange

/** A request whose answers are `statuses` in turn; how often it was sent again, and the check's count of unjudged answers. */
function request(first: number, ...later: number[]) {
  const rec = { unavailable: [first, ...later].filter((s) => s >= 502 && s <= 504).length }
  let sent = 0
  return { rec, again: async () => answer(later[sent++]!), sentAgain: () => sent }
}

describe('pastGateway', () => {
  test("an answer that is not a gateway's is the answer: nothing repeated, nothing taken off", async () => {
    for (const status of [201, 409, 500]) {
      const r = request(status)
      expect((await pastGateway(r.rec, answer(status), r.again)).status).toBe(status)
      expect([r.sentAgain(), r.rec.unavailable]).toEqual([0, 0])
    }
  })

  test("a gateway's answer is repeated past, and no longer counts as unjudged", async () => {
    const r = request(502, 201)
    expect((await pastGateway(r.rec, answer(502), r.again)).status).toBe(201)
    expect([r.sentAgain(), r.rec.unavailable]).toEqual([1, 0])
  })

  test('twice at most by default: the third gateway answer stays, counted', async () => {
    const r = request(502, 503, 504)
    expect((await pastGateway(r.rec, answer(502), r.again)).status).toBe(504)
    expect([r.sentAgain(), r.rec.unavailable]).toEqual([2, 1])
    const once = request(503, 502)
    expect((await pastGateway(once.rec, answer(503), once.again, { times: 1 })).status).toBe(502)
    expect([once.sentAgain(), once.rec.unavailable]).toEqual([1, 1])
  })

  test('a look before the repeat settles the answer (taken off, not repeated) or stops (kept, counted)', async () => {
    const steps: GatewayStep[] = []
    const look = (step: GatewayStep) => async () => (steps.push(step), step)
    const settled = request(502, 201)
    expect((await pastGateway(settled.rec, answer(502), settled.again, { before: look('settled') })).status).toBe(502)
    expect([settled.sentAgain(), settled.rec.unavailable]).toEqual([0, 0])
    const stopped = request(502, 201)
    expect((await pastGateway(stopped.rec, answer(502), stopped.again, { before: look('stop') })).status).toBe(502)
    expect([stopped.sentAgain(), stopped.rec.unavailable]).toEqual([0, 1])
    const repeated = request(502, 201)
    expect((await pastGateway(repeated.rec, answer(502), repeated.again, { before: look('repeat') })).status).toBe(201)
    expect([repeated.sentAgain(), repeated.rec.unavailable]).toEqual([1, 0])
    expect(steps).toEqual(['settled', 'stop', 'repeat'])
    // Not asked when the answer is the server's own.
    await pastGateway(request(200).rec, answer(200), request(200).again, { before: look('stop') })
    expect(steps).toHaveLength(3)
  })

  test('the count never goes below zero (an answer the recorder did not count, outside the check phase)', async () => {
    const rec = { unavailable: 0 }
    await pastGateway(rec, answer(502), async () => answer(201))
    expect(rec.unavailable).toBe(0)
  })
})
