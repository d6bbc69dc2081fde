/**
 * What one check saw, beyond pass/fail: the exchanges it made (redacted, for evidence), and the findings it
 * recorded at other levels than its own (a SHOULD on a status code, an INFO observation). The fixture that
 * owns a Recorder copies it into the test's task.meta, which is how the reporter in the main process gets it.
 */
import { clause, type ClauseId, type Level } from '../spec/clauses'
import { bearerSent, cut, isUnavailable, type Exchange } from './client'
import { endpointOf } from './endpoints'
import { redact, type SentSecret } from './redact'

export interface Finding {
  clause: string
  level: Level
  status: 'passed' | 'failed'
  message: string
  /** A copy of a failure in `failures`, so the check's fixture attaches its evidence and shows it as a step; the reporter skips it. */
  recorded?: boolean
}

export interface CheckMeta {
  clause?: string
  findings?: Finding[]
  requests?: number
  retries?: number
  /** Answers of the check's own requests (cleanup excluded) that ended in 502/503/504 after any retries. */
  unavailable?: number
  /** Redacted evidence of the check's last exchanges, newest last; the teardown's cleanup requests are never among them. */
  exchanges?: string[]
  /**
   * The exchanges failures were about, in the order they failed: the clause, the request line the failure
   * names (`METHOD URL → status`) and the evidence of that failure (the exchanges before it, newest last, ending with it).
   */
  failing?: FailingExchange[]
  cleanup?: string[]
  /** Failures recorded without stopping the check (a shape failure, so the behaviour is judged too). */
  failures?: { clause: string; message: string }[]
  /** Durations (ms) and 5xx answers per endpoint template, over every exchange of the check (cleanup included). */
  latency?: Record<string, { ms: number[]; errors: number }>
  /** The check's exchanges, structured and redacted (reproducers, exchanges.har); at most KEEP_LOGGED. */
  log?: LoggedExchange[]
}

/** The exchange one failure was about (see CheckMeta.failing). */
export interface FailingExchange {
  clause: string
  head: string
  evidence: string[]
}

/** One exchange as the reports need it to rebuild a request: every value already redacted. */
export interface LoggedExchange {
  endpoint: string
  account: string
  phase: 'check' | 'cleanup'
  startedAt: string
  durationMs: number
  method: string
  url: string
  requestHeaders: Record<string, string>
  requestBody?: string
  status: number
  responseHeaders: Record<string, string>
  responseBody: string
  /** Its order among the check's exchanges (1 = the first), cleanup included. */
  seq?: number
  /** The bearer token it sent was the access_token of the check's exchange of this order (a sign-in of its own). */
  tokenFrom?: number
  /** The passwords it sent and how each was made from an account's password (redacted in url and body). */
  secrets?: SentSecret[]
}

declare module '@vitest/runner' {
  interface TaskMeta {
    /** The clause the check judges, bound once by check() (helpers/kit/check.ts); read by the reporter. */
    clause?: string
    /** What the check sent, received and found on the way, set by check() when it ends; read by the reporter. */
    evidence?: CheckMeta
  }
}

/** Which clauses a check may record and fail under; each hook throws when `id` is not one (helpers/kit/judge.ts). */
export interface ClauseGuard {
  finding(id: string): void
  failure(id: string): void
}

const KEEP_EXCHANGES = 6
/** Structured exchanges kept per check: the first ones (set-up a reproducer needs) and the latest. */
const KEEP_LOGGED = 40
let created = 0

