/**
 * The folder the suite is installed in (the repository, or node_modules/<package> after `npm install`),
 * found from this module's own location, so it is the same from source (tsx, vitest) and from the compiled
 * CLI in dist/. The suite's own files (.env.example, vitest.config.ts, suites/, schemas/) are read from
 * here; the user's (.env, REPORT_DIR, CA_FILE) from the working directory.
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

let found: string | undefined

export function packageRoot(): string {
  if (found) return found
  let dir = dirname(fileURLToPath(import.meta.url))
  // The root is the first folder upwards with both the suite's config and its checks (dist/ has neither).
  while (!(existsSync(join(dir, 'vitest.config.ts')) && existsSync(join(dir, 'suites')))) {
    const up = dirname(dir)
    if (up === dir) throw new Error(`the suite's own files (vitest.config.ts, suites/) are not found above ${fileURLToPath(import.meta.url)}`)
    dir = up
  }
  found = dir
  return dir
}
