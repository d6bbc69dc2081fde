// JSON Schema checks of response bodies, one schema file per resource of the spec (schemas/).
// One Ajv instance per thread loads every file under schemas/ on first use, and compiles each schema the first
// time a body is checked against it (a run filtered to one area compiles only what its checks use).
// A process that makes many runs (the self-proof) compiles every schema once to code (`compiledSchemaCode`), and
// each run's worker threads take their validators from that code (`useCompiledSchemas`) instead of compiling
// them again: the same validators, made by the same compiler from the same files.
// Problems are classified by keyword: an undocumented extra property is a SHOULD, anything else a MUST.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv2020 from 'ajv/dist/2020.js'
import { _ } from 'ajv'
import type { AnySchemaObject, ErrorObject, Format, ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { fullFormats } from 'ajv-formats/dist/formats.js'
import standaloneCode from 'ajv/dist/standalone/index.js'

export const SCHEMA_DIR = schemaDir()

/** schemas/ of the suite: two folders up from the source, three from the compiled CLI's copy in dist/. */
function schemaDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'schemas', 'common')) && dirname(dir) !== dir) dir = dirname(dir)
  return `${join(dir, 'schemas')}${sep}`
}
export const SCHEMA_BASE_ID = 'https://mcrs-conformance.invalid/schemas/'

/** Every schema file, by its path under schemas/ without `.json`. Checked against the directory at load. */
const SCHEMA_NAMES = [
  'common/timestamp',
  'common/channel-timestamp',
  'common/utc-timestamp',
  'common/nullable-timestamp',
  'common/nullable-string',
  'common/non-negative-integer',
  'common/publish-permission',
  'common/key-value-map',
  'user',
  'session-user',
  'user-list',
  'session',
  'code-message',
  'channel-search-item',
  'channel',
  'channel-search-page',
  'channel-summary',
  'subscription',
  'subscription-list',
  'subscribe-response',
  'unsubscribe-response',
  'tags',
  'publish-response',
  'published-item',
  'items-page',
  'delete-items-result',
  'count',
  'dm-sent-entry',
  'send-result',
  'push-sent-entry',
  'push-result',
  'delivery-record',
  'delivery-list',
] as const

export type SchemaName = (typeof SCHEMA_NAMES)[number]

export interface SchemaProblem {
  level: 'MUST' | 'SHOULD'
  /** JSON pointer (RFC 6901) of the offending value; '' is the whole body. */
  pointer: string
  /** The JSON Schema keyword that failed. */
  keyword: string
  /** What was wanted and what came, e.g. `must be integer; got "10" (string)`. */
  message: string
  /** For a SHOULD: the clause it is recorded under, when not http.no-extra-fields. */
  clause?: string
}

/** Keywords whose failure is an undocumented extra property or an unusual form: SHOULD (docs/contract.md, levels). */
const SHOULD_KEYWORDS = new Set(['additionalProperties', 'unevaluatedProperties', 'preferredForm'])

// ---------------------------------------------------------------- timestamp formats

// ISO 8601 date-times, extended (2015-11-10T19:22:54.123+01:00) or basic (20151110T192254,123+0100): seconds
// and fraction (after '.' or ',') optional, zone optional (a local time is still ISO 8601), zone Z, ±hh,
// ±hhmm or ±hh:mm. The spec states a form only for channel timestamps (§2.3); elsewhere any of these passes
// the MUST, and an unusual one is a SHOULD (see `preferredForm`).
const EXTENDED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/
const BASIC = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?:\d{2})?)?$/

export interface Timestamp {
  /** Fraction digits of the seconds, if any. */
  fraction: string | undefined
  /** Z or the numeric offset as written; undefined for a local time (no zone). */
  offset: string | undefined
  /** Extended format (with - and :), as against basic. */
  extended: boolean
  /** Whether seconds are given. */
  seconds: boolean
  /** The instant in epoch ms (the zone taken as UTC when absent); fraction beyond ms kept as a decimal. */
  ms: number
}

