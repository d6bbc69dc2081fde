import { afterAll, beforeAll } from 'vitest'
import type { FastifyInstance } from 'fastify'
import { buildServer, type BuildServerOptions } from '../../reference/app'
import type { Clock } from '../../reference/context'
import { RecordingPushGateway } from '../../reference/push-gateway'
import { loadSeed } from '../../reference/seed'

/** Test harness: a reference server on 127.0.0.1:0, spoken to over real HTTP. */

export const seed = loadSeed()
export const [ALICE, BOB, CAROL, ZOE] = seed.users as [(typeof seed.users)[0], (typeof seed.users)[0], (typeof seed.users)[0], (typeof seed.users)[0]]
export const CLIENT_ID = seed.application.clientId
export const CLIENT_SECRET = seed.application.clientSecret

/** A clock the test moves by hand. Starts at a fixed instant so timestamps are predictable. */
export class ManualClock implements Clock {
  constructor(public ms = Date.parse('2025-03-01T12:00:00.000Z')) {}
  now(): number {
    return this.ms
  }
  advance(ms: number): void {
    this.ms += ms
  }
}

export interface Response {
  status: number
  headers: Headers
  text: string
  json: any
}

export interface CallOptions {
  token?: string
  /** Sent as JSON. */
  json?: unknown
  /** Sent as is (with `headers` naming its type). */
  body?: string
  headers?: Record<string, string>
  query?: Record<string, string | number | boolean | (string | number)[]>
}

export class Api {
  constructor(
    readonly base: string,
    readonly userPath = '/mobile/api/com.vendor.server',
    readonly messagePath = '/message/api/v2',
  ) {}

  user(path: string): string {
    return `${this.base}${this.userPath}${path}`
  }

  msg(path: string): string {
    return `${this.base}${this.messagePath}${path}`
  }

  async call(method: string, url: string, options: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body = options.body
    if (options.json !== undefined) {
      body = JSON.stringify(options.json)
      headers['content-type'] ??= 'application/json'
    }
    const target = new URL(url)
    for (const [k, v] of Object.entries(options.query ?? {})) {
      for (const one of Array.isArray(v) ? v : [v]) target.searchParams.append(k, String(one))
    }
    const res = await fetch(target, { method, headers, body })
    const text = await res.text()
    let json: unknown
    try {
      json = text === '' ? undefined : JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, headers: res.headers, text, json }
  }

  signIn(userName: string, password: string, deviceId = 'device-test'): Promise<Response> {
    return this.call('POST', this.user('/user/session'), {
      headers: { 'mms-device-id': deviceId, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'password',
        username: userName,
        password,
        client_id: CLIENT_ID,
        scope: 'public',
      }).toString(),
    })
  }

  async mustSignIn(account: { userName: string; password: string }, deviceId = 'device-test'): Promise<Session> {
    const res = await this.signIn(account.userName, account.password, deviceId)
    if (res.status !== 200) throw new Error(`sign-in of ${account.userName} failed: ${res.status} ${res.text}`)
    return new Session(this, res.json.access_token, res.json.user.userIdentifier, deviceId)
  }
}

/** A signed-in user: calls carry its token. */
export class Session {
  constructor(
    readonly api: Api,
    readonly token: string,
    readonly userId: string,
    readonly deviceId: string,
  ) {}

  call(method: string, path: string, options: Omit<CallOptions, 'token'> = {}): Promise<Response> {
    return this.api.call(method, this.api.msg(path), { ...options, token: this.token })
  }

  callUser(method: string, path: string, options: Omit<CallOptions, 'token'> = {}): Promise<Response> {
    return this.api.call(method, this.api.user(path), { ...options, token: this.token })
  }

  async mustCreateChannel(body: Record<string, unknown>): Promise<void> {
    const res = await this.call('POST', '/channels', { json: body })
    if (res.status !== 201) throw new Error(`create ${JSON.stringify(body)} failed: ${res.status} ${res.text}`)
  }

  async mustPublish(channel: string, content: Record<string, unknown>): Promise<string> {
    const res = await this.call('POST', `/channels/${encodeURIComponent(channel)}/items`, { json: { content } })
    if (res.status !== 201) throw new Error(`publish to ${channel} failed: ${res.status} ${res.text}`)
    return res.json.messageId
  }
}

/** The three seeded accounts, signed in. */
export interface Accounts {
  alice: Session
  bob: Session
  carol: Session
}

/** Signs the three seeded accounts in, each on its own device (`<name>-dev` unless a test reads another back). */
export async function signInAccounts(api: Api, devices: Partial<Record<keyof Accounts, string>> = {}): Promise<Accounts> {
  return {
    alice: await api.mustSignIn(ALICE, devices.alice ?? 'alice-dev'),
    bob: await api.mustSignIn(BOB, devices.bob ?? 'bob-dev'),
    carol: await api.mustSignIn(CAROL, devices.carol ?? 'carol-dev'),
  }
}

export interface Harness {
  app: FastifyInstance
  api: Api
  clock: ManualClock
  gateway: RecordingPushGateway
}

/**
 * Starts a server for the enclosing describe/file and closes it afterwards. The returned object is
 * filled in by beforeAll, so read its fields inside tests only.
 */
export function useServer(options: BuildServerOptions = {}): Harness {
  const harness = {} as Harness
  beforeAll(async () => {
    harness.clock = new ManualClock()
    harness.gateway = new RecordingPushGateway()
    harness.app = buildServer({ clock: harness.clock, pushGateway: harness.gateway, ...options })
    await harness.app.listen({ port: 0, host: '127.0.0.1' })
    const address = harness.app.server.address()
    if (typeof address !== 'object' || address === null) throw new Error('no address')
    harness.api = new Api(`http://127.0.0.1:${address.port}`, options.userApiPath ?? undefined, options.messageApiPath ?? undefined)
  })
  afterAll(async () => {
    await harness.app?.close()
  })
  return harness
}

let sequence = 0
/** A channel name unique within the test run. */
export function channelName(prefix = 'ch'): string {
  sequence += 1
  return `${prefix}-${process.pid}-${sequence}`
}

/** Asserts the refusal shape: a 4xx with an integer code and a string message. */
export function isErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false
  const { code, message } = body as { code?: unknown; message?: unknown }
  return Number.isInteger(code) && typeof message === 'string'
}
