/**
 * The run's ledger of created channels: one JSON line per channel, appended by the `channels` fixture before
 * the create request leaves (write-ahead: an interrupt or a lost response must not hide a channel the server
 * made), and a tombstone line once its owner has deleted it (or the server refused to make it). Whatever is
 * still live in the ledger when the run ends or is interrupted is deleted by the main process with the run's
 * tokens; a ledger left by a crashed run is the first source of the next sweep. Only names and account keys
 * are written, never a token or a password.
 *
 * Layout: `<REPORT_DIR>/.ledger/<runId>.jsonl`. Lines are appended with O_APPEND from several worker threads;
 * each line is one small write, so lines never interleave.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { Api, type ChannelLog } from './api'
import { HttpClient, isSuccess } from './client'
import type { AccountKey } from './run-context'
import { Pacer } from './pace'
import { redact, safeOrigin } from './redact'
import type { RunContext, Target } from './run-context'
import { TokenSessions } from './tokens'

export interface LedgerEntry {
  name: string
  /** The account that created it, so its token can delete it; null when the creating token was not a run account's. */
  ownerKey: AccountKey | null
  /** Created as a private channel: deleted with personal=true. */
  personal: boolean
  createdAt: string
  runId: string
  /** Origin and message API path (no credentials): an entry is only ever acted on against the same target. */
  target: string
  /** Made on the embedded reference server, which ended with its run: nothing to delete later. */
  embedded?: boolean
  /** A tombstone: the channel is gone (deleted by its owner, or never made). */
  deleted?: true
}

export const LEDGER_DIR = '.ledger'

export function ledgerDir(reportDir: string): string {
  return resolve(reportDir, LEDGER_DIR)
}

export function ledgerPathFor(reportDir: string, runId: string): string {
  return join(ledgerDir(reportDir), `${runId}.jsonl`)
}

/** Creates the ledger directory; the file itself appears with the first created channel. */
export function openLedger(reportDir: string, runId: string): string {
  mkdirSync(ledgerDir(reportDir), { recursive: true })
  return ledgerPathFor(reportDir, runId)
}

/** The key that identifies a target in ledger entries: origin and message API path, never credentials. */
export function targetKey(target: Pick<Target, 'baseUrl' | 'messageApiPath'>): string {
  return `${safeOrigin(target.baseUrl)}${target.messageApiPath}`
}

/** Ledgers this thread writes to, kept open: a run writes a line per create and delete, a thousand and more. */
const open = new Map<string, number>()

/** One line, written through to the file at once (as an append would: a crash of the process loses nothing written). */
export function appendLedger(path: string, entry: LedgerEntry): void {
  let fd = open.get(path)
  if (fd === undefined) {
    // A process that makes many runs (the self-proof) keeps only the newest few open.
    for (const [old, oldFd] of open) {
      if (open.size < 4) break
      open.delete(old)
      closeSync(oldFd)
    }
    fd = openSync(path, 'a')
    open.set(path, fd)
  }
  writeSync(fd, `${JSON.stringify(entry)}\n`)
}

const keyOf = (e: Pick<LedgerEntry, 'name' | 'ownerKey' | 'personal'>): string => `${e.ownerKey ?? '?'}|${e.personal ? 'p' : '-'}|${e.name.toLowerCase()}`

/** Channels of a ledger not yet deleted, in creation order. A torn last line (a crash mid-write) is skipped. */
export function liveEntries(path: string): LedgerEntry[] {
  if (!existsSync(path)) return []
  const live = new Map<string, LedgerEntry>()
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue
    let e: LedgerEntry
    try {
      e = JSON.parse(line) as LedgerEntry
    } catch {
      continue
    }
    if (typeof e?.name !== 'string') continue
    if (e.deleted) live.delete(keyOf(e))
    else live.set(keyOf(e), e)
  }
  return [...live.values()]
}

export interface LedgerFile {
  path: string
  runId: string
  mtimeMs: number
}

export function listLedgers(reportDir: string): LedgerFile[] {
  const dir = ledgerDir(reportDir)
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const path = join(dir, f)
      return { path, runId: f.slice(0, -'.jsonl'.length), mtimeMs: statSync(path).mtimeMs }
    })
}

export function removeLedger(path: string): void {
  const fd = open.get(path)
  if (fd !== undefined) {
    open.delete(path)
    closeSync(fd)
  }
  try {
    unlinkSync(path)
  } catch (err) {
    if ((err as { code?: string }).code !== 'ENOENT') throw err
  }
}

/** The account key whose run token this Api carries, if any. */
export function ownerKeyOf(run: RunContext, owner: Api): AccountKey | null {
  if (owner.account) return owner.account
  for (const acc of Object.values(run.accounts)) if (owner.token !== null && acc.token === owner.token) return acc.key
  return null
}

/**
 * A check's view of the ledger: a no-op when the run keeps none (a bare `vitest` run without a report dir). It
 * is also its callers' ChannelLog: every create they send is written ahead, whichever way the check made it,
 * and a delete the server accepted writes the tombstone. Each live channel is written once however many paths
 * report it (the fixture's own create, the caller's create, a later track).
 */
export class RunLedger implements ChannelLog {
  private readonly live = new Set<string>()
  private readonly dead = new Set<string>()

  constructor(
    private readonly path: string | null,
    private readonly run: RunContext,
  ) {}

