/**
 * Known failures as reviewed data (nightly regression against a target with open defects): `expectations/<target>.json` lists the
 * clauses a target is known to fail, each with a reason, a link and an expiry date. A matching failure becomes
 * `known` (it no longer fails the run); an entry whose clause now passes is reported so it can be removed; an
 * expired entry no longer excuses anything. Format: expectations/README.md.
 */
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, relative, resolve } from 'node:path'
import { isClauseId } from '../spec/clauses'
import { DEFAULTS, readEnv } from '../config/config'
import type { CheckResult, Expectation, ExpectationNote, RunResults, TargetInfo } from './results'

export class ExpectationsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ExpectationsError'
  }
}

export const EXPECTATIONS_DIR = 'expectations'
export const EMBEDDED_SLUG = 'embedded'

export interface ApiPaths {
  userApiPath?: string
  messageApiPath?: string
}

const slugPart = (s: string): string => s.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '')

/**
 * The target's slug, lower case, only `[a-z0-9.-]`, parts joined by `--`: host and non-default port, then the
 * base path, then each API path that is not the default (`u-…`, `m-…`), so two APIs behind one gateway host
 * are kept apart (`https://gw.example.com:8443/svc-a` → `gw.example.com-8443--svc-a`). A target without a base
 * path and with the default API paths keeps the slug of earlier versions (`staging.example.com`). The bundled
 * reference server, started on a free port per run, is always `embedded`.
 */
export function targetSlug(baseUrl: string | null, paths: ApiPaths = {}): string {
  if (!baseUrl) return EMBEDDED_SLUG
  const parts: string[] = []
  try {
    const u = new URL(baseUrl)
    parts.push(u.port ? `${u.hostname}-${u.port}` : u.hostname, u.pathname)
  } catch {
    parts.push(baseUrl)
  }
  const user = paths.userApiPath?.replace(/\/+$/, '')
  const message = paths.messageApiPath?.replace(/\/+$/, '')
  if (user && user !== DEFAULTS.USER_API_PATH) parts.push(`u-${user.replace(/^\/+/, '')}`)
  if (message && message !== DEFAULTS.MESSAGE_API_PATH) parts.push(`m-${message.replace(/^\/+/, '')}`)
  return parts.map(slugPart).filter(Boolean).join('--') || 'target'
}

export function slugOfTarget(t: TargetInfo): string {
  return t.embedded ? EMBEDDED_SLUG : targetSlug(t.url, t)
}

/** The slug of a results.json. */
export function slugOfResults(r: Pick<RunResults, 'target' | 'targetSlug'>): string {
  return r.targetSlug ?? slugOfTarget(r.target)
}

