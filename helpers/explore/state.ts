/**
 * The explore run's two halves for one generated sequence: the model (what the spec says the service holds
 * after the steps so far, written from the spec, not from the reference server) and the real side (the
 * callers A, B, C and an anonymous one, the request log a reproducer is made from, the ledger).
 *
 * Where the spec leaves a choice open the model keeps a set of allowed answers; `Learned` remembers the
 * server's choice across the whole run so later answers are held to it. A `Finding` is a MUST (or SHOULD)
 * deviation; an `Inconclusive` step (no answer, 502/503/504) ends the sequence without judging it.
 */
import { Api } from '../http/api'
import { isUnavailable, TransportError, type Exchange } from '../http/client'
import type { ClauseId, Level } from '../spec/clauses'
import { clause } from '../spec/clauses'
import type { AccountKey } from '../config/config'
import { RunLedger } from '../http/ledger'
import type { RunContext } from '../http/run-context'

export type Caller = AccountKey | 'anon'
export const CALLERS: readonly Caller[] = ['A', 'B', 'C', 'anon']
export type Permission = 'anyone' | 'owner' | 'subscribers'

export class Finding extends Error {
  constructor(
    readonly clause: ClauseId,
    readonly level: Level,
    readonly problem: string,
    readonly exchange?: Exchange,
  ) {
    super(`[${clause} ${level}] ${problem}`)
    this.name = 'Finding'
  }
}

export class Inconclusive extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'Inconclusive'
  }
}

export interface ModelItem {
  ref: string
  itemId: string | null
  publisher: AccountKey
  content: Record<string, string>
}

export interface ModelChannel {
  name: string
  owner: AccountKey
  private: boolean
  permission: Permission
  /** As asked at create; undefined: the default (-1). */
  maxItems: number
  maxItemsGiven: boolean
  permissionGiven: boolean
  privateGiven: boolean
  description: string | undefined
  subscribers: Set<AccountKey>
  tags: Set<string>
  /** Another caller's tag change went through: what the channel's tags are is no longer known. */
  tagsUnknown: boolean
  /** The clause of the last tag change: a tag missing afterwards is laid at its door. */
  lastTagChange: 'tags.add.visible' | 'tags.delete-one.removes' | 'tags.delete-all.removes'
  items: ModelItem[]
  /** Items accepted since the channel was made (summary's publishedItemCount may count these). */
  everPublished: number
  lastPublishAt: number
  /**
   * The summary's lastPublishedTime when last read, how many publishes had been taken then, when its answer came
   * (epoch ms, this side's clock) and whether the value showed digits below the second.
   */
  lastPublishedSeen?: { at: number; ever: number; readAt: number; fine: boolean }
}

export interface Slot {
  index: number
  name: string
  channel: ModelChannel | null
  /** Earlier channels under this name (deleted): their refs must never come back. */
  history: number
  /** Tags and subscribers of the channels deleted under this name: a new channel of the name starts without them. */
  previous: { tags: Set<string>; subscribers: Set<AccountKey> }
  /** Something happened the model cannot follow (a duplicate create accepted): no more judging here. */
  tainted: boolean
  /** Accounts that may own something under this name (for the cleanup). */
  owners: Set<AccountKey | null>
}

export type RefFate = 'stored' | 'refused' | 'deleted' | 'evicted' | 'deleted-all' | 'old-channel'

/** The server's choices where the spec is silent, learned once per run and then held. */
export class Learned {
  readonly values = new Map<string, string>()
  readonly notes: string[] = []

  /** Returns the earlier choice, or records `value` as the choice. */
  hold(key: string, value: string): string {
    const had = this.values.get(key)
    if (had === undefined) {
      this.values.set(key, value)
      this.notes.push(`${key}: ${value}`)
      return value
    }
    return had
  }

  get(key: string): string | undefined {
    return this.values.get(key)
  }
}

export interface LoggedCall {
  step: number
  who: Caller
  ex: Exchange
  /** Shell variable this answer's value is captured into, and the JS expression over the body `j`. */
  capture?: { variable: string; expr: string }
}

export interface RunShared {
  run: RunContext
  apis: Record<Caller, Api>
  learned: Learned
  ledger: RunLedger
  /** Poll time for eventual consistency (short against the embedded server, which is consistent). */
  pollMs: number
  /** Characters beyond lowercase letters, digits and '-' the server accepted in the probe ('.', '_', 'A' for upper case). */
  nameStyles: string[]
  /** Users' records from /user/all, for the user queries. */
  userRecords: Record<AccountKey, Record<string, unknown>>
  warnings: Map<string, Finding>
  judged: Map<ClauseId, number>
  requests: number
  steps: number
  /** Sequences made so far (each names its channels by its number). */
  execs: number
}

