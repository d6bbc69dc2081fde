/**
 * The test API of the suite: `check(clauseId, title, fn)` is a vitest test that binds its clause once (in the
 * test's meta, which the reporter and Allure read; in the title as `[id]` for people; as tags for level and
 * area), with fixtures for the prepared run, the clause-bound `judge`, signed-in callers A, B and C, a
 * recorder for evidence, seeded fake data and disposable channels that are deleted by their owner after the
 * check, pass or fail.
 */
import { createHash } from 'node:crypto'
import { test as base, describe, inject } from 'vitest'
import type { Faker } from '@faker-js/faker'
// The English locale alone: the package's index imports every locale, a few hundred ms of each worker's start.
import { faker as english } from '@faker-js/faker/locale/en'
import { Api, type CreateChannelBody } from '../http/api'
import { clause, titleWithClause, type ClauseId } from '../spec/clauses'
import { useCompiledSchemas } from '../spec/schemas'
import { HttpClient, type Exchange } from '../http/client'
import { Pacer } from '../http/pace'
import { fail, isSuccess, ServerUnavailable } from './expect'
import { Judge, SuiteDefect, wrongFailure, wrongFinding } from './judge'
import { ownerKeyOf, RunLedger } from '../http/ledger'
import { Recorder } from '../http/recorder'
import { redact, registerSecret } from '../http/redact'
import { mustBePrivate, mustHaveCreated } from './setup'
import { attachEvidence, exchangeStep, findingSteps, labelCheck } from './allure'
import { pastGateway } from './gateway'
import { setSettleMs } from './poll'
import type { RunAccount, RunContext } from '../http/run-context'
import { TokenSessions } from '../http/tokens'

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
  /** Judges and records under the check's own clause, bound once by check() (helpers/kit/judge.ts). */
  judge: Judge
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
  /** The run as the main process prepared it (target, accounts, pace), one per worker; checks see it as `run`. */
  workerRun: RunContext
  http: HttpClient
  sessions: TokenSessions
}

interface InternalFixtures {
  stopOnCancel: void
  /** The check's view of the run's ledger, shared by its callers and the channels fixture. */
  ledger: RunLedger
}

const logged = (api: Api, ledger: RunLedger): Api => {
  api.channelLog = ledger
  return api
}

/**
 * Set in this worker once the run is cancelled (SIGINT/SIGTERM): the worker's connections are cut, so checks
 * still running end at once instead of finishing their polls; what they created is in the ledger, and the
 * main process deletes it all at once. A CI runner gives a cancelled job 7.5 s before it kills it.
 */
let cancelled = false
const isRunAbort = (reason: unknown) => (reason as Error | undefined)?.name === 'TestRunAbortError'

/** A Recorder that also logs each exchange as an Allure step, as it happens. */
class StepRecorder extends Recorder {
  override log(ex: Exchange): void {
    super.log(ex)
    exchangeStep(ex)
  }
}

let sequence = 0
/** Generators no check holds now (the `fake` fixture): making one costs more than a check's own use of it. */
const idleFakers: Faker[] = []
// Fixed width, so that prefix, run id, worker, file and sequence never run into one another.
const workerTag = (process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? '0').replace(/\D/g, '').padStart(2, '0').slice(-2)

function shortHash(text: string, len: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, len)
}

