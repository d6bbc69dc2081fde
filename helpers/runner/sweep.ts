/**
 * The sweep: deletes disposable channels that earlier runs left behind (an interrupt, a crash, a CI job
 * killed mid-run). It runs at the start of every run against a real target (helpers/runner/prepare.ts) and as
 * `npm run sweep [-- --dry-run]`.
 *
 * Sources: the ledgers of earlier runs in REPORT_DIR/.ledger (written ahead of every create, so they know
 * private channels too), and a best-effort search of public channels by the name prefix — the spec does not
 * say how search matches names, so the search may miss some and is never relied on alone.
 *
 * A channel is deleted only when all of this is proven: its name has the suite's form (`ct<run>…`), not
 * of the running run; get-by-name, asked by a suite account, answers it with a `creator` that begins with
 * that account's user id (and, for a private channel, that `userId`); and it is at least
 * SWEEP_MIN_AGE_MINUTES old by the server's creationDate and by the ledger (a concurrent run's channels are
 * younger). Whatever cannot be proven is kept and listed with the reason.
 */
import { Api } from '../http/api'
import { isSuccess, type HttpClient } from '../http/client'
import type { AccountKey } from '../config/config'
import { appendLedger, listLedgers, liveEntries, removeLedger, targetKey, type LedgerEntry } from '../http/ledger'
import { redact } from '../http/redact'
import type { RunAccount, Target } from '../http/run-context'
import type { TokenSessions } from '../http/tokens'

/**
 * The form of every name the suite makes (check.ts): `ct`, the 6-hex run id, 2 digits of worker, 3 hex of
 * file, then a sequence number, all lowercase letters and digits; `npm run explore` names its channels `ct`,
 * the run id, `x` and a tag of its own (other characters only where the server took them). Names of earlier versions of the suite,
 * `ct-<run id>-…`, are still recognised, so their leftovers are swept too.
 */
export const SUITE_NAME = /^ct(?:([0-9a-f]{6})[0-9]{2}[0-9a-f]{3}[0-9]+|([0-9a-f]{6})x[A-Za-z0-9._-]+|-([0-9a-f]{6})-[A-Za-z0-9._-]+)$/

/** The run id inside a name of the suite's form, or undefined. */
export function runIdOfName(name: string): string | undefined {
  const m = SUITE_NAME.exec(name)
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined
}

export interface SweepOptions {
  http: HttpClient
  target: Target
  accounts: Record<AccountKey, Pick<RunAccount, 'key' | 'token' | 'userId'>>
  /** The accounts' current tokens, renewed when they expire mid-sweep; without it the tokens above are used as they are. */
  sessions?: TokenSessions
  reportDir: string
  minAgeMinutes: number
  dryRun?: boolean
  /** The running run: its ledger and its channels are never swept. */
  currentRunId?: string
  /** Search public channels by prefix too (off for the embedded server, which starts empty). */
  search?: boolean
  /** At most this many channels are examined per sweep, so a start-of-run sweep stays short. */
  maxCandidates?: number
  now?: () => number
  log?: (line: string) => void
}

export interface SweepReport {
  examined: number
  deleted: string[]
  /** --dry-run: what a sweep would delete. */
  wouldDelete: string[]
  kept: { name: string; reason: string }[]
  problems: string[]
}

interface Candidate {
  name: string
  personal: boolean
  ownerKey: AccountKey | null
  /** From a ledger: its creation time and file. */
  createdAt?: number
  ledger?: string
}

const PAGE = 100
const MAX_PAGES = 10

