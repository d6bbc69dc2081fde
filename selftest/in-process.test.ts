/**
 * The self-proof's in-process road to the embedded server (helpers/http/in-process.ts, helpers/runner/embedded.ts
 * `serveInProcess`) gives the client what the socket gives it: the same status, headers and body for the same
 * requests, the same refusals before sending, a timeout named as the wire's, and clients of one thread that
 * close on their own. The fault and variant proofs rest on it (selftest/session-runs.ts).
 */
import { BroadcastChannel } from 'node:worker_threads'
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { HttpClient, TransportError, type Exchange, type RequestSpec } from '../helpers/http/client'
import { DIRECT } from '../helpers/http/network'
import { serveInProcess } from '../helpers/runner/embedded'
import { exampleEnv, startReference, type ReferenceTarget } from '../testing/reference-target'

const env = exampleEnv()
const USER = env.USER_API_PATH!
const MESSAGE = env.MESSAGE_API_PATH!

let ref: ReferenceTarget
let link: { channel: string; close(): void }
let wire: HttpClient
let near: HttpClient

beforeAll(async () => {
  ref = await startReference()
  link = serveInProcess(ref.app)
  wire = new HttpClient({ baseUrl: ref.url, timeoutMs: 5000 })
  near = new HttpClient({ baseUrl: ref.url, timeoutMs: 5000, network: { ...DIRECT, inProcess: link.channel } })
})

afterAll(async () => {
  await wire.close()
  await near.close()
  link.close()
  await ref.close()
})

/**
 * What may differ between two answers of one server to one request: the clock, the socket's own connection
 * headers (Node closes the connection after some answers to HEAD), the channel's name (of one length on both)
 * and the times in a body.
 */
function comparable(ex: Exchange, name: string) {
  const { date: _date, 'keep-alive': _keepAlive, connection: _connection, ...rest } = ex.headers
  const headers = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, v.replaceAll(name, '<name>')]))
  const text = ex.text.replaceAll(name, '<name>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z?/g, '<time>')
  return { method: ex.request.method, url: ex.request.url.replaceAll(name, '<name>'), status: ex.status, headers, text }
}

async function signIn(http: HttpClient, user: 'A' | 'B', deviceId: string): Promise<string> {
  const ex = await http.send({
    method: 'POST',
    path: `${USER}/user/session`,
    form: { grant_type: 'password', username: env[`USER_${user}_NAME`]!, password: env[`USER_${user}_PASSWORD`]!, client_id: env.CLIENT_ID!, scope: 'public' },
    headers: { 'MMS-DEVICE-ID': deviceId },
    idempotent: true,
  })
  expect(ex.status).toBe(200)
  return (ex.json as { access_token: string }).access_token
}

describe('the in-process road to the embedded server', () => {
  test('answers each request as the socket does: status, headers and body', async () => {
    const token = await signIn(wire, 'A', 'ct-inproc-a')
    const stamp = Date.now().toString(36)
    /** One sequence of requests, on a channel of its own: a create, its repeat, reads, a delete and its repeat. */
    const specs = (name: string): RequestSpec[] => [
      { method: 'GET', path: `${MESSAGE}/channels`, query: { size: 2 } },
      { method: 'GET', path: `${MESSAGE}/channels/${encodeURIComponent('no such channel é')}`, token },
      { method: 'GET', path: `${MESSAGE}/channels/with space/items`, token },
      { method: 'POST', path: `${MESSAGE}/channels`, rawBody: '{"channelName":', headers: { 'content-type': 'application/json' }, token },
      { method: 'POST', path: `${MESSAGE}/channels`, json: { channelName: name, description: 'in-process' }, token },
      { method: 'POST', path: `${MESSAGE}/channels`, json: { channelName: name, description: 'in-process' }, token },
      { method: 'PUT', path: `${MESSAGE}/channels/${name}/tags`, json: ['x'], token },
      { method: 'GET', path: `${MESSAGE}/channels/${name}/tags`, token },
      { method: 'HEAD', path: `${MESSAGE}/channels/${name}`, token },
      { method: 'DELETE', path: `${MESSAGE}/channels/${name}`, token },
      { method: 'DELETE', path: `${MESSAGE}/channels/${name}`, token },
      { method: 'GET', path: `${USER}/user/all`, token },
      { method: 'PATCH', path: `${MESSAGE}/channels`, token },
    ]
    const answers = async (http: HttpClient, name: string) => {
      const out = []
      for (const spec of specs(name)) out.push(comparable(await http.send(spec), name))
      return out
    }
    expect(await answers(near, `ctinprocn${stamp}`)).toEqual(await answers(wire, `ctinprocw${stamp}`))
    // A token from a sign-in on the in-process road works on the wire too: one server behind both.
    const nearToken = await signIn(near, 'B', 'ct-inproc-b')
    expect((await wire.send({ method: 'GET', path: `${USER}/user/all`, token: nearToken })).status).toBe(200)
  })

  test('hands a body over as a socket does: a request with one, sent together with one without, is not held back', async () => {
    const app = Fastify()
    const started: string[] = []
    app.post('/race', async () => {
      started.push('with a body')
      return {}
    })
    app.delete('/race', async () => {
      started.push('without')
      return {}
    })
    await app.ready()
    const road = serveInProcess(app)
    const http = new HttpClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 5000, network: { ...DIRECT, inProcess: road.channel } })
    try {
      for (let i = 0; i < 10; i++) {
        started.length = 0
        const answers = await Promise.all([http.send({ method: 'POST', path: '/race', json: { tags: ['x'] } }), http.send({ method: 'DELETE', path: '/race' })])
        expect(answers.map((a) => a.status)).toEqual([200, 200])
        expect(started).toEqual(['with a body', 'without'])
      }
    } finally {
      await http.close()
      road.close()
      await app.close()
    }
  })

  test('refuses before sending what undici refuses: a header value with a line break', async () => {
    const spec: RequestSpec = { method: 'GET', path: `${MESSAGE}/channels`, headers: { 'x-probe': 'a\r\nb' } }
    const refusal = async (http: HttpClient) => {
      const err = await http.send(spec).then(
        () => null,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(TransportError)
      return (err as TransportError).causeCode
    }
    expect(await refusal(near)).toBe(await refusal(wire))
  })

  test('times out as the wire does when nothing answers, and one client closing leaves the others working', async () => {
    const silent = new BroadcastChannel('mcs-embedded-silent')
    silent.unref()
    const mute = new HttpClient({ baseUrl: ref.url, timeoutMs: 200, retries: 0, network: { ...DIRECT, inProcess: 'mcs-embedded-silent' } })
    const err = await mute.send({ method: 'POST', path: `${MESSAGE}/channels`, json: {} }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TransportError)
    expect((err as TransportError).causeCode).toBe('TimeoutError')
    await mute.close()
    silent.close()

    const other = new HttpClient({ baseUrl: ref.url, timeoutMs: 5000, network: { ...DIRECT, inProcess: link.channel } })
    await other.close()
    expect((await near.send({ method: 'GET', path: `${MESSAGE}/channels` })).status).toBe(401)
  })
})
