/**
 * Root causes: failures that share one deviation of the server, grouped, so a reviewer reads "1 deviation →
 * 7 checks" instead of seven failures. Grouped from the failure messages of results.json alone:
 * - the same schema problem at the same pointer of the same schema (list indices ignored);
 * - the same status on one endpoint (`POST /channels/{name}/items` answered 403);
 * - the same wrong value at the same pointer of one endpoint's answer;
 * - else the same problem sentence of one clause, run-specific names and numbers normalised.
 * A failed finding about the same schema as its parent check's failure (the undocumented field of a renamed
 * one) joins the parent's cause; a blocked check is explained by the cause of the step that blocked it.
 * Verdict and counts stay per check: this is a reading aid.
 */
import { createHash } from 'node:crypto'
import { clause as clauseOf, isClauseId, type Level } from '../spec/clauses'
import { endpointOf, normaliseRunText } from '../http/endpoints'
import type { CheckResult, RunResults, StoredCause } from './results'

export interface RootCause {
  /** The grouping key (stable across runs). */
  key: string
  clause: string
  level: Level
  /** What is wrong, stated without run-specific values. */
  problem: string
  /** Failed entries it explains (ids). */
  checks: string[]
  /** Blocked checks it explains (ids): they could not be judged because of it. */
  blocked: string[]
  /** A representative failure: its entry id, the block of its message, and its reproducer when it has one. */
  example: { id: string; message: string; evidence?: string; reproducer?: string }
}

/** A cause as results.json stores it (`causes`): dashboards, the diff and every report read it, never recompute it. */
export type Cause = StoredCause

/** The causes of a run's entries, as results.json stores them. */
export function storedCauses(checks: readonly CheckResult[]): Cause[] {
  return rootCauses({ checks: [...checks] }).map((c) => ({
    id: `C${createHash('sha256').update(c.key).digest('hex').slice(0, 8)}`,
    headline: c.problem,
    clause: c.clause,
    level: c.level,
    entries: c.checks,
    blocked: c.blocked,
    representative: { entry: c.example.id, message: c.example.message, ...(c.example.evidence ? { evidence: c.example.evidence } : {}) },
  }))
}

/** The causes a results.json stores; computed from its entries for one written before `causes` existed. */
export function causesOf(r: Pick<RunResults, 'checks' | 'causes'>): Cause[] {
  return r.causes ?? storedCauses(r.checks)
}

const HEAD = /^\[(\S+) (MUST|SHOULD|INFO)\](?: (\S+) (\S+) → (\d{3}))?/
const SCHEMA_LINE = /^(?:([\w-]+): )?(MUST|SHOULD) (\/\S*|\(root\)): (.*)$/
const POINTER_LINE = /^(\/[^\s:]*): (.*)$/
const EVIDENCE_LINE = /^(request body|request headers|response|response headers|response body)\b/

interface Block {
  clause?: string
  endpoint?: string
  status?: number
  lines: string[]
  text: string
}

/** A message cut into its failure blocks: each starts with `[clause LEVEL] …`; text before the first is one block too. */
function blocksOf(message: string): Block[] {
  const blocks: Block[] = []
  let cur: Block | undefined
  for (const raw of message.split('\n')) {
    const m = HEAD.exec(raw)
    if (m) {
      cur = { clause: m[1], ...(m[3] ? { endpoint: endpointOf(m[3], m[4]!), status: Number(m[5]) } : {}), lines: [], text: raw }
      blocks.push(cur)
      continue
    }
    if (!cur) {
      cur = { lines: [], text: '' }
      blocks.push(cur)
    }
    cur.text += `${cur.text ? '\n' : ''}${raw}`
    const line = raw.trim()
    if (line && !EVIDENCE_LINE.test(line) && !line.startsWith('could not be judged')) cur.lines.push(line)
  }
  return blocks
}