/** Parses an ISO 8601 date-time (see above) and checks that it names a real date and time. */
export function parseTimestamp(s: string): Timestamp | undefined {
  const m = EXTENDED.exec(s) ?? BASIC.exec(s)
  if (!m) return undefined
  const [year, month, day, hour, minute] = m.slice(1, 6).map(Number) as [number, number, number, number, number]
  const second = m[6] === undefined ? 0 : Number(m[6])
  const offset = m[8]
  const offsetMinutes = offset === undefined || offset === 'Z' ? 0 : offsetToMinutes(offset)
  if (offsetMinutes === undefined) return undefined
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59) return undefined
  // A leap second exists only at 23:59:60 UTC.
  if (second > 60) return undefined
  if (second === 60 && (((hour * 60 + minute - offsetMinutes) % 1440) + 1440) % 1440 !== 1439) return undefined
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, Math.min(second, 59), 0)
  const ms = date.getTime() - offsetMinutes * 60_000 + (m[7] ? Number(`0.${m[7]}`) * 1000 : 0)
  return { fraction: m[7], offset, extended: m[0].includes('-'), seconds: m[6] !== undefined, ms }
}

function offsetToMinutes(offset: string): number | undefined {
  const digits = offset.slice(1).replace(':', '')
  const h = Number(digits.slice(0, 2))
  const min = digits.length > 2 ? Number(digits.slice(2)) : 0
  if (h > 23 || min > 59) return undefined
  return (offset[0] === '-' ? -1 : 1) * (h * 60 + min)
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

const isUtc = (offset: string): boolean => offset === 'Z' || /^[+-]00(:?00)?$/.test(offset)

/** Custom formats (MUST); the texts say what a failing value should have been. */
const FORMATS: Record<string, { validate: (s: string) => boolean; wanted: string }> = {
  // §2: "Timestamps are ISO 8601 strings".
  iso8601: {
    validate: (s) => parseTimestamp(s) !== undefined,
    wanted: 'an ISO 8601 date-time (e.g. YYYY-MM-DDThh:mm:ss[.fff] then Z, ±hh, ±hhmm or ±hh:mm) naming a real date',
  },
  // §2.3: "with millisecond precision and a numeric UTC offset" (any offset from UTC, written in digits).
  'channel-timestamp': {
    validate: (s) => {
      const t = parseTimestamp(s)
      return t !== undefined && t.fraction?.length === 3 && t.offset !== undefined && t.offset !== 'Z'
    },
    wanted: 'an ISO 8601 date-time with exactly 3 fraction digits and a numeric offset ±hh, ±hhmm or ±hh:mm (§2.3)',
  },
  // §2.4: "timestamp (UTC)": a zone, when given, is UTC; a time without one is judged by preferredForm.
  'utc-timestamp': {
    validate: (s) => {
      const t = parseTimestamp(s)
      return t !== undefined && (t.offset === undefined || isUtc(t.offset))
    },
    wanted: 'an ISO 8601 date-time in UTC (offset Z, ±00, ±0000 or ±00:00) (§2.4)',
  },
}

/**
 * SHOULD-level forms (keyword `preferredForm`): what the spec's words do not require but interoperable
 * clients expect. `zoned`: the extended form with seconds and a zone, so the instant is unambiguous.
 */
const PREFERRED_FORMS: Record<string, { validate: (s: string) => boolean; wanted: string }> = {
  zoned: {
    validate: (s) => {
      const t = parseTimestamp(s)
      return t === undefined || (t.extended && t.seconds && t.offset !== undefined && !s.includes(','))
    },
    wanted: 'the common ISO 8601 form YYYY-MM-DDThh:mm:ss[.fff] with a zone (Z or ±hh:mm), so the instant is unambiguous',
  },
}

/** The clause a SHOULD problem of each SHOULD keyword is recorded under (default http.no-extra-fields). */
export const SHOULD_CLAUSE: Record<string, string> = { preferredForm: 'http.timestamp-form' }

// ---------------------------------------------------------------- loading

/** preferredForm's test: false for a value not in the form, and for a form this file does not know. */
function inPreferredForm(form: string, data: string): boolean {
  return PREFERRED_FORMS[form]?.validate(data) ?? false
}

/**
 * What compiled code refers to by name (`require(RUNTIME)`): the formats and the preferredForm test. The code made
 * by `compiledSchemaCode` has no functions of its own for them; whoever runs it hands these over.
 */
const RUNTIME = 'mcs-conformance/schema-runtime'
const runtime: { formats: Record<string, Format>; inPreferredForm: typeof inPreferredForm } = {
  formats: {
    ...fullFormats,
    ...Object.fromEntries(Object.entries(FORMATS).map(([name, { validate }]) => [name, { type: 'string', validate }])),
  },
  inPreferredForm,
}

interface Loaded {
  ajv: Ajv2020
  validators: Map<SchemaName, ValidateFunction>
}

let loaded: Loaded | undefined

function listSchemaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) return listSchemaFiles(full)
    return entry.name.endsWith('.json') ? [full] : []
  })
}

