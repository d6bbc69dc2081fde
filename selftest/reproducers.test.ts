/**
 * Reproducers as a vendor re-testing one fix gets them: a run of one fault's own clauses only (`--clause`, a child
 * process as `npm run conformance` makes it), then `npm run reproduce -- <clause> <results.json>` writing the
 * failed entry's script to a file, which is run with sh and curl (the variables of .env.example and BASE_URL only)
 * against a reference server with that fault (exit 1: the deviation shows) and a clean one (exit 0), leaving no
 * channel on either.
 *
 * That every catalogue fault's reproducer (from its whole-suite run) shows its deviation and cleans up is proved by
 * the fault self-test (selftest/faults.test.ts, selftest/reproducer-proof.ts); this file proves the path between:
 * the selection, results.json's scripts as the reproduce command writes them, and the files it writes run as is.
 * Without curl on the machine the file is skipped, and says why.
 */
import { statSync, readFileSync, readdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { clausesOf, resolveFaults } from '../reference/faults'
import { clausesWithChecks } from '../helpers/runner/pipeline'
import { scopeText } from '../helpers/reports/results'
import { startReference, type ReferenceTarget } from '../testing/reference-target'
import { ROOT, runChild, runSuite, type SuiteRun } from '../testing/run-suite'
import { entryToReplay, hasCurl, replay } from './reproducer-proof'

const CURL = hasCurl()
/** A fault of one clause with checks of its own, judged by a value the script tests (not a whole answer). */
const FAULT = resolveFaults(['channels-default-max-items-100'])[0]!

describe.skipIf(!CURL)('a reproducer written by npm run reproduce from a --clause run runs as is', () => {
  if (!CURL) test.skip('curl is not installed on this machine, so no reproducer can run', () => {})
  const own = clausesOf(FAULT).filter((c) => clausesWithChecks().has(c))
  let run: SuiteRun
  let faulty: ReferenceTarget
  let clean: ReferenceTarget

  beforeAll(async () => {
    ;[run, faulty, clean] = await Promise.all([
      runSuite(['--fault', FAULT.name, ...own.flatMap((c) => ['--clause', c])]),
      startReference({ faults: [FAULT.name] }),
      startReference(),
    ])
  }, 300_000)
  afterAll(async () => {
    await Promise.all([faulty?.close(), clean?.close()])
  })

  test('the --clause run judges only the fault clause and fails it', () => {
    expect(own.length, `${FAULT.name} has a clause with checks`).toBeGreaterThan(0)
    expect(run.results, run.stderr).not.toBeNull()
    expect(run.code).toBe(1)
    // The other checks are listed as skipped, each with why; only the named clauses' checks ran.
    const ran = new Set(run.results!.checks.filter((c) => !c.parent && c.status !== 'skipped').map((c) => c.clause))
    expect([...ran].sort()).toEqual([...own].sort())
    expect(scopeText(run.results!.filters), 'results.json states the scope').toContain(own[0])
    expect(entryToReplay(run.results!)?.clause).toBe(own[0])
  })

  test('npm run reproduce writes the entry of results.json as an executable file; it exits 1 against the fault, 0 against a clean server, and leaves nothing', async () => {
    const entry = entryToReplay(run.results!)!
    expect(entry.reproducer, `${entry.id} has a reproducer`).toMatch(/^#!\/bin\/sh\n/)
    const out = mkdtempSync(join(tmpdir(), 'ct-repro-'))
    // As `npm run reproduce` runs it (tsx), with the run's results.json named.
    const written = await runChild(
      process.execPath,
      ['--import', 'tsx', 'scripts/reproduce.ts', entry.clause, join(run.reportDir, 'results.json'), '--out', out],
      { cwd: ROOT, env: { ...process.env } },
      60_000,
    )
    expect(written.code, written.stderr).toBe(0)
    expect(written.stdout).toContain(entry.id)
    const files = readdirSync(out)
    expect(files.length).toBeGreaterThan(0)
    const file = join(out, files.find((f) => readFileSync(join(out, f), 'utf8') === entry.reproducer) ?? files[0]!)
    const script = readFileSync(file, 'utf8')
    expect(script, "the file holds results.json's script").toBe(entry.reproducer)
    expect(statSync(file).mode & 0o111, 'the file is executable').not.toBe(0)

    const before = { faulty: new Set(faulty.channelNames()), clean: new Set(clean.channelNames()) }
    const bad = await replay(script, faulty.url)
    expect(bad.code, `against ${FAULT.name}:\n${bad.out.slice(-2500)}`).toBe(1)
    expect(bad.out).toContain('DEVIATION SHOWS')
    const good = await replay(script, clean.url)
    expect(good.code, `against the clean server:\n${good.out.slice(-2500)}`).toBe(0)
    expect(
      faulty.channelNames().filter((n) => !before.faulty.has(n)),
      'left on the faulty server',
    ).toEqual([])
    expect(
      clean.channelNames().filter((n) => !before.clean.has(n)),
      'left on the clean server',
    ).toEqual([])
  }, 120_000)
})