export async function sweep(opts: SweepOptions): Promise<SweepReport> {
  const now = opts.now ?? Date.now
  const minAgeMs = opts.minAgeMinutes * 60_000
  const report: SweepReport = { examined: 0, deleted: [], wouldDelete: [], kept: [], problems: [] }
  const here = targetKey(opts.target)
  const keys = Object.keys(opts.accounts) as AccountKey[]
  const api = (key: AccountKey) => new Api(opts.http, opts.target, opts.accounts[key].token, undefined, {}, opts.sessions?.source(key))

  // 1. Ledgers of earlier runs.
  const candidates = new Map<string, Candidate>()
  const ledgers = listLedgers(opts.reportDir).filter((l) => l.runId !== opts.currentRunId)
  const touched = new Set<string>()
  for (const l of ledgers) {
    const live = liveEntries(l.path)
    const mine = live.filter((e) => e.target === here && !e.embedded)
    // Nothing live, or only channels of an embedded server (which ended with its run, and its channels with
    // it): an old ledger of that kind is only a file. A young one may belong to a run still going.
    if (live.every((e) => e.embedded) && now() - l.mtimeMs >= minAgeMs) {
      if (!opts.dryRun) removeLedger(l.path)
      continue
    }
    for (const e of mine) {
      const c: Candidate = { name: e.name, personal: e.personal, ownerKey: e.ownerKey, createdAt: Date.parse(e.createdAt), ledger: l.path }
      candidates.set(candidateKey(c), c)
      touched.add(l.path)
    }
  }

  // 2. Best effort: public channels whose names have the suite's prefix. Pages are advanced by what each one
  // held, since a server may cut a page below the size asked for (the spec gives no maximum).
  if (opts.search !== false && keys.length) {
    try {
      let offset = 0
      for (let page = 0; page < MAX_PAGES; page++) {
        const ex = await api(keys[0]!).searchChannels({ channelName: 'ct', offset, size: PAGE })
        const body = ex.json as { total?: unknown; results?: { name?: unknown }[] } | undefined
        if (ex.status !== 200 || !Array.isArray(body?.results)) {
          if (page === 0) report.problems.push(`search by prefix answered ${ex.status}; only the ledgers were used`)
          break
        }
        for (const r of body.results) {
          if (typeof r?.name !== 'string' || !SUITE_NAME.test(r.name)) continue
          const c: Candidate = { name: r.name, personal: false, ownerKey: null }
          if (![...candidates.values()].some((x) => !x.personal && x.name.toLowerCase() === c.name.toLowerCase())) candidates.set(candidateKey(c), c)
        }
        offset += body.results.length
        if (body.results.length === 0 || (typeof body.total === 'number' && offset >= body.total)) break
      }
    } catch (err) {
      report.problems.push(`search by prefix failed (${redact((err as Error).message)}); only the ledgers were used`)
    }
  }

  // 3. Prove each one the suite's, old enough, then delete it by its owner.
  const queue = [...candidates.values()].slice(0, opts.maxCandidates ?? 500)
  const gone: { c: Candidate; owner: AccountKey | null }[] = []
  await Promise.all(
    Array.from({ length: Math.min(8, queue.length) }, async () => {
      for (let c = queue.shift(); c; c = queue.shift()) {
        report.examined++
        try {
          const verdict = await examine(c)
          if (verdict.kind === 'keep') report.kept.push({ name: c.name, reason: verdict.reason })
          else if (verdict.kind === 'gone') gone.push({ c, owner: c.ownerKey })
          else if (opts.dryRun) report.wouldDelete.push(label(c))
          else {
            const ex = await api(verdict.owner).deleteChannel(c.name, c.personal || undefined, { retry: true })
            if (isSuccess(ex) || ex.status === 404) {
              report.deleted.push(label(c))
              gone.push({ c, owner: verdict.owner })
            } else report.problems.push(`${c.name}: delete answered ${ex.status}`)
          }
        } catch (err) {
          report.problems.push(`${c.name}: ${redact((err as Error).message)}`)
        }
      }
    }),
  )
  report.kept.sort((x, y) => x.name.localeCompare(y.name))

  // 4. Ledgers: tombstones for what is gone; a ledger with nothing live left is removed.
  if (!opts.dryRun) {
    for (const { c, owner } of gone) {
      if (!c.ledger) continue
      const tomb: LedgerEntry = {
        name: c.name,
        ownerKey: c.ownerKey ?? owner,
        personal: c.personal,
        createdAt: new Date(now()).toISOString(),
        runId: 'sweep',
        target: here,
        deleted: true,
      }
      appendLedger(c.ledger, tomb)
    }
    for (const path of touched) if (liveEntries(path).length === 0) removeLedger(path)
  }
  return report

  type Verdict = { kind: 'keep'; reason: string } | { kind: 'gone' } | { kind: 'delete'; owner: AccountKey }

  async function examine(c: Candidate): Promise<Verdict> {
    const runId = runIdOfName(c.name)
    if (!runId) return { kind: 'keep', reason: "name is not of the suite's form ct<run>…" }
    if (runId === opts.currentRunId) return { kind: 'keep', reason: 'belongs to the running run' }
    // Ask as the recorded owner (a private channel is visible only to it), else as the first account.
    const asker = c.ownerKey && opts.accounts[c.ownerKey] ? c.ownerKey : keys[0]!
    const ex = await api(asker).getChannel(c.name)
    if (ex.status === 404) return c.ledger ? { kind: 'gone' } : { kind: 'keep', reason: 'get-by-name answered 404' }
    if (ex.status !== 200) return { kind: 'keep', reason: `get-by-name answered ${ex.status}` }
    const ch = ex.json as { name?: unknown; creator?: unknown; userId?: unknown; privateChannel?: unknown; creationDate?: unknown } | undefined
    if (typeof ch?.name === 'string' && ch.name.toLowerCase() !== c.name.toLowerCase())
      return { kind: 'keep', reason: `get-by-name answered another channel (${ch.name})` }
    const creator = typeof ch?.creator === 'string' ? ch.creator : ''
    const owner = keys.find((k) => ownsCreator(creator, opts.accounts[k].userId))
    if (!owner) return { kind: 'keep', reason: "its creator is none of the suite's accounts" }
    if (c.ownerKey && owner !== c.ownerKey) return { kind: 'keep', reason: `its creator is account ${owner}, the ledger says ${c.ownerKey}` }
    if (c.personal || ch?.privateChannel === true) {
      if (typeof ch?.userId === 'string' && ch.userId !== opts.accounts[owner].userId) return { kind: 'keep', reason: 'private channel of another user' }
      if (!c.personal) return { kind: 'keep', reason: 'private channel not in a ledger' }
    }
    const created = typeof ch?.creationDate === 'string' ? Date.parse(ch.creationDate) : NaN
    const ages = [created, c.createdAt ?? NaN].filter((t) => Number.isFinite(t))
    if (!ages.length) return { kind: 'keep', reason: 'its age cannot be told (no creationDate)' }
    const youngest = Math.max(...ages)
    if (now() - youngest < minAgeMs) return { kind: 'keep', reason: `younger than ${opts.minAgeMinutes} min (a run may still be using it)` }
    return { kind: 'delete', owner }
  }
}

