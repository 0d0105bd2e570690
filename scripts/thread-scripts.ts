/**
 * The worker threads' code for a process that runs the TypeScript sources (the tests, scripts
 * under tsx). Compiled, the SQLite writer runs `dist/db/sqlite-writer.js` and an image thread
 * `dist/photos/image-thread.js`; from source they would run the `.ts` files, but a worker thread
 * does not inherit the process's TypeScript loader, and one of its own would cost each thread a
 * third of a second. So each is one CommonJS script (esbuild, which tsx runs on): bundled by the
 * tests' build (scripts/build-tests.ts) into the directory it names here, or else once per
 * process when its first thread starts. Imported for its effect, before any database is opened
 * (test/helpers/databases.ts).
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BuildOptions, buildSync } from 'esbuild'
import { useWriterScript } from '../src/db/sqlite-threads.js'
import { useImageThreadScript } from '../src/photos/image-threads.js'

/** Each thread's script: its name in a bundle directory, and its source. */
export const THREAD_SCRIPTS = {
  'sqlite-writer': fileURLToPath(new URL('../src/db/sqlite-writer.ts', import.meta.url)),
  'image-thread': fileURLToPath(new URL('../src/photos/image-thread.ts', import.meta.url)),
} as const

/** How a thread's script is bundled. */
export const THREAD_SCRIPT_BUILD: BuildOptions = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // A module that resolves packages from its own address (src/lazy.ts) resolves them from the
  // working directory instead: the tests' and scripts' is the project's. (The name is spelled
  // in pieces: the tests' build rewrites that text wherever it appears in a source.)
  define: { [['import', 'meta', 'url'].join('.')]: 'importMetaUrl' },
  banner: { js: "const importMetaUrl = require('node:url').pathToFileURL(process.cwd() + '/').href;" },
}

/** Where the tests' build put the bundles: replaced by it with the directory; unset under tsx. */
const BUNDLED = process.env.TEST_THREAD_SCRIPTS_DIR

function script(name: keyof typeof THREAD_SCRIPTS): () => string {
  if (BUNDLED) return () => fs.readFileSync(path.join(BUNDLED, `${name}.cjs`), 'utf8')
  return () => {
    const { outputFiles } = buildSync({ ...THREAD_SCRIPT_BUILD, entryPoints: [THREAD_SCRIPTS[name]], write: false })
    const [bundle] = outputFiles ?? []
    if (!bundle) throw new Error(`${THREAD_SCRIPTS[name]} did not bundle`)
    return bundle.text
  }
}

useWriterScript(script('sqlite-writer'))
useImageThreadScript(script('image-thread'))
