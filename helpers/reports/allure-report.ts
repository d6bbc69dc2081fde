/**
 * Allure Report 3 (the `allure` npm package, plain Node, no Java) over REPORT_DIR/allure-results, with the
 * shipped allurerc.mjs: finds the CLI, generates the single-file report, and takes the analytics tag that
 * Allure's HTML template always carries out of it, since a conformance report must fetch nothing.
 */
import { commandFor } from '../config/invocation'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { redact } from '../http/redact'

export const ALLURE_REPORT_DIR = 'allure-report'
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const ALLURE_CONFIG = join(ROOT, 'allurerc.mjs')

/** The Allure 3 CLI: ALLURE_CLI when set (a cli.js of the `allure` package), else the project's devDependency. */
export function findAllureCli(env: Record<string, string | undefined> = process.env): string | null {
  if (env.ALLURE_CLI) return existsSync(env.ALLURE_CLI) ? env.ALLURE_CLI : null
  try {
    // The package's exports hide its package.json: find its folder from the main entry (dist/index.js).
    let dir = dirname(createRequire(join(ROOT, 'package.json')).resolve('allure'))
    while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir)
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: string }).version ?? ''
    return version.startsWith('3.') && existsSync(join(dir, 'cli.js')) ? join(dir, 'cli.js') : null
  } catch {
    return null
  }
}

/** Patterns that must not be in a generated report: a tracker, or any script loaded from the network. */
export const FORBIDDEN_IN_REPORT: readonly RegExp[] = [/googletagmanager/i, /google-analytics/i, /\bgtag\s*\(/, /\bdataLayer\b/, /<script[^>]*\ssrc="https?:/i]

/** The report's HTML without the analytics tag: external scripts and the inline gtag snippet go. */
export function stripAnalytics(html: string): string {
  return html
    .replace(/<script\b[^>]*\ssrc="https?:\/\/[^"]*"[^>]*>\s*<\/script>\s*/gi, '')
    .replace(/<script\b[^>]*>(?:(?!<\/script>)[\s\S])*?(?:gtag\s*\(|dataLayer)(?:(?!<\/script>)[\s\S])*<\/script>\s*/g, '')
}

export class AllureReportError extends Error {}

/**
 * Generates `<reportDir>/allure-report/index.html` from `<reportDir>/allure-results`, carrying Allure's own
 * history in `<reportDir>/allure-history.jsonl`; returns the path of index.html.
 */
export function generateAllureReport(reportDir: string, cli: string): string {
  const dir = resolve(reportDir)
  const results = join(dir, 'allure-results')
  if (!existsSync(results)) throw new AllureReportError(`no ${results}: run ${commandFor('conformance')} first (it writes the Allure results)`)
  const output = join(dir, ALLURE_REPORT_DIR)
  const run = spawnSync(process.execPath, [cli, 'generate', '--config', ALLURE_CONFIG, '--output', output, results], {
    cwd: dir,
    // The process's own environment only (not .env's values): Allure needs no credential.
    env: { ...process.env, REPORT_DIR: dir },
    encoding: 'utf8',
    timeout: 300_000,
  })
  if (run.status !== 0) throw new AllureReportError(`allure generate failed (exit ${run.status ?? run.signal}): ${redact(`${run.stderr}${run.stdout}`).trim().slice(-800)}`)
  const index = join(output, 'index.html')
  if (!existsSync(index)) throw new AllureReportError(`allure generate wrote no ${index}`)
  const clean = stripAnalytics(readFileSync(index, 'utf8'))
  const left = FORBIDDEN_IN_REPORT.filter((re) => re.test(clean))
  if (left.length) throw new AllureReportError(`${index} still has an analytics tag or an external script (${left.map(String).join(', ')})`)
  writeFileSync(index, clean)
  return index
}
