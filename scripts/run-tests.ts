/**
 * Runs test files in the order given, `--concurrency` at a time, and reports them as
 * `node --test --test-reporter=spec` does. `node --test` sorts the files it is given by name, so
 * it cannot start the longest first (see LONGEST in scripts/test.sh); its `run()` keeps the order.
 * Bundled into test-results/build/ with the test files (scripts/build-tests.ts) and run without a
 * TypeScript loader, since every test process inherits this one's Node flags.
 *
 *   node --enable-source-maps test-results/build/run-tests.mjs --concurrency 2 FILE...
 *
 * Exits 1 when a test failed or was cancelled, as `node --test` does.
 */
import { parseArgs } from 'node:util'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'

const { values, positionals: files } = parseArgs({
  options: { concurrency: { type: 'string', default: '1' } },
  allowPositionals: true,
})
const concurrency = Number(values.concurrency)
if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency must be a whole number of at least 1, not ${values.concurrency}`)

run({ files, concurrency })
  .on('test:fail', ({ todo }) => {
    if (todo === undefined || todo === false) process.exitCode = 1
  })
  .compose(new spec())
  .pipe(process.stdout)
