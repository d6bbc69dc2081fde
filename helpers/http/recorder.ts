/**
 * What one check saw, beyond pass/fail: the exchanges it made (redacted, for evidence), and the findings it
 * recorded at other levels than its own (a SHOULD on a status code, an INFO observation). The fixture that
 * owns a Recorder copies it into the test's task.meta, which is how the reporter in the main process gets it.
 */
import { clause, type ClauseId, type Level } from '../spec/clauses'
import { describeExchange, isUnavailable, type Exchange } from './client'
import { redact } from './redact'

export interface Finding {
  clause: string
  level: Level
  status: 'passed' | 'failed'
  message: string
}

export interface CheckMeta {
  clause?: string
  findings?: Finding[]
  requests?: number
  retries?: number
  /** Answers of the check's own requests (cleanup excluded) that ended in 502/503/504 after any retries. */
  unavailable?: number
  /** Redacted evidence of the last exchanges, newest last. */
  exchanges?: string[]
  cleanup?: string[]
}

declare module '@vitest/runner' {
  interface TaskMeta {
    /** The clause the check judges, bound once by check() (helpers/kit/check.ts); read by the reporter. */
    clause?: string
    ct?: CheckMeta
  }
}

/** Which clauses a check may record and fail under; each hook throws when `id` is not one (helpers/kit/judge.ts). */
export interface ClauseGuard {
  finding(id: string): void
  failure(id: string): void
}

const KEEP_EXCHANGES = 6
let created = 0

export class Recorder {
  /** The check's start order in this thread: its requests go before those of later checks when the pace is slow. */
  readonly order = ++created
  readonly findings: Finding[] = []
  readonly exchanges: Exchange[] = []
  readonly cleanup: string[] = []
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
    this.exchanges.push(ex)
    if (this.exchanges.length > KEEP_EXCHANGES) this.exchanges.shift()
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

  toMeta(clauseId: string | undefined): CheckMeta {
    return {
      clause: clauseId,
      findings: this.findings,
      requests: this.requests,
      retries: this.retries,
      unavailable: this.unavailable,
      exchanges: this.exchanges.map(describeExchange),
      cleanup: this.cleanup,
    }
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
