import { spawn } from 'node:child_process'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { buildServer } from '../../reference/app'
import { onRoute, overrideStore, rewriteJson } from '../../reference/faults/kit'
import type { Fault } from '../../reference/faults'
import { loadSeed } from '../../reference/seed'
import { ALICE, Api, CLIENT_ID } from './harness'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

async function listen(app: ReturnType<typeof buildServer>): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (typeof address !== 'object' || address === null) throw new Error('no address')
  return `http://127.0.0.1:${address.port}`
}

function run(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'reference/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const line = /^listening (http:\/\/\S+)\n/.exec(stdout)
      if (line) resolve(line[1]!)
    })
    child.on('exit', () => reject(new Error(`exited before listening: ${stderr}`)))
  })
  ready.catch(() => undefined)
  return { child, ready, exited, output: () => ({ stdout, stderr }) }
}

describe('npm run serve (reference/main.ts)', () => {
  test('prints exactly "listening http://HOST:PORT", serves, and exits 0 on SIGTERM', async () => {
    const server = run(['--port', '0'], { HOST: '127.0.0.1' })
    const url = await server.ready
    expect(server.output().stdout).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\n$/)
    const res = await new Api(url).signIn(ALICE.userName, ALICE.password)
    expect(res.status).toBe(200)
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    // Nothing but the ready line: no logs, so no secrets.
    expect(server.output().stdout).toBe(`listening ${url}\n`)
    expect(server.output().stderr).toBe('')
  })

  test('takes PORT from the environment and exits 0 on SIGINT', async () => {
    const server = run([], { PORT: '0' })
    await server.ready
    server.child.kill('SIGINT')
    expect(await server.exited).toBe(0)
  })

  test.each([
    ['an unknown fault', ['--fault', 'no-such-fault'], /unknown fault\(s\): no-such-fault/],
    ['a bad port', ['--port', 'eighty'], /invalid port/],
    ['an unknown flag', ['--verbose'], /Unknown option/],
  ])('exits 2 on %s', async (_title, args, message) => {
    const server = run(args)
    expect(await server.exited).toBe(2)
    expect(server.output().stderr).toMatch(message)
  })
})

describe('buildServer options', () => {
  test('serves under the API paths given', async () => {
    const app = buildServer({ userApiPath: '/u/', messageApiPath: '/m/v9' })
    try {
      const api = new Api(await listen(app), '/u', '/m/v9')
      const session = await api.mustSignIn(ALICE)
      expect((await session.call('POST', '/channels', { json: { channelName: 'pathy' } })).status).toBe(201)
      const old = await api.call('GET', `${api.base}/message/api/v2/channels/pathy`, { token: session.token })
      expect(old.status).toBe(404)
    } finally {
      await app.close()
    }
  })

  test('seeds from the seed given', async () => {
    const seed = loadSeed()
    seed.application.clientId = 'other-app'
    seed.users = [{ ...seed.users[0]!, userName: 'zed', password: 'zed-pass' }]
    const app = buildServer({ seed })
    try {
      const api = new Api(await listen(app))
      const res = await api.call('POST', api.user('/user/session'), {
        headers: { 'mms-device-id': 'd' },
        query: { grant_type: 'password', username: 'zed', password: 'zed-pass', client_id: 'other-app' },
      })
      expect(res.status).toBe(200)
      expect(res.json.user.clientId).toBe('other-app')
      expect((await api.signIn(ALICE.userName, ALICE.password)).status).toBe(401)
    } finally {
      await app.close()
    }
  })

  test('throws on an unknown fault name', () => {
    expect(() => buildServer({ faults: ['not-a-fault'] })).toThrow(/unknown fault\(s\): not-a-fault/)
  })

  test('never logs passwords or tokens', async () => {
    let logged = ''
    const stream = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk
        done()
      },
    })
    const app = buildServer({ logger: { level: 'trace', stream } })
    try {
      const api = new Api(await listen(app))
      const res = await api.call('POST', api.user('/user/session'), {
        headers: { 'mms-device-id': 'd' },
        query: { grant_type: 'password', username: ALICE.userName, password: ALICE.password, client_id: CLIENT_ID },
      })
      const token = res.json.access_token
      await api.call('GET', api.user('/user/all'), { token })
      expect(logged).toContain('/user/session')
      expect(logged).not.toContain(ALICE.password)
      expect(logged).not.toContain(token)
    } finally {
      await app.close()
    }
  })
})

describe('fault seams (faults/kit.ts)', () => {
  const fault: Fault = {
    name: 'test-fault',
    clause: 'test.clause',
    description: 'answers publishPermission on get-by-name and loses tags',
    wrapStore: (store) => overrideStore(store, { addTags: () => () => 0 }),
    install(app) {
      rewriteJson(app, 'channels.getByName', (body) => {
        const { publisherPermission, ...rest } = body
        return { ...rest, publishPermission: publisherPermission }
      })
      onRoute(app, 'channels.summary', (route) => {
        route.config = { ...route.config, auth: 'none' }
      })
    },
  }

  test('a fault changes only what it targets', async () => {
    const app = buildServer({ faults: [fault] })
    try {
      const api = new Api(await listen(app))
      const alice = await api.mustSignIn(ALICE)
      await alice.mustCreateChannel({ channelName: 'faulty' })
      const got = await alice.call('GET', '/channels/faulty')
      expect(got.json.publishPermission).toBe('anyone')
      expect(got.json).not.toHaveProperty('publisherPermission')
      await alice.call('POST', '/channels/faulty/tags', { json: { tags: ['t'] } })
      expect((await alice.call('GET', '/channels/faulty/tags')).json.tags).toEqual([])
      expect((await api.call('GET', api.msg('/channels/faulty/summary'))).status).not.toBe(401)
      // Errors and other routes are untouched.
      expect((await alice.call('GET', '/channels/missing')).json).toMatchObject({ code: 4001 })
      expect((await alice.call('GET', '/channels', { query: { channelName: 'faulty' } })).json.results[0]).toHaveProperty('publishPermission')
    } finally {
      await app.close()
    }
  })

  test('a server without faults is unaffected by another with faults', async () => {
    const faulty = buildServer({ faults: [fault] })
    const clean = buildServer()
    try {
      await faulty.ready()
      const api = new Api(await listen(clean))
      const alice = await api.mustSignIn(ALICE)
      await alice.mustCreateChannel({ channelName: 'clean' })
      expect((await alice.call('GET', '/channels/clean')).json).toHaveProperty('publisherPermission')
    } finally {
      await Promise.all([faulty.close(), clean.close()])
    }
  })
})
