/**
 * vitest globalSetup of the conformance config. When the suite runs through `npm run conformance`, the CLI
 * has already prepared the run (preflight, embedded server) and left it on globalThis; a bare
 * `npx vitest --config vitest.config.ts` prepares it here instead.
 */
import type { TestProject } from 'vitest/node'
import { loadConfig } from './config'
import { prepareRun, type PreparedRun } from './prepare'

export const PREPARED_KEY = '__conformancePreparedRun'

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (globalThis as Record<string, unknown>)[PREPARED_KEY] as PreparedRun | undefined
  const prepared = shared ?? (await prepareRun(loadConfig()))
  project.provide('run', prepared.context)
  return async () => {
    if (!shared) await prepared.close()
  }
}