/** Pointer without list indices, from the last index on: `/channels/0/creationDate` and `/creationDate` are one field. */
function fieldOf(pointer: string): string {
  const parts = pointer.split('/')
  const last = parts.findLastIndex((p) => /^\d+$/.test(p))
  return last >= 0 ? `/${parts.slice(last + 1).join('/')}` : pointer
}

function kindOf(problem: string): string {
  return normaliseRunText(problem.split('; got ')[0]!)
}

interface Key {
  key: string
  /** The endpoint (or, without one, the clause) the problem was seen at. */
  where?: string
  problem: string
  schema?: string
  /** The field the problem is about (its name, list indices and parents dropped), when it names one. */
  field?: string
  /** For a schema problem: the pointer of the object holding the field, list indices as `*`. */
  parentAt?: string
  /** The status a sentence says the endpoint answered (`… status 201, want a refusal`). */
  status?: number
}

/** The last name of a pointer: `/sentList/0/recipientUsername` → recipientUsername. */
function nameOf(pointer: string): string {
  return pointer.split('/').filter((p) => p && p !== '*' && !/^\d+$/.test(p)).at(-1) ?? pointer
}

/**
 * The kind of resource a schema describes: a channel is one whether get-by-name, search or a summary shows it,
 * a user one whether the user list or the sign-in shows it; the same field missing from every view of it is
 * one deviation.
 */
export function resourceOf(schema: string): string {
  const special: Record<string, string> = { 'session-user': 'user', 'dm-sent-entry': 'send-result', 'push-sent-entry': 'push-result', 'items-page': 'item', 'published-item': 'item', 'publish-response': 'item', 'delete-items-result': 'item' }
  return special[schema] ?? schema.replace(/-(list|search-item|search-page|summary)$/, '')
}

/** The causes one block states (a schema failure may state several). */
function keysOf(b: Block, fallbackClause: string): Key[] {
  const where = b.endpoint ?? fallbackClause
  const statusLine = b.lines.find((l) => /^status: got \d{3}/.test(l))
  const schemaName = /schema '([\w-]+)'/.exec(b.text)?.[1]
  const schemaLines = b.lines.map((l) => SCHEMA_LINE.exec(l)).filter((m): m is RegExpExecArray => !!m && m[2] === 'MUST' || (!!m && !b.clause))
  if (statusLine || (b.status !== undefined && (b.status < 200 || b.status > 299) && !schemaLines.length)) {
    const got = statusLine ? Number(/got (\d{3})/.exec(statusLine)![1]) : b.status!
    const stated = statusLine ? normaliseRunText(statusLine) : `status: got ${got}`
    return [{ key: `status|${where}|${got}`, where, problem: `${where} answers ${got} (${stated})` }]
  }
  if (schemaLines.length) {
    let current = schemaName
    return b.lines.flatMap((line) => {
      const m = SCHEMA_LINE.exec(line)
      if (m?.[1]) current = m[1]
      if (!m || (m[2] !== 'MUST' && b.clause)) return []
      const schema = m[1] ?? current ?? '?'
      const field = fieldOf(m[3]!)
      const problem = kindOf(m[4]!)
      const at = m[3]!.replace(/\/\d+(?=\/|$)/g, '/*')
      const key = `schema|${resourceOf(schema)}|${m[2]}|${nameOf(field)}|${problem.replace(/'[\w-]+'/g, "'F'")}`
      return [{ key, problem: `schema '${schema}' at ${at}: ${problem}`, schema, where, field: nameOf(field), parentAt: at.split('/').slice(0, -1).join('/') }]
    })
  }
  const first = b.lines[0] ?? normaliseRunText(b.text.split('\n')[0] ?? '')
  // A set-up step's own sentence: the same step failing, whatever it read back.
  if (first.startsWith('set-up:')) return [{ key: `setup|${b.clause ?? fallbackClause}|${where}`, where, problem: `${where}: ${normaliseRunText(first)}` }]
  const pm = POINTER_LINE.exec(first) ?? /(?:^|\s)(\/[\w/-]+):? (?:got|present)\b/.exec(first)
  if (pm) return [{ key: `value|${where}|${fieldOf(pm[1]!)}`, where, problem: `${where}: ${normaliseRunText(first)}`, field: nameOf(fieldOf(pm[1]!)) }]
  const sentence = normaliseRunText(first).replace(/\b\d+\b/g, 'N')
  const named = /(?:^|\s)(\/[A-Za-z_][\w/-]*)/.exec(first)?.[1]
  // `… status 201, want a refusal` or a matcher's `…: status: got 201, want a refusal (not 2xx)`.
  const status = /\bstatus:? (?:got )?(\d{3})\b/.exec(first)?.[1]
  return [
    {
      key: `text|${b.clause ?? fallbackClause}|${where}|${sentence}`,
      where,
      problem: `${where}: ${normaliseRunText(first)}`,
      ...(named ? { field: nameOf(fieldOf(named)) } : {}),
      ...(status ? { status: Number(status) } : {}),
    },
  ]
}

