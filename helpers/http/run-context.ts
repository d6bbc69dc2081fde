/** What the main process hands every test worker (through provide/inject) about the prepared run. */
import type { NetworkSettings } from './network'

/** The run's three accounts: A owns, B and C are the others. */
export type AccountKey = 'A' | 'B' | 'C'
export const ACCOUNT_KEYS: readonly AccountKey[] = ['A', 'B', 'C']

export interface Target {
  /** Origin plus any base path; never printed unredacted. */
  baseUrl: string
  userApiPath: string
  messageApiPath: string
  /** The bundled reference server, started for this run. */
  embedded: boolean
}

export interface RunAccount {
  key: AccountKey
  userName: string
  password: string
  /** Access token from the run's first sign-in of this account (helpers/http/tokens.ts keeps the current one). */
  token: string
  /** expires_in of that sign-in, as given (seconds); null when absent. */
  expiresIn: number | null
  userId: string
  deviceId: string
  /** Created for this run through the server's registration calls. */
  enrolled: boolean
}

/** How long a read may lag behind a change on a real deployment: a poll's bound unless it names its own. */
export const READ_LAG_MS = 5000

export interface RunContext {
  runId: string
  seed: number
  target: Target
  clientId: string
  requestTimeoutMs: number
  accounts: Record<AccountKey, RunAccount>
  /** Prefix of every disposable channel name: `${namePrefix}${runId}…`, lowercase letters and digits (check.ts). */
  namePrefix: string
  /** Absolute path of this run's ledger of created channels (helpers/http/ledger.ts); null: none is kept. */
  ledgerPath: string | null
  /** Proxy and TLS settings every client of the run uses (file paths, never file contents). */
  network: NetworkSettings
  /**
   * Shared memory of the run (helpers/http/pace.ts, helpers/http/tokens.ts): vitest hands the provided context to its
   * worker threads by structured clone, which shares a SharedArrayBuffer instead of copying it, so the pace
   * budget and the accounts' current tokens are one for the main process and every worker.
   */
  pace: SharedArrayBuffer
  tokens: SharedArrayBuffer
  limits: { maxConcurrency: number; maxRps: number | null }
  /** Re-run a check that ended in `error` (RERUN_ERRORED; see helpers/kit/check.ts rerun). */
  rerunErrored: boolean
  /**
   * The workers give each check its Allure labels and steps (helpers/kit/allure.ts). False in a self-test session,
   * which writes no Allure results: its lanes load no Allure runtime, and each call would only warn.
   */
  allure: boolean
  /**
   * Every check hands the main process its structured exchanges, for exchanges.har. False in a run that writes no
   * reports (the self-proof): only a failed, blocked or unjudged check's exchanges go, for its reproducer.
   */
  keepExchanges: boolean
  /**
   * How long a check polls for a change to show in a read (helpers/kit/poll.ts). READ_LAG_MS for a real server,
   * whose reads may come from a replica or an index that lags; a tenth of it (still far above a loopback
   * request) for the embedded reference server without variants, which answers every read from the state the
   * last write left. A poll that ends only shows what it saw: a shorter bound can fail a check, never pass one.
   */
  settleMs: number
}

declare module 'vitest' {
  interface ProvidedContext {
    run: RunContext
    /**
     * Every schema compiled once, as code (helpers/spec/schemas.ts compiledSchemaCode), from a process that makes
     * many runs (a suite session): its workers take their validators from it instead of compiling their own.
     * Absent from a standalone run, whose workers compile what they use.
     */
    schemaCode?: string
  }
}
