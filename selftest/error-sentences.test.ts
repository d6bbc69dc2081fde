/**
 * Bad input gets one sentence that names the fix, and exit 2: a mistyped flag, area or level names the
 * nearest valid one and lists them; an --env-file that is not there is this tool's sentence, not Node's
 * "not found" and exit 9; an https:// URL on a plain-HTTP port is called that, not a certificate problem.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { didYouMean } from '../helpers/config/did-you-mean'
import { HttpClient, TransportError } from '../helpers/http/client'
import { DIRECT, transportKind } from '../helpers/http/network'
import { transportSentence } from '../helpers/runner/prepare'
import { filterProblem, FILTER_AREAS } from '../helpers/runner/pipeline'
import { ROOT } from '../testing/run-suite'

/** Runs a script of the repository the way its npm script or the bin does: Node's options end before it. */
function script(file: string, args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--', file, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, BASE_URL: '' },
  })
  return { code: r.status, stderr: r.stderr }
}

describe('did you mean', () => {
  test('names the nearest candidate of a small typo, and nothing for a word far from all of them', () => {
    expect(didYouMean('--aera', ['--area', '--level'])).toBe('--area')
    expect(didYouMean('--bse-url', ['--base-url', '--report-dir'])).toBe('--base-url')
    expect(didYouMean('shuold', ['must', 'should', 'info'])).toBe('should')
    expect(didYouMean('--colour', ['--area', '--level'])).toBeUndefined()
    expect(didYouMean('x', [])).toBeUndefined()
  })
})

describe('an unknown area or level lists the valid ones', () => {
  test('area', () => {
    const said = filterProblem(['itmes'], null)!
    expect(said).toMatch(/^unknown area 'itmes' \(did you mean items\?\); the areas are /)
    for (const a of FILTER_AREAS) expect(said).toContain(a)
    expect(said).not.toContain('http')
  })
  test('level', () => {
    expect(filterProblem([], 'sometimes')).toBe("unknown level 'sometimes'; the levels are must, should, info")
    expect(filterProblem([], 'shuold')).toBe("unknown level 'shuold' (did you mean should?); the levels are must, should, info")
  })
})

describe('command lines', () => {
  test('a mistyped flag of npm run conformance: one line naming the flag meant, exit 2', () => {
    const r = script('scripts/conformance.ts', ['--aera', 'items'])
    expect(r.code).toBe(2)
    expect(r.stderr.split('\n')[0]).toBe('conformance: unknown option --aera (did you mean --area?)')
  })

  test('a mistyped flag of the CLI: one sentence naming the flag meant, exit 2', () => {
    const r = script('scripts/cli.ts', ['--bse-url', 'http://127.0.0.1:9'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe('mcs-conformance: unknown option --bse-url (did you mean --base-url?); mcs-conformance --help lists the options')
  })

  test('a mistyped command of the CLI: the command meant and the list, exit 2', () => {
    const r = script('scripts/cli.ts', ['swep', '--dry-run'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe(
      "mcs-conformance: unknown command 'swep' (did you mean sweep?); the commands are run, sweep, explore, report, reproduce, serve",
    )
  })

  test('a missing --env-file: the tool\'s one sentence and exit 2, not Node\'s "not found" and exit 9', () => {
    for (const args of [
      ['--env-file', 'no-such.env'],
      ['sweep', '--env-file', 'no-such.env'],
      ['explore', '--env-file=no-such.env'],
    ]) {
      const r = script('scripts/cli.ts', args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr.trim().split('\n'), args.join(' ')).toEqual([
        expect.stringMatching(/^mcs-conformance: the env file no-such\.env does not exist \(relative to .+\); give --env-file/),
      ])
    }
  })

  test("the bin and every npm script that starts Node end Node's options before the script (Node 20 would take --env-file)", () => {
    expect(readFileSync(join(ROOT, 'scripts/cli.ts'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env -S node --')
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
    const node = Object.entries(scripts).filter(([, cmd]) => /^node\b/.test(cmd) && /\bscripts\//.test(cmd))
    expect(node.length).toBeGreaterThan(3)
    for (const [name, cmd] of node) expect(cmd, name).toMatch(/^node (?:--\S+ \S+ )*-- scripts\//)
  })
})

describe('https:// against a plain-HTTP port', () => {
  test('is named as plain HTTP with the fix, not blamed on the certificate or CA_FILE', async () => {
    const server = createServer((_req, res) => res.end('plain')).listen(0, '127.0.0.1')
    await new Promise((r) => server.once('listening', r))
    const baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const client = new HttpClient({ baseUrl, timeoutMs: 5_000, retries: 0 })
      const err = await client.send({ method: 'GET', path: '/', token: null }).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(TransportError)
      const t = err as TransportError
      expect(transportKind(t.causeCode, t.message)).toBe('plain-http')
      const said = transportSentence(t, { displayTarget: baseUrl, baseUrl, network: DIRECT, timeoutMs: 5_000 })
      expect(said).toMatch(/answered the TLS handshake with plain HTTP .*http:\/\//)
      expect(said).not.toMatch(/CA_FILE|certificate/)
    } finally {
      server.close()
    }
  })
})
