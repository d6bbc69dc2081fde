/** True in the module Node was started with (`node scripts/x.ts`, or the CLI's bin link): the others only export. */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { didYouMeanNote } from '../helpers/config/did-you-mean'

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

/**
 * One sentence for a command line node:util's parseArgs refused, naming the nearest option of `options` when
 * an unknown one looks mistyped: "unknown option --aera (did you mean --area?)". Other refusals keep
 * parseArgs's own first sentence.
 */
export function argsRefusal(err: unknown, options: readonly string[]): string {
  const e = err as Error & { code?: string }
  const name = /'(-[^' ]+)/.exec(e.message)?.[1]
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && name) {
    const flags = options.map((o) => `--${o}`)
    return `unknown option ${name}${didYouMeanNote(name.replace(/=.*$/, ''), flags)}`
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name) return `option ${name} wants a value`
  return e.message.replace(/\. To specify a positional argument.*$/s, '')
}