/** One sequence's state: model and real side together (fast-check hands the same object to both). */
export class Exec {
  readonly slots: Slot[]
  readonly prefix: string
  readonly log: LoggedCall[] = []
  /** Every item ref this sequence published: where, its fate, and when its publish was sent and answered (epoch ms). */
  readonly refs = new Map<string, { slot: number; fate: RefFate; itemId: string | null; clause?: ClauseId; sentAt?: number; answeredAt?: number }>()
  readonly itemVars = new Map<string, string>()
  step = 0
  refCounter = 0
  inconclusive: string | null = null
  stepTitles: string[] = []

  /** `style` (drawn with the sequence, shrinking towards 0) picks the slots' names: plain, with '.' or '_', upper case, twins that differ in '_' and '-', one the prefix of the other (characters beyond [a-z0-9] only where the server took them). */
  constructor(
    readonly shared: RunShared,
    slotCount: number,
    style = 0,
  ) {
    shared.execs++
    // Lowercase letters and digits only (the spec gives names no alphabet); other characters only where probed.
    // The sequence's number has a fixed width, so no sequence's prefix is the prefix of another's: sequences
    // running at once never find each other's channels by a search for their own prefix.
    this.prefix = `${shared.run.namePrefix}${shared.run.runId}x${shared.execs.toString(36).padStart(4, '0')}`
    const has = (s: string) => shared.nameStyles.includes(s)
    const pairs: [string, string][] = [
      ['s0z', 's1z'],
      ['s0z', 's0zx'],
    ]
    if (has('.') || has('_')) pairs.push([has('.') ? 's0.dz' : 's0z', has('_') ? 's1_uz' : 's1z'])
    if (has('_') && has('-')) pairs.push(['a_bz', 'a-bz'])
    if (has('A')) pairs.push(['Mixs0z', has('.') ? 's1.Dz' : 's1z'])
    const pair = pairs[style % pairs.length]!
    this.slots = Array.from({ length: slotCount }, (_, i) => ({
      index: i,
      name: `${this.prefix}${pair[i % 2]}${i >= 2 ? i : ''}`,
      channel: null,
      history: 0,
      previous: { tags: new Set(), subscribers: new Set() },
      tainted: false,
      owners: new Set(),
    }))
  }

  userId(key: AccountKey): string {
    return this.shared.run.accounts[key].userId
  }

  /** Sends one request as `who`, logs it for the reproducer, turns no answer / 502-504 into Inconclusive. */
  async call(who: Caller, send: (api: Api) => Promise<Exchange>, capture?: LoggedCall['capture']): Promise<Exchange> {
    let ex: Exchange
    try {
      ex = await send(this.shared.apis[who])
    } catch (err) {
      if (err instanceof TransportError) throw new Inconclusive(`no answer: ${err.message}`)
      throw err
    }
    this.shared.requests++
    this.log.push({ step: this.step, who, ex, ...(capture ? { capture } : {}) })
    if (isUnavailable(ex.status)) throw new Inconclusive(`${ex.request.method} ${ex.request.url} answered ${ex.status} (gateway or overload, judges nothing)`)
    return ex
  }

  judged(id: ClauseId): void {
    this.shared.judged.set(id, (this.shared.judged.get(id) ?? 0) + 1)
  }

  /** A MUST deviation: fails the sequence (fast-check shrinks it). */
  must(ok: unknown, id: ClauseId, problem: string | (() => string), ex?: Exchange): asserts ok {
    this.judged(id)
    if (!ok) throw new Finding(id, clause(id).level === 'MUST' ? 'MUST' : clause(id).level, typeof problem === 'function' ? problem() : problem, ex)
  }

  /** A SHOULD deviation: recorded once per clause and problem kind, the sequence goes on. */
  should(ok: unknown, id: ClauseId, kind: string, problem: string | (() => string), ex?: Exchange): void {
    if (ok) return
    const key = `${id}|${kind}`
    if (!this.shared.warnings.has(key)) this.shared.warnings.set(key, new Finding(id, 'SHOULD', typeof problem === 'function' ? problem() : problem, ex))
  }

  newRef(): string {
    return `r${this.prefix.slice(-4)}${(++this.refCounter).toString(36)}`
  }
}

export const success = (ex: Exchange): boolean => ex.status >= 200 && ex.status < 300

/** The answer is a server error (never acceptable; 502/503/504 were turned into Inconclusive before). */
export const serverError = (ex: Exchange): boolean => ex.status >= 500