export interface LoadedExpectations {
  /** Path as given or found (relative to the working directory where possible); null when there is none. */
  file: string | null
  entries: Expectation[]
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

/**
 * Reads the known-failures file: `explicitFile` (EXPECTATIONS_FILE) when set — it must exist — else
 * `expectations/<slug>.json` when present. Any problem in the file is an ExpectationsError listing every one.
 */
export function loadExpectations(opts: { slug: string; explicitFile?: string | null; cwd?: string }): LoadedExpectations {
  const cwd = opts.cwd ?? process.cwd()
  const explicit = opts.explicitFile?.trim() || null
  const bySlug = (slug: string) => resolve(cwd, EXPECTATIONS_DIR, `${slug}.json`)
  const path = explicit ? resolve(cwd, explicit) : bySlug(opts.slug)
  const shown = isAbsolute(explicit ?? '') ? path : relative(cwd, path)
  if (!existsSync(path)) {
    if (explicit) throw new ExpectationsError(`EXPECTATIONS_FILE ${shown} does not exist`)
    return { file: null, entries: [] }
  }
  let data: unknown
  try {
    data = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new ExpectationsError(`${shown} is not valid JSON: ${(err as Error).message}`)
  }
  return { file: shown, entries: parseExpectations(data, shown) }
}

/** Validates the file's content: `{ "expectations": [ … ] }` (or a bare array of entries). */
export function parseExpectations(data: unknown, name = 'expectations'): Expectation[] {
  const list = Array.isArray(data) ? data : (data as { expectations?: unknown } | null)?.expectations
  if (!Array.isArray(list)) throw new ExpectationsError(`${name}: want an object with an "expectations" array (see expectations/README.md)`)
  const problems: string[] = []
  const entries: Expectation[] = []
  const seen = new Set<string>()
  list.forEach((raw: unknown, i) => {
    const e = (raw ?? {}) as Record<string, unknown>
    const where = `entry ${i + 1}${typeof e.clause === 'string' ? ` (${e.clause})` : ''}`
    const before = problems.length
    if (typeof e.clause !== 'string' || !isClauseId(e.clause)) problems.push(`${where}: "clause" must be a clause id of helpers/spec/clauses.ts`)
    else if (seen.has(e.clause)) problems.push(`${where}: clause listed twice`)
    if (typeof e.reason !== 'string' || !e.reason.trim()) problems.push(`${where}: "reason" is required`)
    if (e.link !== undefined && (typeof e.link !== 'string' || !/^https?:\/\/\S+$/.test(e.link))) problems.push(`${where}: "link" must be an http(s) URL`)
    if (typeof e.expires !== 'string' || !DATE.test(e.expires) || Number.isNaN(Date.parse(`${e.expires}T00:00:00Z`))) {
      problems.push(`${where}: "expires" must be a date YYYY-MM-DD`)
    }
    if (problems.length === before) {
      seen.add(e.clause as string)
      entries.push({ clause: e.clause as string, reason: (e.reason as string).trim(), ...(e.link ? { link: e.link as string } : {}), expires: e.expires as string })
    }
  })
  if (problems.length) throw new ExpectationsError(`${name} has ${problems.length} problem(s):\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  return entries
}

/** An entry holds through its expiry date (UTC) and no longer the day after. */
export function isExpired(e: Expectation, now: Date): boolean {
  return now.toISOString().slice(0, 10) > e.expires
}

/**
 * Applies the entries to the run's results (in place): a failed result of an unexpired entry's clause becomes
 * `known`; errors and blocked checks stay as they are (a check that could not be completed or judged proves
 * nothing, and counts as not run). Every result of a listed
 * clause carries the entry and its outcome. Returns one note per entry.
 */
export function applyExpectations(checks: CheckResult[], entries: Expectation[], now: Date): ExpectationNote[] {
  const notes: ExpectationNote[] = []
  for (const e of entries) {
    const mine = checks.filter((c) => c.clause === e.clause && c.status !== 'skipped')
    const expired = isExpired(e, now)
    const failing = mine.filter((c) => c.status === 'failed')
    let outcome: ExpectationNote['outcome']
    if (expired) outcome = 'expired'
    else if (!mine.length) outcome = 'not-run'
    else if (failing.length) outcome = 'known'
    else if (mine.every((c) => c.status === 'passed' || c.status === 'flaky')) outcome = 'now-passes'
    else outcome = 'not-run'
    const note: ExpectationNote = { ...e, outcome }
    for (const c of mine) {
      c.expectation = note
      if (outcome === 'known' && c.status === 'failed') c.status = 'known'
    }
    notes.push(note)
  }
  return notes
}

/**
 * The known-failures entries of the run's target: EXPECTATIONS_FILE (from the environment or .env) when set,
 * else `expectations/<slug>.json` when it exists. Throws ExpectationsError on a missing or invalid file.
 */
export function expectationsFor(baseUrl: string | null, env: Record<string, string | undefined> = readEnv(), paths: ApiPaths = {}): LoadedExpectations & { slug: string } {
  const slug = targetSlug(baseUrl, paths)
  return { slug, ...loadExpectations({ slug, explicitFile: env.EXPECTATIONS_FILE ?? null }) }
}
