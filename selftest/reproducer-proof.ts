/**
 * The reproducer proof of the fault self-test (selftest/faults.test.ts): for every proved fault, the reproducer
 * of its run's first failed MUST entry (else its first failed entry) is run with sh and curl, the variables of
 * .env.example and BASE_URL only, against a reference server with that fault on (it must exit 1: the deviation
 * shows) and against one clean reference server shared by all (it must exit 0); either way it must leave no
 * channel behind. Both servers run in this process, so their stores are looked at directly.
 *
 * Replays run a few at once (REPLAY_LANES), each with a time bound (REPLAY_TIMEOUT_MS); every faulty server is
 * the fault's own and lives for its replay only. The clean server takes one replay at a time, so the channels
 * it holds after a replay that it did not hold before are that replay's. Loopback only: both listen on 127.0.0.1.
 */
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { CheckResult, RunResults } from '../helpers/reports/results'
import type { Fault } from '../reference/faults'
import { exampleEnv, startReference, type ReferenceTarget } from '../testing/reference-target'

/** Replays at once: each is a sh process spawning a curl per request, so a few keep the machine busy enough. */
const REPLAY_LANES = 2
/** One replay's bound (a script makes at most a few dozen requests to a server in this process). */
const REPLAY_TIMEOUT_MS = 60_000

/**
 * Faults whose deviation a reproducer cannot show, and why: it replays one check's recorded requests one after
 * another. Against these it must still never report a deviation on the clean server; against the fault it may
 * exit 0 or 2 (not judged), never claim what it did not see.
 */
