/**
 * The check author's vocabulary, one way for each thing:
 * - to judge: a `Judge` — the `judge` fixture for the check's own clause (bound once by check()), or `steps.x`
 *   for a set-up step (a failure there blocks the check). Its methods judge an answer (`response`, `refused`,
 *   `elements`) or a value against a matcher (`match`, got/want messages from suites/support/match.ts); the
 *   free `ensure(ok, judge, match.explain(value, m), ex)` is the same judge's narrowing form, its text a matcher's (TypeScript narrows only through a
 *   call whose target has a written type, which a destructured fixture has not).
 * - to record a finding under another clause: `judge.should(ok, text, ALSO.x)` / `judge.observe(text, ALSO.x)`.
 * - to write a set-up step: a `must*` of helpers/kit/setup.ts, or `steps.x.response(ex, { status: '2xx' })`;
 *   a read-back is a step charged to the clause of the call it makes (`steps.getTags`, `steps.getChannel`, …).
 * A finding under any other clause is a defect of the suite, and the check says so loudly (SuiteDefect) instead
 * of charging a clause that was never its to judge.
 */
import { clause as clauseOf, type ClauseId } from '../spec/clauses'
import type { Exchange } from '../http/client'
import type { Recorder } from '../http/recorder'
import { SHOULD_CLAUSE, type SchemaName } from '../spec/schemas'
import {
  expectElements,
  expectRefused,
  expectResponse,
  fail,
  SHAPE_CLAUSE,
  SHAPE_CLAUSE_BY_ENDPOINT,
  unavailable,
  type ElementsExpectation,
  type ServerUnavailable,
  type StatusWant,
} from './expect'

/** The clause a set-up step of each kind is charged to. */
export const STEP_CLAUSES = {
  createChannel: 'channels.create.response',
  publish: 'items.publish.response',
  subscribe: 'subscriptions.subscribe.response',
  addTags: 'tags.add.response',
  getTags: 'tags.get.shape',
  tagsStored: 'tags.add.visible',
  signIn: 'signin.session.shape',
  /** A set-up call refused with 401 although it carried a token the run signed in with (Judge.response). */
  tokenWorks: 'signin.bearer.works',
  send: 'messages.send.shape',
  /** Send counts that do not add up (sent + unsent against requested), which a check of the lists needs first. */
  sendCounts: 'messages.send.counts-add-up',
  // Read-backs and other steps a check takes on the way: each charged to the clause of the call it makes.
  getChannel: 'channels.get.shape',
  summary: 'channels.summary.shape',
  getItems: 'items.get.shape',
  fetchItems: 'items.fetch.range',
  /** Items published at one moment, each answered 2xx, all stored: a lost one is the unlimited channel's deviation. */
  keptAtOnce: 'items.max-items.unlimited',
  /** A full channel holding more than maxItems, which a check of what it holds needs first. */
  maxItemsKept: 'items.max-items',
  /** Get by id leaving out an item that a fetch of the channel holds. */
  itemsById: 'items.get.by-ids',
  listSubscriptions: 'subscriptions.list.shape',
  unsubscribe: 'subscriptions.unsubscribe.response',
  subscribedListed: 'subscriptions.subscribe.listed',
  listUsers: 'users.list.shape',
  accountListed: 'users.list.contains-accounts',
  /** The owner's call on its private channel by the plain name. */
  ownPlainName: 'private.own-plain-name',
  /** Another user's read through <user_id>#<name> that answered with a channel other than the one addressed. */
  addressResolves: 'private.other-user-address',
  /** The owner's read-back of a channel created with privateChannel true: it is private. */
  privateMade: 'private.create',
  deleteChannel: 'channels.delete.status',
  deleteTag: 'tags.delete-one.status',
  deleteTags: 'tags.delete-all.status',
  deleteAllItems: 'items.delete-all.status',
  deleteItems: 'items.delete.result',
  /** What a check needs to be true of a view before it judges another view of the same change. */
  channelGone: 'channels.delete.removes',
  /** Channels a delete did not name that are gone all the same. */
  onlyNamed: 'channels.delete.only-named',
  tagGone: 'tags.delete-one.removes',
  tagsCleared: 'tags.delete-all.removes',
  itemsEmptied: 'items.delete-all.empties',
  unsubscribed: 'subscriptions.unsubscribe.removed',
  foundByTag: 'channels.search.by-tag',
  /** Items deleted by id that a fetch still shows, which a check of the fetch's pages needs gone first. */
  itemsGone: 'items.delete.removes',
  /** A search by a channel's exact name that never lists it, which a check of the search's record needs first. */
  foundByName: 'channels.search.by-name',
  /** A search by a channel's exact description that never lists it, which a check of a combined search needs first. */
  foundByDescription: 'channels.search.by-description',
  /** A get-by-name that answered with the record of another channel. */
  getMatches: 'channels.get.matches-create',
  /** The description a channel was created with, read back before a view of it (search) is judged. */
  descriptionStored: 'channels.create.fields-stored',
  /** A search that succeeded with another success code than the stated 200: the search's answer, not the check's question. */
  searchAnswered: 'channels.search.shape',
  /** Any valid request of the input, view and address models: answered, refused or not, but never with a 5xx. */
  answered: 'http.valid-request-answered',
} as const satisfies Record<string, ClauseId>