/** An Ajv instance with every schema file added, the formats and the preferredForm keyword; `source` keeps each compiled function's code. */
function newAjv(source: boolean): Ajv2020 {
  // `code.formats`: how compiled code names the formats (the runtime above); a compile in place uses the functions themselves.
  const ajv = new Ajv2020({ allErrors: true, strict: true, verbose: true, code: { source, formats: _`require(${RUNTIME}).formats` } })
  addFormats(ajv)
  for (const name of Object.keys(FORMATS)) ajv.addFormat(name, runtime.formats[name]!)
  ajv.addKeyword({
    keyword: 'preferredForm',
    type: 'string',
    schemaType: 'string',
    // The failing value and form reach toProblem through the error's params (and `data`, the options being verbose).
    error: { message: 'is not in the preferred form', params: ({ schemaCode }) => _`{form: ${schemaCode}}` },
    code(cxt) {
      const test = cxt.gen.scopeValue('keyword', { key: 'inPreferredForm', ref: inPreferredForm, code: _`require(${RUNTIME}).inPreferredForm` })
      cxt.fail(_`!${test}(${cxt.schemaCode}, ${cxt.data})`)
    },
  })

  const onDisk = new Set<string>()
  for (const file of listSchemaFiles(SCHEMA_DIR)) {
    const name = relative(SCHEMA_DIR, file)
      .split(sep)
      .join('/')
      .replace(/\.json$/, '')
    const schema = JSON.parse(readFileSync(file, 'utf8')) as AnySchemaObject
    const expectedId = `${SCHEMA_BASE_ID}${name}.json`
    if (schema.$id !== expectedId) throw new Error(`schemas/${name}.json: $id must be ${expectedId}, is ${String(schema.$id)}`)
    ajv.addSchema(schema)
    onDisk.add(name)
  }
  const known = new Set<string>(SCHEMA_NAMES)
  const unlisted = [...onDisk].filter((n) => !known.has(n))
  const missing = SCHEMA_NAMES.filter((n) => !onDisk.has(n))
  if (unlisted.length || missing.length) {
    throw new Error(`helpers/spec/schemas.ts SCHEMA_NAMES and schemas/ disagree: not listed [${unlisted.join(', ')}], no file [${missing.join(', ')}]`)
  }
  return ajv
}

function load(): Loaded {
  if (loaded) return loaded
  loaded = { ajv: newAjv(false), validators: new Map() }
  return loaded
}

