/**
 * Matchers in the style of Complement's `match` package: each one looks at a JSON value (an answer's body, or
 * a part of it) and says what is wrong as one got/want line that names the JSON pointer, or nothing. A check
 * judges with them through its judge — `judge.match(body, [match.equal('/maxItems', -1)], ex)` — so no suite
 * file builds a failure message by hand, and every message has the same form:
 * `/maxItems: got 5 (number), want -1 (number)`.
 */
import { show } from '../../helpers/kit/expect'
import { SuiteDefect, type Matcher } from '../../helpers/kit/judge'

export type { Matcher }

/** The value at a JSON pointer ('' is the whole value); undefined where the path does not exist. */
export function at(value: unknown, pointer: string): unknown {
  if (pointer === '') return value
  let here: unknown = value
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (here === null || typeof here !== 'object') return undefined
    here = (here as Record<string, unknown>)[key]
  }
  return here
}

/**
 * A value for a message: as the kit shows it (JSON, its type), and a long string by its head, its tail and its
 * length, so two long values that differ only near the end still read differently.
 */
export function display(value: unknown): string {
  if (typeof value !== 'string' || value.length <= 80) return show(value)
  return `${JSON.stringify(value.slice(0, 40)).slice(0, -1)}…${JSON.stringify(value.slice(-20)).slice(1)} (string of ${value.length} characters)`
}

/** The JSON pointer of a path of keys (`pointer('content', 'x/y')` is `/content/x~1y`). */
export const pointer = (...keys: readonly (string | number)[]): string => keys.map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')

const where = (pointer: string): string => pointer || '(root)'

type Kind = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'null'
const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v)

/** Case-insensitive equality for strings, strict for the rest (names and tags whose case the spec leaves open). */
export const sameText = (x: unknown, y: unknown): boolean => (typeof x === 'string' && typeof y === 'string' ? x.toLowerCase() === y.toLowerCase() : x === y)

/** Deep equality of JSON values. */
export function sameJson(x: unknown, y: unknown): boolean {
  if (x === y) return true
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false
  if (Array.isArray(x) !== Array.isArray(y)) return false
  const kx = Object.keys(x)
  const ky = Object.keys(y)
  return kx.length === ky.length && kx.every((k) => sameJson((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]))
}

export interface ListOptions<T> {
  /** What identifies an element (its name, its id); the element itself by default. */
  key?: (element: unknown) => T
  /** Compare keys case-insensitively (names and tags). */
  anyCase?: boolean
  /** What the wanted element is, for the message ("the channel created first"). */
  what?: string
}

function keysOf<T>(list: unknown, opts: ListOptions<T>): unknown[] | undefined {
  if (!Array.isArray(list)) return undefined
  return opts.key ? list.map((e) => opts.key!(e)) : list
}

const equalKey = (anyCase?: boolean) => (x: unknown, y: unknown) => (anyCase ? sameText(x, y) : sameJson(x, y))

/** A problem a matcher states about a value at its root, restated at `label` (`(root): got …` → `label: got …`). */
function relabel(label: string, problem: string): string {
  if (problem.startsWith('(root)')) return `${label}${problem.slice('(root)'.length)}`
  return problem.startsWith('/') ? `${label}${problem}` : `${label}: ${problem}`
}

/** What a status want means, in words. */
function statusWords(want: number | readonly number[] | '2xx' | 'refusal'): string {
  if (want === 'refusal') return 'a refusal (not 2xx)'
  if (want === '2xx') return '2xx'
  return Array.isArray(want) ? want.join(' or ') : String(want)
}

const isSuccessStatus = (s: unknown): boolean => typeof s === 'number' && s >= 200 && s <= 299