/**
 * Clauses a check records on the way at SHOULD or INFO (never its outcome): the exact refusal codes, a
 * companion SHOULD, an observation of something the spec leaves open. Suites name them from here.
 */
export const ALSO = {
  forbidden403: 'http.forbidden-403',
  notFound404: 'http.not-found-404',
  tokenRequired401: 'auth.token-required.401',
  noExtraFields: 'http.no-extra-fields',
  creatorDevice: 'channels.get.creator-device',
  searchOffsetPages: 'channels.search.offset-pages',
  searchOtherResults: 'channels.search.other-results',
  nameAlphabet: 'channels.name.alphabet',
  createDuplicate: 'channels.create.duplicate',
  sendDevices: 'messages.send.devices',
  sendRepeatedId: 'messages.send.repeated-id',
  timePrecision: 'items.time-precision',
  maxPayloadValue: 'items.max-payload.value',
  getUnknownId: 'items.get.unknown-id',
  otherUserRead: 'private.other-user-read',
  pushDevices: 'push.devices',
  tokenRevocation: 'signin.token.revocation',
  tagsAddRepeat: 'tags.add.repeat',
  searchExact: 'users.search.exact',
  searchPaging: 'users.search.paging',
  listOtherRecords: 'users.list.other-records',
  inputRefused: 'http.input-refused',
} as const satisfies Record<string, ClauseId>

/** What the kit itself records on any check (helpers/kit/expect.ts): content type, extras, error bodies, schema SHOULDs. */
const KIT_RECORDS: readonly string[] = ['http.no-extra-fields', 'http.json-content-type', 'http.error-body', ...Object.values(SHOULD_CLAUSE)]

for (const [name, id] of Object.entries(ALSO)) {
  const level = clauseOf(id).level
  if (level === 'MUST') throw new Error(`ALSO.${name} (${id}) is a MUST clause: a check records only SHOULD and INFO on the way`)
}

// The clauses of response shapes (SHAPE_CLAUSE) are steps too: any check may find its answer's shape broken.
const STEPS: ReadonlySet<string> = new Set([
  ...Object.values(STEP_CLAUSES),
  ...Object.values(SHAPE_CLAUSE),
  ...Object.values(SHAPE_CLAUSE_BY_ENDPOINT).flatMap((byEndpoint) => Object.values(byEndpoint ?? {})),
])
const RECORDED: ReadonlySet<string> = new Set([...STEPS, ...Object.values(ALSO), ...KIT_RECORDS])

/** A check judged or recorded under a clause it has no business with: the suite is wrong, not the server. */
export class SuiteDefect extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SuiteDefect'
  }
}

/**
 * Why a check bound to `own` may not fail under `id` (undefined when it may): its own clause and the set-up
 * steps' clauses only.
 */
export function wrongFailure(own: string, id: string): string | undefined {
  if (id === own || STEPS.has(id)) return undefined
  return `suite defect: the check of ${own} failed under ${id}, which is neither its own clause nor a set-up step's (STEP_CLAUSES in helpers/kit/judge.ts)`
}

