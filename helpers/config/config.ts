/**
 * Configuration in one typed place. Environment variables (docs/configuration.md), read through dotenv from `.env` once,
 * validated together: a bad configuration ends in one message listing every problem (exit 2), never a
 * hundred failed checks. Tests never read process.env; they receive the prepared run through inject().
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { readNetwork, type NetworkSettings } from '../http/network'
import { redact } from '../http/redact'
import { packageRoot } from './package-root'
import { defaultOf } from './table'

import { ACCOUNT_KEYS, type AccountKey } from '../http/run-context'

export { ACCOUNT_KEYS, type AccountKey }

export interface AccountCredentials {
  userName: string
  password: string
}

export interface Config {
  /** null: start the bundled reference server on 127.0.0.1 for this run (BASE_URL empty outside CI, or `embedded`). */
  baseUrl: string | null
  userApiPath: string
  messageApiPath: string
  clientId: string
  clientSecret: string | null
  /** Empty when none is configured: the run enrols disposable users where the server allows it. */
  accounts: Partial<Record<AccountKey, AccountCredentials>>
  reportDir: string
  strict: boolean
  seed: number | null
  requestTimeoutMs: number
  /** `npm run sweep` and the start-of-run sweep delete only leftovers at least this old (a concurrent run's are younger). */
  sweepMinAgeMinutes: number
  /** Proxy, extra CAs and client certificate (helpers/http/network.ts). */
  network: NetworkSettings
  /** Requests in flight at once over the whole run (all workers, cleanup and sweep included). */
  maxConcurrency: number
  /** Requests started per second over the whole run; null: no fixed cap (the pace still slows down on 429s). */
  maxRps: number | null
  /** Run a check that ended in `error` again, up to twice (four times after a 502/503/504), with fresh channels (RERUN_ERRORED, default true). */
  rerunErrored: boolean
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(redact(`configuration is not usable:\n${problems.map((p) => `  - ${p}`).join('\n')}`))
    this.name = 'ConfigError'
  }
}

/** Defaults when a variable is absent, from the configuration table (helpers/config/table.ts). */
export const DEFAULTS = {
  USER_API_PATH: defaultOf('USER_API_PATH'),
  MESSAGE_API_PATH: defaultOf('MESSAGE_API_PATH'),
  REPORT_DIR: defaultOf('REPORT_DIR'),
  REQUEST_TIMEOUT_MS: defaultOf('REQUEST_TIMEOUT_MS'),
  SWEEP_MIN_AGE_MINUTES: defaultOf('SWEEP_MIN_AGE_MINUTES'),
  MAX_CONCURRENCY: defaultOf('MAX_CONCURRENCY'),
  MAX_RPS: defaultOf('MAX_RPS'),
  RERUN_ERRORED: defaultOf('RERUN_ERRORED'),
} as const

type Env = Record<string, string | undefined>

/** BASE_URL=embedded asks for the bundled reference server explicitly (the only way to get it in CI). */
export const EMBEDDED = 'embedded'

function isEmbeddedValue(value: string | undefined): boolean {
  return !value?.trim() || value.trim().toLowerCase() === EMBEDDED
}

/** CI is set the way CI services set it: any non-empty value but `false` and `0`. */
export function isCi(value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase()
  return v !== '' && v !== 'false' && v !== '0'
}

/**
 * The environment the suite sees: process.env over the env file (`envFile`, else `.env` in `cwd` if present)
 * over the suite's own `.env.example` for the embedded target only. `.env.example` holds the reference
 * server's seeded credentials, so with BASE_URL empty (or `embedded`) and no accounts set, the run signs in
 * with those. It is read from where the suite is installed, so an installed CLI finds it from any folder.
 */
export function readEnv(cwd = process.cwd(), env: Env = process.env, envFile?: string): Env {
  const dotenvPath = envFile === undefined ? resolve(cwd, '.env') : resolve(cwd, envFile)
  if (envFile !== undefined && !existsSync(dotenvPath)) throw new ConfigError([`the env file ${envFile} does not exist`])
  const fromFile = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {}
  const merged: Env = { ...fromFile, ...definedOnly(env) }
  if (isEmbeddedValue(merged.BASE_URL)) {
    const examplePath = resolve(packageRoot(), '.env.example')
    if (existsSync(examplePath)) {
      const example = parseDotenv(readFileSync(examplePath))
      for (const key of Object.keys(example)) {
        if (merged[key] === undefined || merged[key] === '') merged[key] = example[key]
      }
    }
  }
  return merged
}