/** The compiled validator of one schema: from the code this thread was handed, or compiled here on its first use. */
function validatorOf(name: SchemaName): ValidateFunction {
  const handed = fromCode?.get(name)
  if (handed) return handed
  const { ajv, validators } = load()
  const known = validators.get(name)
  if (known) return known
  if (!(SCHEMA_NAMES as readonly string[]).includes(name)) throw new Error(`unknown schema ${JSON.stringify(name)}`)
  try {
    const validate = ajv.getSchema(`${SCHEMA_BASE_ID}${name}.json`)
    if (!validate) throw new Error('not found after addSchema')
    validators.set(name, validate)
    return validate
  } catch (err) {
    throw new Error(`schemas/${name}.json does not compile: ${(err as Error).message}`)
  }
}

// ---------------------------------------------------------------- compiled once, used by many threads

/** Validators this thread was handed as code (useCompiledSchemas). */
let fromCode: Map<SchemaName, ValidateFunction> | undefined
let compiledCode: string | undefined

/**
 * Every schema compiled to the code of one CommonJS module, an export per schema name (once per process; about
 * 0.15 s, and a few ms to evaluate). It is plain data: a thread that gets it makes the same validators without compiling.
 */
export function compiledSchemaCode(): string {
  if (compiledCode !== undefined) return compiledCode
  const ajv = newAjv(true)
  const ids = Object.fromEntries(SCHEMA_NAMES.map((name) => [name, `${SCHEMA_BASE_ID}${name}.json`]))
  compiledCode = standaloneCode(ajv, ids)
  return compiledCode
}

/** The validators in code made by compiledSchemaCode, by schema name. */
export function validatorsFromCode(code: string): Map<SchemaName, ValidateFunction> {
  const requireHere = createRequire(import.meta.url)
  const module = { exports: {} as Record<string, ValidateFunction> }
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the code is this file's own compile of schemas/, made in this process
  new Function('require', 'module', 'exports', code)((id: string) => (id === RUNTIME ? runtime : requireHere(id)), module, module.exports)
  const validators = new Map<SchemaName, ValidateFunction>()
  for (const name of SCHEMA_NAMES) {
    const validate = module.exports[name]
    if (typeof validate !== 'function') throw new Error(`the compiled schema code has no validator for ${name}`)
    validators.set(name, validate)
  }
  return validators
}

/** From now on this thread checks bodies with the validators in `code` (compiledSchemaCode's, made in this process). */
export function useCompiledSchemas(code: string): void {
  fromCode = validatorsFromCode(code)
}

// ---------------------------------------------------------------- API

/** Every schema name (file path under schemas/ without `.json`); compiles all schemas. */
export function schemaNames(): SchemaName[] {
  for (const name of SCHEMA_NAMES) validatorOf(name)
  return [...SCHEMA_NAMES]
}

/** Validates a parsed JSON value; [] when valid. Throws only when the schemas themselves are broken. */
export function checkSchema(name: SchemaName, value: unknown): SchemaProblem[] {
  return problemsOf(validatorOf(name), value)
}

/** checkSchema with a given validator (one of validatorsFromCode's, say). */
export function problemsOf(validate: ValidateFunction, value: unknown): SchemaProblem[] {
  if (validate(value)) return []
  const errors = pruneErrors(validate.errors ?? [])
  const seen = new Set<string>()
  const problems: SchemaProblem[] = []
  for (const error of errors) {
    const problem = toProblem(error)
    const key = `${problem.level} ${problem.pointer} ${problem.message}`
    if (seen.has(key)) continue
    seen.add(key)
    problems.push(problem)
  }
  // MUST first; the sort is stable, so Ajv's order holds within a level.
  return problems.sort((a, b) => Number(a.level === 'SHOULD') - Number(b.level === 'SHOULD'))
}

/** One line per problem: `MUST /results/0/maxItems: must be integer; got "10" (string)`. */
export function formatProblems(problems: SchemaProblem[]): string {
  return problems.map((p) => `${p.level} ${p.pointer || '(root)'}: ${p.message}`).join('\n')
}

// ---------------------------------------------------------------- error translation

/**
 * Drops wrapper errors that only repeat a more precise one: `if` (its then/else error says why),
 * and `$ref`/`allOf`/`anyOf`/`oneOf` when an error from inside them is kept.
 */
