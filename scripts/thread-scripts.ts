/**
 * The worker threads' code for a process that runs the TypeScript sources (the tests, scripts
 * under tsx). Compiled, the SQLite writer runs `dist/db/sqlite-writer.js` and an image thread
 * `dist/photos/image-thread.js`; from source they would run the `.ts` files, but a worker thread
 * does not inherit the process's TypeScript loader, and one of its own would cost each thread a
 * third of a second. So each is bundled once per process into one CommonJS script (esbuild, which
 * tsx runs on), when its first thread starts. Imported for its effect, before any database is
 * opened (test/helpers/databases.ts).
 */
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { useWriterScript } from '../src/db/sqlite-threads.js'
import { useImageThreadScript } from '../src/photos/image-threads.js'

function bundled(source: string): () => string {
  return () => {
    const { outputFiles } = buildSync({
      entryPoints: [fileURLToPath(new URL(source, import.meta.url))],
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
      write: false,
    })
    const [script] = outputFiles
    if (!script) throw new Error(`${source} did not bundle`)
    return script.text
  }
}

useWriterScript(bundled('../src/db/sqlite-writer.ts'))
useImageThreadScript(bundled('../src/photos/image-thread.ts'))
