/**
 * Disposable users: with no accounts configured, the suite enrols three users for the run through the
 * registration calls deployments of this API offer (reference/README.md, Registration); a server without registration ends the run
 * at once with exit 2 and a sentence naming the variables to set.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buildServer } from '../reference/app'
import { loadSeed } from '../reference/seed'
import { runSuite } from '../testing/run-suite'

const seed = loadSeed()
const noAccounts = {
  USER_A_NAME: '',
  USER_A_PASSWORD: '',
  USER_B_NAME: '',
  USER_B_PASSWORD: '',
  USER_C_NAME: '',
  USER_C_PASSWORD: '',
  CLIENT_ID: seed.application.clientId,
  CLIENT_SECRET: seed.application.clientSecret,
}

describe('with no test accounts configured', () => {
  let app: FastifyInstance
  let bare: Server
  let appUrl: string
  let bareUrl: string

  beforeAll(async () => {
    app = buildServer()
    await app.listen({ host: '127.0.0.1', port: 0 })
    appUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    // A server that knows none of the API: no registration, no sign-in.
    bare = createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}'))
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r))
    bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await app.close()
    await new Promise<void>((r) => bare.close(() => r()))
  })

  test('enrols disposable users and passes against a server that offers registration', async () => {
    const users = () => app.reference.store.listUsers(seed.application.clientId).length
    const before = users()
    const run = await runSuite(['--area', 'signin', '--area', 'users', '--area', 'messages'], { ...noAccounts, BASE_URL: appUrl })
    expect(run.stdout).toMatch(/enrolled disposable users ct-[0-9a-f]{6}-a, ct-[0-9a-f]{6}-b, ct-[0-9a-f]{6}-c/)
    expect(run.results?.verdict, run.stdout + run.stderr).toBe('conformant')
    expect(run.code).toBe(0)
    expect(users()).toBe(before + 3)
  })

  test('ends with exit 2 naming the variables when the server offers no registration', async () => {
    const started = Date.now()
    const run = await runSuite([], { ...noAccounts, BASE_URL: bareUrl })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(/USER_A_NAME\/USER_A_PASSWORD, USER_B_NAME\/USER_B_PASSWORD and USER_C_NAME\/USER_C_PASSWORD/)
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.results).toBeNull()
    expect(Date.now() - started).toBeLessThan(30_000)
  })
})
