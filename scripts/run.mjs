/**
 * node scripts/run.mjs <script> [args…] — runs scripts/<script>.ts as plain JavaScript, as the installed CLI
 * runs dist/: `npm run conformance`, `explore` and `sweep` start here.
 *
 * Under a TypeScript loader (tsx) every module the main process imports, vitest's and vite's included, is
 * resolved and loaded through the loader's thread: about a second of every run's start on a 2-core machine.
 * So the suite's own TypeScript that runs in the main process (helpers/, reference/, scripts/) is compiled here
 * instead, file by file with esbuild (tsx's own compiler), into node_modules/.cache/mcs-conformance/, the same
 * tree with `.js` files; a file is compiled again only when its text changed (its hash is kept), so the
 * compiled copy is always the source as it is now. The checks (suites/) are not touched: vitest compiles them.
 * No type checking happens here, as under tsx (`npm run typecheck` does it).
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const OUT = join(ROOT, 'node_modules', '.cache', 'mcs-conformance')
const FOLDERS = ['helpers', 'reference', 'scripts']

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name)
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(full)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : []
  })
}

/** Relative specifiers of the output name the compiled files: `./x` → `./x.js` or `./x/index.js`, `./x.ts` → `./x.js`. */
function completeSpecifiers(code, source) {
  return code.replace(/(\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\2/gm, (whole, lead, quote, spec) => {
    const target = resolve(dirname(source), spec)
    let next = spec
    if (spec.endsWith('.ts')) next = spec.replace(/\.ts$/, '.js')
    else if (spec.endsWith('.js') || spec.endsWith('.mjs') || spec.endsWith('.json')) next = spec
    else if (existsSync(`${target}.ts`)) next = `${spec}.js`
    else if (existsSync(join(target, 'index.ts'))) next = `${spec}/index.js`
    return `${lead}${quote}${next}${quote}`
  })
}

/** Compiles what changed since the last time; returns how many files were compiled. */
function compile() {
  const manifestPath = join(OUT, 'manifest.json')
  let manifest = {}
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  } catch {
    manifest = {}
  }
  const self = createHash('sha1')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest('hex')
  if (manifest.self !== self) manifest = { self, files: {} }
  let esbuild = null
  let compiled = 0
  for (const file of FOLDERS.flatMap((f) => sources(join(ROOT, f)))) {
    const rel = relative(ROOT, file)
    const text = readFileSync(file, 'utf8')
    const hash = createHash('sha1').update(text).digest('hex')
    const out = join(OUT, rel.replace(/\.ts$/, '.js'))
    if (manifest.files[rel] === hash && existsSync(out)) continue
    // esbuild comes with tsx (a dependency of the suite); resolved from there, it is the version tsx compiles with.
    esbuild ??= createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild')
    const { code } = esbuild.transformSync(text, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file })
    mkdirSync(dirname(out), { recursive: true })
    // Written aside and renamed: a run starting at the same moment reads the old file or the new, never half of one.
    const temp = `${out}.${process.pid}.tmp`
    writeFileSync(temp, completeSpecifiers(code, file))
    renameSync(temp, out)
    manifest.files[rel] = hash
    compiled++
  }
  // results.ts reads the suite's name and version two folders up from itself, as in dist/.
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const ownPkg = `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', private: true }, null, 2)}\n`
  if (!existsSync(join(OUT, 'package.json')) || readFileSync(join(OUT, 'package.json'), 'utf8') !== ownPkg) writeFileSync(join(OUT, 'package.json'), ownPkg)
  if (compiled) {
    const temp = `${manifestPath}.${process.pid}.tmp`
    writeFileSync(temp, JSON.stringify(manifest))
    renameSync(temp, manifestPath)
  }
  return compiled
}

const [script, ...rest] = process.argv.slice(2)
if (!script || !existsSync(join(ROOT, 'scripts', `${script}.ts`))) {
  process.stderr.write(`run: name a script of scripts/ (conformance, explore, sweep), got '${script ?? ''}'\n`)
  process.exit(2)
}
mkdirSync(OUT, { recursive: true })
compile()
const entry = join(OUT, 'scripts', `${script}.js`)
// The script sees itself as the program Node started (scripts/entry.ts isEntry), with its own arguments.
process.argv.splice(1, process.argv.length - 1, entry, ...rest)
await import(pathToFileURL(entry).href)
