import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { buildServer } from './app'
import { UnknownFaultError } from './faults/types'
import { UnknownVariantError } from './variants'

/**
 * `npm run serve [-- --port N --host H --fault NAME ... --variant NAME ...]`: starts the reference server alone.
 * PORT and HOST come from the environment (defaults 8080, 127.0.0.1); the flags win over them.
 * Prints exactly `listening http://HOST:PORT` once ready; SIGINT/SIGTERM close it cleanly.
 * Exit status 2: bad command line or the server could not start.
 */

const USAGE = `usage: tsx reference/main.ts [--port N] [--host H] [--fault NAME]... [--variant NAME]...
  --port     port to listen on (env PORT, default 8080; 0 picks a free one)
  --host     address to bind (env HOST, default 127.0.0.1)
  --fault    switch on a fault of the catalogue (repeatable), for the suite's self-tests
  --variant  switch on a deployment variant (repeatable): a correct server that chooses differently`

class UsageError extends Error {}

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        fault: { type: 'string', multiple: true },
        variant: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
}

function parsePort(text: string): number {
  const port = Number(text)
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`invalid port: ${text}`)
  return port
}

function build(faults: string[], variants: string[]): FastifyInstance {
  try {
    return buildServer({ faults, variants })
  } catch (error) {
    if (error instanceof UnknownFaultError || error instanceof UnknownVariantError) throw new UsageError(error.message)
    throw error
  }
}

async function main(argv: string[], usage: string): Promise<void> {
  const args = parseCommandLine(argv)
  if (args.help) {
    console.log(usage)
    return
  }
  const port = parsePort(args.port ?? process.env.PORT ?? '8080')
  const host = args.host ?? process.env.HOST ?? '127.0.0.1'
  const app = build(args.fault ?? [], args.variant ?? [])
  await app.listen({ port, host })

  let closing = false
  const shutdown = (signal: NodeJS.Signals): void => {
    if (closing) process.exit(1) // a second signal: stop waiting
    closing = true
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`error while closing on ${signal}: ${(error as Error).message}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)

  // Printed last: whoever waits for this line may signal at once, so the handlers must already be there.
  const address = app.server.address()
  const actualPort = typeof address === 'object' && address !== null ? address.port : port
  console.log(`listening http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`)
}

/** Starts the server as `npm run serve` does; the installed CLI's `serve` passes its own usage text. */
export function serve(argv: string[], usage = USAGE): void {
  main(argv, usage).catch((error: unknown) => {
    console.error((error as Error).message)
    if (error instanceof UsageError) console.error(`\n${usage}`)
    process.exit(2)
  })
}

// Run when started itself (tsx reference/main.ts); the CLI imports serve() instead.
const started = process.argv[1]
const self = fileURLToPath(import.meta.url)
if (
  started &&
  (() => {
    try {
      return realpathSync(started) === realpathSync(self)
    } catch {
      return false
    }
  })()
)
  serve(process.argv.slice(2))