export const NOT_SHOWN: Readonly<Record<string, string>> = {
  'r12-msg-status-shared-device-recipient':
    "the deviation needs the recipient's device id signed in by another user first, which other checks of the run did; a replay's recipient device is its own",
  'r14b-channels-creator-latest-device':
    'the deviation needs the owner signed in on another device after the channel was made, which other checks of the run did; a replay signs the owner in once',
  'r14d-push-counts-sessions':
    "the deviation needs the recipient signed in again on a device id it already used, which other checks of the run did; a replay's push sees one sign-in",
  'r14d-items-fetch-delete-race': 'the deviation needs a fetch and a delete in flight together; a replay sends its requests one after another',
  'r15b-signin-resignin-token-not-stored':
    'the deviation needs a second sign-in of the user on a device id it already holds a session on, which other checks of the run made; a replay signs each user in once',
  'r15c-items-capacity-counts-owner':
    "the deviation needs the owner's items in its other channels, and the run's first failed entry may be a channel its other checks filled; a replay's owner holds only the replay's items",
  'r15c-subscriptions-unsubscribe-counts-all-channels':
    "the deviation needs the user's subscriptions to other channels, and the run's first failed entry may be a count its other checks' subscriptions made wrong; a replay's user holds only the replay's",
  'r15d-users-search-reindex-on-signin':
    'the deviation needs a user search in flight with a sign-in of the user it finds; a replay sends its requests one after another',
  'r15a-private-hash-address-name-case':
    "the fault refuses the owner's own read of <user_id>#<name> too, which the run polled before B's read: on a clean server that read answers 200 where the run's answered 404, so the script stops as not judged (exit 2)",
  'r13b-signin-device-per-user': "the deviation needs the owner's token of one device used after a sign-in on a second; a replay signs the owner in once",
  'r12-push-sent-counts-platforms':
    "the deviation needs several devices of one platform on the user, which the run's other checks signed in; a replay's user has one device, and one device is one platform",
  'deep-items-fetch-pages-count-deleted': 'the failure is a count of elements on a page (`got 0 element(s) […], want 1`), which the script does not test',
  'deep-items-fetch-pages-count-evicted': 'the failure is a count of elements on a page (`got 0 element(s) […], want 1`), which the script does not test',
  'r10-signin-second-device-otp':
    "the deviation needs the user signed in on another device first, outside the check's recorded requests; a replay's first sign-in is that user's first",
  'r11-push-count-cached-devices':
    "the count reused is that of the first push to the user in the run, which another check made; a replay's first push to that user is the one it judges, counted afresh",
  'r11-msg-status-whole-batch':
    "the failing record sits far down an answer that the run's recipients filled through devices other checks signed in; a replay's recipients have fewer devices, so the script's answer does not hold that record",
  'r11-race-signin-new-device-500': 'a race: two sign-ins on one new device id in flight at once, which a replay one request after another never makes',
  'r10-race-create-shared-description': 'a race: two creates in flight at once, which a replay one request after another never makes',
  'r10-race-delete-by-id-resurrects': 'a race: deletes by id in flight at once, which a replay one request after another never makes',
  'r10-fetch-needs-three-fraction-digits':
    "the check sent since and until in whole seconds; the script writes the run's instants afresh for the replay, with a fraction of a second, so it never sends the form the fault refuses",
  'r4-search-cursor-per-user':
    "the first failed MUST entry is a page's count of channels (`got 0 element(s) […], want 1`), which the script does not test; and the cursor is the run's own history of searches",
  'deep-channels-search-pages-count-deleted': 'the failure is a count of elements on a page (`got 0 element(s) […], want 1`), which the script does not test',
  'r4-race-subscribe-lost': 'the deviation needs two requests at the same moment; the script sends them one after another',
  'r4-race-tags-lost': 'the deviation needs two requests at the same moment; the script sends them one after another',
  'r4-push-sentlist-one-entry': "the second device was signed in outside the check's recorded requests",
  'deep-auth-token-prefix': 'the judged request sent a token the check altered, which the record keeps redacted (the script exits 2: not judged)',
  'auth-missing-token-403': 'the judged request sent a made-up token, which the record keeps redacted (the script exits 2: not judged)',
  'r4-race-publish-count': 'the deviation needs publishes at the same moment; the script sends them one after another',
  'r5-fetch-until-whole-seconds':
    "the judged since and until sit inside the second the run's item was published in; a replay publishes its item later, outside those recorded instants",
  'deep-tags-race-lost-update': 'the deviation needs two requests at the same moment; the script sends them one after another',
  'signin-real-password': "the run's answer held the password, which the record keeps redacted: the script has no copy to compare (exit 2: not judged)",
  'deep-push-icon-refused':
    'an earlier request of the check already met the deviation; on a correct server that step answers otherwise and the script stops there (exit 2: not judged)',
  'deep-private-hash-dotted-name':
    "the deviation is in two answers, B's read of the address and then the owner's; on a correct server B's read already answers 2xx where the run's got 404, and the script stops there (exit 2: not judged)",
  'names-address-name-cut-64':
    "the deviation is in two answers, B's read of the address and then the owner's; on a correct server B's read already answers 2xx where the run's got 404, and the script stops there (exit 2: not judged)",
  'private-hash-address-unsupported':
    "the deviation is in two answers, B's read of the address and then the owner's; on a correct server B's read already answers 2xx where the run's got 404, and the script stops there (exit 2: not judged)",
  'r3-summary-count-lost-update': 'the deviation needs publishes at the same moment; the script sends them one after another',
  'r3-publish-resurrects-deleted': 'the deviation needs publishes racing the delete; the script sends them one after another',
  'auth-user-list-any-bearer': 'the judged request sent a made-up token, which the record keeps redacted (the script exits 2: not judged)',
  'deep-users-last-password-kept':
    "the run's answer held the password, which the record keeps redacted: the script has no copy to compare (exit 2: not judged)",
  'items-get-drops-last-id':
    "the check published a content of 20,000 characters, which the record keeps cut: the replayed publish is not the run's and is refused (exit 2: not judged)",
  'messages-sent-counts-devices': "the deviation needs recipients signed in on several devices, signed in outside the check's recorded requests",
  'r5-message-sent-counts-devices': "the deviation needs recipients signed in on several devices, signed in outside the check's recorded requests",
  'r6-auth-token-prefix':
    'the check sends altered copies of a token it signed in for; the record keeps the token redacted, so the script cannot make the same copies',
  'r6-msg-status-first-recipient':
    "the failure wants one of a list of values (`want one of …`), a form the script does not test yet; it falls back to comparing the whole answer, which listed the devices the recipient signed in on over the whole run, so it never matches the replay's (it exits 0 against the fault in a whole run, and no false alarm)",
  'r6-push-sent-counts-users': "the deviation needs the recipient signed in on several devices, signed in outside the check's recorded requests",
  'r6-signin-overlap-token-lost': 'a race: two sign-ins in flight at once, which a replay one request after another never makes',
  'r6-subscribe-lost-update': 'a race: two subscribes in flight at once, which a replay one request after another never makes',
  'r7-msg-concurrent-sender-crossed': 'a race: two users sending at one moment, which a replay one request after another never makes',
  'r7-push-concurrent-shared-counter': 'a race: pushes in flight at once, which a replay one request after another never makes',
  'r8-race-tags-add-lost-update': 'a race: two adds of tags in flight at once, which a replay one request after another never makes',
  'r8-race-max-items-eviction': 'a race: two publishes in flight at once, which a replay one request after another never makes',
  'r8-race-subscribe-lost-update': 'a race: two subscribes in flight at once, which a replay one request after another never makes',
  'r8-push-sent-counts-user': "the deviation needs the recipient signed in on several devices, signed in outside the check's recorded requests",
  'r7-signin-concurrent-crossed': 'a race: two sign-ins of different users in flight at once, which a replay one request after another never makes',
  'r9-race-publish-same-item-id': 'a race: two publishes in flight at once, which a replay one request after another never makes',
  'r9-race-send-same-sender-crossed': 'a race: two sends of one sender in flight at once, which a replay one request after another never makes',
  'r11-race-publish-publisher-crossed': 'a race: publishes of three users in flight at once, which a replay one request after another never makes',
  'r9-push-shared-device-dropped': "the deviation needs another user signed in on the recipient's device, signed in outside the check's recorded requests",
  'push-counts-swapped':
    "the run's answer listed the devices A had signed in on over the whole run, outside the check's recorded requests; the message states no value to test, so the script compares whole answers, which cannot be the run's",
  'deep-concurrent-publish-lost': 'the deviation needs publishes at the same moment; the script sends them one after another',
  'deep-messages-concurrent-send-race': 'the deviation needs messages sent at the same moment; the script sends them one after another',
  'r5-race-delete-drops-publish': 'the deviation needs a publish racing the delete; the script sends them one after another',
  'r5-race-unsubscribe-revert': 'the deviation needs unsubscribes at the same moment; the script sends them one after another',
  'r5-race-max-items-overflow': 'the deviation needs publishes at the same moment; the script sends them one after another',
  'deep-auth-publish-anyone-open': 'the judged request sent a made-up token, which the record keeps redacted (the script exits 2: not judged)',
  'r3-content-long-string-truncated':
    "the check published a content of 20,000 characters, which the record keeps cut: the replayed publish is not the run's and is refused (exit 2: not judged)",
  'deep-items-oversized-content-cut':
    'the check published a content larger than the channel allows, which the record keeps cut: the replayed publish cannot be parsed, so every server refuses it',
  'deep-push-multi-device-count':
    "the run's answer listed the devices A had signed in on over the whole run, outside the check's recorded requests; the message states no value to test, so the script compares whole answers, which cannot be the run's",
  'deep-push-sent-counts-user':
    "the run's answer listed the devices A had signed in on over the whole run, outside the check's recorded requests; the message states no value to test, so the script compares whole answers, which cannot be the run's",
  'r3-push-self-skips-own-device':
    "the run's answer listed the devices A had signed in on over the whole run, outside the check's recorded requests; the message states no value to test, so the script compares whole answers, which cannot be the run's",
  'deep-status-first-recipient':
    "the wanted recipient is stated relative to another answer (the sentList entry), so the script compares whole answers; under the fault the replay's matches the run's in some runs and not in others (exit 1 or 0)",
  'r3-message-status-first-recipient':
    "the wanted recipient is stated relative to another answer (the sentList entry), so the script compares whole answers; under the fault the replay's matches the run's in some runs and not in others (exit 1 or 0)",
  'r3-refused-delete-clears-items':
    'the deviation is a change between the state before the refused deletes and after them, which the check reads in four reads; the one the failure names (the channel) answered in the run as it did before, so the script does not judge it (exit 2) rather than take an answer a correct server gives too for the deviation',
  'deep-signin-repeat-token-type':
    "the run's sign-in was a repeat on its device id: other checks had signed B in on that device id earlier in the run; the script's device id is fresh, so its sign-in is the first",
  'deep-messages-status-cached-per-caller':
    "the run's answer was the status cached for A by another check's read earlier in the run (a message A sent B); the script's read is A's first on the server",
  'channels-search-ignores-tag':
    "the run's answer listed channels other checks had made; the message states no value to test, so the script compares whole answers, which cannot be the run's",
}

