/**
 * Configuration in one typed place. Environment variables (README, Configuration), read through dotenv from `.env` once,
 * validated together: a bad configuration ends in one message listing every problem (exit 2), never a
 * hundred failed checks. Tests never read process.env; they receive the prepared run through inject().
 */
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { redact } from './redact'

export type AccountKey = 'A' | 'B' | 'C'
export const ACCOUNT_KEYS: readonly AccountKey[] = ['A', 'B', 'C']

export interface AccountCredentials {
  userName: string
  password: string
}

export interface Config {
  /** null: start the bundled reference server on 127.0.0.1 for this run. */
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
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(redact(`configuration is not usable:\n${problems.map((p) => `  - ${p}`).join('\n')}`))
    this.name = 'ConfigError'
  }
}

/** Defaults when a variable is absent: those of .env.example, so a fresh clone runs against the embedded server. */
export const DEFAULTS = {
  USER_API_PATH: '/mobile/api/com.vendor.server',
  MESSAGE_API_PATH: '/message/api/v2',
  REPORT_DIR: 'reports',
  REQUEST_TIMEOUT_MS: '15000',
  SWEEP_MIN_AGE_MINUTES: '60',
} as const

type Env = Record<string, string | undefined>

/**
 * The environment the suite sees: process.env over `.env` (if present) over `.env.example` for the embedded
 * target only. `.env.example` holds the reference server's seeded credentials, so with BASE_URL empty and no
 * accounts set, the run signs in with those.
 */
export function readEnv(cwd = process.cwd(), env: Env = process.env): Env {
  const dotenvPath = resolve(cwd, '.env')
  const fromFile = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {}
  const merged: Env = { ...fromFile, ...definedOnly(env) }
  if (!merged.BASE_URL) {
    const examplePath = resolve(cwd, '.env.example')
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

export function loadConfig(env: Env = readEnv()): Config {
  const problems: string[] = []
  const get = (name: string): string => (env[name] ?? '').trim()

  let baseUrl: string | null = get('BASE_URL') || null
  if (baseUrl) {
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
  if (!clientId) problems.push('CLIENT_ID is not set (the application\'s OAuth client id)')
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
  if (!Number.isFinite(sweepMinAgeMinutes) || sweepMinAgeMinutes < 0) problems.push(`SWEEP_MIN_AGE_MINUTES must be a number of minutes, 0 or more, got '${sweepRaw}'`)

  if (problems.length) throw new ConfigError(problems)
  return {
    baseUrl,
    userApiPath,
    messageApiPath,
    clientId,
    clientSecret,
    accounts,
    reportDir: get('REPORT_DIR') || DEFAULTS.REPORT_DIR,
    strict: strictRaw === 'true',
    seed,
    requestTimeoutMs,
    sweepMinAgeMinutes,
  }
}
