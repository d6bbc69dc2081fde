/**
 * vitest globalSetup of the conformance config. When the suite runs through `npm run conformance`, the CLI
 * has already prepared the run (preflight, embedded server) and left it on globalThis; a bare
 * `npx vitest --config vitest.config.ts` prepares it here instead.
 */
import type { TestProject } from 'vitest/node'
import { loadConfig, readEnv } from '../config/config'
import { deleteLedgered } from '../http/ledger'
import { prepareRun, type PreparedRun } from './prepare'

export const PREPARED_KEY = '__conformancePreparedRun'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (globalThis as Record<string, unknown>)[PREPARED_KEY] as PreparedRun | undefined
  const prepared = shared ?? (await prepareRun(loadConfig(bareVitestEnv())))
  project.provide('run', prepared.context)
  return async () => {
    if (shared) return
    // A bare vitest run cleans its own ledger here; the CLI does it itself (also after an interrupt).
    try {
      await deleteLedgered(prepared.context)
    } finally {
      await prepared.close()
    }
  }
}

/** Vite sets BASE_URL to its own public base ('/') in the process; that is not the target: let .env decide. */
function bareVitestEnv(): Record<string, string | undefined> {
  const { BASE_URL, ...rest } = process.env
  return readEnv(process.cwd(), BASE_URL === '/' ? rest : process.env)
}
