/**
 * npm run openapi [-- --flat --out FILE [--user-api-path P] [--message-api-path P]]
 *
 * Writes the generated files of the repository: openapi.json (from the endpoint table and schemas/) and
 * docs/clauses.md (the traceability matrix). selftest/openapi.test.ts fails when a committed one is stale.
 * `--flat --out FILE` instead writes one variant of the description with the API paths written into every
 * path, for tools that ignore path-level servers. Exit 2 on a bad command line.
 */
import { coverageMarkdown } from '../helpers/spec/coverage'
import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { DEFAULT_BASE_PATHS } from '../helpers/spec/endpoints'
import { openApiText } from '../helpers/spec/openapi'
import { clausesMarkdown, type FaultRef } from '../helpers/reports/traceability'
import { clausesOf, FAULTS } from '../reference/faults'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

const USAGE = `usage: npm run openapi [-- --flat --out FILE [--user-api-path P] [--message-api-path P]]
  (no flags)          write openapi.json, docs/clauses.md and docs/coverage.md
  --flat --out FILE   write a copy of the description with the API paths in every path (one server: the origin)`

export function faultRefs(): FaultRef[] {
  return FAULTS.map((f) => ({ name: f.name, clauses: clausesOf(f), description: f.description, deep: f.depth === 'deep' }))
}

/** The generated files, by repository path, as they must be committed. */
export function generatedFiles(root = ROOT): Record<string, string> {
  return {
    'openapi.json': openApiText(),
    'docs/clauses.md': clausesMarkdown(root, faultRefs()),
    'docs/coverage.md': coverageMarkdown(),
  }
}

function main(argv: string[]): number {
  let values
  try {
    values = parseArgs({
      args: argv,
      options: {
        flat: { type: 'boolean' },
        out: { type: 'string' },
        'user-api-path': { type: 'string' },
        'message-api-path': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`)
    return 2
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  if (values.flat) {
    if (!values.out) {
      process.stderr.write(`--flat needs --out FILE\n${USAGE}\n`)
      return 2
    }
    const bases = { user: values['user-api-path'] ?? DEFAULT_BASE_PATHS.user, message: values['message-api-path'] ?? DEFAULT_BASE_PATHS.message }
    writeFileSync(resolve(values.out), openApiText({ flat: true, bases }))
    process.stdout.write(`wrote ${values.out}\n`)
    return 0
  }
  if (values.out || values['user-api-path'] || values['message-api-path']) {
    process.stderr.write(`--out and the API paths go with --flat\n${USAGE}\n`)
    return 2
  }
  for (const [path, text] of Object.entries(generatedFiles())) {
    writeFileSync(join(ROOT, path), text)
    process.stdout.write(`wrote ${path}\n`)
  }
  return 0
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) process.exitCode = main(process.argv.slice(2))