function pruneErrors(errors: ErrorObject[]): ErrorObject[] {
  return errors.filter((e) => {
    if (e.keyword === 'if') {
      const base = e.schemaPath.replace(/\/if$/, '')
      return !errors.some((o) => o.schemaPath.startsWith(`${base}/then/`) || o.schemaPath.startsWith(`${base}/else/`))
    }
    if (['$ref', '$dynamicRef', 'allOf', 'anyOf', 'oneOf'].includes(e.keyword)) {
      return !errors.some((o) => o !== e && o.schemaPath.startsWith(`${e.schemaPath}/`))
    }
    return true
  })
}

function toProblem(e: ErrorObject): SchemaProblem {
  const level = SHOULD_KEYWORDS.has(e.keyword) ? 'SHOULD' : 'MUST'
  const at = (prop: string) => `${e.instancePath}/${escapePointer(prop)}`
  const params = e.params as Record<string, unknown>
  const data: unknown = e.data
  const clause = SHOULD_CLAUSE[e.keyword]
  const problem = (pointer: string, message: string): SchemaProblem => ({ level, pointer, keyword: e.keyword, message, ...(clause ? { clause } : {}) })

  switch (e.keyword) {
    case 'required': {
      const prop = String(params.missingProperty)
      return problem(at(prop), `required property '${prop}' is missing; got ${describeKeys(data)}`)
    }
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const prop = String(params.additionalProperty ?? params.unevaluatedProperty)
      return problem(at(prop), `undocumented property '${prop}'; got ${preview(propertyOf(data, prop))}`)
    }
    case 'type': {
      const wanted = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type)
      return problem(e.instancePath, `must be ${wanted}; got ${preview(data)}`)
    }
    case 'format': {
      const format = String(params.format)
      return problem(e.instancePath, `must be ${FORMATS[format]?.wanted ?? `format ${format}`}; got ${preview(data)}`)
    }
    case 'preferredForm':
      return problem(e.instancePath, `should be ${PREFERRED_FORMS[String(params.form)]?.wanted ?? String(params.form)}; got ${preview(data)}`)
    case 'const':
      return problem(e.instancePath, `must be ${JSON.stringify(params.allowedValue)}; got ${preview(data)}`)
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')
      return problem(e.instancePath, `must be one of ${allowed}; got ${preview(data)}`)
    }
    case 'not': {
      // A `not: {required: [x]}` forbids a property; its description (if any) is the message.
      const sub = (e.schema ?? {}) as { description?: unknown; required?: unknown }
      const forbidden = Array.isArray(sub.required) && sub.required.length === 1 ? String(sub.required[0]) : undefined
      const message = typeof sub.description === 'string' ? sub.description : 'must not match the schema under "not"'
      if (forbidden !== undefined) return problem(at(forbidden), `${message}; got ${preview(propertyOf(data, forbidden))}`)
      return problem(e.instancePath, `${message}; got ${preview(data)}`)
    }
    default:
      return problem(e.instancePath, `${e.message ?? `fails ${e.keyword}`}; got ${preview(data)}`)
  }
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

function propertyOf(data: unknown, prop: string): unknown {
  return data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[prop] : undefined
}

const PREVIEW_MAX = 80

function cut(text: string): string {
  return text.length > PREVIEW_MAX ? `${text.slice(0, PREVIEW_MAX - 1)}…` : text
}

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

/** A short JSON preview of a value and its JSON type: `"10" (string)`. */
function preview(v: unknown): string {
  if (v === undefined) return 'nothing'
  return `${cut(JSON.stringify(v) ?? String(v))} (${jsonType(v)})`
}

/** For a missing property: which keys the object does have (catches misspelt fields). */
function describeKeys(data: unknown): string {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return preview(data)
  const keys = Object.keys(data)
  return keys.length ? `an object with keys ${cut(keys.join(', '))}` : 'an empty object'
}
