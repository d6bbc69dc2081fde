/**
 * The clause is bound once per check: a static look at suites/ (no check spells a clause id except as the
 * first argument of check(); other clauses come from STEP_CLAUSES and ALSO), and the run-time guard that
 * turns a finding under a clause the check has no business with into a suite defect.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import type { TestCase } from 'vitest/node'
import { describe, expect, test } from 'vitest'
import type { Exchange } from '../helpers/http/client'
import { bindRecorder, Recorder, type CheckMeta } from '../helpers/http/recorder'
import { isClauseId, titleWithClause } from '../helpers/spec/clauses'
import { CheckFailure, ensure } from '../helpers/kit/expect'
import { ALSO, Judge, steps, SuiteDefect, wrongFailure, wrongFinding } from '../helpers/kit/judge'
import { display, match, pointer } from '../suites/support/match'
import { toResults } from '../helpers/runner/reporter'

const SUITES = join(import.meta.dirname, '..', 'suites')

/** Every string literal in a suite file that is a registered clause id and is not check()'s first argument. */
function strayIds(file: string, text = readFileSync(join(SUITES, file), 'utf8')): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && isClauseId(node.text)) {
      const call = node.parent
      const first = ts.isCallExpression(call) && ts.isIdentifier(call.expression) && call.expression.text === 'check' && call.arguments[0] === node
      if (!first) found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1} '${node.text}'`)
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

/**
 * Calls that bypass the check author's vocabulary (helpers/kit/judge.ts): findings go through the judge, set-up
 * steps through `steps` or a must* helper, failures through a judge or `ensure`, never a clause spelled out.
 */
const OFF_VOCABULARY = [
  /\brec\.(should|observe)\(/,
  /\bmustSucceed\b/,
  /\bmustSend\b/,
  /\bSTEP_CLAUSES\b/,
  /(?<![\w.])fail\(/,
  /\bexpect(Response|Refused|Elements)\(/,
  /\.step\(/,
  /\bjudge\.fail\(/,
]

function offVocabulary(text: string): string[] {
  return text.split('\n').flatMap((line, i) => (OFF_VOCABULARY.some((re) => re.test(line)) ? [`${i + 1}: ${line.trim()}`] : []))
}

/**
 * A failure message built by hand: a string or template literal of a suite file that states a got/want line
 * itself (`got ${…}`, `want ${…}`, `…, want …`) instead of leaving it to a matcher of suites/support/match.ts.
 * Comments are not literals, so they may say "want".
 */
const HAND_BUILT = [/\bgot \$\{/, /\bwant \$\{/, /[,;] want\b/, /\bgot (an?|the|\d)\b/]

function handBuilt(file: string, text = readFileSync(join(SUITES, file), 'utf8')): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    let literal: string | undefined
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literal = node.text
    else if (ts.isTemplateExpression(node)) literal = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join('${…}')
    if (literal !== undefined && HAND_BUILT.some((re) => re.test(literal))) {
      found.push(`${file}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1} ${node.getText(sf).slice(0, 100)}`)
      return
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return found
}

describe('suites/ name clauses only through check() and the kit', () => {
  const files = readdirSync(SUITES).filter((f) => f.endsWith('.ts'))

  test('there are suite files to look at', () => {
    expect(files.length).toBeGreaterThan(5)
  })

  test.each(files)('%s spells a clause id only as the first argument of check()', (file) => {
    // A check's own clause comes from its judge; another clause from STEP_CLAUSES (set-up steps) or ALSO.
    expect(strayIds(file)).toEqual([])
  })

  test.each([...files, ...readdirSync(join(SUITES, 'support')).map((f) => `support/${f}`)])(
    '%s judges, records and sets up in the one vocabulary of helpers/kit/judge.ts',
    (file) => {
      expect(offVocabulary(readFileSync(join(SUITES, file), 'utf8'))).toEqual([])
    },
  )

  // The matchers state every got/want line (suites/support/match.ts); a suite file only names what to match.
  test.each([...files, ...readdirSync(join(SUITES, 'support')).map((f) => `support/${f}`)].filter((f) => f !== 'support/match.ts'))(
    '%s builds no got/want failure message by hand',
    (file) => {
      expect(handBuilt(file)).toEqual([])
    },
  )

  test('the look finds a got/want message built by hand, and not a matcher or a comment', () => {
    const text = [
      'ensure(ok, judge, `/maxItems: got ${show(ch.maxItems)}, want -1`, ex)',
      'ensure(!isSuccess(ex), judge, `GET ${name}: status ${ex.status}, want a refusal`, ex)',
      "judge.should(ok, '/items: got an empty array')",
      "judge.match(ch, match.equal('/maxItems', -1, 'the default'), ex)",
      '// a key/value map may want a string',
    ].join('\n')
    expect(handBuilt('x.ts', text).map((l) => l.split(' ')[0])).toEqual(['x.ts:1', 'x.ts:2', 'x.ts:3'])
  })

  test('the look finds the ways that were removed', () => {
    const text = "rec.observe(ALSO.x, 'y')\nmustSucceed(ex, STEP_CLAUSES.publish)\nfail(judge.clause, 'p')\nexpectResponse(ex, {})\njudge.step(s)"
    expect(offVocabulary(text)).toHaveLength(5)
  })

  test('the look finds an id spelled anywhere else', () => {
    const text = "check('items.fetch.size', 't', async ({ judge }) => {\n  const id = `items.fetch.size`\n  ensure(false, 'items.fetch.offset', 'x')\n})"
    expect(strayIds('x.ts', text)).toEqual(["x.ts:2 'items.fetch.size'", "x.ts:3 'items.fetch.offset'"])
  })
})

function exchange(status: number, json: unknown = {}): Exchange {
  return {
    request: { method: 'GET', url: '/message/api/v2/channels/x', headers: {} },
    status,
    headers: { 'content-type': 'application/json' },
    text: JSON.stringify(json),
    json,
    durationMs: 1,
    attempts: 1,
  }
}

/** A recorder guarded as the `rec` fixture guards it, for a check of `own`. */
function guarded(own: string): Recorder {
  const rec = new Recorder()
  rec.guard = {
    finding: (id) => {
      const d = wrongFinding(own, id)
      if (d) throw new SuiteDefect(d)
    },
    failure: (id) => {
      const d = wrongFailure(own, id)
      if (d) throw new SuiteDefect(d)
    },
  }
  return rec
}

describe('the judge records under the bound clause only', () => {
  test('its methods judge and record under its own clause', () => {
    const rec = guarded('items.fetch.size')
    const judge = new Judge('items.fetch.size', rec)
    judge.observe('seen')
    judge.should(false, 'not quite')
    expect(rec.findings.map((f) => f.clause)).toEqual(['items.fetch.size', 'items.fetch.size'])
    const ex = bindRecorder(exchange(400), rec)
    expect(() => judge.response(ex, { status: 200 })).toThrow(CheckFailure)
    expect(() => ensure(false, judge, 'no', ex)).toThrow(expect.objectContaining({ name: 'CheckFailure', clauseId: 'items.fetch.size' }))
    expect(() => judge.refused(bindRecorder(exchange(200), rec))).toThrow(CheckFailure)
  })

  test('a set-up step fails under its own clause, which blocks rather than errs', () => {
    const rec = guarded('items.fetch.size')
    const ex = bindRecorder(exchange(500), rec)
    expect(() => steps.publish.response(ex, { status: '2xx' })).toThrow(expect.objectContaining({ name: 'CheckFailure', clauseId: 'items.publish.response' }))
    expect(() => ensure(false, steps.getItems, 'x', ex)).toThrow(expect.objectContaining({ clauseId: 'items.get.shape' }))
    expect(() => steps.getTags.match({ tags: 1 }, match.type('/tags', 'array'), ex)).toThrow(expect.objectContaining({ clauseId: 'tags.get.shape' }))
    // A step judges; the findings of a check are its own judge's to record.
    expect(() => steps.getTags.observe('x')).toThrow(SuiteDefect)
  })

  test('a finding under another clause is recorded through the judge, naming one of ALSO', () => {
    const rec = guarded('items.permission.owner')
    const judge = new Judge('items.permission.owner', rec)
    judge.should(true, 'status 403', ALSO.forbidden403)
    judge.observe('seen', ALSO.inputRefused)
    expect(rec.findings.map((f) => f.clause)).toEqual(['http.forbidden-403', 'http.input-refused'])
  })

  test('judge.match fails its clause with the first got/want problem and passes a value that matches', () => {
    const rec = guarded('channels.get.matches-create')
    const judge = new Judge('channels.get.matches-create', rec)
    const ex = bindRecorder(exchange(200, { maxItems: 5 }), rec)
    expect(() => judge.match(ex.json, [match.type('/maxItems', 'number'), match.equal('/maxItems', -1)], ex)).toThrow(
      expect.objectContaining({
        name: 'CheckFailure',
        clauseId: 'channels.get.matches-create',
        message: expect.stringContaining('/maxItems: got 5 (number), want -1 (number)'),
      }),
    )
    expect(() => judge.match(ex.json, match.equal('/maxItems', 5), ex)).not.toThrow()
  })

  test('the matchers each state one got/want line naming the pointer, and pass a value that matches', () => {
    const ch = { maxItems: 5, creator: 'u1:alice@example.com/dev', total: 2.5, tags: ['a', 'b'], user: { email: 'x@y' } }
    expect(match.object('a Channel object')(ch)).toBeUndefined()
    expect(match.object('a Channel object')([ch])).toMatch(/^\(root\): got .* \(array\), want a Channel object$/)
    expect(match.integer('/maxItems', 0)(ch)).toBeUndefined()
    expect(match.integer('/total', 0)(ch)).toBe('/total: got 2.5 (number), want an integer of at least 0')
    expect(match.integer('/maxItems', 6)(ch)).toBe('/maxItems: got 5 (number), want an integer of at least 6')
    expect(match.startsWith('/creator', 'u1')(ch)).toBeUndefined()
    expect(match.startsWith('/creator', 'u2', "A's user id")(ch)).toBe(
      '/creator: got "u1:alice@example.com/dev" (string), want a string starting with "u2" (string) (A\'s user id)',
    )
    expect(match.atLeast('/tags', 2)(ch)).toBeUndefined()
    expect(match.atLeast('/tags', 3, 'the three added')(ch)).toBe('/tags: got 2 element(s) ["a","b"] (array), want at least 3 element(s) (the three added)')
    expect(match.absent('/user/password')(ch)).toBeUndefined()
    expect(match.absent('/user/email')(ch)).toBe('/user/email: got "x@y" (string), want the field absent')
    expect(match.not('/maxItems', 6)(ch)).toBeUndefined()
    expect(match.not('/maxItems', 5, 'the old value')(ch)).toBe('/maxItems: got 5 (number), want anything but that (the old value)')
    expect(match.containsAll('/tags', ['a', 'c'], { what: 'both added' })(ch)).toBe(
      '/tags: got ["a","b"] (array), want ["a","c"] (array) (both added) among them; missing ["c"] (array)',
    )
    expect(match.exactly('/tags', ['a'], { what: 'the one kept' })(ch)).toBe(
      '/tags: got ["a","b"] (array), want exactly ["a"] (array) (the one kept) in any order',
    )
  })

  test('match.status judges an answer by its status: a code, codes, 2xx or a refusal', () => {
    expect(match.status('refusal')(exchange(403))).toBeUndefined()
    expect(match.status('refusal', 'the channel is gone')(exchange(200))).toBe('status: got 200, want a refusal (not 2xx) (the channel is gone)')
    expect(match.status('2xx')(exchange(204))).toBeUndefined()
    expect(match.status('2xx')(exchange(404))).toBe('status: got 404, want 2xx')
    expect(match.status([200, 201])(exchange(202))).toBe('status: got 202, want 200 or 201')
    expect(match.when("owner's GET", match.status(200))(exchange(404))).toBe("owner's GET: status: got 404, want 200")
  })

  test('match.derived judges a value the check worked out, under a label, whatever the body', () => {
    const device = match.derived('/creator device part', 'dev-9', match.equal('', 'dev-1', 'the device A signed in with'))
    expect(device({ any: 'body' })).toBe('/creator device part: got "dev-9" (string), want "dev-1" (string) (the device A signed in with)')
    expect(match.derived('/items itemIds', ['x'], match.size('', 1))(undefined)).toBeUndefined()
    expect(match.derived('/user', { a: 1 }, match.equal('/a', 2))(null)).toBe('/user/a: got 1 (number), want 2 (number)')
  })

  test('match.same names the first difference by its own pointer', () => {
    const want = { ref: 'r', nested: { level: 2, 'x/y': 'z' }, list: [1, 2] }
    expect(match.same('/content', want)({ content: { ref: 'r', nested: { level: 2, 'x/y': 'z' }, list: [1, 2] } })).toBeUndefined()
    expect(match.same('/content', want)({ content: { ref: 'r', nested: { level: '2', 'x/y': 'z' }, list: [1, 2] } })).toBe(
      '/content/nested/level: got "2" (string), want 2 (number)',
    )
    expect(match.same('/content', want)({ content: { ref: 'r', nested: { level: 2 }, list: [1, 2] } })).toBe(
      '/content/nested/x~1y: got nothing, want "z" (string)',
    )
    expect(match.same('/content', want)({ content: { ...want, extra: 1 } })).toMatch(
      /^\/content: got the keys \["extra"\] \(array\) besides, want only those of /,
    )
    expect(match.same('', [1])([1, 2])).toBe('(root): got 2 element(s) [1,2] (array), want 1')
    expect(pointer('content', 'x/y', 'a~b', 0)).toBe('/content/x~1y/a~0b/0')
  })

  test('a long string shows its head, its tail and its length, so values differing near the end read apart', () => {
    const long = `${'a'.repeat(100)}END`
    expect(display(long)).toBe(`"${'a'.repeat(40)}…${'a'.repeat(17)}END" (string of 103 characters)`)
    expect(display('short')).toBe('"short" (string)')
    expect(match.equal('/d', `${'a'.repeat(100)}XYZ`)({ d: long })).toContain('…aaaaaaaaaaaaaaaaaEND" (string of 103 characters), want "')
  })

  test("match.explain gives ensure() the matcher's problem, and calls a matcher that finds none where ensure failed a suite defect", () => {
    const rec = guarded('channels.get.matches-create')
    const judge = new Judge('channels.get.matches-create', rec)
    const ex = bindRecorder(exchange(200, { tags: 'x' }), rec)
    const tags: unknown = (ex.json as { tags: unknown }).tags
    expect(() => ensure(Array.isArray(tags), judge, match.explain(ex.json, match.type('/tags', 'array')), ex)).toThrow(
      expect.objectContaining({ name: 'CheckFailure', message: expect.stringContaining('/tags: got "x" (string), want a value of type array') }),
    )
    expect(() => ensure(false, judge, match.explain(ex.json, match.type('/tags', 'string')), ex)).toThrow(SuiteDefect)
    expect(() => ensure(true, judge, match.explain(ex.json, match.type('/tags', 'array')), ex)).not.toThrow()
  })

  test('companions of ALSO and what the kit records itself are findings a check may make', () => {
    const rec = guarded('items.permission.owner')
    rec.should(ALSO.forbidden403, true, 'status 403')
    rec.should('http.no-extra-fields', true, 'none')
    rec.observe('http.error-body', '403: empty body')
    expect(rec.findings).toHaveLength(3)
  })

  test("a failure under another check's clause is a suite defect, not a CheckFailure", () => {
    const rec = guarded('items.fetch.size')
    const ex = bindRecorder(exchange(400), rec)
    const other = new Judge('items.fetch.offset', rec)
    expect(() => ensure(false, other, 'no', ex)).toThrow(SuiteDefect)
    expect(() => ensure(false, other, 'no', ex)).toThrow(/neither its own clause nor a set-up step's/)
  })

  test("a finding under a clause that is neither own, a step's nor in ALSO is a suite defect", () => {
    const rec = guarded('items.fetch.size')
    expect(() => rec.observe('items.fetch.offset', 'x')).toThrow(SuiteDefect)
    expect(() => rec.should('users.search.wildcard', false, 'x')).toThrow(/items\.fetch\.size recorded a finding under users\.search\.wildcard/)
    expect(rec.findings).toEqual([])
  })

  test('ALSO holds no MUST clause: a companion never decides a check', async () => {
    const { clause } = await import('../helpers/spec/clauses')
    expect(Object.values(ALSO).filter((id) => clause(id).level === 'MUST')).toEqual([])
  })
})

/** Enough of a vitest TestCase for toResults. */
function testCase(
  meta: { clause?: string; evidence?: CheckMeta },
  error: { name: string; message: string; clauseId?: string },
  title = titleWithClause('answers the channel', 'channels.get.shape'),
): TestCase {
  return {
    name: title,
    meta: () => meta,
    result: () => ({ state: 'failed', errors: [error] }),
    diagnostic: () => ({ duration: 5 }),
  } as unknown as TestCase
}

describe('the reporter reads the bound clause', () => {
  test('from meta, not from the title', () => {
    const [r] = toResults(
      testCase({ clause: 'channels.get.shape', evidence: {} }, { name: 'CheckFailure', message: 'x', clauseId: 'channels.get.shape' }),
      'f',
    ).checks
    expect(r).toMatchObject({ clause: 'channels.get.shape', status: 'failed', id: 'channels.get.shape: answers the channel' })
  })

  test('a suite defect ends the check error, charging no clause', () => {
    const checks = toResults(testCase({ clause: 'channels.get.shape', evidence: {} }, { name: 'SuiteDefect', message: 'suite defect: …' }), 'f').checks
    expect(checks.map((c) => c.status)).toEqual(['error'])
  })
})

describe('the reporter keeps a skipped check’s reason', () => {
  const skipped = (note: string | undefined): TestCase =>
    ({
      name: titleWithClause('answers the channel', 'channels.get.shape'),
      meta: () => ({ clause: 'channels.get.shape', evidence: {} }),
      result: () => ({ state: 'skipped', errors: undefined, note }),
      diagnostic: () => ({ duration: 5 }),
    }) as unknown as TestCase

  test('the note the check gave skip() is its message', () => {
    const [r] = toResults(skipped('both forms were refused (6 digits: 400): no answer to judge'), 'f').checks
    expect(r).toMatchObject({ status: 'skipped', message: 'not run: both forms were refused (6 digits: 400): no answer to judge' })
  })

  test('without a note there is no message here (the run names the reason: scope, interrupt or the runner)', () => {
    const [r] = toResults(skipped(undefined), 'f').checks
    expect(r?.status).toBe('skipped')
    expect(r?.message).toBeUndefined()
  })
})
