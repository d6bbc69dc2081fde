/**
 * The suite proves itself: for every fault of the reference server's catalogue, the whole suite run against
 * the server with that one fault on must fail the clause the fault violates, at the clause's level (a
 * SHOULD-level fault is caught at SHOULD, and then the exit code stays 0 unless STRICT), and nothing else:
 * the clauses with a failed result (main entries and findings, any level) are exactly the fault's own plus
 * the consequences it declares, each with a reason. A check that needed a step the fault breaks must end
 * `blocked` by the step's clause, never failed under its own (helpers/kit/setup.ts). A missed fault fails its
 * test and is named in the closing score, as is a fault with failures outside its own clauses.
 *
 * Every fault gets the whole suite (not only its area): precision is about the other areas' clauses. The
 * runs are made in this process on a suite session (helpers/runner/session.ts): a few vitest instances kept
 * open, each running the whole suite against one fault's own reference server after another, with the same
 * pipeline, results.json and exit code as `npm run conformance -- --fault NAME`, which clean-run.test.ts and the
 * other end-to-end tests keep proving as a child process. The clean full run is proved by clean-run.test.ts.
 *
 * Each run's first failed MUST entry (else its first failed entry) has a reproducer, and it is proved as the run
 * ends, while the other runs go on (selftest/reproducer-proof.ts): run with sh and curl against a server with the
 * fault on it exits 1, against a clean server 0, and it leaves no channel behind on either (a fault a sequential
 * replay cannot show is listed with its reason, and must still raise no false alarm). Without curl on the machine
 * that part is skipped, and says why.
 *
 * With no fault on, no fault code may be on the request path: checked here without running the suite.
 */