/** The stable one-line statement of an entry's (first) problem: endpoint, pointer, got and want, no run names. */
export function problemOf(c: Pick<CheckResult, 'message' | 'clause' | 'status' | 'blockedBy'>): string {
  if (c.status === 'blocked') return `blocked by ${c.blockedBy ?? 'a failed set-up step'}`
  const b = blocksOf(c.message ?? '')[0]
  if (!b) return ''
  const line = b.lines.find((l) => !/^body does not match schema|^the run's own records do not match/.test(l)) ?? b.lines[0] ?? ''
  const schema = /schema '([\w-]+)'/.exec(b.text)?.[1]
  const prefix = b.endpoint ? `${b.endpoint}: ` : ''
  return `${prefix}${schema && SCHEMA_LINE.test(line) && !line.startsWith(`${schema}:`) ? `schema '${schema}' ` : ''}${normaliseRunText(line)}`
}

const LEVEL_RANK: Record<Level, number> = { MUST: 0, SHOULD: 1, INFO: 2 }

export function rootCauses(r: Pick<RunResults, 'checks'>): RootCause[] {
  const failed = r.checks.filter((c) => c.status === 'failed')
  const keysOfEntry = new Map<string, Key[]>()
  for (const c of failed) {
    const keys = blocksOf(c.message ?? '').flatMap((b) => keysOf(b, c.clause))
    keysOfEntry.set(c.id, dedupe(keys))
  }
  // A finding about the schema its parent check failed on belongs to the parent's cause (renamed field: missing +
  // extra). When the parent was blocked by that schema's failure, the failure is an entry beside the finding
  // (same parent): a SHOULD about a field of the schema joins the MUST cause of the same read.
  const mustKeysBeside = (c: CheckResult): Key[] =>
    failed
      .filter((s) => s.parent === c.parent && s.id !== c.id && s.level === 'MUST')
      .flatMap((s) => keysOfEntry.get(s.id) ?? [])
      .filter((k) => k.schema && k.key.split('|')[2] === 'MUST')
  for (const c of failed) {
    if (!c.parent) continue
    const parentKeys = keysOfEntry.get(c.parent)?.length ? keysOfEntry.get(c.parent) : mustKeysBeside(c)
    const own = keysOfEntry.get(c.id) ?? []
    if (!parentKeys?.length || !own.length || !own.every((k) => k.schema)) continue
    const same = parentKeys.filter((k) => k.schema && own.some((o) => o.schema === k.schema))
    if (same.length) keysOfEntry.set(c.id, same)
  }
  const groups = new Map<string, Group>()
  for (const c of failed) {
    for (const k of keysOfEntry.get(c.id) ?? []) {
      const g = groups.get(k.key) ?? { key: k, entries: [], wheres: new Set<string>() }
      if (!g.entries.includes(c)) g.entries.push(c)
      if (k.where) g.wheres.add(k.where)
      groups.set(k.key, g)
    }
  }
  // A blocked check is explained by the cause(s) of its failed step (an entry with parent = the check).
  const blockedBy = new Map<string, string[]>()
  for (const c of r.checks) {
    if (c.status !== 'failed' || !c.parent) continue
    const parent = r.checks.find((p) => p.id === c.parent)
    if (parent?.status === 'blocked' && parent.blockedBy === c.clause) blockedBy.set(c.id, [parent.id])
  }
  const causes: RootCause[] = []
  for (const { key, entries } of mergeGroups([...groups.values()])) {
    const level = entries.map((e) => e.level).sort((a, b) => LEVEL_RANK[a] - LEVEL_RANK[b])[0]!
    const atLevel = entries.filter((e) => e.level === level)
    // A schema problem belongs to the clause that states the shape, when one of its checks judges it.
    const shapeClause = key.schema ? atLevel.map((e) => e.clause).find((id) => /\.(shape|response)$/.test(id)) : undefined
    const clause = shapeClause ?? mostCommon(atLevel.map((e) => e.clause))
    const rep = atLevel.find((e) => e.clause === clause && !e.parent) ?? atLevel.find((e) => e.clause === clause) ?? entries[0]!
    const repBlock = blocksOf(rep.message ?? '').find((b) => keysOf(b, rep.clause).some((k) => k.key === key.key)) ?? blocksOf(rep.message ?? '')[0]
    causes.push({
      key: key.key,
      clause,
      level,
      problem: renamedHeadline(key, entries),
      checks: entries.map((e) => e.id),
      blocked: [...new Set(entries.flatMap((e) => blockedBy.get(e.id) ?? []))],
      example: {
        id: rep.id,
        message: repBlock?.text ?? rep.message ?? '',
        ...(rep.evidence?.length ? { evidence: rep.evidence.at(-1) } : {}),
        ...(rep.reproducer ? { reproducer: rep.reproducer } : {}),
      },
    })
  }
  return causes.sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level] || b.checks.length + b.blocked.length - (a.checks.length + a.blocked.length) || a.key.localeCompare(b.key))
}

