/**
 * Bundles the test files for `scripts/test.sh` (every one, or those named): each file with the
 * code it imports from src/, test/helpers/ and scripts/ into one ESM file under
 * test-results/build/, packages but two left to node_modules. Node then runs plain JavaScript: no TypeScript loader in every test process
 * (tsx resolves and transpiles each module through a loader thread, about 1.5 s of CPU per file).
 *
 * Code keeps its own location: each module's `import.meta.url` is the URL of its source file, so
 * paths it takes relative to itself (the repository root, src/db for the template digest, the
 * built dashboard, the SQLite writer's source) are the same as under tsx.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { testFiles } from './test-plan.js'
import { THREAD_SCRIPT_BUILD, THREAD_SCRIPTS } from './thread-scripts.js'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
export const OUT_DIR = path.join(ROOT, 'test-results', 'build')
/** The worker threads' scripts, bundled once here rather than in every test process (scripts/thread-scripts.ts). */
const THREADS_DIR = path.join(OUT_DIR, 'threads')

const ownLocation: Plugin = {
  name: 'own-import-meta-url',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await fs.promises.readFile(args.path, 'utf8')
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' }
    })
  },
}

/**
 * The packages that ship as hundreds of small ES modules, bundled in as the command's bundle does
 * (scripts/bundle-cli.ts): Node loads ES modules one file at a time, and their ~660 files were
 * about half of a test process's start. Every other package stays in node_modules.
 */
const BUNDLED_PACKAGES = new Set(['typebox', 'kysely'])

const packagesExternal: Plugin = {
  name: 'packages-external',
  setup(esbuild) {
    // A bare specifier names a package or a builtin (node:…): all stay external but the two.
    esbuild.onResolve({ filter: /^[^./]/ }, ({ path: specifier }) => {
      const name = specifier.startsWith('@') ? specifier.split('/', 2).join('/') : specifier.split('/', 1)[0]!
      return BUNDLED_PACKAGES.has(name) ? undefined : { external: true }
    })
  },
}

// The files named, or every test file.
const files = process.argv.length > 2 ? process.argv.slice(2) : testFiles()
fs.rmSync(OUT_DIR, { recursive: true, force: true })
await build({
  entryPoints: [
    ...files.map((file) => path.resolve(ROOT, file)),
    // The runner that plans the legs and starts the files (see scripts/run-tests.ts).
    { in: path.join(ROOT, 'scripts', 'run-tests.ts'), out: 'run-tests' },
  ],
  outdir: OUT_DIR,
  outbase: path.join(ROOT, 'test'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'inline',
  // Stack traces name the sources' lines; the sources themselves are on disk, not in every map.
  sourcesContent: false,
  plugins: [packagesExternal, ownLocation],
  define: { 'process.env.TEST_THREAD_SCRIPTS_DIR': JSON.stringify(THREADS_DIR) },
  logLevel: 'warning',
})
await build({
  ...THREAD_SCRIPT_BUILD,
  entryPoints: Object.entries(THREAD_SCRIPTS).map(([out, source]) => ({ in: source, out })),
  outdir: THREADS_DIR,
  outExtension: { '.js': '.cjs' },
  logLevel: 'warning',
})