import { types } from 'node:util'
import type { RouteOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { AREAS, clause } from '../helpers/spec/clauses'
import { buildServer } from '../reference/app'
import { clausesOf, FAULTS, resolveFaults, type Fault } from '../reference/faults'
import { VARIANTS } from '../reference/variants'
import { runSuite, type SuiteRun } from '../testing/run-suite'
import { openSelftestSession, runSuiteIn } from './session-runs'
import { evidenceProblems } from './evidence-rules'
import { hasCurl, ReproducerProof } from './reproducer-proof'

/**
 * SELFTEST_FAULTS=a,b (comma-separated names) proves only those faults, caught and precise, as CI proves the
 * whole catalogue: for an author who just wrote one. Unset, every fault runs. An unknown name stops the file.
 */
const ONLY = (process.env.SELFTEST_FAULTS ?? '')
  .split(',')
  .map((n) => n.trim())
  .filter(Boolean)
const PROVED: readonly Fault[] = ONLY.length ? resolveFaults(ONLY) : FAULTS

const runs = new Map<string, SuiteRun>()
const caught = new Set<string>()
/** Faults whose run failed clauses outside their own and their declared consequences: fault → those clauses. */
const imprecise = new Map<string, string[]>()
/** Faults whose run did not fail some of their declared consequences: fault → those clauses. */
const stale = new Map<string, string[]>()
let wallMs = 0
const CURL = hasCurl()
let proof: ReproducerProof | undefined

/** The clauses a fault may fail: its own and its declared consequences. */
function allowedClauses(f: Fault): Set<string> {
  return new Set([...clausesOf(f), ...(f.consequences ?? []).map((c) => c.clause)])
}

/** The clauses with a failed result in a run: main entries and findings, any level. */
function failedClauses(run: SuiteRun): string[] {
  return [...new Set(run.results!.checks.filter((c) => c.status === 'failed').map((c) => c.clause))].sort()
}

/** Faults run side by side, one whole-suite run each, one per lane of the session at a time; `done` gets each run as it ends. */
async function runAll(faults: readonly Fault[], done: (f: Fault, run: SuiteRun) => void = () => {}): Promise<void> {
  const session = await openSelftestSession(faults.length)
  try {
    const queue = [...faults]
    await Promise.all(
      Array.from({ length: session.width }, async () => {
        for (let f = queue.shift(); f; f = queue.shift()) {
          const run = await runSuiteIn(session, { faults: [f.name] })
          runs.set(f.name, run)
          done(f, run)
        }
      }),
    )
  } finally {
    await session.close()
  }
}

describe('the fault catalogue', () => {
  test('the catalogue has at least 40 faults with registered clauses, over every area', () => {
    expect(FAULTS.length).toBeGreaterThanOrEqual(40)
    for (const f of FAULTS) {
      expect(f.name, f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(f.description.length, f.name).toBeGreaterThan(10)
      expect(clausesOf(f).length, f.name).toBeGreaterThan(0)
      for (const id of clausesOf(f)) expect(() => clause(id), `${f.name}: ${id}`).not.toThrow()
      expect(f.area, `${f.name}: area is that of its first clause`).toBe(clause(clausesOf(f)[0]!).area)
      expect(
        clausesOf(f).some((id) => clause(id).level !== 'INFO'),
        `${f.name}: an INFO clause is never failed`,
      ).toBe(true)
      for (const c of f.consequences ?? []) {
        expect(() => clause(c.clause), `${f.name}: consequence ${c.clause}`).not.toThrow()
        expect(clause(c.clause).level, `${f.name}: consequence ${c.clause} is never an INFO clause`).not.toBe('INFO')
        expect(clausesOf(f), `${f.name}: consequence ${c.clause} is one of its own clauses`).not.toContain(c.clause)
        expect(c.reason.length, `${f.name}: consequence ${c.clause} needs a reason`).toBeGreaterThan(10)
      }
    }
    const names = FAULTS.map((f) => f.name)
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
    expect(Object.keys(AREAS).filter((a) => !FAULTS.some((f) => f.area === a))).toEqual([])
  })
})

describe('every catalogued fault is caught', () => {
  beforeAll(async () => {
    const started = Date.now()
    // Whole-suite runs of about 5 s of CPU each (200-odd faults: about nine minutes on an idle 2-core machine). The
    // bound is for a busy machine, well inside CI's own. Each run's reproducer is replayed as soon as the run ends.
    proof = CURL ? await ReproducerProof.open() : undefined
    try {
      await runAll(PROVED, (f, run) => proof?.prove(f, run.results))
      wallMs = Date.now() - started
    } finally {
      await proof?.close()
    }
  }, 3_000_000)

  afterAll(() => {
    const missed = PROVED.filter((f) => !caught.has(f.name)).map((f) => f.name)
    const perArea = Object.keys(AREAS)
      .map((a) => [a, PROVED.filter((f) => f.area === a).length] as const)
      .filter(([, n]) => n > 0)
      .map(([a, n]) => `${a} ${n}`)
      .join(', ')
    const withConsequences = PROVED.filter((f) => f.consequences?.length).map((f) => `${f.name} (+${f.consequences!.map((c) => c.clause).join(', ')})`)
    process.stdout.write(
      `\nfaults caught: ${caught.size}/${PROVED.length}${ONLY.length ? ' (SELFTEST_FAULTS)' : ''}${missed.length ? `; missed: ${missed.join(', ')}` : ''} (${(wallMs / 1000).toFixed(0)} s; ${perArea})\n` +
        `precision: ${PROVED.length - imprecise.size}/${PROVED.length} faults fail only their own clauses and declared consequences` +
        `${imprecise.size ? `; beyond them: ${[...imprecise].map(([n, ids]) => `${n} → ${ids.join(', ')}`).join('; ')}` : ''}\n` +
        `declared consequences: ${withConsequences.join('; ') || 'none'}\n` +
        (stale.size ? `declared but not failed: ${[...stale].map(([n, ids]) => `${n} → ${ids.join(', ')}`).join('; ')}\n` : '') +
        (proof ? proof.summary(PROVED) : 'reproducers: not proved, curl is not installed on this machine\n'),
    )
  })

  test.each(PROVED.map((f) => [f.name, f] as const))('catches %s', (_name, fault) => {
    const run = runs.get(fault.name)!
    expect(run.results, `no results.json; stderr: ${run.stderr}`).not.toBeNull()
    const wanted = clausesOf(fault)
    const levels = new Set(wanted.map((id) => clause(id).level))
    const failedOn = run.results!.checks.filter((c) => c.status === 'failed' && wanted.includes(c.clause))
    expect(
      failedOn.length,
      `fault ${fault.name} (${fault.description}) was not caught on ${wanted.join(' or ')}; failures seen: ${
        run
          .results!.checks.filter((c) => c.status === 'failed')
          .map((c) => c.clause)
          .join(', ') || 'none'
      }`,
    ).toBeGreaterThan(0)
    expect(
      run.results!.counts.total.error,
      `errors: ${run
        .results!.checks.filter((c) => c.status === 'error')
        .map((c) => `${c.id}: ${c.message}`)
        .join('; ')}`,
    ).toBe(0)
    if (levels.has('MUST')) expect(run.code).toBe(1)
    caught.add(fault.name)
  })

  // The evidence a vendor reads is the exchange that failed, never the check's cleanup (selftest/evidence-rules.ts).
  test.each(PROVED.map((f) => [f.name, f] as const))('%s: every cause and failed entry shows the exchange its message names', (_name, fault) => {
    const run = runs.get(fault.name)!
    expect(run.results, `no results.json; stderr: ${run.stderr}`).not.toBeNull()
    expect(run.results!.causes?.length, 'results.json stores its causes').toBeGreaterThan(0)
    expect(evidenceProblems(run.results!)).toEqual([])
  })

  // Issue 19: the reproducer of the first failed MUST entry runs as is, shows the deviation, and cleans up.
  test.skipIf(!CURL).each(PROVED.map((f) => [f.name, f] as const))(
    "%s: its first failed MUST entry's reproducer exits 1 against the fault, 0 against a clean server, and leaves nothing",
    (_name, fault) => {
      const outcome = proof!.outcomes.get(fault.name)
      expect(outcome, 'no replay was made').toBeDefined()
      expect(outcome!.problems, `${fault.name}: ${outcome!.entry ?? 'no entry'}\n${outcome!.detail}`).toEqual([])
    },
  )

  test.each(PROVED.map((f) => [f.name, f] as const))('%s fails no clause but its own and its declared consequences', (_name, fault) => {
    const run = runs.get(fault.name)!
    expect(run.results, `no results.json; stderr: ${run.stderr}`).not.toBeNull()
    const allowed = allowedClauses(fault)
    const beyond = failedClauses(run).filter((id) => !allowed.has(id))
    if (beyond.length) imprecise.set(fault.name, beyond)
    const evidence = run
      .results!.checks.filter((c) => c.status === 'failed' && beyond.includes(c.clause))
      .slice(0, 8)
      .map((c) => `  ${c.id}\n    ${(c.message ?? '').split('\n').slice(0, 2).join('\n    ')}`)
    expect(beyond, `fault ${fault.name} failed clauses beyond ${[...allowed].join(', ')}:\n${evidence.join('\n')}`).toEqual([])
    // A blocked check names the step's clause, which failed in the same run.
    for (const c of run.results!.checks.filter((x) => x.status === 'blocked'))
      expect(allowed.has(c.blockedBy ?? ''), `${c.id} blocked by ${c.blockedBy}`).toBe(true)
  })

  // A declared consequence is a clause the fault may fail besides its own: one that no longer fails (its check is
  // now blocked by the fault's clause, or no longer reads the field) only widens what the precision proof lets by.
  test.each(PROVED.filter((f) => f.consequences?.some((c) => !c.sometimes)).map((f) => [f.name, f] as const))(
    '%s fails every consequence it declares',
    (_name, fault) => {
      const run = runs.get(fault.name)!
      expect(run.results, `no results.json; stderr: ${run.stderr}`).not.toBeNull()
      const failed = new Set(failedClauses(run))
      const unseen = fault.consequences!.filter((c) => !c.sometimes && !failed.has(c.clause)).map((c) => c.clause)
      if (unseen.length) stale.set(fault.name, unseen)
      expect(unseen, `fault ${fault.name} declares consequences its run did not fail: remove them from its entry in reference/faults/`).toEqual([])
    },
  )
})

describe('a run on the suite session is the run npm run conformance makes', () => {
  /**
   * The catalogue's proof reads results.json of runs made on the session: the first proved fault is run again as
   * a user runs it (a child process, its own vitest), and both runs must hold the same checks with the same
   * verdict, exit code and failed clauses. Each session run is a run of its own: another run id, its own checks only.
   */
  test('the first proved fault gives the same results in a child process', async () => {
    const fault = PROVED[0]!
    const inSession = runs.get(fault.name)!
    const alone = await runSuite(['--fault', fault.name])
    expect(alone.results, alone.stderr).not.toBeNull()
    expect(inSession.results, inSession.stderr).not.toBeNull()
    const [a, b] = [inSession.results!, alone.results!]
    expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort())
    const own = (r: typeof a) =>
      r.checks
        .filter((c) => !c.parent)
        .map((c) => c.id)
        .sort()
    expect(own(a)).toEqual(own(b))
    expect([a.verdict, a.exitCode, inSession.code]).toEqual([b.verdict, b.exitCode, alone.code])
    expect(failedClauses(inSession)).toEqual(failedClauses(alone))
    expect(a.target.embedded).toBe(true)
    expect(a.runId).not.toBe(b.runId)
  })

  test('every run on the session has a run id of its own and only its own checks', () => {
    const ids = PROVED.map((f) => runs.get(f.name)?.results?.runId)
    expect(new Set(ids).size).toBe(PROVED.length)
    for (const f of PROVED) {
      const checks = runs.get(f.name)!.results!.checks
      expect(new Set(checks.map((c) => c.id)).size, f.name).toBe(checks.length)
    }
  })
})

describe('with no fault on, no fault code is on the request path', () => {
  /** The route options of a server as registered (onRoute sees them when the route plugins load, at ready()). */
  async function routesOf(faults: readonly string[]): Promise<{ routes: RouteOptions[]; app: ReturnType<typeof buildServer> }> {
    const app = buildServer({ faults })
    const routes: RouteOptions[] = []
    app.addHook('onRoute', (route) => {
      routes.push(route)
    })
    await app.ready()
    return { routes, app }
  }

  const HOOKS = ['onRequest', 'preParsing', 'preValidation', 'preHandler', 'preSerialization', 'onSend', 'onResponse', 'onError'] as const
  /** The hooks set on a route, leaving out the one Fastify itself gives every automatic HEAD route. */
  const routeHooks = (r: RouteOptions): string[] =>
    HOOKS.filter((h) => [r[h]].flat().some((fn) => typeof fn === 'function' && fn.name !== 'headRouteOnSendHandler'))

  test('resolves no fault from an empty list', () => {
    expect(resolveFaults([])).toEqual([])
  })

  // A fault built on a variant is told from a clean server with that variant (its reproducer's proof): the name must be one.
  test('every variant a fault is built on is in the variant catalogue', () => {
    const known = new Set(VARIANTS.map((v) => v.name))
    expect(FAULTS.flatMap((f) => (f.builtOn ?? []).filter((v) => !known.has(v)).map((v) => `${f.name}: ${v}`))).toEqual([])
  })

  test('a clean server has no route-level hook, and its store and gateway are not wrapped', async () => {
    const { routes, app } = await routesOf([])
    try {
      expect(routes.length).toBeGreaterThan(20)
      expect(routes.filter((r) => routeHooks(r).length > 0).map((r) => `${r.method} ${r.url}: ${routeHooks(r).join(', ')}`)).toEqual([])
      expect(types.isProxy(app.reference.store)).toBe(false)
      expect(types.isProxy(app.reference.gateway)).toBe(false)
    } finally {
      await app.close()
    }
  })

  test('the probe sees faults: a server with every fault on has route hooks and a wrapped store', async () => {
    const { routes, app } = await routesOf(FAULTS.map((f) => f.name))
    try {
      expect(routes.filter((r) => routeHooks(r).length > 0).length).toBeGreaterThan(10)
      expect(types.isProxy(app.reference.store)).toBe(true)
    } finally {
      await app.close()
    }
  })

  test('building and using a clean server calls no fault', async () => {
    const spies = FAULTS.flatMap((f) =>
      (['install', 'wrapStore', 'wrapGateway'] as const).filter((m) => f[m] !== undefined).map((m) => vi.spyOn(f as Required<Fault>, m)),
    )
    const app = buildServer()
    try {
      await app.ready()
      const signIn = await app.inject({
        method: 'POST',
        url: '/mobile/api/com.vendor.server/user/session',
        headers: { 'mms-device-id': 'selftest' },
        query: { grant_type: 'password', username: 'alice.ct', password: 'alice-pass-4821', client_id: app.reference.application.clientId, scope: 'public' },
      })
      const token = signIn.json().access_token as string
      const auth = { authorization: `Bearer ${token}` }
      const msg = '/message/api/v2'
      expect((await app.inject({ method: 'POST', url: `${msg}/channels`, headers: auth, payload: { channelName: 'nofault' } })).statusCode).toBe(201)
      expect((await app.inject({ method: 'POST', url: `${msg}/channels/nofault/items`, headers: auth, payload: { content: { a: 1 } } })).statusCode).toBe(201)
      expect((await app.inject({ method: 'GET', url: `${msg}/channels/nofault/items/fetch`, headers: auth })).statusCode).toBe(200)
      expect((await app.inject({ method: 'DELETE', url: `${msg}/channels/nofault`, headers: auth })).statusCode).toBe(200)
      expect(spies.filter((s) => s.mock.calls.length > 0).map((s) => s.getMockName())).toEqual([])
      // The spies do see a fault that is switched on.
      await buildServer({ faults: [FAULTS[0]!.name] }).close()
      expect(spies.some((s) => s.mock.calls.length > 0)).toBe(true)
    } finally {
      await app.close()
      for (const s of spies) s.mockRestore()
    }
  })
})

describe('every MUST clause is proven by a fault, and the deep section is complete', () => {
  /**
   * MUST clauses no catalogue fault can prove, with the reason. A fault here would stop the run before any
   * check (exit 2, could-not-run), which proves the clause another way but is no catalogue fault.
   */
  const NO_FAULT: Record<string, string> = {
    'signin.params.form': 'the run signs every account in with a form body before any check, so a server that refuses form sign-ins cannot be run at all',
  }

  test('every MUST clause of the registry has a fault (or a stated reason why none can be written)', async () => {
    const { CLAUSES } = await import('../helpers/spec/clauses')
    const proven = new Set(FAULTS.flatMap((f) => clausesOf(f)))
    const without = CLAUSES.filter((c) => c.level === 'MUST' && !c.notTestable && !proven.has(c.id)).map((c) => c.id)
    process.stdout.write(
      `\nMUST clauses without a fault: ${without.length ? without.map((id) => `${id}${NO_FAULT[id] ? ` (${NO_FAULT[id]})` : ''}`).join('; ') : 'none'}\n`,
    )
    expect(without.filter((id) => !NO_FAULT[id])).toEqual([])
    for (const id of Object.keys(NO_FAULT)) expect(clause(id).level, id).toBe('MUST')
  })

  test('the deep section has at least 30 faults, marked deep, over every area but http', async () => {
    const { DEEP_FAULTS } = await import('../reference/faults')
    expect(DEEP_FAULTS.length).toBeGreaterThanOrEqual(30)
    for (const f of DEEP_FAULTS) {
      expect(f.depth, f.name).toBe('deep')
      expect(FAULTS, f.name).toContain(f)
    }
    const areas = Object.keys(AREAS).filter((a) => a !== 'http')
    expect(areas.filter((a) => !DEEP_FAULTS.some((f) => f.area === a))).toEqual([])
  })
})