/** The first difference of `got` from `want` (deep, strict; keys `want` lacks count), named by its pointer under `pointer`. */
function firstDifference(got: unknown, want: unknown, path: string): string | undefined {
  if (want !== null && typeof want === 'object') {
    if (Array.isArray(want)) {
      if (!Array.isArray(got)) return `${where(path)}: got ${display(got)}, want ${display(want)}`
      if (got.length !== want.length) return `${where(path)}: got ${got.length} element(s) ${display(got)}, want ${want.length}`
      for (let i = 0; i < want.length; i++) {
        const d = firstDifference(got[i], want[i], `${path}/${i}`)
        if (d) return d
      }
      return undefined
    }
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${where(path)}: got ${display(got)}, want ${display(want)}`
    const g = got as Record<string, unknown>
    const w = want as Record<string, unknown>
    for (const key of Object.keys(w)) {
      const here = `${path}${pointer(key)}`
      if (!(key in g)) return `${here}: got nothing, want ${display(w[key])}`
      const d = firstDifference(g[key], w[key], here)
      if (d) return d
    }
    const extra = Object.keys(g).filter((k) => !(k in w))
    return extra.length ? `${where(path)}: got the keys ${display(extra)} besides, want only those of ${display(want)}` : undefined
  }
  return Object.is(got, want) ? undefined : `${where(path)}: got ${display(got)}, want ${display(want)}`
}

export const match = {
  /** The value at `pointer` equals `want` (deep, strict); `why` says where the wanted value comes from. */
  equal(pointer: string, want: unknown, why?: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      return sameJson(got, want) ? undefined : `${where(pointer)}: got ${display(got)}, want ${display(want)}${why ? ` (${why})` : ''}`
    }
  },

  /**
   * The value at `pointer` is `want` in every part (deep, strict, no keys besides), its first difference named
   * by its own pointer: `/items/0/content/nested/level: got "2" (string), want 2 (number)`.
   */
  same(pointer: string, want: unknown): Matcher {
    return (body) => firstDifference(at(body, pointer), want, pointer)
  },

  /** The value at `pointer` is one of `wants`; `why` says what each would mean. */
  oneOf(pointer: string, wants: readonly unknown[], why?: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      if (wants.some((w) => sameJson(got, w))) return undefined
      return `${where(pointer)}: got ${display(got)}, want one of ${wants.map((w) => display(w)).join(', ')}${why ? ` (${why})` : ''}`
    }
  },

  /** The value at `pointer` is of a JSON type. */
  type(pointer: string, want: Kind): Matcher {
    return (body) => {
      const got = at(body, pointer)
      return kindOf(got) === want ? undefined : `${where(pointer)}: got ${display(got)}, want a value of type ${want}`
    }
  },

  /** The whole value is an array (`want` names what of, for the message); `judge.match` then returns it as one. */
  array(want = 'an array'): Matcher<unknown[]> {
    return (got) => (Array.isArray(got) ? undefined : `(root): got ${display(got)}, want ${want}`)
  },

  /** The value at `pointer` is a string of at least one character. */
  nonEmptyString(pointer: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      return typeof got === 'string' && got.length > 0 ? undefined : `${where(pointer)}: got ${display(got)}, want a non-empty string`
    }
  },

  /** The value at `pointer` satisfies `ok`; `want` says in words what was wanted. */
  that(pointer: string, ok: (got: unknown) => boolean, want: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      return ok(got) ? undefined : `${where(pointer)}: got ${display(got)}, want ${want}`
    }
  },

  /** The value at `pointer` is an array of `n` elements. */
  size(pointer: string, n: number): Matcher {
    return (body) => {
      const got = at(body, pointer)
      if (!Array.isArray(got)) return `${where(pointer)}: got ${display(got)}, want an array of ${n} element(s)`
      return got.length === n ? undefined : `${where(pointer)}: got ${got.length} element(s) ${display(got)}, want ${n}`
    }
  },

  /** The value at `pointer` is an array of at most `n` elements. */
  atMost(pointer: string, n: number): Matcher {
    return (body) => {
      const got = at(body, pointer)
      if (!Array.isArray(got)) return `${where(pointer)}: got ${display(got)}, want an array of at most ${n} element(s)`
      return got.length <= n ? undefined : `${where(pointer)}: got ${got.length} element(s) ${display(got)}, want at most ${n}`
    }
  },

  /** The array at `pointer` has an element whose key is `want`. */
  contains<T>(pointer: string, want: T, opts: ListOptions<T> = {}): Matcher {
    return (body) => {
      const keys = keysOf(at(body, pointer), opts)
      const label = opts.what ? `${display(want)} (${opts.what})` : display(want)
      if (!keys) return `${where(pointer)}: got ${display(at(body, pointer))}, want an array holding ${label}`
      return keys.some((k) => equalKey(opts.anyCase)(k, want)) ? undefined : `${where(pointer)}: got ${display(keys)}, want ${label} among them`
    }
  },

  /** The array at `pointer` has no element whose key is `unwanted` (not being an array is another matcher's to judge). */
  lacks<T>(pointer: string, unwanted: T, opts: ListOptions<T> = {}): Matcher {
    return (body) => {
      const keys = keysOf(at(body, pointer), opts) ?? []
      const label = opts.what ? `${display(unwanted)} (${opts.what})` : display(unwanted)
      return keys.some((k) => equalKey(opts.anyCase)(k, unwanted)) ? `${where(pointer)}: got ${display(keys)}, want no ${label} among them` : undefined
    }
  },

  /** The array at `pointer` has exactly one element whose key is `want`: there, and not twice. */
  once<T>(pointer: string, want: T, opts: ListOptions<T> = {}): Matcher {
    return (body) => {
      const keys = keysOf(at(body, pointer), opts)
      const label = opts.what ? `${display(want)} (${opts.what})` : display(want)
      if (!keys) return `${where(pointer)}: got ${display(at(body, pointer))}, want an array holding ${label} once`
      const hits = keys.flatMap((k, i) => (equalKey(opts.anyCase)(k, want) ? [i] : []))
      if (hits.length === 1) return undefined
      return hits.length === 0
        ? `${where(pointer)}: got ${display(keys)}, want ${label} among them`
        : `${where(pointer)}: got ${label} ${hits.length} times (elements ${hits.join(', ')}), want it once`
    }
  },

  /** No two elements of the array at `pointer` have the same key (elements without a key are not compared). */
  distinct<T>(pointer: string, opts: ListOptions<T> = {}): Matcher {
    return (body) => {
      const keys = keysOf(at(body, pointer), opts)
      if (!keys) return undefined // not being an array is another matcher's to judge
      const eq = equalKey(opts.anyCase)
      for (let i = 0; i < keys.length; i++) {
        if (keys[i] === undefined || keys[i] === null) continue
        const j = keys.findIndex((k, n) => n > i && eq(k, keys[i]))
        if (j >= 0) return `${where(pointer)}: got ${display(keys[i])}${opts.what ? ` (${opts.what})` : ''} at elements ${i} and ${j}, want each once`
      }
      return undefined
    }
  },

  /** The array at `pointer` holds an element for every key of `wants` (others may be there too). */
  containsAll<T>(pointer: string, wants: readonly T[], opts: ListOptions<T> = {}): Matcher {
    return (body) => {
      const keys = keysOf(at(body, pointer), opts)
      const label = opts.what ? `${display(wants)} (${opts.what})` : display(wants)
      if (!keys) return `${where(pointer)}: got ${display(at(body, pointer))}, want an array holding ${label}`
      const missing = wants.filter((w) => !keys.some((k) => equalKey(opts.anyCase)(k, w)))
      return missing.length === 0 ? undefined : `${where(pointer)}: got ${display(keys)}, want ${label} among them; missing ${display(missing)}`
    }
  },

  /** The array at `pointer` holds exactly the keys of `wants`, in any order. */
  exactly<T>(pointer: string, wants: readonly T[], opts: ListOptions<T> = {}): Matcher {
    return (body) => {
      const keys = keysOf(at(body, pointer), opts)
      const label = opts.what ? `${display(wants)} (${opts.what})` : display(wants)
      if (!keys) return `${where(pointer)}: got ${display(at(body, pointer))}, want exactly ${label}`
      const eq = equalKey(opts.anyCase)
      const missing = wants.filter((w) => !keys.some((k) => eq(k, w)))
      const extra = keys.filter((k) => !wants.some((w) => eq(k, w)))
      if (missing.length === 0 && extra.length === 0 && keys.length === wants.length) return undefined
      return `${where(pointer)}: got ${display(keys)}, want exactly ${label} in any order`
    }
  },

  /** Every element of the array at `pointer` passes `matcher` (its problems name the element's pointer). */
  each(pointer: string, matcher: Matcher): Matcher {
    return (body) => {
      const list = at(body, pointer)
      if (!Array.isArray(list)) return `${where(pointer)}: got ${display(list)}, want an array`
      for (let i = 0; i < list.length; i++) {
        const problem = matcher(list[i])
        if (problem !== undefined) return `${pointer}/${i}${problem.startsWith('(root)') ? problem.slice('(root)'.length) : problem}`
      }
      return undefined
    }
  },

  /** A matcher whose problem is prefixed with what was asked (`after the delete: /tags: got …`). */
  when(context: string, matcher: Matcher): Matcher {
    return (body) => {
      const problem = matcher(body)
      return problem === undefined ? undefined : `${context}: ${problem}`
    }
  },

  /** The whole value is a JSON object, not an array (`want` names what, for the message); `judge.match` then returns it as one. */
  object(want = 'an object'): Matcher<Record<string, any>> {
    return (got) => (got !== null && typeof got === 'object' && !Array.isArray(got) ? undefined : `(root): got ${display(got)}, want ${want}`)
  },

  /** The value at `pointer` is an integer, at least `min` when given (a count, a status code). */
  integer(pointer: string, min?: number): Matcher {
    return (body) => {
      const got = at(body, pointer)
      if (Number.isInteger(got) && (min === undefined || (got as number) >= min)) return undefined
      return `${where(pointer)}: got ${display(got)}, want an integer${min === undefined ? '' : ` of at least ${min}`}`
    }
  },

  /** The value at `pointer` is a string that starts with `prefix`; `what` says what the prefix is ("A's user id"). */
  startsWith(pointer: string, prefix: string, what?: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      if (typeof got === 'string' && got.startsWith(prefix)) return undefined
      return `${where(pointer)}: got ${display(got)}, want a string starting with ${display(prefix)}${what ? ` (${what})` : ''}`
    }
  },

  /** The value at `pointer` is an array of at least `n` elements (`what` names them: "the items asked for"). */
  atLeast(pointer: string, n: number, what?: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      const want = `at least ${n} element(s)${what ? ` (${what})` : ''}`
      if (!Array.isArray(got)) return `${where(pointer)}: got ${display(got)}, want an array of ${want}`
      return got.length >= n ? undefined : `${where(pointer)}: got ${got.length} element(s) ${display(got)}, want ${want}`
    }
  },

  /** Nothing at `pointer` (a field the answer must not carry). */
  absent(pointer: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      return got === undefined ? undefined : `${where(pointer)}: got ${display(got)}, want the field absent`
    }
  },

  /** The value at `pointer` is anything but `unwanted` (deep); `why` says what `unwanted` would mean. */
  not(pointer: string, unwanted: unknown, why?: string): Matcher {
    return (body) => {
      const got = at(body, pointer)
      return sameJson(got, unwanted) ? `${where(pointer)}: got ${display(got)}, want anything but that${why ? ` (${why})` : ''}` : undefined
    }
  },

  /**
   * The status of an answer (an Exchange, judged through its `status`): a code, a list of codes, '2xx', or
   * 'refusal' (any status but 2xx, the MUST form of a refusal); `why` says what the status would show.
   */
  status(want: number | readonly number[] | '2xx' | 'refusal', why?: string): Matcher {
    return (exchange) => {
      const got = at(exchange, '/status')
      const ok =
        want === 'refusal' ? !isSuccessStatus(got) : want === '2xx' ? isSuccessStatus(got) : Array.isArray(want) ? want.includes(got as number) : got === want
      return ok ? undefined : `status: got ${typeof got === 'number' ? got : display(got)}, want ${statusWords(want)}${why ? ` (${why})` : ''}`
    }
  },

  /**
   * A matcher over a value the check derived from the answer (a part of a string, a list of ids, a count),
   * named by `label` in the message: `match.derived('/creator device part', device, match.equal('', id))` says
   * `/creator device part: got …, want …`. It ignores the value it is given, so it sits among the matchers of a body.
   */
  derived(label: string, value: unknown, matcher: Matcher): Matcher {
    return () => {
      const problem = matcher(value)
      return problem === undefined ? undefined : relabel(label, problem)
    }
  },

  /**
   * The text of `ensure(ok, judge, match.explain(value, m), ex)`, where TypeScript must narrow a value for the
   * lines after the judgement: the problem `m` finds in `value`, computed only when `ok` is false. `ok` and `m`
   * must say the same thing; a matcher that finds nothing where `ok` failed is a defect of the suite, said so.
   */
  explain(value: unknown, matcher: Matcher): () => string {
    return () => {
      const problem = matcher(value)
      if (problem === undefined) throw new SuiteDefect(`suite defect: ensure() failed but its matcher finds no problem in ${display(value)}`)
      return problem
    }
  },

  /** Passes when any of `matchers` passes; otherwise the problems of all. */
  anyOf(...matchers: Matcher[]): Matcher {
    return (body) => {
      const problems = matchers.map((m) => m(body))
      return problems.some((p) => p === undefined) ? undefined : problems.join('; or ')
    }
  },
}
