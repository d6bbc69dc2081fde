/**
 * Assertions in three layers: pure matchers that return a problem or nothing, expect* helpers that fail with
 * the whole redacted exchange and the clause, and the must* set-up steps in setup.ts (a failure there blocks
 * the check that needed the step).
 * A CheckFailure is a conformance failure at the check's level; anything else thrown is an error of the run.
 */
import { clause, type ClauseId } from '../spec/clauses'
import { describeExchange, isSuccess, isUnavailable, type Exchange } from '../http/client'
import { endpointOf } from '../http/endpoints'
import { recorderOf } from '../http/recorder'
import { redact } from '../http/redact'
import { checkSchema, formatProblems, type SchemaName, type SchemaProblem } from '../spec/schemas'

export { isSuccess }

export class CheckFailure extends Error {
  constructor(
    readonly clauseId: string,
    message: string,
  ) {
    super(redact(message))
    this.name = 'CheckFailure'
  }
}

/**
 * The server (or a gateway before it) answered 502/503/504, after the client's retries where retrying was
 * allowed: it said it cannot serve now, which judges no clause. The check ends as `error`, never `failed`.
 */
export class ServerUnavailable extends Error {
  constructor(message: string) {
    super(redact(message))
    this.name = 'ServerUnavailable'
  }
}

export function unavailable(id: ClauseId, ex: Exchange): ServerUnavailable {
  const lines = [
    `[${id}] ${ex.request.method} ${ex.request.url} → ${ex.status} after ${ex.attempts} attempt(s): the server is unavailable, so the clause could not be judged`,
    ...describeExchange(ex)
      .split('\n')
      .slice(1)
      .map((l) => `  ${l.trim()}`),
  ]
  return new ServerUnavailable(lines.join('\n'))
}

export function fail(id: ClauseId, problem: string, ex?: Exchange): never {
  if (ex && isUnavailable(ex.status)) throw unavailable(id, ex)
  // A failure under a clause that is not the check's to judge is the suite's defect (helpers/kit/judge.ts).
  if (ex) recorderOf(ex)?.guard?.failure(id)
  // The exchange this failure is about is its evidence (never the check's later cleanup).
  if (ex) recorderOf(ex)?.noteFailure(id, ex)
  const c = clause(id)
  const head = `[${id} ${c.level}]${ex ? ` ${ex.request.method} ${ex.request.url} → ${ex.status}` : ''}`
  const lines = [head, ...problem.split('\n').map((l) => `  ${l}`)]
  if (ex)
    lines.push(
      ...describeExchange(ex)
        .split('\n')
        .slice(1)
        .map((l) => `  ${l.trim()}`),
    )
  throw new CheckFailure(id, lines.join('\n'))
}

/**
 * Fails `judge` (the check's own, or a set-up step's `steps.x`) unless `ok`: the judge's narrowing form. A free
 * function, not a method, because TypeScript narrows `ok` only through a call whose target has a written type.
 * The judge is taken by its `clause` alone, so this file and judge.ts do not import each other.
 */
export function ensure(ok: unknown, judge: { readonly clause: ClauseId }, problem: string | (() => string), ex?: Exchange): asserts ok {
  if (!ok) fail(judge.clause, typeof problem === 'function' ? problem() : problem, ex)
}

export type StatusWant = number | readonly number[] | '2xx'

export function statusProblem(ex: Exchange, want: StatusWant): string | undefined {
  const ok = want === '2xx' ? isSuccess(ex) : Array.isArray(want) ? want.includes(ex.status) : ex.status === want
  return ok ? undefined : `status: got ${ex.status}, want ${Array.isArray(want) ? want.join(' or ') : want}`
}

/**
 * The clause that states each response schema, where a set-up step's clause does: a body that does not match
 * the schema fails that clause, whichever check read it, and a check whose own judgement needed a field the
 * schema found missing or mistyped is blocked by it (helpers/runner/reporter.ts), not failed under its own.
 * A schema without an entry is judged under the reading check's clause.
 */