/**
 * One deviation can state itself in more than one way; these are joined: one schema problem at several fields
 * that always fail together (every date field of one schema), a set-up step's failure with the direct failure of the same clause and
 * endpoint, and a field read as undefined with the schema failure saying that field is missing.
 */
interface Group {
  key: Key
  entries: CheckResult[]
  /** The endpoints (or, without one, clauses) its problem was seen at. */
  wheres: Set<string>
}

function mergeGroups(groups: Group[]): Group[] {
  const parent = groups.map((_, i) => i)
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)))
  const join = (i: number, j: number) => {
    const [a, b] = [find(i), find(j)]
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b)
  }
  const ids = groups.map((g) => g.entries.map((e) => e.id).sort().join('\n'))
  const clauseOfGroup = groups.map((g) => mostCommon(g.entries.map((e) => e.clause)))
  groups.forEach((g, i) => {
    groups.forEach((h, j) => {
      if (j <= i) return
      // The same problem at several fields of one schema, always in the same checks (every date field): one deviation.
      const [gk, hk] = [g.key.key.split('|'), h.key.key.split('|')]
      if (ids[i] === ids[j] && gk[0] === 'schema' && hk[0] === 'schema' && gk[1] === hk[1] && gk[4] === hk[4]) join(i, j)
      for (const [x, y] of [[g, h], [h, g]] as const) {
        if (x.key.key.startsWith('setup|') && !y.key.key.startsWith('setup|') && x.key.key.split('|')[1] === clauseOfGroup[groups.indexOf(y)] && x.key.where === y.key.where) join(i, j)
        // A renamed field: one kind of resource misses a field and has an undocumented one in the same object.
        if (isMissing(x.key) && isExtra(y.key) && x.key.key.split('|')[1] === y.key.key.split('|')[1] && x.key.parentAt === y.key.parentAt) join(i, j)
        // A field read as missing, mistyped or present where a check looked at it (`/publisherPermission: got
        // undefined`) is the schema problem at that field of the answer of that same endpoint.
        if (x.key.schema && x.key.field && !y.key.schema && y.key.field === x.key.field && y.key.where && x.wheres.has(y.key.where)) join(i, j)
        // Two sentences of one clause about the same field of the same endpoint's answer state one problem.
        const [xk, yk] = [x.key.key.split('|'), y.key.key.split('|')]
        if ((xk[0] === 'text' || xk[0] === 'value') && yk[0] === 'text' && x.key.field && x.key.field === y.key.field && x.key.where === y.key.where && clauseOfGroup[groups.indexOf(x)] === clauseOfGroup[groups.indexOf(y)]) join(i, j)
        // A sentence saying the endpoint answered a status is the same answer as that status on that endpoint.
        if (xk[0] === 'status' && yk[0] === 'text' && y.key.status === Number(xk[2]) && x.key.where === y.key.where) join(i, j)
      }
    })
  })
  const merged = new Map<number, Group>()
  groups.forEach((g, i) => {
    const root = find(i)
    const into = merged.get(root)
    if (!into) merged.set(root, { key: groups[root]!.key, entries: [...g.entries], wheres: new Set(g.wheres) })
    else {
      for (const e of g.entries) if (!into.entries.includes(e)) into.entries.push(e)
      for (const w of g.wheres) into.wheres.add(w)
    }
  })
  // The first group of a merged set states the cause; a direct failure says it better than a set-up sentence.
  for (const [root, m] of merged) {
    const members = groups.filter((_, i) => find(i) === root)
    const missing = members.find((g) => isMissing(g.key))
    const extra = members.find((g) => isExtra(g.key) && missing && g.key.parentAt === missing.key.parentAt)
    if (missing && extra) {
      m.key = { ...missing.key, problem: `${missing.key.problem}; an undocumented '${extra.key.field}' is there instead (a renamed field)` }
      continue
    }
    m.key = (members.find((g) => isMissing(g.key)) ?? members.find((g) => g.key.schema && g.key.key.split('|')[2] === 'MUST') ?? members.find((g) => g.key.schema) ?? members.find((g) => !g.key.key.startsWith('setup|')) ?? m).key
  }
  return [...merged.values()]
}

