/**
 * Hand-made RunResults for the report builders' tests: one check per testable clause of the registry, every
 * one passed, and chosen clauses turned into failures, errors or flaky passes with messages and evidence that
 * carry HTML, Markdown and XML metacharacters (and a secret, for the redaction tests).
 */
import { CLAUSES } from '../helpers/spec/clauses'
import { applyExpectations } from '../helpers/reports/expectations'
import {
  countChecks,
  coverageOf,
  judge,
  RESULTS_FORMAT,
  type CheckResult,
  type Expectation,
  type RunResults,
  type Status,
  type TargetInfo,
} from '../helpers/reports/results'

export const NASTY = `<script>alert("x")</script> & | pipe \`tick\` ]]> *star*`

export interface Change {
  status: Status
  message?: string
  evidence?: string[]
}

export interface FixtureOptions {
  runId?: string
  startedAt?: string
  target?: string
  targetSlug?: string
  strict?: boolean
  /** Clause id → what its check does in this run. */
  changes?: Record<string, Change>
  /** Clauses that get no check at all (as if filtered out). */
  omit?: string[]
  expectations?: Expectation[]
  expectationsFile?: string
}

/** A target written as its display string, `<url> (user API <path>, message API <path>)`, for short fixtures. */
export function targetOf(display: string, embedded = false): TargetInfo {
  const m = /^(\S+) \(user API (\S+), message API (\S+)\)/.exec(display)
  return { display, url: m?.[1] ?? display.split(' ')[0] ?? display, userApiPath: m?.[2] ?? '', messageApiPath: m?.[3] ?? '', embedded }
}

export function failureMessage(id: string): string {
  return [
    `[${id} MUST] GET /message/api/v2/channels/ct-run-1 → 200`,
    `  /maxItems: got 10 (number), want -1 ${NASTY}`,
    `  response (application/json): {"name":"ct-run-1","maxItems":10}`,
  ].join('\n')
}

export function evidenceFor(id: string): string[] {
  return [
    `POST /message/api/v2/channels → 201\n  request body: {"channelName":"ct-run-1","description":"${NASTY}"}\n  response (application/json): {"code":201}`,
    `GET /message/api/v2/channels/ct-run-1 → 200\n  response (application/json): {"name":"ct-run-1","clause":"${id}"}`,
  ]
}

export function fixtureRun(opts: FixtureOptions = {}): RunResults {
  const changes = opts.changes ?? {}
  const omit = new Set(opts.omit ?? [])
  const checks: CheckResult[] = CLAUSES.filter((c) => !c.notTestable && !omit.has(c.id)).map((c) => {
    const ch = changes[c.id]
    const status: Status = ch?.status ?? 'passed'
    const bad = status === 'failed' || status === 'error'
    return {
      id: `${c.id}: checks ${c.title}`,
      title: `checks ${c.title}`,
      clause: c.id,
      section: c.section,
      area: c.area,
      level: c.level,
      status,
      durationMs: 12,
      file: `suites/${c.area}.test.ts`,
      ...(bad ? { message: ch?.message ?? failureMessage(c.id), evidence: ch?.evidence ?? evidenceFor(c.id) } : {}),
      ...(!bad && c.level === 'INFO' ? { observation: `observed value for ${c.id}` } : {}),
      requests: 2,
      retries: status === 'flaky' ? 1 : 0,
    }
  })
  const startedAt = opts.startedAt ?? '2025-11-20T02:00:00.000Z'
  const notes = applyExpectations(checks, opts.expectations ?? [], new Date(startedAt))
  const counts = countChecks(checks)
  const strict = opts.strict ?? false
  const { verdict, exitCode } = judge(counts, { strict, interrupted: false, errors: 0 })
  const ended = new Date(Date.parse(startedAt) + 9_000).toISOString()
  return {
    format: RESULTS_FORMAT,
    suite: { name: 'messaging-channel-conformance', version: '0.1.0' },
    target: targetOf(opts.target ?? 'https://staging.example.com (user API /mobile/api/com.vendor.server, message API /message/api/v2)'),
    runId: opts.runId ?? 'aaa111',
    seed: 42,
    startedAt,
    endedAt: ended,
    durationMs: 9_000,
    strict,
    filters: { areas: [], level: null },
    interrupted: false,
    verdict,
    exitCode,
    counts,
    http: { requests: checks.length * 2, retries: 0 },
    checks,
    cleanup: [],
    errors: [],
    coverage: coverageOf(checks),
    ...(opts.targetSlug ? { targetSlug: opts.targetSlug } : {}),
    expectations: { file: opts.expectationsFile ?? (opts.expectations ? 'expectations/staging.example.com.json' : null), entries: notes },
  }
}

/** A run where publishing fails: items.get.shape's check is blocked, its publish failed under items.publish.response. */
export function blockedRun(opts: FixtureOptions = {}): RunResults {
  const r = fixtureRun(opts)
  const get = r.checks.find((c) => c.clause === 'items.get.shape')!
  const publish = r.checks.find((c) => c.clause === 'items.publish.response')!
  Object.assign(get, {
    status: 'blocked',
    blockedBy: 'items.publish.response',
    message: 'could not be judged: a set-up step failed under items.publish.response',
  })
  r.checks.push({
    ...publish,
    id: `${get.id} > items.publish.response`,
    status: 'failed',
    parent: get.id,
    message: '[items.publish.response MUST] POST … → 403',
  })
  r.counts = countChecks(r.checks)
  Object.assign(r, judge(r.counts, { strict: false, interrupted: false, errors: 0 }))
  return r
}

/** A bare check result of one level and status, for the tests of the verdict rules. */
export const bareResult = (level: CheckResult['level'], status: CheckResult['status']): CheckResult => ({
  id: `${level}-${status}`,
  title: 't',
  clause: 'x',
  section: '§',
  area: 'channels',
  level,
  status,
  durationMs: 0,
  file: 'f',
  requests: 0,
  retries: 0,
})