export const SHAPE_CLAUSE: Partial<Record<SchemaName, ClauseId>> = {
  session: 'signin.session.shape',
  'user-list': 'users.list.shape',
  channel: 'channels.get.shape',
  'channel-summary': 'channels.summary.shape',
  'subscription-list': 'subscriptions.list.shape',
  'subscribe-response': 'subscriptions.subscribe.response',
  tags: 'tags.get.shape',
  'publish-response': 'items.publish.response',
  'send-result': 'messages.send.shape',
  'push-result': 'push.shape',
}

/**
 * Where one schema answers several endpoints, the clause that states it for an endpoint other than the one
 * SHAPE_CLAUSE names: an array of User records is the user list's shape (§4.1 list) and the search's (§4.1
 * query), each stated by its own clause.
 */
export const SHAPE_CLAUSE_BY_ENDPOINT: Partial<Record<SchemaName, Readonly<Record<string, ClauseId>>>> = {
  'user-list': { 'GET /user/query': 'users.search.shape' },
}

/** The clause a shape failure of `schema` in the answer `ex` is charged to; `own` where no clause states it. */
export function shapeClauseOf(schema: SchemaName, ex: Exchange, own: ClauseId): ClauseId {
  return SHAPE_CLAUSE_BY_ENDPOINT[schema]?.[endpointOf(ex.request.method, ex.request.url)] ?? SHAPE_CLAUSE[schema] ?? own
}

export interface ResponseExpectation {
  status: StatusWant
  clause: ClauseId
  schema?: SchemaName
}

/**
 * The main response assertion: status (at the clause's level), the body is JSON, and the body against its
 * schema — missing, mistyped or badly formatted documented fields fail the clause; undocumented extras are
 * recorded at SHOULD (http.no-extra-fields), as is a content type other than application/json.
 * Returns the parsed body.
 */
export function expectResponse<T = any>(ex: Exchange, want: ResponseExpectation): T {
  const sp = statusProblem(ex, want.status)
  if (sp) fail(want.clause, sp, ex)
  if (want.schema) {
    if (ex.json === undefined) fail(want.clause, `body is not JSON (${ex.jsonError ?? 'unparseable'})`, ex)
    checkJsonContentType(ex)
    const problems = checkSchema(want.schema, ex.json)
    const must = problems.filter((p) => p.level === 'MUST')
    const should = problems.filter((p) => p.level === 'SHOULD')
    const rec = recorderOf(ex)
    const extras = should.filter((p) => !p.clause)
    rec?.should(
      'http.no-extra-fields',
      extras.length === 0,
      extras.length ? `${want.schema}: ${formatProblems(extras)}` : `${want.schema}: no undocumented properties`,
    )
    recordOtherShoulds(ex, want.schema, should)
    if (must.length) failAndGoOn(shapeClauseOf(want.schema, ex, want.clause), `body does not match schema '${want.schema}':\n${formatProblems(must)}`, ex)
  }
  return ex.json as T
}

/**
 * A shape failure that must not hide the behaviour checks of the same body (one deviation never masks
 * another): inside a check it is recorded on the check's recorder as a failure (the reporter charges it like a
 * thrown one) and the check goes on judging the fields that are there, so its own later failure is reported
 * too. Without a recorder it throws.
 */
function failAndGoOn(id: ClauseId, problem: string, ex: Exchange): void {
  const rec = recorderOf(ex)
  if (!rec) fail(id, problem, ex)
  try {
    fail(id, problem, ex)
  } catch (err) {
    if (!(err instanceof CheckFailure)) throw err
    rec.failures.push({ clause: id, message: err.message })
  }
}

export function checkJsonContentType(ex: Exchange): void {
  const ct = ex.headers['content-type'] ?? ''
  recorderOf(ex)?.should('http.json-content-type', /^application\/([a-z0-9.+-]*\+)?json\b/i.test(ct), `content-type: ${ct || '(none)'}`)
}

/**
 * A refusal: MUST is "not 2xx" (docs/contract.md, levels); the exact status is a SHOULD, recorded under its own clause.
 */
