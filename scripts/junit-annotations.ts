/**
 * node --import tsx scripts/junit-annotations.ts [reports/junit.xml]
 *
 * Prints GitHub Actions annotations (::error / ::warning) for the failures and SHOULD warnings of a junit.xml
 * of this suite, one per distinct problem. Exits 0, also when the file is missing (the run may not have got
 * that far; the step before says why).
 */
import { existsSync, readFileSync } from 'node:fs'
import { annotationsOf } from '../helpers/reports/junit'

const path = process.argv[2] ?? 'reports/junit.xml'
if (!existsSync(path)) process.stdout.write(`junit-annotations: ${path} does not exist\n`)
else for (const line of annotationsOf(readFileSync(path, 'utf8'))) process.stdout.write(`${line}\n`)
