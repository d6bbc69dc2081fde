/**
 * The Allure results directory, finished in the main process after a run: `finishAllureResults` sets each
 * result's status from results.json and passes every file the reporter wrote through redact() once more, as
 * the main process knows every secret of the run. The labels and steps of each check are written in the test
 * worker by helpers/kit/allure.ts.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { titleOf } from '../spec/clauses'
import { redact } from '../http/redact'
import type { ReportModel } from './model'
import type { RunResults, Status } from './results'

export const ALLURE_DIR = 'allure-results'

/** Empties the results directory before a run, so `allure generate` shows this run only. */
export function resetAllureResults(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
}

/** Allure's status for a status of results.json (failed = the server, broken = the run could not judge). */
const ALLURE_STATUS: Record<Status, { status: string; known?: boolean; flaky?: boolean }> = {
  passed: { status: 'passed' },
  flaky: { status: 'passed', flaky: true },
  failed: { status: 'failed' },
  known: { status: 'failed', known: true },
  error: { status: 'broken' },
  skipped: { status: 'skipped' },
  // Not judged: a set-up step failed under another clause, which has a failed result of its own.
  blocked: { status: 'skipped' },
}

interface AllureResultFile {
  name?: string
  status?: string
  labels?: { name: string; value: string }[]
  statusDetails?: { message?: string; trace?: string; known?: boolean; flaky?: boolean }
}

/**
 * Finishes the results directory after the run, from the report model of results.json (the single source of truth): each test
 * result gets the status of its check there (a CheckFailure is `failed`, an error `broken`, a known failure
 * `failed` marked known, a flaky pass marked flaky, a blocked check `skipped` naming the step's clause), and every file passes through redact() once more, since
 * the reporter writes error messages and stack traces from the raw test errors. Returns how many files changed.
 */
export function finishAllureResults(dir: string, m?: ReportModel): number {
  const results = m?.results
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return 0
  }
  const byId = new Map((results?.checks ?? []).filter((c) => !c.parent).map((c) => [c.id, c]))
  // SHOULD findings that failed inside a check: a tag on that check, so a passing test still shows its warning.
  const warnings = new Map<string, Set<string>>()
  for (const c of results?.checks ?? []) if (c.parent && c.level === 'SHOULD' && c.status === 'failed') warnings.set(c.parent, (warnings.get(c.parent) ?? new Set()).add(c.clause))
  // The deviations (results.json `causes`) each test failed or was blocked by: a tag each, so Allure groups one
  // deviation's tests under one tag whatever their clause.
  const causeTags = new Map<string, Set<string>>()
  const ownerOf = new Map((results?.checks ?? []).map((c) => [c.id, c.parent ?? c.id]))
  for (const cause of m?.causesStored ? m.causes : []) {
    for (const entry of [...cause.entries, ...cause.blocked]) {
      const test = ownerOf.get(entry) ?? entry
      causeTags.set(test, (causeTags.get(test) ?? new Set()).add(`cause ${cause.id}: ${cause.headline}`))
    }
  }
  let changed = 0
  for (const name of names) {
    const path = join(dir, name)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      continue
    }
    let clean = redact(text)
    if (name.endsWith('-result.json') && byId.size) {
      try {
        const r = JSON.parse(clean) as AllureResultFile
        // The clause label labelCheck set from the check's bound clause, not the title.
        const id = r.labels?.find((l) => l.name === 'clause')?.value
        const check = id && r.name ? byId.get(`${id}: ${titleOf(r.name)}`) : undefined
        if (check) {
          const want = ALLURE_STATUS[check.status]
          r.status = want.status
          // The status in results.json as a label: allurerc.mjs sorts known failures, warnings and blocked checks by it.
          const warned = [...(warnings.get(check.id) ?? [])].map((clause) => ({ name: 'tag', value: `SHOULD warning: ${clause}` }))
          const caused = [...(causeTags.get(check.id) ?? [])].map((value) => ({ name: 'tag', value }))
          const ours = (l: { name: string; value: string }) => l.name === 'outcome' || (l.name === 'tag' && (l.value.startsWith('SHOULD warning: ') || l.value.startsWith('cause ')))
          r.labels = [...(r.labels ?? []).filter((l) => !ours(l)), { name: 'outcome', value: check.status }, ...warned, ...caused]
          if (want.known || want.flaky) r.statusDetails = { ...r.statusDetails, ...(want.known ? { known: true } : {}), ...(want.flaky ? { flaky: true } : {}) }
          if (check.status === 'blocked' && check.blockedBy) {
            r.statusDetails = { ...r.statusDetails, message: redact(`blocked by ${check.blockedBy}: a set-up step failed, so this clause could not be judged\n${r.statusDetails?.message ?? ''}`) }
          }
          if (check.status === 'known' && check.expectation) {
            r.statusDetails = { ...r.statusDetails, message: redact(`known failure: ${check.expectation.reason} (until ${check.expectation.expires})\n${r.statusDetails?.message ?? ''}`) }
          }
          clean = JSON.stringify(r)
        }
      } catch {
        // Not a result this pass understands: redacted as text is all it needs.
      }
    }
    if (name === 'environment.properties' && results?.verdict && results.counts) clean = withVerdict(clean, { verdict: results.verdict, exitCode: results.exitCode ?? 2, counts: results.counts })
    if (clean !== text) {
      writeFileSync(path, clean)
      changed++
    }
  }
  return changed
}

/** The run's verdict and counts in Allure's environment widget (written before the verdict was known). */
function withVerdict(props: string, r: Pick<RunResults, 'verdict' | 'exitCode' | 'counts'>): string {
  const keep = props.split('\n').filter((l) => l.trim() && !/^(verdict|exitCode|mustFailed|shouldFailed|errors)=/.test(l))
  const t = r.counts
  keep.push(`verdict=${r.verdict}`, `exitCode=${r.exitCode}`, `mustFailed=${t.MUST.failed}`, `shouldFailed=${t.SHOULD.failed}`, `errors=${t.total.error}`)
  return `${keep.join('\n')}\n`
}