function definedOnly(env: Env): Env {
  const out: Env = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v
  return out
}

/**
 * A command's configuration: the environment over the env file (`envFile`, else `.env` in the working
 * directory), read and checked. A bad one is said once through `warn`, after the command's name, and gives null:
 * the command then exits 2.
 */
export function loadCommandConfig(command: string, source: { env?: Env; envFile?: string }, warn: (line: string) => void): { config: Config; env: Env } | null {
  try {
    const env = readEnv(process.cwd(), source.env ?? process.env, source.envFile)
    return { config: loadConfig(env), env }
  } catch (err) {
    if (err instanceof ConfigError) {
      warn(`${command}: ${err.message}`)
      return null
    }
    throw err
  }
}

export function loadConfig(env: Env = readEnv()): Config {
  const problems: string[] = []
  const get = (name: string): string => (env[name] ?? '').trim()
  // Relative file settings (CA_FILE, REPORT_DIR, …) are relative to the working directory, as `.env` is.
  const cwd = process.cwd()

  let baseUrl: string | null = get('BASE_URL') || null
  if (baseUrl?.toLowerCase() === EMBEDDED) baseUrl = null
  else if (!baseUrl && isCi(env.CI)) {
    // In CI an empty BASE_URL is far more often a missing secret than a wish to check the bundled server.
    problems.push(
      `BASE_URL is empty and CI is set, so this run would check the bundled reference server instead of your target: set BASE_URL to the server to check, or BASE_URL=${EMBEDDED} to check the bundled one`,
    )
  } else if (baseUrl) {
    try {
      const u = new URL(baseUrl)
      if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push(`BASE_URL must be http:// or https://, got '${u.protocol}'`)
      if (u.search || u.hash) problems.push('BASE_URL must not carry a query string or fragment')
      baseUrl = baseUrl.replace(/\/+$/, '')
    } catch {
      problems.push(`BASE_URL is not a URL: '${baseUrl}' (example: http://127.0.0.1:8080)`)
    }
  }

  const path = (name: 'USER_API_PATH' | 'MESSAGE_API_PATH'): string => {
    const value = get(name) || DEFAULTS[name]
    if (!value.startsWith('/')) problems.push(`${name} must start with '/', got '${value}'`)
    return value.replace(/\/+$/, '')
  }
  const userApiPath = path('USER_API_PATH')
  const messageApiPath = path('MESSAGE_API_PATH')

  const clientId = get('CLIENT_ID')
  if (!clientId) problems.push("CLIENT_ID is not set (the application's OAuth client id)")
  const clientSecret = get('CLIENT_SECRET') || null

  const accounts: Partial<Record<AccountKey, AccountCredentials>> = {}
  const partial: string[] = []
  for (const key of ACCOUNT_KEYS) {
    const userName = get(`USER_${key}_NAME`)
    const password = env[`USER_${key}_PASSWORD`] ?? ''
    if (userName && password) accounts[key] = { userName, password }
    else if (userName || password) partial.push(`USER_${key}_NAME and USER_${key}_PASSWORD must be set together`)
  }
  problems.push(...partial)
  const configured = Object.keys(accounts).length
  if (configured > 0 && configured < 3) {
    problems.push(`set all three test accounts (USER_A_…, USER_B_…, USER_C_…) or none; ${configured} of 3 are set`)
  }
  if (configured === 0 && !clientSecret) {
    problems.push('no test accounts: set USER_A_NAME/USER_A_PASSWORD, USER_B_…, USER_C_…, or CLIENT_SECRET so the suite can enrol disposable users')
  }

  const strictRaw = get('STRICT').toLowerCase()
  if (strictRaw && strictRaw !== 'true' && strictRaw !== 'false') problems.push(`STRICT must be true or false, got '${strictRaw}'`)

  const seedRaw = get('SEED')
  let seed: number | null = null
  if (seedRaw) {
    seed = Number(seedRaw)
    if (!Number.isSafeInteger(seed) || seed < 0) problems.push(`SEED must be a non-negative integer, got '${seedRaw}'`)
  }

  const timeoutRaw = get('REQUEST_TIMEOUT_MS') || DEFAULTS.REQUEST_TIMEOUT_MS
  const requestTimeoutMs = Number(timeoutRaw)
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 100 || requestTimeoutMs > 600_000) {
    problems.push(`REQUEST_TIMEOUT_MS must be an integer from 100 to 600000, got '${timeoutRaw}'`)
  }

  const sweepRaw = get('SWEEP_MIN_AGE_MINUTES') || DEFAULTS.SWEEP_MIN_AGE_MINUTES
  const sweepMinAgeMinutes = Number(sweepRaw)
  if (!Number.isFinite(sweepMinAgeMinutes) || sweepMinAgeMinutes < 0)
    problems.push(`SWEEP_MIN_AGE_MINUTES must be a number of minutes, 0 or more, got '${sweepRaw}'`)

  const { network, problems: networkProblems } = readNetwork(get, (p) => resolve(cwd, p))
  problems.push(...networkProblems)

  const reportDir = get('REPORT_DIR') || DEFAULTS.REPORT_DIR
  const unwritable = reportDirProblem(resolve(cwd, reportDir))
  if (unwritable) problems.push(`REPORT_DIR ${reportDir} ${unwritable}: set REPORT_DIR to a directory the suite may write to`)
  const concurrencyRaw = get('MAX_CONCURRENCY') || DEFAULTS.MAX_CONCURRENCY
  const maxConcurrency = Number(concurrencyRaw)
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1 || maxConcurrency > 256) {
    problems.push(`MAX_CONCURRENCY must be an integer from 1 to 256 (requests in flight at once), got '${concurrencyRaw}'`)
  }

  const rpsRaw = get('MAX_RPS') || DEFAULTS.MAX_RPS
  let maxRps: number | null = null
  if (rpsRaw) {
    const n = Number(rpsRaw)
    if (!Number.isFinite(n) || n < 0 || n > 10_000)
      problems.push(`MAX_RPS must be a number of requests per second from 0.5 to 10000, or empty or 0 for no cap, got '${rpsRaw}'`)
    else if (n > 0 && n < 0.5) problems.push(`MAX_RPS must be at least 0.5 requests per second (empty or 0: no cap), got '${rpsRaw}'`)
    else if (n > 0) maxRps = n
  }

  const rerunRaw = (get('RERUN_ERRORED') || DEFAULTS.RERUN_ERRORED).toLowerCase()
  if (!['true', 'false', '1', '0'].includes(rerunRaw)) problems.push(`RERUN_ERRORED must be true or false (or 1 or 0), got '${rerunRaw}'`)

  if (problems.length) throw new ConfigError(problems)
  return {
    baseUrl,
    userApiPath,
    messageApiPath,
    clientId,
    clientSecret,
    accounts,
    reportDir,
    strict: strictRaw === 'true',
    seed,
    requestTimeoutMs,
    sweepMinAgeMinutes,
    network,
    maxConcurrency,
    maxRps,
    rerunErrored: rerunRaw !== 'false' && rerunRaw !== '0',
  }
}

/**
 * Proves the report directory can be written now (created if missing), so a run never does its work and
 * then fails to write its results; null when it can. A probe file is written and removed: permission bits
 * alone say nothing when running as root or on a read-only mount.
 */
export function reportDirProblem(dir: string): string | null {
  try {
    if (existsSync(dir) && !statSync(dir).isDirectory()) return 'is not a directory'
    mkdirSync(dir, { recursive: true })
    const probe = resolve(dir, `.write-probe-${process.pid}`)
    writeFileSync(probe, '')
    rmSync(probe, { force: true })
    return null
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    const why: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'permission denied',
      EROFS: 'read-only file system',
      ENOTDIR: 'a part of its path is a file',
      ENOSPC: 'no space left',
    }
    return `is not writable (${why[code ?? ''] ?? code ?? 'error'})`
  }
}
