/**
 * The sweep deletes only what it can prove is an old leftover of the suite: a ct-<run>- name, a creator
 * that is one of the suite's accounts, an age over SWEEP_MIN_AGE_MINUTES; from the ledgers of earlier runs
 * (private channels too) and from a search by prefix. Everything else stays. The reference server runs here
 * with a clock the test sets, so "two hours ago" is real to it.
 */
import { mkdirSync, mkdtempSync, readdirSync, utimesSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Api } from '../helpers/http/api'
import { HttpClient } from '../helpers/http/client'
import { loadConfig, type AccountKey } from '../helpers/config/config'
import { appendLedger, ledgerDir, ledgerPathFor, targetKey, type LedgerEntry } from '../helpers/http/ledger'
import { prepareRun } from '../helpers/runner/prepare'
import type { Target } from '../helpers/http/run-context'
import { ownsCreator, sweep, type SweepOptions } from '../helpers/runner/sweep'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { ROOT, runChild } from '../testing/run-suite'

const HOUR = 3_600_000
let clockNow = Date.now()
let ref: ReferenceTarget
let http: HttpClient
let target: Target
let reportDir: string
const accounts = {} as SweepOptions['accounts']
let dave: Api
const api = (key: AccountKey) => new Api(http, target, accounts[key].token)

async function signIn(userName: string, password: string): Promise<{ token: string; userId: string }> {
  const ex = await new Api(http, target, null).signIn({ userName, password, clientId: ref.env.CLIENT_ID!, deviceId: 'ct-sweep-test' })
  expect(ex.status).toBe(200)
  const body = ex.json as { access_token: string; user: { userIdentifier: string } }
  return { token: body.access_token, userId: body.user.userIdentifier }
}

async function create(owner: Api, name: string, opts: { ago?: number; personal?: boolean } = {}): Promise<void> {
  clockNow = Date.now() - (opts.ago ?? 0)
  const ex = await owner.createChannel({ channelName: name, privateChannel: opts.personal === true })
  clockNow = Date.now()
  expect(ex.status, ex.text).toBeLessThan(300)
}

function ledger(runId: string, entries: Partial<LedgerEntry>[]): string {
  const path = ledgerPathFor(reportDir, runId)
  for (const e of entries) {
    appendLedger(path, {
      ownerKey: 'A',
      personal: false,
      createdAt: new Date(Date.now() - 2 * HOUR).toISOString(),
      runId,
      target: targetKey(target),
      name: '',
      ...e,
    })
  }
  return path
}

const names = () => ref.channelNames().sort()
const ledgerFiles = () => readdirSync(ledgerDir(reportDir)).sort()

beforeAll(async () => {
  ref = await startReference({ clock: { now: () => clockNow }, tokenLifetimeSeconds: 86_400 })
  http = new HttpClient({ baseUrl: ref.url, timeoutMs: 5000 })
  target = { baseUrl: ref.url, userApiPath: ref.env.USER_API_PATH!, messageApiPath: ref.env.MESSAGE_API_PATH!, embedded: false }
  for (const key of ['A', 'B', 'C'] as const) {
    const s = await signIn(ref.env[`USER_${key}_NAME`]!, ref.env[`USER_${key}_PASSWORD`]!)
    accounts[key] = { key, ...s }
  }
  // Someone else on the same server, whose channels happen to look like the suite's.
  const basic = Buffer.from(`${ref.env.CLIENT_ID}:${ref.env.CLIENT_SECRET}`).toString('base64')
  const app = await new Api(http, target, null).send({
    method: 'POST',
    path: `${target.userApiPath}/applications/session`,
    headers: { authorization: `Basic ${basic}`, 'MMS-DEVICE-ID': 'ct-sweep-test' },
  })
  const appToken = (app.json as { access_token: string }).access_token
  const enrol = await new Api(http, target, appToken).send({
    method: 'POST',
    path: `${target.userApiPath}/user/enrollment`,
    json: { userName: 'dave.other', password: 'dave-pass-0000' },
  })
  expect(enrol.status, enrol.text).toBeLessThan(300)
  dave = new Api(http, target, (await signIn('dave.other', 'dave-pass-0000')).token)

  reportDir = mkdtempSync(join(tmpdir(), 'ct-sweep-'))
  mkdirSync(ledgerDir(reportDir), { recursive: true })
  await create(api('A'), 'ct-aaaaaa-1', { ago: 2 * HOUR })
  await create(api('A'), 'ct-aaaaaa-2', { ago: 2 * HOUR, personal: true })
  await create(api('B'), 'ct-bbbbbb-1', { ago: 2 * HOUR })
  // The suite's current form (lowercase letters and digits), found by search alone.
  await create(api('B'), 'ctabcdef01a2b7', { ago: 2 * HOUR })
  await create(api('A'), 'ct-cccccc-1')
  await create(dave, 'ct-dddddd-1', { ago: 2 * HOUR })
  await create(dave, 'ct-eeeeee-1', { ago: 2 * HOUR })
  await create(api('A'), 'ct-fffff0-1', { ago: 2 * HOUR })
  await create(api('A'), 'keep-ct-1', { ago: 2 * HOUR })
  ledger('aaaaaa', [{ name: 'ct-aaaaaa-1' }, { name: 'ct-aaaaaa-2', personal: true }, { name: 'ct-aaaaaa-3' }, { name: 'ct-aaaaaa-3', deleted: true }])
  ledger('cccccc', [{ name: 'ct-cccccc-1', createdAt: new Date().toISOString() }])
  // A ledger that lies: dave's channel listed as A's.
  ledger('eeeeee', [{ name: 'ct-eeeeee-1' }])
  // The running run's own ledger and channel are never touched.
  ledger('fffff0', [{ name: 'ct-fffff0-1' }])
  // A crashed run against an embedded server, long ago: only a file is left.
  const old = ledger('999999', [{ name: 'ct-999999-1', target: 'http://127.0.0.1:1/message/api/v2', embedded: true }])
  utimesSync(old, new Date(Date.now() - 2 * HOUR), new Date(Date.now() - 2 * HOUR))
  // Another target's ledger: not this sweep's business.
  ledger('777777', [{ name: 'ct-777777-1', target: 'https://staging.example.test/message/api/v2' }])
})

