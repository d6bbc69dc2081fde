/**
 * The suite as an installed tool: `npm pack` (which builds dist/ through prepack), the tarball installed into
 * an empty folder that knows nothing of this repository, and the `mcs-conformance` bin run there directly
 * (no npm in between, so signals reach it). npm fetches the dependencies with --prefer-offline: from the
 * local cache when an earlier run filled it.
 */
import { execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CONFIG_TABLE } from '../helpers/config/table'
import type { RunResults } from '../helpers/reports/results'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { ROOT, runChild, type ChildRun } from '../testing/run-suite'

const BIN = 'mcs-conformance'
let work: string
let app: string
let bin: string

/** Runs the installed bin in the install folder; `watch` sees the child and its stdout after every chunk. */
function cli(args: string[], env: Record<string, string> = {}, watch?: (child: ChildProcess, stdout: string) => void): Promise<ChildRun> {
  // The user's environment, minus anything that would point the run elsewhere than asked.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !CONFIG_TABLE.some((r) => r.name === k) && !k.startsWith('npm_') && !k.startsWith('VITEST')),
  )
  return runChild(bin, args, { cwd: app, env: { ...base, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, ...env } }, 180_000, watch)
}

const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  })

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ct-package-'))
  const packed = join(work, 'packed')
  app = join(work, 'app')
  mkdirSync(packed)
  mkdirSync(app)
  const t0 = Date.now()
  npm(['pack', '--pack-destination', packed], ROOT)
  const tarball = readdirSync(packed).find((n) => n.endsWith('.tgz'))
  if (!tarball) throw new Error('npm pack wrote no tarball')
  const t1 = Date.now()
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'ct-package-try', version: '1.0.0', private: true }))
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(packed, tarball)], app)
  bin = join(app, 'node_modules', '.bin', BIN)
  console.log(`npm pack (with the build) ${((t1 - t0) / 1000).toFixed(1)} s, install ${((Date.now() - t1) / 1000).toFixed(1)} s`)
}, 400_000)

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true })
})

describe('the packed tarball', () => {
  test('holds what the tool needs and no self-tests, reports or sources of the build', () => {
    const listing = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], ROOT)) as { files: { path: string }[] }[]
    const files = listing[0]!.files.map((f) => f.path)
    expect(files).toContain('dist/scripts/cli.js')
    expect(files).toContain('vitest.config.ts')
    expect(files).toContain('.env.example')
    expect(files, 'the reference server serves it at GET /openapi.json').toContain('openapi.json')
    expect(files.some((f) => f.startsWith('suites/'))).toBe(true)
    expect(files.filter((f) => /^(selftest|reports|scripts|\.ci|\.github)\//.test(f) || f === '.env')).toEqual([])
  })
})

