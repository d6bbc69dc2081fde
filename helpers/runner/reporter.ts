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
  const recorded = (meta.failures ?? []).map((f) => ({ name: 'CheckFailure', message: f.message, clauseId: f.clause }))
  const result =
    recorded.length && (raw.state === 'passed' || raw.state === 'failed')
      ? { state: 'failed' as const, errors: [...recorded, ...(raw.state === 'failed' ? raw.errors : [])] as { name?: string; message: string }[] }
      : raw
  const title = titleOf(testCase.name)
  const checkId = `${id}: ${title}`
  let status: Status
  let message: string | undefined
  /** A set-up step's failure, charged to the step's clause: the check is blocked by it. */
  let step: { clause: string; message: string } | undefined
  const extraFailures: Finding[] = []
  // Flaky: passed, but only after a retried request or a re-run of the whole check (RERUN_ERRORED).
  if (result.state === 'passed') status = (meta.retries ?? 0) > 0 || (testCase.diagnostic()?.retryCount ?? 0) > 0 ? 'flaky' : 'passed'
  else if (result.state === 'failed') {
    const err = result.errors[0] as { name?: string; message: string } | undefined
    status = err?.name === 'CheckFailure' || err?.name === 'AssertionError' ? 'failed' : 'error'
    message = redact(result.errors.map((e) => (e.name === 'CheckFailure' ? e.message : `${e.name}: ${e.message}`)).join('\n'))
    // A shape failure recorded without stopping the check (helpers/kit/expect.ts) may come before the check's own
    // failure: the check failed under its own clause when any of its failures names it.
    const clauses = result.errors.filter((e) => e.name === 'CheckFailure').map((e) => failureClauseOf(e as { clauseId?: unknown }))
    const ownFailure = clauses.includes(id)
    if (ownFailure && status !== 'failed') status = 'failed'
    const failedClause = ownFailure ? id : err?.name === 'CheckFailure' ? failureClauseOf(err as { clauseId?: unknown }) : undefined
    if (ownFailure) {
      // Other clauses that failed on the way (a set-up step's shape) are findings of their own, not a block.
      for (const e of result.errors) {
        const other = e.name === 'CheckFailure' ? failureClauseOf(e as { clauseId?: unknown }) : undefined
        if (other && other !== id) extraFailures.push({ clause: other, level: clauseOf(other as ClauseId).level, status: 'failed', message: redact(e.message) })
      }
    }
    if (failedClause && failedClause !== id) {
      // The check failed under another clause than its own: a step it needed failed (helpers/kit/setup.ts).
      step = { clause: failedClause, message }
      status = 'blocked'
      message = `could not be judged: a set-up step failed under ${failedClause}\n${message}`
    } else if (status === 'failed' && c.level === 'INFO') {
      // INFO is observed, never judged: a check that judged one anyway is a defect of the suite.
      status = 'error'
      message = `suite defect: an INFO check ended failed under its own clause (INFO is never judged)\n${message}`
    }
  } else status = 'skipped'
  const unjudged = (meta.unavailable ?? 0) > 0 && status !== 'skipped'
  if (unjudged && status !== 'error') {
    // The check's own requests met a 502/503/504 that outlived the retries: whatever it concluded rests on an
    // answer that judges nothing, so it is neither a pass nor a conformance failure.
    const seen = `${meta.unavailable} of its requests ended in 502/503/504 (server or gateway unavailable), so the check could not be judged`
    message = message ? `${seen}\n${message}` : seen
    status = 'error'
  }
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
    ...((status === 'failed' || status === 'error' || status === 'blocked') && meta.exchanges?.length ? { evidence: meta.exchanges } : {}),
    requests: meta.requests ?? 0,
    retries: meta.retries ?? 0,
    ...(status === 'blocked' && step ? { blockedBy: step.clause } : {}),
  }
  const replay = (text: string | undefined, entry: { id: string; clause: string }) =>
    meta.log?.length ? reproducerOf(meta.log, text, origin, entry) : undefined
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
      ...(failed.length && meta.exchanges?.length ? { evidence: meta.exchanges } : {}),
      requests: 0,
      retries: 0,
      parent: checkId,
      ...(script ? { reproducer: script } : {}),
    })
  }
  return { checks, cleanup: meta.cleanup ?? [] }
}
