// The lagging-reads variant's replica must receive the primary's writes in the order they were made, however
// the event loop's timers fire: a channel's create that reached it after the channel's first item lost that item,
// and a correct server was judged to fail items.get.by-ids (seen once in a whole run of every variant combined).
import { afterEach, describe, expect, test, vi } from 'vitest'
import { InOrderLater } from '../../reference/variants/common'

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('InOrderLater (the lagging-reads replica)', () => {
  test('runs each action after the lag, in the order added, even when the clock moves between them in one turn', async () => {
    const order: number[] = []
    const later = new InOrderLater(40)
    // In one turn of the event loop the clock moves on between calls, as it does on a loaded machine: with one timer
    // per action, an action added later could get the shorter timer and fire first.
    const start = Date.now()
    let calls = 0
    vi.spyOn(Date, 'now').mockImplementation(() => start + Math.floor(++calls / 4))
    for (let i = 0; i < 50; i++) later.add(() => order.push(i))
    vi.restoreAllMocks()
    expect(order).toEqual([])
    await new Promise((r) => setTimeout(r, 150))
    expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i))
  })

  test('does not run an action before its lag has passed, and runs one added after a quiet spell', async () => {
    const ran: number[] = []
    const later = new InOrderLater(60)
    const start = Date.now()
    later.add(() => ran.push(Date.now() - start))
    await new Promise((r) => setTimeout(r, 30))
    expect(ran).toEqual([])
    await new Promise((r) => setTimeout(r, 80))
    expect(ran).toHaveLength(1)
    expect(ran[0]).toBeGreaterThanOrEqual(59)
    later.add(() => ran.push(-1))
    await new Promise((r) => setTimeout(r, 120))
    expect(ran).toHaveLength(2)
  })

  test('an action that throws does not stop the ones after it from running later', async () => {
    const later = new InOrderLater(5)
    const ran: string[] = []
    const errors: unknown[] = []
    const onError = (err: unknown) => errors.push(err)
    process.prependListener('uncaughtException', onError)
    try {
      later.add(() => {
        throw new Error('boom')
      })
      await new Promise((r) => setTimeout(r, 40))
      later.add(() => ran.push('after'))
      await new Promise((r) => setTimeout(r, 40))
    } finally {
      process.removeListener('uncaughtException', onError)
    }
    expect(errors).toEqual([expect.objectContaining({ message: 'boom' })])
    expect(ran).toEqual(['after'])
  })
})