/**
 * Faults whose reproducer breaks a rule today, each with what is wrong with it: a defect of the reproducer, listed
 * so that the proof of the rest of the catalogue holds, and named in the closing line. Their breaches do not fail
 * the test; a listed fault whose reproducer is proved fails it, so the list only shrinks.
 */
export const KNOWN_BREACHES: Readonly<Record<string, string>> = {}

/** Faults under which a delete does not delete: the script's cleanup cannot remove its channel from that server. */
export const KEEPS_DELETED: ReadonlySet<string> = new Set(['channels-delete-keeps'])

/** What the replays of one fault's reproducer showed. */
export interface ReproducerOutcome {
  fault: string
  /** The entry whose reproducer was replayed (results.json's id), if the run failed any. */
  entry?: string
  /** Exit codes of sh against the faulty and the clean server (-1: no exit code; a time-out says so in `problems`). */
  faultyCode?: number
  cleanCode?: number
  /** Channels the script made and left: on the faulty server, on the clean one. */
  leftOnFault: string[]
  leftOnClean: string[]
  /** Why a sequential replay cannot show this fault (NOT_SHOWN), if it is one of those. */
  notShown?: string
  /** What is wrong with this fault's reproducer (KNOWN_BREACHES), and the rules it broke this time. */
  known?: { why: string; problems: string[] }
  /** Every rule the replays broke, in words; empty when the reproducer is proved. */
  problems: string[]
  /** The two replays' output and the script, for the failure message. */
  detail: string
}

