/**
 * docs/clauses.md, the traceability matrix: for every clause of the registry its section, level and the
 * spec's words, the operations it is judged on (endpoint table), the checks that judge it (read from the
 * suites' `check('<id>', …)` calls), the catalogue faults that prove those checks, and the reason where it
 * is not testable. Built from the repository alone; `npm run openapi` writes it and a self-test keeps it fresh.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { AREAS, CLAUSES, type Area, type Clause } from '../spec/clauses'
import { ENDPOINTS } from '../spec/endpoints'

/** What the matrix needs of a catalogue fault (the suite does not import the reference server). */
export interface FaultRef {
  name: string
  clauses: readonly string[]
  description: string
  deep: boolean
}

export interface CheckRef {
  clause: string
  /** Repository path of the suite file. */
  file: string
  /** The enclosing describe's title, when it is a plain string. */
  group?: string
  /** The check's title as written (a template literal keeps its `${…}`); undefined when made by code. */
  title?: string
}

// Titles in single or double quotes (the formatter picks double quotes for a title holding an apostrophe) or backticks.
const CHECK_CALL = /\bcheck\(\s*['"]([a-z0-9.-]+)['"]\s*,\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`]*)`)?/g
const DESCRIBE_CALL = /\bdescribe\(\s*(?:'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`([^`]*)`)/g

const unescape = (s: string): string => s.replace(/\\(.)/g, '$1')

/** Indentation of the line holding offset `at`. */
function indentAt(text: string, at: number): number {
  const start = text.lastIndexOf('\n', at - 1) + 1
  return /^[ \t]*/.exec(text.slice(start))![0].length
}

/** Every `check('<id>', …)` of the suites (suites/*.test.ts under `root`), in file and text order. */
export function scanChecks(root: string): CheckRef[] {
  const dir = join(root, 'suites')
  const out: CheckRef[] = []
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort()) {
    const text = readFileSync(join(dir, name), 'utf8')
    const describes = [...text.matchAll(DESCRIBE_CALL)].map((d) => ({ at: d.index, indent: indentAt(text, d.index), title: d[1] ?? d[2] ?? d[3] }))
    for (const m of text.matchAll(CHECK_CALL)) {
      const quoted = m[2] ?? m[3] ?? m[4]
      const ref: CheckRef = { clause: m[1]!, file: `suites/${name}`, ...(quoted !== undefined ? { title: unescape(quoted) } : {}) }
      // The nearest describe above with less indentation encloses the check.
      const indent = indentAt(text, m.index)
      const group = describes.filter((d) => d.at < m.index && d.indent < indent).pop()
      if (group?.title !== undefined) ref.group = unescape(group.title)
      out.push(ref)
    }
  }
  return out
}

/** Files under suites/ and helpers/kit/ that name a clause outside a check() call (findings made inside other checks). */
function mentions(root: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>()
  for (const folder of ['suites', 'helpers/kit']) {
    for (const name of readdirSync(join(root, folder)).filter((f) => f.endsWith('.ts')).sort()) {
      const text = readFileSync(join(root, folder, name), 'utf8')
        .replace(CHECK_CALL, '')
      for (const m of text.matchAll(/'([a-z]+\.[a-z0-9.-]+)'/g)) {
        const set = found.get(m[1]!) ?? new Set<string>()
        set.add(`${folder}/${name}`)
        found.set(m[1]!, set)
      }
    }
  }
  return found
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ')
const anchor = (id: string): string => id.replace(/\./g, '')

function clauseBlock(c: Clause, checks: CheckRef[], faults: FaultRef[], mentionedIn: Set<string> | undefined): string[] {
  const out = [`### ${c.id}`, '', `**${c.level}** · ${c.section} · ${c.title}`, '', `> ${c.quote}`, '']
  const ops = ENDPOINTS.filter((e) => e.clauses.includes(c.id as never)).map((e) => `\`${e.method} ${e.path}\``)
  out.push(`- Operations: ${ops.length ? ops.join(', ') : 'none (not tied to one endpoint)'}`)
  if (c.notTestable) out.push(`- Not testable: ${c.notTestable}`)
  if (checks.length) {
    out.push(`- Checks (${checks.length}):`)
    for (const k of checks) {
      const title = k.title === undefined ? '(title made per case by the code)' : `“${k.title}”`
      out.push(`  - ${k.file}${k.group ? ` › ${k.group}` : ''} › ${title}`)
    }
  } else if (!c.notTestable) {
    const where = [...(mentionedIn ?? [])]
    out.push(`- Checks: none of its own${where.length ? `; judged inside other checks (${where.join(', ')})` : ''}`)
  }
  if (faults.length) {
    out.push(`- Faults that prove it (${faults.length}):`)
    for (const f of faults) out.push(`  - \`${f.name}\`${f.deep ? ' (deep)' : ''}: ${f.description}`)
  } else {
    out.push(`- Faults that prove it: none${c.level === 'MUST' ? '' : ` (${c.level} clauses need none)`}`)
  }
  out.push('')
  return out
}

/** The whole of docs/clauses.md. */
export function clausesMarkdown(root: string, faults: readonly FaultRef[]): string {
  const checks = scanChecks(root)
  const mentioned = mentions(root)
  const lines: string[] = [
    '# Clauses: from the spec\'s statements to the checks and faults',
    '',
    '<!-- Written by `npm run openapi` from helpers/spec/clauses.ts, helpers/spec/endpoints.ts, suites/ and',
    '     reference/faults/; do not edit by hand. selftest/openapi.test.ts fails when it is stale. -->',
    '',
    'Every statement of the spec the suite judges is a clause of the registry (`helpers/spec/clauses.ts`) with',
    'its section, requirement level and the spec\'s words. For each clause: the operations it is judged on',
    '(`openapi.json` lists the same ids in each operation\'s `x-clauses`), the checks that judge it (search',
    '`check(\'<id>\'` in `suites/`), the faults of the reference server\'s catalogue (`reference/faults/`) that',
    'the suite must catch on it, and the reason where no black-box check can decide it. Levels:',
    '[docs/contract.md](contract.md).',
    '',
    '| area | clauses | MUST | SHOULD | INFO | with a check | with a fault | not testable |',
    '|---|---|---|---|---|---|---|---|',
  ]
  const byArea = new Map<Area, Clause[]>()
  for (const c of CLAUSES) byArea.set(c.area, [...(byArea.get(c.area) ?? []), c])
  const checksOf = (id: string) => checks.filter((k) => k.clause === id)
  const faultsOf = (id: string) => faults.filter((f) => f.clauses.includes(id))
  for (const [area, list] of byArea) {
    const n = (p: (c: Clause) => boolean) => list.filter(p).length
    lines.push(
      `| [${area}](#${area}) | ${list.length} | ${n((c) => c.level === 'MUST')} | ${n((c) => c.level === 'SHOULD')} | ${n((c) => c.level === 'INFO')} | ` +
        `${n((c) => checksOf(c.id).length > 0)} | ${n((c) => faultsOf(c.id).length > 0)} | ${n((c) => c.notTestable !== undefined)} |`,
    )
  }
  lines.push('')
  for (const [area, list] of byArea) {
    lines.push(`## ${area}`, '', `${AREAS[area]}.`, '', '| clause | level | section | checks | faults |', '|---|---|---|---|---|')
    for (const c of list) {
      const k = c.notTestable ? 'not testable' : String(checksOf(c.id).length)
      lines.push(`| [${c.id}](#${anchor(c.id)}) | ${c.level} | ${cell(c.section)} | ${k} | ${faultsOf(c.id).length} |`)
    }
    lines.push('')
    for (const c of list) lines.push(...clauseBlock(c, checksOf(c.id), faultsOf(c.id), mentioned.get(c.id)))
  }
  return `${lines.join('\n').trimEnd()}\n`
}
