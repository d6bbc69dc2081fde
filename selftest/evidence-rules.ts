/**
 * The rule every run's evidence keeps (issue: the failing exchange as evidence): the exchange a cause shows, and
 * the last exchange of an entry's evidence, is the one its message is about (the `[clause LEVEL] METHOD URL →
 * status` line the failure names), never a request of the check's cleanup. Shared by the evidence self-test and
 * the fault self-test, which applies it to the run of every catalogue fault it already makes.
 */
import type { RunResults } from '../helpers/reports/results'

/** The request line a failure block names: `METHOD URL → status`, from its first `[clause LEVEL] …` line. */
export function namedExchange(message: string | undefined, clause?: string): string | undefined {
  const line = (message ?? '').split('\n').find((l) => /^\[\S+ (?:MUST|SHOULD|INFO)\] \S+ \S+ → \d{3}$/.test(l) && (!clause || l.startsWith(`[${clause} `)))
  return line?.replace(/^\[\S+ \S+\] /, '')
}

/** The request line an evidence block starts with. */
const requestLine = (evidence: string | undefined) => /^(\S+ \S+ → \d{3})/.exec(evidence ?? '')?.[1]

/** Where a run breaks the rule: one sentence per cause or entry whose shown exchange is not the one its message names. */
export function evidenceProblems(r: RunResults): string[] {
  const problems: string[] = []
  for (const c of r.causes ?? []) {
    const named = namedExchange(c.representative.message)
    if (named && requestLine(c.representative.evidence) !== named)
      problems.push(`cause ${c.id} (${c.headline}): shows ${requestLine(c.representative.evidence) ?? 'no exchange'}, its message names ${named}`)
  }
  for (const e of r.checks) {
    if (e.status !== 'failed' || !e.evidence?.length) continue
    const named = namedExchange(e.message, e.clause)
    if (named && requestLine(e.evidence.at(-1)) !== named)
      problems.push(`entry ${e.id}: evidence ends with ${requestLine(e.evidence.at(-1))}, its message names ${named}`)
  }
  return problems
}