export function expectRefused(ex: Exchange, id: ClauseId, should?: { status: number; clause: ClauseId }): void {
  // "Not 2xx" must come from the API refusing, not from a gateway that could not reach it.
  if (isUnavailable(ex.status)) throw unavailable(id, ex)
  if (isSuccess(ex)) fail(id, `status: got ${ex.status}, want a refusal (not 2xx)`, ex)
  if (should) {
    recorderOf(ex)?.should(should.clause, ex.status === should.status, `status ${ex.status}, want ${should.status}`)
  }
  recordErrorBody(ex)
}

/** INFO: what error bodies look like (the spec shows none). */
export function recordErrorBody(ex: Exchange): void {
  const rec = recorderOf(ex)
  if (!rec) return
  const shape =
    ex.json !== undefined && ex.json !== null && typeof ex.json === 'object'
      ? `JSON object with keys ${
          Object.keys(ex.json as object)
            .sort()
            .join(', ') || '(none)'
        }`
      : ex.text.length
        ? `non-JSON body (${ex.headers['content-type'] ?? 'no content type'})`
        : 'empty body'
  rec.observe('http.error-body', `${ex.status}: ${shape}`)
}

export interface ElementsExpectation {
  schema: SchemaName
  /** Clause of the records the run made (`own`): missing, mistyped or badly formatted fields fail it. */
  clause: ClauseId
  /** SHOULD clause for the other records (data the run did not create): their problems are a finding only. */
  others: ClauseId
  /** JSON pointer of the array in the body ('' when the body is the array). */
  pointer: string
  own: (element: unknown) => boolean
}

/**
 * The elements of a list answer against a schema: the run's own records strictly, at the clause's level;
 * records the run did not make (another tenant's data on a shared server) only as a SHOULD finding.
 * Undocumented extras of own records are recorded at SHOULD (http.no-extra-fields). Returns how many were own.
 */
export function expectElements(ex: Exchange, elements: unknown[], want: ElementsExpectation): number {
  const own: SchemaProblem[] = []
  const others: SchemaProblem[] = []
  let owned = 0
  elements.forEach((element, i) => {
    const problems = checkSchema(want.schema, element).map((p) => ({ ...p, pointer: `${want.pointer}/${i}${p.pointer}` }))
    if (want.own(element)) {
      owned++
      own.push(...problems)
    } else others.push(...problems)
  })
  const cut = (ps: SchemaProblem[]) => formatProblems(ps.slice(0, 20)) + (ps.length > 20 ? `\n… and ${ps.length - 20} more` : '')
  const rec = recorderOf(ex)
  const extras = own.filter((p) => p.level === 'SHOULD' && !p.clause)
  rec?.should('http.no-extra-fields', extras.length === 0, extras.length ? `${want.schema}: ${cut(extras)}` : `${want.schema}: no undocumented properties`)
  recordOtherShoulds(
    ex,
    want.schema,
    own.filter((p) => p.level === 'SHOULD'),
  )
  rec?.should(
    want.others,
    others.length === 0,
    // Worded as the own records' failure is, so a report takes both for one deviation (helpers/reports/causes.ts).
    others.length
      ? `records the run did not make do not match schema '${want.schema}':\n${cut(others)}`
      : `${elements.length - owned} other record(s) match ${want.schema}`,
  )
  const must = own.filter((p) => p.level === 'MUST')
  if (must.length) fail(want.clause, `the run's own records do not match schema '${want.schema}':\n${cut(must)}`, ex)
  return owned
}

/** SHOULD schema problems with a clause of their own (an unusual timestamp form): recorded there, failed only. */
function recordOtherShoulds(ex: Exchange, schema: SchemaName, problems: SchemaProblem[]): void {
  const rec = recorderOf(ex)
  const byClause = new Map<string, SchemaProblem[]>()
  for (const p of problems) if (p.clause) byClause.set(p.clause, [...(byClause.get(p.clause) ?? []), p])
  for (const [id, ps] of byClause) rec?.should(id as ClauseId, false, `${schema}: ${formatProblems(ps.slice(0, 20))}`)
}

/** Pretty value for problem lines: short JSON with its type. */
export function show(value: unknown): string {
  const json = JSON.stringify(value)
  const text = json === undefined ? String(value) : json.length > 120 ? `${json.slice(0, 120)}…` : json
  return `${text} (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`
}
