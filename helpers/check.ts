/**
 * The test API of the suite: `check(clauseId, title, fn)` is a vitest test that names its clause (in the
 * title, as `[id]`, and as tags for level and area), with fixtures for the prepared run, signed-in callers
 * A, B and C, a recorder for evidence, seeded fake data and disposable channels that are deleted by their
 * owner after the check, pass or fail.
 */
import { createHash } from 'node:crypto'
import { test as base, describe, inject } from 'vitest'
import { Faker, en } from '@faker-js/faker'
import { Api, type CreateChannelBody } from './api'
import { clause, clauseIdOf, titleWithClause, type ClauseId } from './clauses'
import { HttpClient, type Exchange } from './client'
import { expectResponse, fail, isSuccess } from './expect'
import { ownerKeyOf, RunLedger } from './ledger'
import { Recorder } from './recorder'
import { redact, registerSecret } from './redact'
import { attachEvidence, exchangeStep, findingSteps, labelCheck } from './reports/allure'
import type { RunAccount, RunContext } from './run-context'

export { describe }

export interface ChannelFactory {
  /**
   * A fresh collision-free channel name for this run: lowercase letters and digits only (the spec gives names
   * no alphabet, so a server may allow no more), about 20 characters; see SUITE_NAME in sweep.ts.
   */
  name(): string
  /** Creates a channel owned by `owner` (must succeed) and schedules its deletion; returns its name. */
  create(owner: Api, overrides?: Partial<CreateChannelBody>): Promise<string>
  /** Schedules deletion of a channel the check created itself. */
  track(owner: Api, name: string, personal?: boolean): void
}

export interface CheckFixtures {
  run: RunContext
  rec: Recorder
  a: Api
  b: Api
  c: Api
  /** A caller with no token at all. */
  anon: Api
  users: { A: RunAccount; B: RunAccount; C: RunAccount }
  fake: Faker
  channels: ChannelFactory
}

interface WorkerFixtures {
  runW: RunContext
  http: HttpClient
}

/** A Recorder that also logs each exchange as an Allure step, as it happens. */
class StepRecorder extends Recorder {
  override log(ex: Exchange): void {
    super.log(ex)
    exchangeStep(ex)
  }
}

let sequence = 0
// Fixed width, so that prefix, run id, worker, file and sequence never run into one another.
const workerTag = (process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? '0').replace(/\D/g, '').padStart(2, '0').slice(-2)

function shortHash(text: string, len: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, len)
}

export const test = base.extend<{ $test: CheckFixtures; $worker: WorkerFixtures }>({
  runW: [
    async ({}, use) => {
      const run = inject('run')
      for (const acc of Object.values(run.accounts)) {
        registerSecret(acc.password)
        registerSecret(acc.token)
      }
      await use(run)
    },
    { scope: 'worker' },
  ],
  http: [
    async ({ runW }, use) => {
      const http = new HttpClient({ baseUrl: runW.target.baseUrl, timeoutMs: runW.requestTimeoutMs })
      await use(http)
      await http.close()
    },
    { scope: 'worker' },
  ],
  run: async ({ runW }, use) => use(runW),
  // Auto: every check gets its recorder, so its findings and evidence reach the reporter even when the
  // check itself never names `rec`. It also gives the check its Allure labels, steps and, on failure, the
  // redacted exchanges as an attachment (helpers/reports/allure.ts).
  rec: [
    async ({ task }, use) => {
      const rec = new StepRecorder()
      labelCheck(clauseIdOf(task.name), task.suite?.name)
      await use(rec)
      const meta = rec.toMeta(clauseIdOf(task.name))
      task.meta.ct = meta
      findingSteps(meta.findings ?? [])
      if (task.result?.state === 'fail' || meta.findings?.some((f) => f.status === 'failed')) {
        attachEvidence(meta.exchanges ?? [], task.result?.errors?.[0]?.message)
      }
    },
    { auto: true },
  ],
  a: async ({ http, run, rec }, use) => use(new Api(http, run.target, run.accounts.A.token, rec)),
  b: async ({ http, run, rec }, use) => use(new Api(http, run.target, run.accounts.B.token, rec)),
  c: async ({ http, run, rec }, use) => use(new Api(http, run.target, run.accounts.C.token, rec)),
  anon: async ({ http, run, rec }, use) => use(new Api(http, run.target, null, rec)),
  users: async ({ run }, use) => use(run.accounts),
  fake: async ({ run, task }, use) => {
    // One generator per check, seeded from SEED and the check's title: concurrent checks stay repeatable.
    const faker = new Faker({ locale: [en] })
    faker.seed(run.seed ^ parseInt(shortHash(task.name, 8), 16))
    await use(faker)
  },
  channels: async ({ run, rec, task }, use) => {
    const fileTag = shortHash(task.file?.name ?? '', 3)
    const created: { owner: Api; name: string; personal: boolean }[] = []
    // Every channel goes into the run's ledger before its create leaves, so an interrupt or a lost answer
    // cannot hide it from the main process's final cleanup and the next sweep (helpers/ledger.ts).
    const ledger = new RunLedger(run.ledgerPath, run)
    const factory: ChannelFactory = {
      name: () => `${run.namePrefix}${run.runId}${workerTag}${fileTag}${++sequence}`,
      create: async (owner, overrides = {}) => {
        const body: CreateChannelBody = { channelName: factory.name(), ...overrides }
        const entry = { owner, name: body.channelName, personal: body.privateChannel === true }
        ledger.created(entry.name, ownerKeyOf(run, owner), entry.personal)
        let ex
        try {
          ex = await owner.createChannel(body)
        } catch (err) {
          created.push(entry) // no answer: it may exist all the same
          throw err
        }
        // A 5xx may come from a gateway after the server made it; only a 4xx proves nothing was made.
        if (isSuccess(ex) || ex.status >= 500) created.push(entry)
        else ledger.deleted(entry.name, ownerKeyOf(run, owner), entry.personal)
        expectResponse(ex, { status: '2xx', clause: 'channels.create.response', schema: 'code-message' })
        return body.channelName
      },
      track: (owner, name, personal = false) => {
        ledger.created(name, ownerKeyOf(run, owner), personal)
        created.push({ owner, name, personal })
      },
    }
    await use(factory)
    rec.phase = 'cleanup'
    // Reverse order; a 404 means the check already deleted it. Anything else is reported, not swallowed.
    for (const { owner, name, personal } of created.reverse()) {
      try {
        const ex = await owner.deleteChannel(name, personal || undefined, { retry: true })
        if (isSuccess(ex) || ex.status === 404) ledger.deleted(name, ownerKeyOf(run, owner), personal)
        else rec.cleanup.push(`${name}: delete answered ${ex.status}`)
      } catch (err) {
        rec.cleanup.push(`${name}: ${redact((err as Error).message)}`)
      }
    }
  },
})

type CheckFn = Parameters<typeof test>[2]

export interface CheckOptions {
  timeout?: number
}

/**
 * A check: one vitest test judging one clause, at that clause's level. `fn` is handed to vitest as it is,
 * because vitest reads the fixtures a test needs from the destructuring pattern of its first parameter.
 */
export function check(id: ClauseId, title: string, fn: CheckFn, opts: CheckOptions = {}): void {
  const c = clause(id)
  if (c.notTestable) throw new Error(`clause ${id} is registered as not testable (${c.notTestable}); give it a check only after removing that`)
  test(titleWithClause(title, id), { tags: [c.level.toLowerCase(), c.area], timeout: opts.timeout }, fn)
}

export { fail }