export class Recorder {
  /** The check's start order in this thread: its requests go before those of later checks when the pace is slow. */
  readonly order = ++created
  readonly findings: Finding[] = []
  /** The check's own last exchanges (cleanup excluded), with their order in the check. */
  private readonly kept: { seq: number; ex: Exchange }[] = []
  /** What each failure was about: its clause and the exchange it names, with that exchange's order. */
  private readonly failed: { clause: string; seq: number; ex: Exchange }[] = []
  private seq = 0
  private readonly seqOf = new WeakMap<Exchange, number>()
  /** Access tokens the check's own answers gave, and the order of the answer: in memory only, never written. */
  private readonly tokenSeq = new Map<string, number>()
  readonly cleanup: string[] = []
  /**
   * The exchanges the check's log keeps, as they were answered: made into LoggedExchange (redacted, cut) only when
   * the log is handed over (toMeta), since a run that writes no reports needs the log of a failed check alone.
   */
  private readonly logged: PendingEntry[] = []
  /** Failures that did not stop the check (helpers/kit/expect.ts): charged by the reporter like thrown ones. */
  readonly failures: { clause: string; message: string }[] = []
  readonly latency: Record<string, { ms: number[]; errors: number }> = {}
  requests = 0
  retries = 0
  unavailable = 0
  /** 'cleanup' once the check's body is over: what the fixtures' teardown sees judges nothing. */
  phase: 'check' | 'cleanup' = 'check'
  /** Set by the check's fixture: findings and failures under a clause that is not the check's throw. */
  guard?: ClauseGuard

  log(ex: Exchange): void {
    this.requests += ex.attempts + (ex.rateLimited ?? 0)
    this.retries += ex.attempts - 1
    if (this.phase === 'check' && isUnavailable(ex.status)) this.unavailable++
    this.seqOf.set(ex, ++this.seq)
    // The teardown's requests (a channel's DELETE) show nothing the check judged: never evidence.
    if (this.phase === 'check') {
      this.kept.push({ seq: this.seq, ex })
      if (this.kept.length > KEEP_EXCHANGES) this.kept.shift()
    }
    const endpoint = endpointOf(ex.request.method, ex.request.url)
    const lat = (this.latency[endpoint] ??= { ms: [], errors: 0 })
    lat.ms.push(ex.durationMs)
    if (ex.status >= 500) lat.errors++
    const entry: PendingEntry = { ex, endpoint, phase: this.phase, seq: this.seq }
    const from = this.tokenSeq.get(bearerSent.get(ex) ?? '')
    if (from !== undefined) entry.tokenFrom = from
    const given = (ex.json as { access_token?: unknown } | undefined)?.access_token
    if (typeof given === 'string' && given && ex.status >= 200 && ex.status < 300) this.tokenSeq.set(given, this.seq)
    this.logged.push(entry)
    // Keep the head (the set-up a reproducer replays) and the tail (what failed); drop from the middle.
    if (this.logged.length > KEEP_LOGGED) this.logged.splice(KEEP_LOGGED / 2, 1)
  }

  /** The check's own last exchanges (cleanup excluded), newest last. */
  get exchanges(): Exchange[] {
    return this.kept.map((k) => k.ex)
  }

  /** A failure under `clause` about `ex` (helpers/kit/expect.ts fail()): that exchange is the failure's evidence. */
  noteFailure(clause: string, ex: Exchange): void {
    const seq = this.seqOf.get(ex)
    if (seq !== undefined) this.failed.push({ clause, seq, ex })
  }

  /** Evidence of one failure: the kept exchanges before the one it names, then that one (newest last). */
  private evidenceOf(f: { seq: number; ex: Exchange }): string[] {
    const before = this.kept.filter((k) => k.seq < f.seq).slice(-(KEEP_EXCHANGES - 1))
    return [...before.map((k) => describeEvidence(k.ex)), describeEvidence(f.ex)]
  }

  /** A SHOULD-level (or any non-fatal) judgement: recorded, never thrown. */
  should(id: ClauseId, ok: boolean, message: string): void {
    this.guard?.finding(id)
    const c = clause(id)
    this.findings.push({ clause: id, level: c.level, status: ok ? 'passed' : 'failed', message: redact(message) })
  }

  /** An INFO observation of what the spec leaves open. */
  observe(id: ClauseId, message: string): void {
    this.guard?.finding(id)
    const c = clause(id)
    this.findings.push({ clause: id, level: c.level, status: 'passed', message: redact(message) })
  }