/** The checks that send requests together (helpers/kit/together.ts), which a replay sends one after another. */
const RACING_FILE = 'suites/races.test.ts'

/**
 * The entry whose reproducer is proved: the run's first failed MUST entry, else its first failed entry; an entry of
 * a check that sends requests together only when the run failed nothing else, since a replay sends them one after
 * another and cannot make them meet.
 */
export function entryToReplay(results: RunResults): CheckResult | undefined {
  const failed = results.checks.filter((c) => c.status === 'failed')
  const sequential = failed.filter((c) => c.file !== RACING_FILE)
  const from = sequential.length ? sequential : failed
  return from.find((c) => c.level === 'MUST') ?? from[0]
}

export function hasCurl(): boolean {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Runs a reproducer with sh against `url`, with PATH, the variables of .env.example and BASE_URL, and nothing else. */
export function replay(script: string, url: string): Promise<{ code: number; out: string; timedOut: boolean }> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', ...exampleEnv(), BASE_URL: url }
  return new Promise((done) => {
    execFile('sh', ['-c', script], { env, encoding: 'utf8', timeout: REPLAY_TIMEOUT_MS, maxBuffer: 8 << 20 }, (err, stdout, stderr) => {
      const e = err as (Error & { code?: unknown; killed?: boolean }) | null
      const code = !e ? 0 : typeof e.code === 'number' ? e.code : -1
      done({ code, out: `${stdout}${stderr}`, timedOut: Boolean(e?.killed) })
    })
  })
}

/** CPU time (ms) of this process's children that have ended and been waited for: the replays' sh and curl. */
export function childrenCpuMs(): number {
  try {
    // /proc/self/stat: fields 16 and 17 are cutime and cstime, in clock ticks (100 a second on Linux).
    const fields = readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return NaN
  }
}

/** A queue that runs at most `width` tasks at once. */
function limiter(width: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0
  const waiting: (() => void)[] = []
  return async (task) => {
    if (active >= width) await new Promise<void>((go) => waiting.push(go))
    active++
    try {
      return await task()
    } finally {
      active--
      waiting.shift()?.()
    }
  }
}

const tail = (text: string) => text.slice(-2500)

