/**
 * npm run docs:config
 *
 * Writes the configuration table of docs/configuration.md from helpers/config/table.ts (selftest/config-table.test.ts fails
 * while it is stale).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { packageRoot } from '../helpers/config/package-root'
import { withConfigMarkdown } from '../helpers/config/table'

const path = join(packageRoot(), 'docs', 'configuration.md')
const next = withConfigMarkdown(readFileSync(path, 'utf8'))
if (next === null) {
  process.stderr.write('docs:config: docs/configuration.md lacks the configuration table markers\n')
  process.exitCode = 2
} else {
  writeFileSync(path, next)
  process.stdout.write('docs:config: docs/configuration.md configuration table written\n')
}
