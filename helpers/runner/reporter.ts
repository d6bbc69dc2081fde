/**
 * A vitest reporter that turns test cases into CheckResults (main entry per check, plus one entry per
 * clause of the findings a check recorded at another level) and prints one progress line per suite file.
 */
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node'
import { clause as clauseOf, isClauseId, titleOf, type ClauseId } from '../spec/clauses'
import type { CheckMeta, Finding, LoggedExchange } from '../http/recorder'
import { redact } from '../http/redact'
import { reproducerOf, type ReplayContext } from '../reports/reproducer'
import type { CheckResult, Status } from '../reports/results'
import { decideStatus, type RaisedError } from '../reports/status'

export class CollectingReporter implements Reporter {
  readonly checks: CheckResult[] = []
  readonly errors: string[] = []
  readonly cleanup: string[] = []
  /** Durations and 5xx answers per endpoint template, over every check (results.json `latency`). */
  readonly latency: Record<string, { ms: number[]; errors: number }> = {}
  /** Every recorded exchange of the run, redacted (exchanges.har). */
  readonly exchanges: LoggedExchange[] = []
  /** When the first check started and the last one ended (epoch ms), for results.json `timing`. */
  firstCheckAt: number | null = null
  lastCheckEndAt: number | null = null
  private readonly root: string

  /**
   * `origin`: the target's origin (or the run's values a reproducer replaces by variables: helpers/reports/reproducer.ts); `runStart`: the run's start (epoch ms),
   * from which each check's `timing.startMs` counts.
   */
  constructor(
    private readonly progress: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
    root = process.cwd(),
    private readonly origin: string | ReplayContext = 'http://127.0.0.1:8080',
    private readonly runStart = Date.now(),
  ) {
    this.root = root.endsWith('/') ? root : `${root}/`
  }

  onTestCaseResult(testCase: TestCase): void {
    // The clause check() bound in the test's meta (helpers/kit/check.ts), not parsed from the title.
    const id = testCase.meta().clause
    if (!id || !isClauseId(id)) {
      // Every test of the suite must be a check() naming a registered clause; anything else is a suite defect.
      this.errors.push(`${this.relative(testCase.module.moduleId)}: test '${testCase.fullName}' names no registered clause`)
      return
    }
    const entries = toResults(testCase, this.relative(testCase.module.moduleId), this.origin)
    const meta = testCase.meta().evidence ?? {}
    const diagnostic = testCase.diagnostic()
    const main = entries.checks[0]
    if (diagnostic && main && main.status !== 'skipped') {
      // When it started after the run's start, and how much of it its requests took (the rest: its own waits and work).
      const networkMs = Object.values(meta.latency ?? {}).reduce((n, { ms }) => n + ms.reduce((x, y) => x + y, 0), 0)
      main.timing = { startMs: Math.round(diagnostic.startTime - this.runStart), networkMs: Math.round(networkMs) }
      this.firstCheckAt = Math.min(this.firstCheckAt ?? Infinity, diagnostic.startTime)
      this.lastCheckEndAt = Math.max(this.lastCheckEndAt ?? 0, diagnostic.startTime + diagnostic.duration)
    }
    this.checks.push(...entries.checks)
    for (const [endpoint, { ms, errors }] of Object.entries(meta.latency ?? {})) {
      const into = (this.latency[endpoint] ??= { ms: [], errors: 0 })
      into.ms.push(...ms)
      into.errors += errors
    }
    this.exchanges.push(...(meta.log ?? []))
    this.cleanup.push(...entries.cleanup)
  }

  onTestModuleEnd(module: TestModule): void {
    const file = this.relative(module.moduleId)
    for (const err of module.errors()) this.errors.push(`${file}: ${redact(errorText(err))}`)
    const mine = this.checks.filter((c) => c.file === file && !c.parent)
    const bad = mine.filter((c) => c.status === 'failed' || c.status === 'error' || c.status === 'blocked').length
    const mark = module.errors().length ? '✗' : bad ? '✗' : '✓'
    this.progress(`  ${mark} ${file}  ${mine.length} checks${bad ? `, ${bad} not passed` : ''}${module.errors().length ? ', file error' : ''}`)
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    for (const err of unhandled) this.errors.push(`unhandled: ${redact(errorText(err))}`)
  }

  private relative(path: string): string {
    return path.startsWith(this.root) ? path.slice(this.root.length) : path
  }
}

/**
 * The clause a CheckFailure names: its `clauseId`, an own enumerable property, which vitest's serialization of
 * a test's errors keeps (the fault self-test proves it: a set-up failure must end blocked, not failed).
 */
export function failureClauseOf(err: { clauseId?: unknown }): string | undefined {
  return typeof err.clauseId === 'string' && isClauseId(err.clauseId) ? err.clauseId : undefined
}

function errorText(err: SerializedError): string {
  return `${err.name ?? 'Error'}: ${err.message ?? String(err)}`
}

/**
 * An entry's evidence: the exchange its failure under `clause` was about (the request line its message names),
 * newest last after the exchanges before it; the check's cleanup is never evidence. Without a noted failing
 * exchange (a failure that named none), the check's last exchanges.
 */
export function evidenceField(meta: Pick<CheckMeta, 'exchanges' | 'failing'>, clause: string, message: string | undefined): { evidence?: string[] } {
  const mine = (meta.failing ?? []).filter((f) => f.clause === clause)
  const head = `[${clause} `
  const line = (message ?? '').split('\n').find((l) => l.startsWith(head) && /^\[\S+ (?:MUST|SHOULD|INFO)\] .+ → \d{3}$/.test(l))
  const named = line?.replace(/^\[\S+ \S+\] /, '')
  const chosen = (named ? mine.find((f) => f.head === named) : undefined) ?? mine.at(-1)
  const evidence = chosen?.evidence ?? meta.exchanges ?? []
  return evidence.length ? { evidence } : {}
}