/**
 * The proof of every proved fault's reproducer: `open` starts the clean server; `prove` takes a fault and its run
 * as soon as the run is done (replays overlap the other runs), `close` waits for every replay and stops the server.
 */
export class ReproducerProof {
  readonly outcomes = new Map<string, ReproducerOutcome>()
  /** Wall time from close (the runs are done) to the end of the last replay, the replays' summed wall time, their children's CPU. */
  tailMs = 0
  replayMs = 0
  cpuMs = 0
  private readonly pending: Promise<void>[] = []
  private readonly lane = limiter(REPLAY_LANES)
  private readonly cleanLane = limiter(1)
  private cpuAtOpen = 0
  /** Clean servers built on variants (a fault's builtOn), started when a fault first needs one. */
  private readonly cleanOn = new Map<string, Promise<ReferenceTarget>>()

  private constructor(private readonly clean: ReferenceTarget) {}

  /** The clean server a fault is told from: the plain reference, or one with the variants the fault is built on. */
  private cleanFor(fault: Fault): Promise<ReferenceTarget> {
    const variants = [...(fault.builtOn ?? [])].sort()
    if (!variants.length) return Promise.resolve(this.clean)
    const key = variants.join(',')
    if (!this.cleanOn.has(key)) this.cleanOn.set(key, startReference({ variants }))
    return this.cleanOn.get(key)!
  }

  static async open(): Promise<ReproducerProof> {
    const proof = new ReproducerProof(await startReference())
    proof.cpuAtOpen = childrenCpuMs()
    return proof
  }

  /** Queues the proof of `fault`'s reproducer from its run's results (null: the run wrote none). */
  prove(fault: Fault, results: RunResults | null): void {
    const failed = (err: unknown): ReproducerOutcome => ({
      fault: fault.name,
      leftOnFault: [],
      leftOnClean: [],
      problems: [`the proof could not run: ${(err as Error).message}`],
      detail: '',
    })
    this.pending.push(
      this.lane(() => this.proveOne(fault, results))
        .catch(failed)
        .then((o) => void this.outcomes.set(fault.name, o)),
    )
  }

  /** Waits for every queued proof, then stops the clean server; the figures are set. */
  async close(): Promise<void> {
    const closing = Date.now()
    try {
      await Promise.all(this.pending)
    } finally {
      this.tailMs = Date.now() - closing
      this.cpuMs = childrenCpuMs() - this.cpuAtOpen
      await this.clean.close()
      for (const server of this.cleanOn.values()) await (await server).close()
    }
  }

  private async proveOne(fault: Fault, results: RunResults | null): Promise<ReproducerOutcome> {
    const outcome: ReproducerOutcome = { fault: fault.name, leftOnFault: [], leftOnClean: [], problems: [], detail: '', notShown: NOT_SHOWN[fault.name] }
    const entry = results ? entryToReplay(results) : undefined
    if (!entry) {
      outcome.problems.push('its run failed no entry, so there is no reproducer to prove')
      return outcome
    }
    outcome.entry = entry.id
    const script = entry.reproducer
    if (!script) {
      outcome.problems.push(`${entry.id} has no reproducer`)
      return outcome
    }
    if (!script.startsWith('#!/bin/sh\n')) outcome.problems.push('the reproducer does not start with #!/bin/sh')
    // No redacted value in what the script runs (the failure it quotes in its comments may hold one).
    if (script.split('\n').some((l) => !l.startsWith('#') && l.includes('«redacted»'))) outcome.problems.push('the reproducer runs a redacted value')

    const started = Date.now()
    const faulty = await startReference({ faults: [fault.name] })
    let bad: Awaited<ReturnType<typeof replay>>
    try {
      const before = new Set(faulty.channelNames())
      bad = await replay(script, faulty.url)
      outcome.leftOnFault = faulty.channelNames().filter((n) => !before.has(n))
    } finally {
      await faulty.close()
    }
    const clean = await this.cleanFor(fault)
    const good = await this.cleanLane(async () => {
      const before = new Set(clean.channelNames())
      const run = await replay(script, clean.url)
      outcome.leftOnClean = clean.channelNames().filter((n) => !before.has(n))
      return run
    })
    this.replayMs += Date.now() - started
    outcome.faultyCode = bad.code
    outcome.cleanCode = good.code
    outcome.detail = `against ${fault.name}:\n${tail(bad.out)}\nagainst the clean server:\n${tail(good.out)}\n${script}`

    if (bad.timedOut) outcome.problems.push(`against the fault it ran past ${REPLAY_TIMEOUT_MS / 1000} s`)
    else if (outcome.notShown) {
      if (![0, 1, 2].includes(bad.code)) outcome.problems.push(`against the fault it ended with ${bad.code}, not 0, 1 or 2`)
    } else if (bad.code !== 1) outcome.problems.push(`against the fault it exited ${bad.code}, not 1: the deviation does not show`)
    if (good.timedOut) outcome.problems.push(`against the clean server it ran past ${REPLAY_TIMEOUT_MS / 1000} s`)
    else if (outcome.notShown) {
      if (![0, 2].includes(good.code)) outcome.problems.push(`against the clean server it exited ${good.code}: a false alarm`)
    } else if (good.code !== 0) outcome.problems.push(`against the clean server it exited ${good.code}, not 0`)
    if (outcome.leftOnFault.length && !KEEPS_DELETED.has(fault.name)) outcome.problems.push(`it left ${outcome.leftOnFault.join(', ')} on the faulty server`)
    if (outcome.leftOnClean.length) outcome.problems.push(`it left ${outcome.leftOnClean.join(', ')} on the clean server`)
    const why = KNOWN_BREACHES[fault.name]
    if (why) {
      outcome.known = { why, problems: outcome.problems }
      outcome.problems = outcome.known.problems.length ? [] : ['its reproducer is proved now: take it off KNOWN_BREACHES']
    }
    return outcome
  }

