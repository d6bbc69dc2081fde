/**
 * Preflight: a run that cannot be made ends before any check, in seconds, with exit 2 and one sentence on
 * stderr naming what to fix — never a wall of failed checks. Each case runs the CLI against a reference
 * server started here (or a port nothing listens on) with one configuration value wrong.
 */
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { runSuite } from '../testing/run-suite'

let ref: ReferenceTarget

async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as AddressInfo).port
  await new Promise<void>((r) => srv.close(() => r()))
  return port
}

beforeAll(async () => {
  ref = await startReference()
})
afterAll(async () => {
  await ref?.close()
})

const secrets = () => [ref.env.USER_A_PASSWORD, ref.env.USER_B_PASSWORD, ref.env.USER_C_PASSWORD, ref.env.CLIENT_SECRET].filter(Boolean) as string[]

async function expectPreflightFailure(env: Record<string, string>, hint: RegExp): Promise<string> {
  const started = Date.now()
  const run = await runSuite([], { ...ref.env, ...env }, 60_000)
  const elapsed = Date.now() - started
  const lines = run.stderr.trim().split('\n')
  expect(run.code, run.stderr || run.stdout).toBe(2)
  expect(lines, run.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^conformance: cannot run: /)
  expect(lines[0]).toMatch(hint)
  expect(run.stdout).not.toMatch(/suites\/|FAIL|verdict/)
  expect(run.results).toBeNull()
  for (const s of secrets()) expect(run.stderr + run.stdout).not.toContain(s)
  // Generous (a loaded machine starts tsx slowly): the point is that nothing waits for a request timeout.
  expect(elapsed).toBeLessThan(20_000)
  return lines[0]!
}

// One at a time: each case is a CLI start, and the elapsed time should be the preflight's, not the machine's.
describe('preflight ends a run that cannot be made with exit 2 and one sentence', () => {
  test('a port nothing listens on: check BASE_URL', async () => {
    const port = await closedPort()
    await expectPreflightFailure({ BASE_URL: `http://127.0.0.1:${port}` }, /cannot reach http:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED.*check BASE_URL/)
  })

  test('a wrong USER_API_PATH: check USER_API_PATH', async () => {
    await expectPreflightFailure(
      { USER_API_PATH: '/mobile/api/com.other.server' },
      /POST \/mobile\/api\/com\.other\.server\/user\/session answered 404.*check USER_API_PATH/,
    )
  })

  test('a wrong MESSAGE_API_PATH: check MESSAGE_API_PATH', async () => {
    await expectPreflightFailure({ MESSAGE_API_PATH: '/message/api/v9' }, /GET \/message\/api\/v9\/channels answered 404.*check MESSAGE_API_PATH/)
  })

  test('a wrong CLIENT_ID: check CLIENT_ID, not the passwords', async () => {
    const line = await expectPreflightFailure({ CLIENT_ID: 'not-our-app' }, /CLIENT_ID 'not-our-app'.*check CLIENT_ID$/)
    expect(line).not.toMatch(/PASSWORD/)
  })

  test('a wrong password for one account: check that account, not the client id', async () => {
    const line = await expectPreflightFailure(
      { USER_B_PASSWORD: 'wrong-password-42' },
      /account B \('bob\.ct'\) cannot sign in \(401.*check USER_B_NAME\/USER_B_PASSWORD$/,
    )
    expect(line).not.toMatch(/CLIENT_ID|USER_A|USER_C/)
    expect(line).not.toContain('wrong-password-42')
  })

  test('wrong passwords for all three accounts: check the accounts', async () => {
    await expectPreflightFailure(
      { USER_A_PASSWORD: 'nope-1111', USER_B_PASSWORD: 'nope-2222', USER_C_PASSWORD: 'nope-3333' },
      /no account can sign in .*check USER_A_NAME\/USER_A_PASSWORD, USER_B_NAME\/USER_B_PASSWORD and USER_C_NAME\/USER_C_PASSWORD$/,
    )
  })
})
