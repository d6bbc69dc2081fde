/**
 * npm run conformance [-- --area <area>]… [--level must|should|info] [--fault <name>]… [--variant <name>]…
 *
 * Runs the suite against BASE_URL (or the embedded reference server), writes REPORT_DIR/results.json and
 * prints a summary per spec area: helpers/runner/pipeline.ts does the run; this turns the command line into
 * its options and its outcome into the exit code (0 conformant, 1 a MUST failure, 2 no complete run;
 * docs/contract.md). SIGINT/SIGTERM: the run cleans up and ends `interrupted`, exit 2 (helpers/runner/interrupt.ts).
 */
import { parseArgs } from 'node:util'
import { redact } from '../helpers/http/redact'
import { filterProblem, FILTER_AREAS, runConformance, selectionProblem } from '../helpers/runner/pipeline'
import { argsRefusal, finish } from './entry'

const USAGE = `usage: npm run conformance -- [--area <${FILTER_AREAS.join('|')}>]... [--level must|should|info] [--clause <id or glob>]... [--check <id>]... [--fault <name>]... [--variant <name>]...
  --area    run only the checks of these spec areas (repeatable)
  --level   run only the checks of one requirement level
  --clause  run only the checks of these clauses: an id (docs/clauses.md) or a glob, 'channels.create.*' (repeatable)
  --check   run only this check, named as results.json names it: '<clause>: <title>' (repeatable)
  --fault   switch a catalogued fault on in the embedded reference server (self-tests; BASE_URL empty or embedded)
  --variant switch a catalogued variant (reference/variants/: a correct server that reads the spec differently) on in the embedded reference server
Configuration comes from the environment and .env (see .env.example).`

function usageError(message: string): never {
  process.stderr.write(`conformance: ${message}\n${USAGE}\n`)
  process.exit(2)
}

async function main(): Promise<number> {
  let args
  try {
    args = parseArgs({
      options: {
        area: { type: 'string', multiple: true, default: [] },
        level: { type: 'string' },
        clause: { type: 'string', multiple: true, default: [] },
        check: { type: 'string', multiple: true, default: [] },
        fault: { type: 'string', multiple: true, default: [] },
        variant: { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }).values
  } catch (err) {
    usageError(argsRefusal(err, ['area', 'level', 'clause', 'check', 'fault', 'variant', 'help']))
  }
  if (args.help) {
    process.stdout.write(`${USAGE}\n`)
    return 0
  }
  const problem = filterProblem(args.area ?? [], args.level) ?? selectionProblem(args.clause ?? [], args.check ?? [])
  if (problem) usageError(problem)
  const outcome = await runConformance({
    areas: args.area ?? [],
    level: args.level ?? null,
    clauses: args.clause ?? [],
    checks: args.check ?? [],
    faults: args.fault ?? [],
    variants: args.variant ?? [],
  })
  return outcome.exitCode
}

finish('conformance', main(), redact)
