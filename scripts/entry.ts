/** True in the module Node was started with (`node scripts/x.ts`, or the CLI's bin link): the others only export. */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function isEntry(moduleUrl: string): boolean {
  const started = process.argv[1]
  if (!started) return false
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(moduleUrl))
  } catch {
    return false
  }
}