export function toResults(
  testCase: TestCase,
  file: string,
  origin: string | ReplayContext = 'http://127.0.0.1:8080',
): { checks: CheckResult[]; cleanup: string[] } {
  const id = testCase.meta().clause!
  const c = clauseOf(id)
  const given = testCase.meta().evidence ?? {}
  // Copies of recorded failures among the findings are there for the Allure view only; `failures` charges them.
  const meta: CheckMeta = { ...given, findings: (given.findings ?? []).filter((f) => !f.recorded) }
  const raw = testCase.result()
  // Failures recorded without stopping the check come first: they happened before whatever stopped it.
  const recorded: RaisedError[] = (meta.failures ?? []).map((f) => ({ name: 'CheckFailure', message: f.message, clause: f.clause }))
  const thrown: RaisedError[] =
    raw.state === 'failed' ? raw.errors.map((e) => ({ name: e.name, message: e.message, clause: failureClauseOf(e as { clauseId?: unknown }) })) : []
  const title = titleOf(testCase.name)
  const checkId = `${id}: ${title}`
  const decision = decideStatus({
    clause: id,
    level: c.level,
    state: raw.state,
    errors: raw.state === 'passed' || raw.state === 'failed' ? [...recorded, ...thrown] : [],
    retried: (meta.retries ?? 0) > 0 || (testCase.diagnostic()?.retryCount ?? 0) > 0,
    unavailable: meta.unavailable ?? 0,
    earlierAttempts: raw.state === 'passed' ? (raw.errors ?? []).map((e) => ({ name: e.name, message: e.message })) : [],
  })
  const status: Status = decision.status
  // A check that skips itself says why (`skip(note)`): what it could not judge, in its own words.
  const note = raw.state === 'skipped' && raw.note ? `not run: ${raw.note}` : undefined
  const message = decision.message === undefined ? (note === undefined ? undefined : redact(note)) : redact(decision.message)
  /** A set-up step's failure, charged to the step's clause: the check is blocked by it. */
  const step = decision.step ? { clause: decision.step.clause, message: redact(decision.step.message) } : undefined
  const extraFailures: Finding[] = decision.others.map((o) => ({
    clause: o.clause,
    level: clauseOf(o.clause as ClauseId).level,
    status: 'failed',
    message: redact(o.message),
  }))
  const unjudged = (meta.unavailable ?? 0) > 0 && status !== 'skipped'
  const own = (meta.findings ?? []).filter((f) => f.clause === id)
  const main: CheckResult = {
    id: checkId,
    title,
    clause: id,
    section: c.section,
    area: c.area,
    level: c.level,
    status,
    durationMs: Math.round(testCase.diagnostic()?.duration ?? 0),
    file,
    ...(message ? { message } : {}),
    ...(own.length ? { observation: own.map((f) => f.message).join('\n') } : {}),
    ...(status === 'failed' || status === 'error' || status === 'blocked' ? evidenceField(meta, step?.clause ?? id, step?.message ?? message) : {}),
    requests: meta.requests ?? 0,
    retries: meta.retries ?? 0,
    ...(status === 'blocked' && step ? { blockedBy: step.clause } : {}),
  }
  // The exchange a clause's failure was about, as the recorder noted it: a reproducer ends there when the message names none.
  const failedAt = (clause: string) => (meta.failing ?? []).filter((f) => f.clause === clause).at(-1)?.head
  const replay = (text: string | undefined, entry: { id: string; clause: string }) =>
    meta.log?.length ? reproducerOf(meta.log, text, origin, { ...entry, failedAt: failedAt(entry.clause) }) : undefined
  if (status === 'failed' || status === 'error' || status === 'blocked') {
    const script = replay(step?.message ?? message, { id: checkId, clause: step?.clause ?? id })
    if (script) main.reproducer = script
  }
  const checks = [main]
  // One entry per other clause a check judged on the way (a SHOULD on a status, an INFO observation, the
  // failed set-up step that blocked it).
  const byClause = new Map<string, Finding[]>()
  for (const f of [...(meta.findings ?? []), ...extraFailures]) {
    if (f.clause === id) continue
    byClause.set(f.clause, [...(byClause.get(f.clause) ?? []), f])
  }
  if (step) {
    const sc = clauseOf(step.clause)
    byClause.set(step.clause, [...(byClause.get(step.clause) ?? []), { clause: step.clause, level: sc.level, status: 'failed', message: step.message }])
  }
  for (const [fid, findings] of byClause) {
    const fc = clauseOf(fid)
    const failed = findings.filter((f) => f.status === 'failed')
    const text = (failed.length ? failed : findings).map((f) => f.message)
    const script = failed.length ? replay(failed.map((f) => f.message).join('\n'), { id: `${checkId} > ${fid}`, clause: fid }) : undefined
    checks.push({
      id: `${checkId} > ${fid}`,
      title: `${title} — ${fc.title}`,
      clause: fid,
      section: fc.section,
      area: fc.area,
      level: fc.level,
      status: failed.length ? (unjudged ? 'error' : 'failed') : 'passed',
      durationMs: 0,
      file,
      ...(failed.length ? { message: [...new Set(text)].join('\n') } : { observation: [...new Set(text)].join('\n') }),
      ...(failed.length ? evidenceField(meta, fid, failed.map((f) => f.message).join('\n')) : {}),
      requests: 0,
      retries: 0,
      parent: checkId,
      ...(script ? { reproducer: script } : {}),
    })
  }
  return { checks, cleanup: meta.cleanup ?? [] }
}
