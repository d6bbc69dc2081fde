/**
 * The repository stands alone: no document or code comment points outside it. Relative Markdown links
 * resolve to files inside the repository, and no file names a path that only exists beside it (a sibling
 * folder, an absolute path of the machine it was written on, notes that are not part of it).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, test } from 'vitest'
import { ROOT } from '../testing/run-suite'

/** Text files of the repository: sources, documents and configuration; not dependencies, not run output. */
function files(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    const rel = relative(ROOT, p).split(sep).join('/')
    if (e.isDirectory()) return ['node_modules', '.git', 'dist'].includes(e.name) ? [] : files(p)
    // reports/ holds run output; only its README is the repository's own.
    if (rel.startsWith('reports/') && rel !== 'reports/README.md') return []
    return /\.(md|ts|mts|js|mjs|json|ya?ml)$|^\.env\.example$/.test(e.name) && e.name !== 'package-lock.json' ? [p] : []
  })
}

// Spelt in pieces, so this file does not trip over itself.
const OUTSIDE: readonly { text: string; what: string }[] = [
  { text: ['..', 'shared'].join('/'), what: 'a folder beside the repository' },
  { text: ['DESIGN', 'md'].join('.'), what: 'design notes that are not in the repository' },
  { text: ['STYLE', 'md'].join('.'), what: 'style notes that are not in the repository' },
  { text: ['service', 'spec'].join('-'), what: 'the spec document, which is not in the repository (cite helpers/spec/clauses.ts)' },
  { text: ['', 'work', ''].join('/'), what: 'an absolute path of the machine the file was written on' },
]

describe('no file points outside the repository', () => {
  const all = files()

  test('finds the documents to scan', () => {
    const docs = all.map((f) => relative(ROOT, f).split(sep).join('/'))
    expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/writing-checks.md', 'reference/README.md', 'docs/clauses.md']))
  })

  test('no document, comment or string names a path beside or above the repository', () => {
    const found: string[] = []
    for (const file of all) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const o of OUTSIDE) if (line.includes(o.text)) found.push(`${relative(ROOT, file)}:${i + 1}: ${o.text} (${o.what})`)
        })
    }
    expect(found).toEqual([])
  })

  test('every relative Markdown link resolves to a file inside the repository', () => {
    const broken: string[] = []
    for (const file of all.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(file, 'utf8')
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!.split('#')[0]!
        if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue // an anchor, or a URL with a scheme
        const path = resolve(dirname(file), decodeURIComponent(target))
        const inside = path === ROOT || path.startsWith(`${ROOT}${sep}`)
        if (!inside || !existsSync(path)) broken.push(`${relative(ROOT, file)}: ${m[1]} ${inside ? '(no such file)' : '(outside the repository)'}`)
      }
    }
    expect(broken).toEqual([])
  })
})