function candidateKey(c: Candidate): string {
  return `${c.personal ? `p:${c.ownerKey}` : 'public'}|${c.name.toLowerCase()}`
}

function label(c: Candidate): string {
  return c.personal ? `${c.name} (private, account ${c.ownerKey})` : c.name
}

/** The spec's creator: the user id, then a separator, then the rest. */
export function ownsCreator(creator: string, userId: string): boolean {
  if (!userId || !creator.startsWith(userId)) return false
  return creator.length === userId.length || !/[A-Za-z0-9]/.test(creator[userId.length]!)
}

export function formatSweep(r: SweepReport, dryRun: boolean): string[] {
  const lines: string[] = []
  if (dryRun) {
    lines.push(`sweep (dry run): ${r.wouldDelete.length} leftover channel(s) would be deleted${r.wouldDelete.length ? ':' : ''}`)
    for (const n of r.wouldDelete) lines.push(`  - ${n}`)
  } else {
    lines.push(`sweep: deleted ${r.deleted.length} leftover channel(s) of earlier runs${r.deleted.length ? ':' : ''}`)
    for (const n of r.deleted) lines.push(`  - ${n}`)
  }
  if (r.kept.length) {
    lines.push(`  kept ${r.kept.length} ct channel(s) it cannot prove are old leftovers of the suite:`)
    for (const k of r.kept.slice(0, 20)) lines.push(`  - ${k.name}: ${k.reason}`)
    if (r.kept.length > 20) lines.push(`  … and ${r.kept.length - 20} more`)
  }
  for (const p of r.problems) lines.push(`  problem: ${p}`)
  return lines
}
