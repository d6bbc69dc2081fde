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

/**
 * Exits with `code` once everything written to stdout and stderr has gone out. Into a pipe (a CI log, a
 * parent process) Node writes a long output asynchronously, and process.exit drops what is still queued: a
 * failing run's last lines, the verdict among them, were lost that way.
 */
export function exitWhenFlushed(code: number): void {
  let pending = 2
  const done = (): void => {
    if (--pending === 0) process.exit(code)
  }
  process.stdout.write('', done)
  process.stderr.write('', done)
}

/**
 * Ends a command: exits with the code `main` resolves to, or with 2 after one line naming the internal error,
 * passed through `clean` (the secret redaction, for a command that talks to a target).
 */
export function finish(name: string, main: Promise<number>, clean: (text: string) => string = (text) => text): void {
  main.then(
    (code) => exitWhenFlushed(code),
    (err: unknown) => {
      process.stderr.write(`${name}: internal error: ${clean(err instanceof Error ? (err.stack ?? err.message) : String(err))}\n`)
      exitWhenFlushed(2)
    },
  )
}