export const test = base.extend<{ $test: CheckFixtures & InternalFixtures; $worker: WorkerFixtures }>({
  workerRun: [
    async ({}, use) => {
      const run = inject('run')
      setSettleMs(run.settleMs)
      const schemaCode = inject('schemaCode')
      if (schemaCode) useCompiledSchemas(schemaCode)
      for (const acc of Object.values(run.accounts)) {
        // Named, so a request that sent a password made from it says how (a reproducer makes it again from .env).
        registerSecret(acc.password, `USER_${acc.key}_PASSWORD`)
        registerSecret(acc.token)
      }
      await use(run)
    },
    { scope: 'worker' },
  ],
  http: [
    async ({ workerRun }, use) => {
      // The run's shared pace: MAX_CONCURRENCY and MAX_RPS hold for all workers together (helpers/http/pace.ts).
      const http = new HttpClient({
        baseUrl: workerRun.target.baseUrl,
        timeoutMs: workerRun.requestTimeoutMs,
        network: workerRun.network,
        pacer: new Pacer(workerRun.pace, workerRun.limits),
      })
      await use(http)
      if (!cancelled) await http.close()
    },
    { scope: 'worker' },
  ],
  // vitest aborts the signal of (some of) the running checks on a cancel; any one of them tells the worker.
  stopOnCancel: [
    async ({ signal, http }, use) => {
      const onAbort = () => {
        if (cancelled || !isRunAbort(signal.reason)) return
        cancelled = true
        void http.destroy()
      }
      signal.addEventListener('abort', onAbort)
      await use(undefined)
      signal.removeEventListener('abort', onAbort)
    },
    { auto: true },
  ],
  sessions: [
    async ({ workerRun, http }, use) =>
      use(
        new TokenSessions({
          buffer: workerRun.tokens,
          accounts: workerRun.accounts,
          clientId: workerRun.clientId,
          anon: new Api(http, workerRun.target, null),
        }),
      ),
    { scope: 'worker' },
  ],
  run: async ({ workerRun }, use) => use(workerRun),
  // Auto: every check gets its recorder, so its findings and evidence reach the reporter even when the
  // check itself never names `rec`. It also gives the check its Allure labels, steps and, on failure, the
  // redacted exchanges as an attachment (helpers/reports/allure.ts).
  rec: [
    async ({ task, workerRun }, use) => {
      // Allure's steps and labels only where a run writes Allure results (not in a self-test session).
      const allure = workerRun.allure
      const rec = allure ? new StepRecorder() : new Recorder()
      const own = task.meta.clause
      if (allure) labelCheck(own, task.suite?.name)
      // Nothing is recorded or failed under a clause that is not the check's to judge (helpers/kit/judge.ts).
      if (own) {
        rec.guard = {
          finding: (id) => {
            const defect = wrongFinding(own, id)
            if (defect) throw new SuiteDefect(defect)
          },
          failure: (id) => {
            const defect = wrongFailure(own, id)
            if (defect) throw new SuiteDefect(defect)
          },
        }
      }
      await use(rec)
      // A failure thrown without an exchange passed no guard: caught here, after the fact.
      const first = task.result?.errors?.[0] as { name?: string; clauseId?: unknown } | undefined
      const late = own && first?.name === 'CheckFailure' && typeof first.clauseId === 'string' ? wrongFailure(own, first.clauseId) : undefined
      if (late) throw new SuiteDefect(late)
      const meta = rec.toMeta(own, task.result?.state === 'fail', workerRun.keepExchanges)
      task.meta.evidence = meta
      if (!allure) return
      findingSteps(meta.findings ?? [])
      if (task.result?.state === 'fail' || meta.findings?.some((f) => f.status === 'failed')) {
        attachEvidence(meta.exchanges ?? [], task.result?.errors?.[0]?.message)
      }
    },
    { auto: true },
  ],
  // A, B and C send their account's current token: one that expired is renewed and the call repeated.
  // Each tells the check's ledger of its creates before they leave, however the check made the channel.
  a: async ({ http, run, rec, sessions, ledger }, use) => use(logged(new Api(http, run.target, run.accounts.A.token, rec, {}, sessions.source('A')), ledger)),
  b: async ({ http, run, rec, sessions, ledger }, use) => use(logged(new Api(http, run.target, run.accounts.B.token, rec, {}, sessions.source('B')), ledger)),
  c: async ({ http, run, rec, sessions, ledger }, use) => use(logged(new Api(http, run.target, run.accounts.C.token, rec, {}, sessions.source('C')), ledger)),
  anon: async ({ http, run, rec }, use) => use(new Api(http, run.target, null, rec)),
  judge: async ({ rec, task }, use) => {
    const own = task.meta.clause
    if (!own) throw new Error(`test '${task.name}' is not a check(): it has no clause to judge`)
    await use(new Judge(own as ClauseId, rec))
  },
  users: async ({ run }, use) => use(run.accounts),
  fake: async ({ run, task }, use) => {
    // One generator per check, seeded from SEED and the check's title: concurrent checks stay repeatable. A
    // generator is lent to one check at a time and seeded afresh, so its sequence is the seed's alone.
    const faker = idleFakers.pop() ?? new (english.constructor as typeof Faker)({ locale: english.rawDefinitions })
    faker.seed(run.seed ^ parseInt(shortHash(task.name, 8), 16))
    try {
      await use(faker)
    } finally {
      idleFakers.push(faker)
    }
  },
  // Every channel goes into the run's ledger before its create leaves, so an interrupt or a lost answer
  // cannot hide it from the main process's final cleanup and the next sweep (helpers/http/ledger.ts).
  ledger: async ({ run }, use) => use(new RunLedger(run.ledgerPath, run)),
  channels: async ({ run, rec, task, signal, ledger }, use) => {
    const fileTag = shortHash(task.file?.name ?? '', 3)
    const created: { owner: Api; name: string; personal: boolean }[] = []
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
        // A gateway's 502/503/504: the server may or may not have made it. The name is this run's own, so look,
        // and make it (once) when it is not there (public channels; a private one's address is the owner's business).
        // Either way the 502 judged nothing the check asked about: it no longer makes the check unjudged.
        let madeAfterAll = false
        if (!entry.personal) {
          ex = await pastGateway(rec, ex, () => owner.createChannel(body), {
            times: 1,
            before: async () => {
              const seen = await owner.getChannel(entry.name)
              madeAfterAll = isSuccess(seen)
              return madeAfterAll ? 'settled' : seen.status === 404 ? 'repeat' : 'stop'
            },
          })
        }
        if (madeAfterAll) {
          created.push(entry)
          return body.channelName
        }
        // A 5xx may come from a gateway after the server made it; only a 4xx proves nothing was made.
        if (isSuccess(ex) || ex.status >= 500) created.push(entry)
        else ledger.deleted(entry.name, ownerKeyOf(run, owner), entry.personal)
        // A set-up step: a refused create blocks the check, charged to channels.create.response (helpers/kit/setup.ts).
        mustHaveCreated(ex)
        // A check that asked for a private channel needs one: a server that made it public blocks the check,
        // charged to private.create (or to private.own-plain-name when the owner cannot read it back).
        if (entry.personal) await mustBePrivate(owner, body.channelName)
        return body.channelName
      },
      track: (owner, name, personal = false) => {
        ledger.created(name, ownerKeyOf(run, owner), personal)
        created.push({ owner, name, personal })
      },
    }
    await use(factory)
    // After a cancel the main process deletes what the ledger lists, all at once (see `cancelled`).
    if (cancelled || isRunAbort(signal.reason)) return
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

type CheckFn = NonNullable<Parameters<typeof test>[2]>

export interface CheckOptions {
  timeout?: number
}

/**
 * A check whose requests met a 502/503/504 judged nothing even when it passed (a refusal check passes on a
 * gateway's 502): an error, so it is re-run. Thrown from the test's own body, after the check's code: an error
 * thrown in a fixture's teardown stays on the test through vitest's retries, so a clean re-run could never pass.
 */
function judgedNothing(rec: Recorder | undefined): ServerUnavailable | undefined {
  if (!rec || rec.unavailable === 0) return undefined
  return new ServerUnavailable(`${rec.unavailable} of its requests ended in 502/503/504 (server or gateway unavailable), so the check could not be judged`)
}

/**
 * A check: one vitest test judging one clause, at that clause's level. vitest reads the fixtures a test needs
 * from the source of its function's first parameter, so the wrapper around `fn` shows vitest `fn`'s source;
 * the recorder it reads is an auto fixture, on every test's context.
 */
export function check(id: ClauseId, title: string, fn: CheckFn, opts: CheckOptions = {}): void {
  const c = clause(id)
  if (c.notTestable) throw new Error(`clause ${id} is registered as not testable (${c.notTestable}); give it a check only after removing that`)
  // The id is bound here once: in the test's meta (the reporter, Allure and the fixtures read it from there)
  // and through it in the `judge` fixture; the title keeps `[id]` for people reading it.
  const retry = rerun()
  const body = (async (ctx: CheckFixtures & InternalFixtures & { task: { retry?: unknown } }, ...rest: unknown[]) => {
    // vitest (4.1) strips a function `retry.condition` from its tasks when it reports them after collection,
    // the worker's own task included, and then re-runs every failure: the condition is put back on the task
    // each attempt, before anything can fail. A check that recorded a failure and then met an error is not
    // re-run (what it judged stands), unless one of its requests met a 502/503/504: a write the gateway
    // answered for the server may never have happened, so what the attempt judged after it stands for nothing.
    if (retry) {
      const task = ctx.task as { retry?: unknown; result?: { retryCount?: number } }
      task.retry = {
        count: retry.count,
        condition: (err: { name?: string }) => {
          const met502 = (ctx.rec?.unavailable ?? 0) > 0 || err?.name === 'ServerUnavailable'
          const ended: RerunCause = met502 ? 'unavailable' : ctx.rec?.failures.length || isJudgement(err) ? 'judged' : 'error'
          return retry.condition(ended, task.result?.retryCount ?? 0)
        },
      }
    }
    await (fn as (ctx: CheckFixtures & InternalFixtures, ...rest: unknown[]) => unknown)(ctx, ...rest)
    const unjudged = retry ? judgedNothing(ctx.rec) : undefined
    if (unjudged) throw unjudged
  }) as unknown as CheckFn
  body.toString = () => fn.toString()
  test(
    titleWithClause(title, id),
    {
      meta: { clause: id },
      tags: [c.level.toLowerCase(), c.area],
      timeout: opts.timeout,
      retry: retry && { count: retry.count, condition: (err: { name?: string }) => !isJudgement(err) },
    },
    body,
  )
}

/**
 * RERUN_ERRORED: a check that could not be judged (a gateway's 502, a lost answer, a persisting 429) runs again,
 * up to twice, with fresh fixtures and channels; one that then passes is reported `flaky`. A failure
 * (CheckFailure, AssertionError) is a judgement and is never re-run.
 *
 * A check whose only trouble was a 502/503/504 (ServerUnavailable) may run twice more, up to five attempts: at
 * 1% gateway errors on every method, the largest checks (about 30 creates, publishes and deletes) meet one in
 * about one attempt of four, so three attempts left one of the run's 745 checks unjudged in roughly one run of
 * ten; five leave it in well under one run of a hundred. Those extra attempts are rationed, six per worker thread
 * of the run (EXTRA_UNAVAILABLE_RERUNS): a server that went down mid-run costs a few more attempts, not twice the run.
 */
const EXTRA_UNAVAILABLE_RERUNS = 6
let extraUnavailableReruns = 0

/** How an attempt ended, for the re-run: judged (a failure stands), unavailable (a 502/503/504 met), or another error. */
type RerunCause = 'judged' | 'unavailable' | 'error'

const isJudgement = (err: { name?: string } | undefined) => err?.name === 'CheckFailure' || err?.name === 'AssertionError'

function rerun(): { count: number; condition: (ended: RerunCause, retriesSoFar: number) => boolean } | undefined {
  let run: RunContext | undefined
  try {
    run = inject('run')
  } catch {
    return undefined
  }
  if (!run?.rerunErrored) return undefined
  return {
    count: 4,
    condition: (ended, retriesSoFar) => {
      if (ended === 'judged') return false
      if (retriesSoFar < 2) return true
      if (ended !== 'unavailable' || extraUnavailableReruns >= EXTRA_UNAVAILABLE_RERUNS) return false
      extraUnavailableReruns++
      return true
    },
  }
}

export { fail }
