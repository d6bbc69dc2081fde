import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'dotenv'
import type { Application } from './model'

/**
 * The data the server starts with: one application and its users. The credentials come from the repo's
 * `.env.example` (so `npm run serve` and the suite's defaults agree); the ids, names, e-mails and realms
 * are fixed here so that they are the same on every start.
 */
export interface SeedUser {
  userId: string
  userName: string
  password: string
  firstName: string
  lastName: string
  email: string
  userRealm: string
  /** Devices registered before any sign-in; normally none (a sign-in registers its MMS-DEVICE-ID). */
  devices?: string[]
}

export interface Seed {
  application: Application
  users: SeedUser[]
}

/**
 * Located from this file, not from the working directory, so the server starts from anywhere: one folder up
 * from the source, two from the compiled copy in dist/.
 */
export const ENV_EXAMPLE_PATH = envExamplePath()

function envExamplePath(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, '.env.example')) && dirname(dir) !== dir) dir = dirname(dir)
  return join(dir, '.env.example')
}

export const SEED_APP_ID = '6d0f3a1e9c2b4f5a8e7d6c5b4a392817'
export const SEED_DOMAIN = 'mms.reference.test'
export const SEED_REALM = 'ct-main'

const ACCOUNTS = [
  { prefix: 'USER_A', userId: 'a1a1c0de00000000000000000000000a', firstName: 'Alice', lastName: 'Archer', realm: SEED_REALM },
  { prefix: 'USER_B', userId: 'b2b2c0de00000000000000000000000b', firstName: 'Bob', lastName: 'Baker', realm: SEED_REALM },
  { prefix: 'USER_C', userId: 'c3c3c0de00000000000000000000000c', firstName: 'Carol', lastName: 'Chen', realm: 'ct-partners' },
] as const

/**
 * A user of the application the run never signs in as, as a deployment has many: its names hold letters beyond
 * ASCII, so what the suite reads of every listed user (search by each name) meets them. Nobody signs in as it:
 * its password is drawn at each start and kept nowhere.
 */
const RESIDENTS = [{ userId: 'd4d4c0de00000000000000000000000d', userName: 'zoe.mueller', firstName: 'Zoë', lastName: 'Müller', realm: SEED_REALM }] as const

export function loadSeed(envFile: string = ENV_EXAMPLE_PATH): Seed {
  const env = parse(readFileSync(envFile))
  const missing: string[] = []
  const need = (name: string): string => {
    const value = env[name]
    if (!value) missing.push(name)
    return value ?? ''
  }
  const application: Application = {
    appId: SEED_APP_ID,
    clientId: need('CLIENT_ID'),
    clientSecret: need('CLIENT_SECRET'),
    defaultRealm: SEED_REALM,
    domain: SEED_DOMAIN,
  }
  const users = ACCOUNTS.map((a): SeedUser => {
    const userName = need(`${a.prefix}_NAME`)
    return {
      userId: a.userId,
      userName,
      password: need(`${a.prefix}_PASSWORD`),
      firstName: a.firstName,
      lastName: a.lastName,
      email: `${userName}@example.com`,
      userRealm: a.realm,
    }
  })
  for (const r of RESIDENTS)
    users.push({
      userId: r.userId,
      userName: r.userName,
      password: randomBytes(18).toString('base64url'),
      firstName: r.firstName,
      lastName: r.lastName,
      email: `${r.userName}@example.com`,
      userRealm: r.realm,
    })
  if (missing.length > 0) {
    throw new Error(`${envFile} lacks ${missing.join(', ')}: the reference server cannot seed its accounts`)
  }
  return { application, users }
}