  /** The closing lines: the counts, the reason for every fault not shown, and every breach by fault. */
  summary(proved: readonly Fault[]): string {
    const all = proved.map((f) => this.outcomes.get(f.name)).filter((o): o is ReproducerOutcome => o !== undefined)
    const shown = all.filter((o) => o.faultyCode === 1).length
    const clean = all.filter((o) => o.cleanCode === 0).length
    const notShown = all.filter((o) => o.notShown)
    const tidy = all.filter((o) => o.faultyCode !== undefined && !o.leftOnClean.length && (!o.leftOnFault.length || KEEPS_DELETED.has(o.fault)))
    const excused = all.filter((o) => o.leftOnFault.length && KEEPS_DELETED.has(o.fault)).map((o) => o.fault)
    const breaches = all.filter((o) => o.problems.length)
    const known = all.filter((o) => o.known?.problems.length)
    // A fault listed as not shown whose script did show it (exit 1, and 0 on the clean server): the entry may be stale.
    const stale = notShown.filter((o) => o.faultyCode === 1 && o.cleanCode === 0).map((o) => o.fault)
    const lines = [
      `reproducers: ${shown} shown (exit 1 on the fault), ${clean} clean (exit 0), ${notShown.length} not shown (reasons listed), ` +
        `${tidy.length} left nothing behind${excused.length ? ` (${excused.join(', ')}: the fault's delete keeps the channel)` : ''}; ` +
        `${all.length} of ${proved.length} faults replayed, ${breaches.length} breach${breaches.length === 1 ? '' : 'es'}, ${known.length} known (listed) ` +
        `(${(this.tailMs / 1000).toFixed(1)} s after the last run, replays ${(this.replayMs / 1000).toFixed(0)} s summed over ${REPLAY_LANES} lanes, ` +
        `sh and curl ${(this.cpuMs / 1000).toFixed(1)} s CPU)`,
      ...notShown.map((o) => `  not shown: ${o.fault} (exit ${o.faultyCode} on the fault, ${o.cleanCode} on the clean server): ${o.notShown}`),
      ...(stale.length ? [`  listed as not shown, yet shown this time (exit 1, then 0): ${stale.join(', ')}`] : []),
      ...known.map((o) => `  known breach: ${o.fault}: ${o.known!.problems.join('; ')}; why: ${o.known!.why}`),
      ...breaches.map((o) => `  breach: ${o.fault}${o.entry ? ` (${o.entry})` : ''}: ${o.problems.join('; ')}`),
    ]
    return `${lines.join('\n')}\n`
  }
}