  /**
   * What the fixture hands the reporter. `failed` false (the check threw nothing) and no failure recorded leaves out
   * the readable evidence of its last exchanges, which only a failed, blocked or unjudged entry shows. `everyLog`
   * false (a run that writes no exchanges.har) leaves out the structured log too, which then serves only a failed
   * entry's reproducer.
   */
  toMeta(clauseId: string | undefined, failed = true, everyLog = true): CheckMeta {
    const evidence = failed || this.failures.length > 0 || this.findings.some((f) => f.status === 'failed')
    return {
      clause: clauseId,
      findings: [
        ...this.findings,
        ...this.failures.map((f) => ({
          clause: f.clause,
          level: clause(f.clause as ClauseId).level,
          status: 'failed' as const,
          message: f.message,
          recorded: true,
        })),
      ],
      requests: this.requests,
      retries: this.retries,
      unavailable: this.unavailable,
      exchanges: evidence ? this.kept.map((k) => describeEvidence(k.ex)) : [],
      ...(this.failed.length
        ? {
            failing: this.failed.map((f) => ({
              clause: f.clause,
              head: `${f.ex.request.method} ${f.ex.request.url} → ${f.ex.status}`,
              evidence: this.evidenceOf(f),
            })),
          }
        : {}),
      cleanup: this.cleanup,
      latency: this.latency,
      ...(evidence || everyLog ? { log: this.logged.map(loggedExchange) } : {}),
      ...(this.failures.length ? { failures: this.failures } : {}),
    }
  }
}

/** An exchange of a check's log, as recorded: made into a LoggedExchange only when the log is handed over. */
interface PendingEntry {
  ex: Exchange
  endpoint: string
  phase: 'check' | 'cleanup'
  seq: number
  tokenFrom?: number
}

function loggedExchange({ ex, endpoint, phase, seq, tokenFrom }: PendingEntry): LoggedExchange {
  return {
    endpoint,
    account: ex.account ?? 'other',
    phase,
    startedAt: ex.startedAt ?? new Date().toISOString(),
    durationMs: ex.durationMs,
    method: ex.request.method,
    url: ex.request.url,
    requestHeaders: ex.request.headers,
    ...(ex.request.body !== undefined ? { requestBody: ex.request.body } : {}),
    ...(ex.request.secrets ? { secrets: ex.request.secrets } : {}),
    status: ex.status,
    responseHeaders: ex.headers,
    responseBody: cut(redact(ex.text)),
    seq,
    ...(tokenFrom !== undefined ? { tokenFrom } : {}),
  }
}

/**
 * An exchange as a reviewer reads it: the request line and who sent it, the redacted request and response
 * headers, and the bodies, JSON pretty-printed.
 */
export function describeEvidence(ex: Exchange): string {
  const lines = [`${ex.request.method} ${ex.request.url} → ${ex.status}  (as ${accountLabel(ex.account)}, ${ex.durationMs} ms)`]
  lines.push('  request headers:', ...headerLines(ex.request.headers))
  if (ex.request.body !== undefined) lines.push('  request body:', indentBody(pretty(ex.request.body)))
  lines.push('  response headers:', ...headerLines(ex.headers))
  lines.push(`  response body:${ex.text.length ? '' : ' (empty)'}`)
  if (ex.text.length) lines.push(indentBody(cut(redact(pretty(ex.text)))))
  return lines.join('\n')
}

export function accountLabel(account: string | undefined): string {
  return account === 'A' || account === 'B' || account === 'C' ? `user ${account}` : account === 'anonymous' ? 'no token' : "a token of the check's own"
}

function headerLines(h: Record<string, string>): string[] {
  return Object.entries(h).map(([k, v]) => `    ${k}: ${v}`)
}

function indentBody(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')
}

/** JSON bodies pretty-printed (2 spaces); anything else as it came. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

/** Exchanges made through a test's Api carry their recorder, so assertions can add findings without plumbing. */
const owners = new WeakMap<Exchange, Recorder>()
export function bindRecorder(ex: Exchange, rec: Recorder): Exchange {
  owners.set(ex, rec)
  rec.log(ex)
  return ex
}
export function recorderOf(ex: Exchange): Recorder | undefined {
  return owners.get(ex)
}