  /** True when the channel was not yet live here (its line is written now). */
  created(name: string, ownerKey: AccountKey | null, personal: boolean): boolean {
    const key = keyOf({ name, ownerKey, personal })
    if (this.live.has(key)) return false
    this.live.add(key)
    this.dead.delete(key)
    this.write(name, ownerKey, personal, this.run.target.embedded ? { embedded: true } : {})
    return true
  }

  deleted(name: string, ownerKey: AccountKey | null, personal: boolean): void {
    const key = keyOf({ name, ownerKey, personal })
    // live and dead never share a key: created() takes it out of dead, this out of live.
    if (this.dead.has(key)) return
    this.live.delete(key)
    this.dead.add(key)
    this.write(name, ownerKey, personal, { deleted: true })
  }

  /** ChannelLog: a run account's create, before it leaves (one made with no run account's token cannot be cleaned up by the run). */
  creating(caller: Api, name: string, personal: boolean): boolean {
    const owner = ownerKeyOf(this.run, caller)
    return owner ? this.created(name, owner, personal) : false
  }

  /** ChannelLog: the create written ahead was refused. */
  refused(caller: Api, name: string, personal: boolean): void {
    const owner = ownerKeyOf(this.run, caller)
    if (owner) this.deleted(name, owner, personal)
  }

  /** ChannelLog: a delete the server accepted: only a channel this check wrote ahead gets a tombstone. */
  deletedBy(caller: Api, name: string, personal: boolean): void {
    const owner = ownerKeyOf(this.run, caller)
    if (owner && this.live.has(keyOf({ name, ownerKey: owner, personal }))) this.deleted(name, owner, personal)
  }

  private write(name: string, ownerKey: AccountKey | null, personal: boolean, mark: { embedded?: true; deleted?: true }): void {
    if (!this.path) return
    appendLedger(this.path, {
      name,
      ownerKey,
      personal,
      createdAt: new Date().toISOString(),
      runId: this.run.runId,
      target: targetKey(this.run.target),
      ...mark,
    })
  }
}

/**
 * A refusal of a delete that may mean "no such channel": the spec states no failure codes (§7), so a server may
 * answer a delete of a channel already gone with 400, 410 or another 4xx instead of 404. Not 401 (a token
 * problem) and not 429 (the client waits those out).
 */
export const refusedAsGone = (status: number): boolean => status >= 400 && status < 500 && status !== 401 && status !== 429

/**
 * Whether the owner's plain-name read shows the channel gone (404, 410 or 400: no such channel for this caller).
 * Only then is a delete refused otherwise than with 404 taken as "already gone"; anything else keeps it listed.
 */
export async function channelGone(owner: Api, name: string): Promise<boolean> {
  try {
    const ex = await owner.getChannel(name)
    return ex.status === 404 || ex.status === 410 || ex.status === 400
  } catch {
    return false
  }
}

export interface LedgerCleanup {
  deleted: string[]
  problems: string[]
}

/**
 * Deletes every channel still live in this run's own ledger, each by its owner (any run account when the
 * owner is unknown: a non-owner's delete is refused, never harmful), then removes the ledger when nothing is
 * left. Used by the main process at the end of a run and after an interrupt, with a client of its own; these
 * channels need no further proof of ownership, this run made them.
 */
export async function deleteLedgered(run: RunContext, timeoutMs = run.requestTimeoutMs, concurrency = 8): Promise<LedgerCleanup> {
  const path = run.ledgerPath
  if (!path || !existsSync(path)) return { deleted: [], problems: [] }
  // The run's pace (a 429 slows the cleanup down too) and its current tokens (renewed if they expired). The
  // workers are gone by now: places they held when cut short are free again.
  const pacer = new Pacer(run.pace)
  pacer.reclaim()
  const http = new HttpClient({ baseUrl: run.target.baseUrl, timeoutMs, network: run.network, pacer })
  try {
    return await deleteLive(path, http, run, concurrency)
  } finally {
    await http.close()
  }
}

async function deleteLive(path: string, http: HttpClient, run: RunContext, concurrency = 8): Promise<LedgerCleanup> {
  const out: LedgerCleanup = { deleted: [], problems: [] }
  const sessions = new TokenSessions({ buffer: run.tokens, accounts: run.accounts, clientId: run.clientId, anon: new Api(http, run.target, null) })
  const ledger = new RunLedger(path, run)
  const queue = liveEntries(path)
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let e = queue.shift(); e; e = queue.shift()) {
        const keys = e.ownerKey ? [e.ownerKey] : (Object.keys(run.accounts) as AccountKey[])
        let done = false
        let gone = 0
        let last = ''
        for (const key of keys) {
          try {
            const api = new Api(http, run.target, run.accounts[key].token, undefined, {}, sessions.source(key))
            const ex = await api.deleteChannel(e.name, e.personal || undefined, { retry: true })
            if (isSuccess(ex)) {
              done = true
              break
            }
            if (ex.status === 404 || (refusedAsGone(ex.status) && (await channelGone(api, e.name)))) gone++
            else last = `delete answered ${ex.status}`
          } catch (err) {
            last = redact((err as Error).message)
          }
        }
        // A 404 proves the channel gone only when every account that could own it says so.
        if (gone === keys.length) done = true
        if (done) {
          ledger.deleted(e.name, e.ownerKey, e.personal)
          out.deleted.push(e.name)
        } else out.problems.push(`${e.name}: ${last} (left in ${path} for the next sweep)`)
      }
    }),
  )
  if (liveEntries(path).length === 0) removeLedger(path)
  return out
}
