/**
 * The clause-bound judge: `check(id, title, fn)` binds the check's clause once, and the `judge` fixture
 * records every judgement of the check under it, so a check never spells its own id again and cannot judge
 * under another by mistake. Other clauses a check meets are named through two tables only: STEP_CLAUSES
 * (helpers/kit/setup.ts, set-up steps: a failure there blocks the check) and ALSO (below, what a check
 * records on the way at SHOULD or INFO). A finding under any other clause is a defect of the suite, and the
 * check says so loudly (SuiteDefect) instead of charging a clause that was never its to judge.
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
  unavailable,
  type ElementsExpectation,
  type ServerUnavailable,
  type StatusWant,
} from './expect'
import { STEP_CLAUSES } from './setup'

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
const STEPS: ReadonlySet<string> = new Set([...Object.values(STEP_CLAUSES), ...Object.values(SHAPE_CLAUSE)])
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
  return `suite defect: the check of ${own} failed under ${id}, which is neither its own clause nor a set-up step's (STEP_CLAUSES in helpers/kit/setup.ts)`
}

/** Why a check bound to `own` may not record a finding under `id` (undefined when it may). */
export function wrongFinding(own: string, id: string): string | undefined {
  if (id === own || RECORDED.has(id)) return undefined
  return `suite defect: the check of ${own} recorded a finding under ${id}, which is neither its own clause, a set-up step's (STEP_CLAUSES) nor one it may record on the way (ALSO in helpers/kit/judge.ts)`
}

/**
 * The `judge` fixture: every method judges or records under the check's own clause. (A narrowing assertion
 * stays the free function `ensure(ok, judge, problem, ex)` of helpers/kit/expect.ts: TypeScript narrows
 * through a method only when its object has a written type, which a destructured fixture has not.)
 */
export class Judge {
  constructor(
    readonly clause: ClauseId,
    private readonly rec: Recorder,
  ) {}

  /** The answer against status and schema (expectResponse); returns the parsed body. */
  response<T = any>(ex: Exchange, want: { status: StatusWant; schema?: SchemaName }): T {
    return expectResponse<T>(ex, { ...want, clause: this.clause })
  }

  /** A refusal: not 2xx; the exact status recorded at SHOULD under `should.clause` (one of ALSO). */
  refused(ex: Exchange, should?: { status: number; clause: ClauseId }): void {
    expectRefused(ex, this.clause, should)
  }

  /** The elements of a list answer (expectElements): the run's own records strictly, others as `want.others`. */
  elements(ex: Exchange, elements: unknown[], want: Omit<ElementsExpectation, 'clause'>): number {
    return expectElements(ex, elements, { ...want, clause: this.clause })
  }

  fail(problem: string, ex?: Exchange): never {
    return fail(this.clause, problem, ex)
  }

  /** A non-fatal judgement under the check's own clause (a SHOULD check's verdict without ending it). */
  should(ok: boolean, message: string): void {
    this.rec.should(this.clause, ok, message)
  }

  /** An observation under the check's own clause (INFO). */
  observe(message: string): void {
    this.rec.observe(this.clause, message)
  }

  /**
   * A judge for a set-up step's clause, for helpers that judge either the check's own act or a step: what it
   * fails blocks the check (helpers/kit/setup.ts).
   */
  step(id: (typeof STEP_CLAUSES)[keyof typeof STEP_CLAUSES]): Judge {
    return new Judge(id, this.rec)
  }

  /** The error for an answer of 502/503/504: the clause could not be judged. */
  unavailable(ex: Exchange): ServerUnavailable {
    return unavailable(this.clause, ex)
  }
}