describe(`${BIN} installed from the tarball`, () => {
  test('--version and --help', async () => {
    const version = await cli(['--version'])
    expect(version.code).toBe(0)
    expect(version.stdout.trim()).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version)
    const help = await cli(['--help'])
    expect(help.code).toBe(0)
    for (const r of CONFIG_TABLE.filter((row) => row.scope !== 'serve')) expect(help.stdout).toContain(`${r.flag} <`)
    expect(help.stdout).toMatch(/sweep[\s\S]*explore[\s\S]*report diff[\s\S]*serve/)
    console.log(`--version ${version.ms} ms`)
  })

  test('a bad flag: exit 2 and one sentence', async () => {
    const run = await cli(['--no-such-flag'])
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr.trim().split('\n')).toHaveLength(1)
    expect(run.stderr).toMatch(/^mcs-conformance: unknown option --no-such-flag; [^.]+$/)
  })

  test("a missing --env-file: the tool's one sentence and exit 2 (the bin starts Node with --, so Node 20 does not take the flag and exit 9)", async () => {
    const run = await cli(['--env-file', 'no-such.env'])
    expect(run.code).toBe(2)
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^mcs-conformance: the env file no-such\.env does not exist /)])
  })

  test('against the bundled server: exit 0, reports where --report-dir says (relative to the working directory)', async () => {
    // Flag over environment over env file: the file's unusable MAX_CONCURRENCY is overridden by the environment,
    // and both REPORT_DIRs by the flag.
    writeFileSync(join(app, '.env'), 'MAX_CONCURRENCY=0\nREPORT_DIR=from-file\n')
    const run = await cli(['--area', 'signin', '--report-dir', 'out/here'], { MAX_CONCURRENCY: '4', REPORT_DIR: 'from-env' }).finally(() =>
      rmSync(join(app, '.env')),
    )
    expect(run.code, run.stdout + run.stderr).toBe(0)
    expect(existsSync(join(app, 'from-file')) || existsSync(join(app, 'from-env'))).toBe(false)
    const results = JSON.parse(readFileSync(join(app, 'out/here/results.json'), 'utf8')) as RunResults
    expect(results.verdict).toBe('conformant')
    expect(results.target.embedded).toBe(true)
    for (const f of ['junit.xml', 'report.html', 'summary.md']) expect(existsSync(join(app, 'out/here', f)), f).toBe(true)
    console.log(`embedded run, one area: ${(run.ms / 1000).toFixed(1)} s`)
    // The console names the installed command, not a clone's npm script.
    expect(run.stdout).toContain(`(${BIN} report allure)`)
    expect(run.stdout).not.toMatch(/npm run/)
  })

  test('the reports and reproduce of a clone, as subcommands with --report-dir', async () => {
    const trend = await cli(['report', 'trend', '--report-dir', 'out/here'])
    expect(trend.code, trend.stderr).toBe(0)
    expect(trend.stdout).toMatch(/conformant \(filtered\)/)
    const acceptance = await cli(['report', 'acceptance', '--report-dir', 'out/here'])
    expect(acceptance.code, acceptance.stderr).toBe(0)
    expect(existsSync(join(app, 'out/here/acceptance.html'))).toBe(true)
    const annotations = await cli(['report', 'annotations', '--report-dir', 'out/here'])
    expect(annotations.code, annotations.stderr).toBe(0)
    const merged = await cli(['report', 'merge', 'out/here', '--out', 'out/merged'])
    expect(merged.code, merged.stderr).toBe(0)
    expect(existsSync(join(app, 'out/merged/results.json'))).toBe(true)
    // A conformant run has no failed entry, so nothing to reproduce: one sentence, exit 2.
    const none = await cli(['reproduce', 'signin.*', '--report-dir', 'out/here'])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/^mcs-conformance reproduce: 'signin\.\*' matches \d+ entries \([a-z, ]+\), none with a reproducer/)
    const unknown = await cli(['report', 'nope'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/the reports are diff, trend, acceptance, allure, merge, annotations/)
  })

  describe('against a target given by flag', () => {
    let ref: ReferenceTarget
    beforeAll(async () => {
      ref = await startReference()
    })
    afterAll(async () => {
      await ref?.close()
    })

    test('SIGINT mid-run: exit 2, interrupted, every channel deleted', async () => {
      // Credentials through an env file in the user's folder, the target through a flag (flag > env > file).
      writeFileSync(
        join(app, 'target.env'),
        Object.entries(ref.env)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
      )
      let signalled = false
      const run = await cli(['--env-file', 'target.env', '--base-url', ref.url, '--report-dir', 'interrupted'], {}, (child, stdout) => {
        // A suite file has finished: channels exist now and checks are still running.
        if (!signalled && /✓ suites\//.test(stdout)) {
          signalled = true
          child.kill('SIGINT')
        }
      })
      expect(signalled, run.stdout + run.stderr).toBe(true)
      expect(run.code, run.stdout + run.stderr).toBe(2)
      expect(run.stdout).toMatch(/SIGINT: interrupted/)
      const results = JSON.parse(readFileSync(join(app, 'interrupted/results.json'), 'utf8')) as RunResults
      expect(results.interrupted).toBe(true)
      expect(results.verdict).toBe('incomplete')
      expect(results.target.embedded).toBeFalsy()
      expect(ref.channelNames().filter((n) => /^ct/i.test(n))).toEqual([])
    })
  })
})
