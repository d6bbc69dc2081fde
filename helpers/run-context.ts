/** What the main process hands every test worker (through provide/inject) about the prepared run. */
import type { AccountKey } from './config'

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
  /** Access token from the run's one sign-in of this account. */
  token: string
  userId: string
  deviceId: string
  /** Created for this run through the server's registration calls. */
  enrolled: boolean
}

export interface RunContext {
  runId: string
  seed: number
  target: Target
  clientId: string
  requestTimeoutMs: number
  accounts: Record<AccountKey, RunAccount>
  /** Prefix of every disposable channel name: `${namePrefix}${runId}…`, lowercase letters and digits (check.ts). */
  namePrefix: string
  /** Absolute path of this run's ledger of created channels (helpers/ledger.ts); null: none is kept. */
  ledgerPath: string | null
}

declare module 'vitest' {
  interface ProvidedContext {
    run: RunContext
  }
}