/**
 * A missing field's headline, told as a rename when an undocumented field sits in the same object of the same
 * kind of resource in the cause's entries (a finding joined to its parent check's cause carries it).
 */
function renamedHeadline(key: Key, entries: readonly CheckResult[]): string {
  if (!isMissing(key) || key.problem.includes('(a renamed field)')) return key.problem
  const resource = key.key.split('|')[1]
  for (const e of entries) {
    let schema: string | undefined
    for (const line of (e.message ?? '').split('\n')) {
      const m = SCHEMA_LINE.exec(line.trim())
      if (m?.[1]) schema = m[1]
      if (!m || !schema || resourceOf(schema) !== resource || !/undocumented property/.test(m[4]!)) continue
      const at = m[3]!.replace(/\/\d+(?=\/|$)/g, '/*')
      if (at.split('/').slice(0, -1).join('/') === key.parentAt) return `${key.problem}; an undocumented '${nameOf(at)}' is there instead (a renamed field)`
    }
  }
  return key.problem
}

const isMissing = (k: Key) => k.key.startsWith('schema|') && k.key.split('|')[2] === 'MUST' && /required property/.test(k.key)
const isExtra = (k: Key) => k.key.startsWith('schema|') && /undocumented property/.test(k.key)

function dedupe(keys: Key[]): Key[] {
  const seen = new Set<string>()
  return keys.filter((k) => !seen.has(k.key) && seen.add(k.key))
}

function mostCommon(values: string[]): string {
  const n = new Map<string, number>()
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1)
  return [...n].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0]
}

export function quoteOf(id: string): string | undefined {
  return isClauseId(id) ? clauseOf(id).quote : undefined
}

/** "1 deviation → 7 checks" */
export function fanOut(c: Pick<Cause, 'entries' | 'blocked'>): string {
  return `1 deviation → ${c.entries.length} failed check${c.entries.length === 1 ? '' : 's'}${c.blocked.length ? `, ${c.blocked.length} blocked` : ''}`
}
