/**
 * Reproducers run as is: for catalogue faults, the checks of the fault's own clauses (--clause, the selection a
 * vendor re-testing a fix uses) run against the embedded server with the fault on, and the reproducer of the
 * first failed MUST entry (else the first failed entry) is run with sh and
 * curl, the variables of .env.example and BASE_URL only, against a reference server with that fault (it must
 * exit 1: the deviation shows) and against the clean reference server (it must exit 0); either way no channel
 * of the script's is left behind. Both servers run in this process, so their stores are looked at directly.
 *
 * Which faults: SELFTEST_REPRO_FAULTS=a,b names them; SELFTEST_REPRO_FAULTS=all takes the whole catalogue (one
 * run per fault, a few seconds each on an idle machine); unset, a sample: the catalogue's first and last
 * fault of every area (22 faults).
 * Without curl on the machine the file is skipped, and says why.
 */
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { clausesOf, FAULTS, resolveFaults, type Fault } from '../reference/faults'
import { exampleEnv, startReference, type ReferenceTarget } from '../testing/reference-target'
import { clausesWithChecks } from '../helpers/runner/pipeline'
import { runSuite } from '../testing/run-suite'

function hasCurl(): boolean {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

function sample(): readonly Fault[] {
  const named = (process.env.SELFTEST_REPRO_FAULTS ?? '').trim()
  if (named === 'all') return FAULTS
  if (named) return resolveFaults(named.split(',').map((n) => n.trim()))
  const byArea = new Map<string, Fault[]>()
  for (const f of FAULTS) byArea.set(f.area, [...(byArea.get(f.area) ?? []), f])
  return [...byArea.values()].flatMap((fs) => [...new Set([fs[0]!, fs.at(-1)!])])
}

/**
 * Faults whose deviation a reproducer cannot show, and why: it replays one check's recorded requests one after
 * another. Against these it must still never report a deviation on the clean server; against the fault it may
 * exit 0 or 2 (not judged), never claim what it did not see.
 */
const NOT_SHOWN: Record<string, string> = {
  'r4-race-subscribe-lost': 'the deviation needs two requests at the same moment; the script sends them one after another',
  'r4-race-tags-lost': 'the deviation needs two requests at the same moment; the script sends them one after another',
  'r4-push-sentlist-one-entry': "the second device was signed in outside the check's recorded requests",
  'deep-auth-token-prefix': 'the judged request sent a token the check altered, which the record keeps redacted (the script exits 2: not judged)',
  'auth-missing-token-403': 'the judged request sent a made-up token, which the record keeps redacted (the script exits 2: not judged)',
  'r4-race-publish-count': 'the deviation needs publishes at the same moment; the script sends them one after another',
  'deep-tags-race-lost-update': 'the deviation needs two requests at the same moment; the script sends them one after another',
  'signin-real-password': "the run's answer held the password, which the record keeps redacted: the script has no copy to compare (exit 2: not judged)",
  'deep-push-icon-refused':
    'an earlier request of the check already met the deviation; on a correct server that step answers otherwise and the script stops there (exit 2: not judged)',
}

/** Faults under which a delete does not delete: the script's cleanup cannot remove its channel from that server. */
const KEEPS_DELETED = new Set(['channels-delete-keeps'])

const CURL = hasCurl()
const WITH_CHECKS = clausesWithChecks()
const PICKED = sample()
const tally = { faulty: 0, clean: 0, notJudged: 0, leftBehind: 0, noReproducer: 0 }

/** Runs a reproducer with sh against `url`, with the variables of .env.example and nothing else. */
async function replay(script: string, url: string): Promise<{ code: number; out: string }> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...exampleEnv(), BASE_URL: url }
  try {
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', script], { env, encoding: 'utf8', timeout: 60_000 })
    return { code: 0, out: stdout + stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }
  }
}

const ownChannels = (ref: ReferenceTarget) => ref.channelNames().filter((n) => /^ct/i.test(n))

let clean: ReferenceTarget

beforeAll(async () => {
  if (CURL) clean = await startReference()
})
afterAll(async () => {
  await clean?.close()
  if (CURL)
    process.stdout.write(
      `reproducers: ${PICKED.length} fault(s); exit 1 against the fault ${tally.faulty}, exit 0 against the clean server ${tally.clean}, ` +
        `not judged (exit 2) ${tally.notJudged}, channels left behind ${tally.leftBehind}, no reproducer ${tally.noReproducer}; ` +
        `known not shown by a sequential replay: ${PICKED.filter((f) => NOT_SHOWN[f.name]).length}\n`,
    )
})

describe.skipIf(!CURL)('reproducers run as is (sh, curl, .env.example)', () => {
  if (!CURL) test.skip('curl is not installed on this machine, so no reproducer can run', () => {})
  for (const fault of PICKED) {
    test(`${fault.name}: exit 1 against the fault, 0 against the clean server, nothing left`, async () => {
      // The fault's clauses that have checks of their own; one judged only inside other checks (http.*) needs the whole suite.
      const own = clausesOf(fault).filter((c) => WITH_CHECKS.has(c))
      const run = await runSuite(['--fault', fault.name, ...own.flatMap((c) => ['--clause', c])])
      expect(run.results, run.stderr).not.toBeNull()
      const failed = run.results!.checks.filter((c) => c.status === 'failed')
      const entry = failed.find((c) => c.level === 'MUST') ?? failed[0]
      expect(entry, `${fault.name} failed nothing`).toBeDefined()
      if (!entry!.reproducer) tally.noReproducer++
      expect(entry!.reproducer, `${entry!.id} has no reproducer`).toBeTruthy()
      const script = entry!.reproducer!
      expect(script).toMatch(/^#!\/bin\/sh\n/)
      // No redacted value in what the script runs (the failure it quotes in its comments may hold one).
      expect(script.split('\n').filter((l) => !l.startsWith('#'))).not.toContainEqual(expect.stringContaining('«redacted»'))

      const faulty = await startReference({ faults: [fault.name] })
      try {
        const bad = await replay(script, faulty.url)
        if (bad.code === 1) tally.faulty++
        if (bad.code === 2) tally.notJudged++
        if (NOT_SHOWN[fault.name]) expect([0, 1, 2], `${entry!.id} against ${fault.name}:\n${bad.out.slice(-2500)}`).toContain(bad.code)
        else expect(bad.code, `${entry!.id} against ${fault.name}:\n${bad.out.slice(-2500)}\n${script}`).toBe(1)
        if (!KEEPS_DELETED.has(fault.name)) expect(ownChannels(faulty), 'the script left channels on the faulty server').toEqual([])
      } finally {
        if (ownChannels(faulty).length) tally.leftBehind++
        await faulty.close()
      }
      const good = await replay(script, clean.url)
      if (good.code === 0) tally.clean++
      if (good.code === 2) tally.notJudged++
      const left = ownChannels(clean)
      if (left.length) tally.leftBehind++
      if (NOT_SHOWN[fault.name]) expect(good.code, `${entry!.id} against the clean server: never a false alarm`).not.toBe(1)
      else expect(good.code, `${entry!.id} against the clean server:\n${good.out.slice(-2500)}\n${script}`).toBe(0)
      expect(left, 'the script left channels on the clean server').toEqual([])
    }, 300_000)
  }
})