/** Why a check bound to `own` may not record a finding under `id` (undefined when it may). */
export function wrongFinding(own: string, id: string): string | undefined {
  if (id === own || RECORDED.has(id)) return undefined
  return `suite defect: the check of ${own} recorded a finding under ${id}, which is neither its own clause, a set-up step's (STEP_CLAUSES) nor one it may record on the way (ALSO in helpers/kit/judge.ts)`
}

/**
 * A matcher in the style of Complement's `match` package: it looks at a value and says what is wrong with it
 * as a got/want problem, or nothing. The matchers themselves are in suites/support/match.ts.
 */
export interface Matcher<T = unknown> {
  (got: unknown): string | undefined
  /** The type a value has once it passed (a matcher of the whole value may narrow it; see `judge.match`). */
  readonly narrows?: T
}

/** The clauses a check may record a finding under on the way (ALSO). */
export type AlsoClause = (typeof ALSO)[keyof typeof ALSO]

/**
 * A judge of one clause: the `judge` fixture judges and records under the check's own clause; `steps.x` judges a
 * set-up step under the step's clause (what it fails blocks the check).
 */
export class Judge {
  constructor(
    readonly clause: ClauseId,
    private readonly rec?: Recorder,
  ) {}

  /**
   * The answer against status and schema (expectResponse); returns the parsed body. A set-up step refused with
   * 401 although it carried a token the run signed in with is the token's failure, not the step's: it is charged
   * to signin.bearer.works ("All other calls send the header Authorization: Bearer <ACCESS_TOKEN>"), and the check
   * is blocked by it.
   */
  response<T = any>(ex: Exchange, want: { status: StatusWant; schema?: SchemaName }): T {
    const tokenRefused = !this.rec && ex.status === 401 && ex.account !== undefined && ex.account !== 'anonymous' && want.status !== 401
    return expectResponse<T>(ex, { ...want, clause: tokenRefused ? STEP_CLAUSES.tokenWorks : this.clause })
  }

  /** A refusal: not 2xx; the exact status recorded at SHOULD under `should.clause` (one of ALSO). */
  refused(ex: Exchange, should?: { status: number; clause: AlsoClause }): void {
    expectRefused(ex, this.clause, should)
  }

  /** The elements of a list answer (expectElements): the run's own records strictly, others as `want.others`. */
  elements(ex: Exchange, elements: unknown[], want: Omit<ElementsExpectation, 'clause'>): number {
    return expectElements(ex, elements, { ...want, clause: this.clause })
  }

  /**
   * A value against matchers: the first problem any of them finds fails the clause, with the exchange as
   * evidence. Returns the value, typed as a single matcher of the whole value narrows it (`match.array`).
   */
  match<T = unknown>(got: unknown, matchers: Matcher<T> | readonly Matcher[], ex?: Exchange): T {
    for (const m of Array.isArray(matchers) ? matchers : [matchers as Matcher]) {
      const problem = m(got)
      if (problem !== undefined) fail(this.clause, problem, ex)
    }
    return got as T
  }

  /**
   * A non-fatal judgement (a SHOULD check's verdict without ending it) under the check's own clause, or under
   * `also`, a clause of ALSO the check records on the way.
   */
  should(ok: boolean, message: string, also?: AlsoClause): void {
    this.recorder().should(also ?? this.clause, ok, message)
  }

  /** An observation (INFO) under the check's own clause, or under `also` (one of ALSO). */
  observe(message: string, also?: AlsoClause): void {
    this.recorder().observe(also ?? this.clause, message)
  }

  /** The error for an answer of 502/503/504: the clause could not be judged. */
  unavailable(ex: Exchange): ServerUnavailable {
    return unavailable(this.clause, ex)
  }

  private recorder(): Recorder {
    if (!this.rec) throw new SuiteDefect(`suite defect: a set-up step's judge (${this.clause}) records no findings; record through the check's own judge`)
    return this.rec
  }
}

/** A judge for every set-up step's clause: `steps.publish.response(ex, { status: '2xx' })`; a failure blocks the check. */
export const steps = Object.fromEntries(Object.entries(STEP_CLAUSES).map(([k, id]) => [k, new Judge(id)])) as {
  readonly [K in keyof typeof STEP_CLAUSES]: Judge
}
