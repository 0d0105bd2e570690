/**
 * The SQLite writer thread's code for a process that runs the TypeScript sources (the tests,
 * scripts under tsx). Compiled, the thread runs `dist/db/sqlite-writer.js`; from source it would
 * run `src/db/sqlite-writer.ts`, but a worker thread does not inherit the process's TypeScript
 * loader, and one of its own would cost each thread a third of a second. So the writer is bundled
 * once per process into one CommonJS script (esbuild, which tsx runs on), when the first thread
 * starts. Imported for its effect, before any database is opened (test/helpers/databases.ts).
 */
import { fileURLToPath } from 'node:url'
import { buildSync } from 'esbuild'
import { useWriterScript } from '../src/db/sqlite-threads.js'

useWriterScript(() => {
  const { outputFiles } = buildSync({
    entryPoints: [fileURLToPath(new URL('../src/db/sqlite-writer.ts', import.meta.url))],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    write: false,
  })
  const [script] = outputFiles
  if (!script) throw new Error('the SQLite writer did not bundle')
  return script.text
})
