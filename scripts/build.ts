/**
 * npm run build (and `prepack`): compiles the command-line entry points and everything they import to
 * dist/ (tsconfig.build.json), so the installed CLI runs as plain JavaScript with no TypeScript loader.
 * The sources keep extensionless relative imports (vite and tsx resolve them; Node's ESM loader does not),
 * so each relative specifier of the output gets the file it names: `./x` → `./x.js` or `./x/index.js`.
 * The checks themselves (suites/) stay TypeScript: vitest compiles them in its workers as it always does.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { packageRoot } from '../helpers/config/package-root'

const root = packageRoot()
const dist = join(root, 'dist')
rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' })
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed\n')
  process.exit(2)
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  )
}

let rewritten = 0
for (const file of walk(dist)) {
  const text = readFileSync(file, 'utf8')
  const out = text.replace(/(\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\2/gm, (whole, lead: string, quote: string, spec: string) => {
    const target = resolve(dirname(file), spec)
    let next: string | null = null
    if (spec.endsWith('.js') || spec.endsWith('.json')) next = spec
    else if (spec.endsWith('.ts')) next = spec.replace(/\.ts$/, '.js')
    else if (existsSync(`${target}.js`)) next = `${spec}.js`
    else if (existsSync(join(target, 'index.js'))) next = `${spec}/index.js`
    if (next === null) throw new Error(`build: ${file} imports ${spec}, which was not compiled`)
    if (next !== spec) rewritten++
    return `${lead}${quote}${next}${quote}`
  })
  if (out !== text) writeFileSync(file, out)
}

// helpers/reports/results.ts reads the suite's name and version two folders up from itself: in dist/ that is
// this file. "type": "module" keeps the output ES modules wherever the package is unpacked.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string }
writeFileSync(join(dist, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', private: true }, null, 2)}\n`)
process.stdout.write(`build: dist/ written, ${walk(dist).length} modules, ${rewritten} import specifiers completed\n`)
