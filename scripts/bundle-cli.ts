/**
 * Bundles the compiled command (`dist/cli.js`, run by `adoption-store` and `npm start`) into one
 * file, in place: the service's own modules and the two packages that ship as hundreds of small
 * ES modules (typebox, kysely) go in; every other package stays in node_modules. Node loads ES
 * modules one file at a time, and those ~700 files were about a third of a second of CPU at every
 * start, more than the rest of a CLI command's work. The small CommonJS packages every command
 * loads go in too: Node reads a CommonJS module an ES module imports twice, once to find its
 * names (`ipaddr.js` alone was a fifth of a command's CPU); in the bundle, their `require` of
 * Node's own modules is the banner's.
 *
 * The other files of dist/ stay as compiled, for the package's exports and the SQLite writer
 * thread. Each bundled module keeps its own location: its `import.meta.url` is the URL of its
 * compiled file, reached from the bundle's, so paths it takes relative to itself (the dashboard,
 * the writer) do not move.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'

const ROOT = fileURLToPath(new URL('../', import.meta.url))
const DIST = path.join(ROOT, 'dist')
const ENTRY = path.join(DIST, 'cli.js')
const BUNDLED_PACKAGES = ['typebox', 'kysely', 'commander', 'ipaddr.js', 'standardwebhooks', 'secure-json-parse', 'ajv']
const CHUNK_PREFIX = 'cli-chunk-'

const { dependencies } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
const external = Object.keys(dependencies)
  .filter((name) => !BUNDLED_PACKAGES.includes(name))
  .flatMap((name) => [name, `${name}/*`])

const ownLocation: Plugin = {
  name: 'own-import-meta-url',
  setup(esbuild) {
    esbuild.onLoad({ filter: /\.js$/ }, async (args) => {
      if (!args.path.startsWith(DIST + path.sep)) return undefined
      const source = await fs.promises.readFile(args.path, 'utf8')
      const relative = `./${path.relative(DIST, args.path).split(path.sep).join('/')}`
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative)}, import.meta.url).href`), loader: 'js' }
    })
  },
}

// Chunks sit beside the entry, so that a module's path relative to dist/ is relative to its chunk too.
for (const file of fs.readdirSync(DIST)) if (file.startsWith(CHUNK_PREFIX)) fs.rmSync(path.join(DIST, file))
await build({
  entryPoints: [ENTRY],
  outdir: DIST,
  allowOverwrite: true,
  // What `import()` loads only when needed (the HTTP service for `serve`) stays out of the other
  // commands' start: it is a chunk of its own.
  splitting: true,
  chunkNames: `${CHUNK_PREFIX}[hash]`,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  plugins: [ownLocation],
  logLevel: 'warning',
  banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
})