afterAll(async () => {
  await http?.close()
  await ref?.close()
})

const options = (extra: Partial<SweepOptions> = {}): SweepOptions => ({
  http,
  target,
  accounts,
  reportDir,
  minAgeMinutes: 60,
  currentRunId: 'fffff0',
  ...extra,
})

describe('the sweep', () => {
  test("tells the suite's creator by the user id before the separator", () => {
    expect(ownsCreator('a1b2%app@domain/dev', 'a1b2')).toBe(true)
    expect(ownsCreator('a1b2c3%app@domain/dev', 'a1b2')).toBe(false)
    expect(ownsCreator('', 'a1b2')).toBe(false)
  })

  test('--dry-run (the CLI) lists the proven leftovers and deletes nothing', async () => {
    const before = names()
    const env = { ...process.env, ...ref.env, REPORT_DIR: reportDir, SWEEP_MIN_AGE_MINUTES: '60' }
    const out = await runChild(process.execPath, ['--import', 'tsx', 'scripts/sweep.ts', '--dry-run'], { cwd: ROOT, env }, 120_000)
    expect(out.code, out.stderr).toBe(0)
    // The CLI is no run, so ct-fffff0-1 (the "running run" of the tests below) is an old leftover to it.
    expect(out.stdout).toMatch(/5 leftover channel\(s\) would be deleted/)
    for (const n of ['ct-aaaaaa-1', 'ct-aaaaaa-2 (private, account A)', 'ct-bbbbbb-1', 'ct-fffff0-1', 'ctabcdef01a2b7'])
      expect(out.stdout).toContain(`  - ${n}\n`)
    expect(out.stdout).not.toContain(ref.env.USER_A_PASSWORD!)
    expect(names()).toEqual(before)
  })

  test("deletes exactly the old leftovers of the suite's accounts, and keeps the rest with a reason", async () => {
    const r = await sweep(options())
    expect(r.problems).toEqual([])
    expect(r.deleted.sort()).toEqual(['ct-aaaaaa-1', 'ct-aaaaaa-2 (private, account A)', 'ct-bbbbbb-1', 'ctabcdef01a2b7'])
    expect(names()).toEqual(['ct-cccccc-1', 'ct-dddddd-1', 'ct-eeeeee-1', 'ct-fffff0-1', 'keep-ct-1'])
    const kept = Object.fromEntries(r.kept.map((k) => [k.name, k.reason]))
    expect(kept['ct-cccccc-1']).toMatch(/younger than 60 min/)
    expect(kept['ct-dddddd-1']).toMatch(/creator is none of the suite's accounts/)
    expect(kept['ct-eeeeee-1']).toMatch(/creator is none of the suite's accounts/)
    expect(kept['ct-fffff0-1']).toMatch(/running run/)
  })

  test('removes the ledgers it emptied and the stale one of an embedded server, keeps the others', () => {
    expect(ledgerFiles()).toEqual(['777777.jsonl', 'cccccc.jsonl', 'eeeeee.jsonl', 'fffff0.jsonl'])
  })

  test("with a minimum age of 0 it takes the young leftover too, never a stranger's", async () => {
    const r = await sweep(options({ minAgeMinutes: 0 }))
    expect(r.deleted).toEqual(['ct-cccccc-1'])
    expect(names()).toEqual(['ct-dddddd-1', 'ct-eeeeee-1', 'ct-fffff0-1', 'keep-ct-1'])
  })

  test('runs at the start of every run against a real target, after sign-in', async () => {
    await create(api('B'), 'ct-abcdef-1', { ago: 2 * HOUR })
    const lines: string[] = []
    const prepared = await prepareRun(loadConfig({ ...ref.env, BASE_URL: ref.url, REPORT_DIR: reportDir }), { log: (l) => lines.push(l) })
    await prepared.close()
    expect(lines).toContain('sweep: deleted 2 leftover channel(s) of earlier runs:')
    expect(lines).toContain('  - ct-abcdef-1')
    expect(lines).toContain('  - ct-fffff0-1')
    expect(names()).toEqual(['ct-dddddd-1', 'ct-eeeeee-1', 'keep-ct-1'])
  })
})
