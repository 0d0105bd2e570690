/**
 * The test suite (scripts/test.sh bundles the files, then runs this): every test file on SQLite,
 * then again on PostgreSQL each file whose subject depends on the back end, when a server is
 * configured (TEST_DATABASE_URL or DATABASE_URL); the browser pages (`legs: 'either'`) once, in
 * whichever leg evens out the two. Redis suites run when TEST_REDIS_URL or REDIS_URL is set. What
 * was skipped is said at the end.
 *
 * Which leg and lane each file runs in is what the file declares (its `testPlan`, read from its
 * source: scripts/test-plan.ts); within a lane files start longest first, by the durations of
 * test/durations.json. A leg runs its busy files TEST_CONCURRENCY at a time (default 3, one more
 * than the cores here: the work is mostly CPU, and the third file uses the time the other two
 * spend waiting for child processes, browsers and timers), the waiting lane beside them one at a
 * time (its report printed after theirs), then the serial lane alone. Each file has its own
 * databases, ports, Redis key prefixes and temporary directories. A leg ends on many short files
 * rather than waiting for one long one that happened to start late; `node --test` would sort the
 * files by name, node:test's `run()` keeps the order given.
 *
 * Every temporary file of the run (data directories, SQLite files, uploads, exports, Chromium's
 * profiles) goes under one directory of its own, removed at the end: on the memory filesystem
 * (/dev/shm) when the machine has a roomy one and TMPDIR does not name another place. The store
 * still syncs every commit (synchronous=FULL), which costs nothing there: on this machine's
 * virtual disk the syncs, creations and removals of the test apps' files cost a file a third of
 * its time, in the kernel. What the tests check does not depend on the disk: a killed process
 * leaves its writes in the kernel's cache either way.
 *
 *   node --enable-source-maps test-results/build/run-tests.mjs [--record-durations]
 *
 * --record-durations: writes the durations of this run to test/durations.json, of the files
 * that passed (one that failed keeps the duration it had). Bundled into test-results/build/ with the test files (scripts/build-tests.ts)
 * and run without a TypeScript loader, since every test process inherits this one's Node flags.
 * Exits 1 when a test failed or was cancelled, as `node --test` does.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import { once } from 'node:events'
import os from 'node:os'
import path from 'node:path'
import { run } from 'node:test'
import { spec } from 'node:test/reporters'
import { parseArgs } from 'node:util'
import { DURATIONS_FILE, type Leg, type LegPlan, placeEitherFiles, planLeg, readDurations, readTestPlan, ROOT, testFiles, writeDurations } from './test-plan.js'

const { values } = parseArgs({ options: { 'record-durations': { type: 'boolean', default: false } } })
const concurrency = Number(process.env.TEST_CONCURRENCY || 3)
if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new Error(`TEST_CONCURRENCY must be a whole number of at least 1, not ${process.env.TEST_CONCURRENCY}`)

const BUILD_DIR = path.join(ROOT, 'test-results', 'build')
/** A source file's bundle (scripts/build-tests.ts), which is what runs. */
const bundled = (file: string) => path.join(BUILD_DIR, `${path.basename(file, '.ts')}.mjs`)

interface Run {
  /** The spec reporter's text, as it comes. */
  report: AsyncIterable<string | Buffer>
  failed(): boolean
}

/**
 * Runs files (sources, by their bundles) in the order given, `at` at a time, measuring each that
 * passes (its seconds, start to end) into `seconds`.
 */
function runFiles(files: string[], at: number, seconds: Map<string, number>): Run {
  const sources = new Map(files.map((file) => [bundled(file), file]))
  let failed = false
  const stream = run({ files: [...sources.keys()], concurrency: at })
    .on('test:fail', ({ todo }) => {
      if (todo === undefined || todo === false) failed = true
    })
    .on('test:complete', ({ nesting, name, file, details }) => {
      // A file's own entry: the whole child process, start to end, passed when all its tests did.
      // (Its tests' events name the source, through the source map; this one names the bundle.)
      const source = file === undefined ? undefined : sources.get(file)
      if (nesting === 0 && name === file && source && details.passed) seconds.set(source, details.duration_ms / 1000)
    })
  return { report: stream.compose(new spec()), failed: () => failed }
}

async function print(report: AsyncIterable<string | Buffer>, to: (text: string) => void = (text) => process.stdout.write(text)): Promise<void> {
  for await (const chunk of report) to(String(chunk))
}

/** One leg: the busy files with the waiting lane beside them, then the serial lane. Answers whether all passed. */
async function leg(dialect: Leg, plan: LegPlan, seconds: Map<string, number>): Promise<boolean> {
  process.env.TEST_DIALECT = dialect
  const started = performance.now()
  const cpuAtStart = machineCpuSeconds()
  console.log(`== ${dialect}: ${plan.busy.length} files ${concurrency} at a time, ${plan.waiting.length} in the waiting lane, ${plan.serial.length} serial ==`)
  let laneText = ''
  const lane = plan.waiting.length ? runFiles(plan.waiting, 1, seconds) : undefined
  const laneDone = lane ? print(lane.report, (text) => (laneText += text)) : Promise.resolve()
  const busy = plan.busy.length ? runFiles(plan.busy, concurrency, seconds) : undefined
  if (busy) await print(busy.report)
  await laneDone
  console.log(`== ${dialect}: the waiting lane, run beside the files above ==`)
  process.stdout.write(laneText)
  const serial = plan.serial.length ? runFiles(plan.serial, 1, seconds) : undefined
  if (serial) await print(serial.report)
  const elapsed = (performance.now() - started) / 1000
  const cpu = machineCpuSeconds() - cpuAtStart
  // The machine's whole CPU over the leg (every process, the servers' too): how busy the cores
  // were, so whether only less CPU would make the leg shorter. It moves with the host's other
  // load too: a file that took 12.9 s of CPU one hour took 17 to 18 s the next.
  const cores = os.availableParallelism()
  const usage = Number.isNaN(cpu) ? '' : ` (the machine's CPU: ${Math.round(cpu)} s, ${Math.round((100 * cpu) / (elapsed * cores))} % of its ${cores} cores)`
  console.log(`== ${dialect}: ${Math.round(elapsed)} s${usage} ==`)
  return ![busy, lane, serial].some((group) => group?.failed())
}

/** Seconds of CPU every core of the machine has spent busy since it started (/proc/stat); NaN where there is none. */
function machineCpuSeconds(): number {
  try {
    const [, ...ticks] = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number)
    // user nice system idle iowait irq softirq steal, in clock ticks (USER_HZ, 100 on Linux): all but idle and iowait.
    const [user, nice, system, , , irq, softirq, steal] = ticks as number[]
    return (user! + nice! + system! + irq! + softirq! + steal!) / 100
  } catch {
    return Number.NaN
  }
}

/**
 * One Chromium for every browser file (each works in contexts of its own), its endpoint passed on
 * as TEST_BROWSER_ENDPOINT; without it, each file launches its own.
 */
async function startChromium(): Promise<ChildProcess | undefined> {
  try {
    fs.accessSync('/usr/bin/chromium', fs.constants.X_OK)
  } catch {
    return undefined
  }
  const browser = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/browser-server.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  process.once('exit', () => browser.kill())
  let endpoint = ''
  const line = new Promise<void>((resolve) => {
    browser.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      endpoint += chunk
      if (/^ws:\/\/.*\n/m.test(endpoint)) resolve()
    })
    browser.once('exit', () => resolve())
    setTimeout(resolve, 30_000).unref()
  })
  await line
  // Its first line beginning ws:// (a helper it imports may print a note before it).
  endpoint = endpoint.split('\n').find((line) => line.startsWith('ws://')) ?? ''
  if (endpoint.startsWith('ws://')) {
    process.env.TEST_BROWSER_ENDPOINT = endpoint
    return browser
  }
  console.log('note: the shared Chromium did not start; browser files launch their own')
  await stopChromium(browser)
  return undefined
}

async function stopChromium(browser: ChildProcess | undefined): Promise<void> {
  delete process.env.TEST_BROWSER_ENDPOINT
  if (!browser || browser.exitCode !== null || browser.signalCode !== null) return
  browser.kill('SIGTERM')
  await once(browser, 'exit')
}

/** Bytes free on a memory filesystem below which the suite keeps its files on disk instead. */
const MEMORY_ROOM = 4 * 1024 ** 3

/** The run's temporary directory (see above), set as TMPDIR for every process of the run. */
function suiteTemporaryDirectory(): string {
  let parent = process.env.TMPDIR || os.tmpdir()
  if (!process.env.TMPDIR) {
    try {
      const free = fs.statfsSync('/dev/shm')
      fs.accessSync('/dev/shm', fs.constants.W_OK)
      if (free.bavail * free.bsize >= MEMORY_ROOM) parent = '/dev/shm'
    } catch {
      // No memory filesystem here: the usual temporary directory.
    }
  }
  const dir = fs.mkdtempSync(path.join(parent, 'adoption-store-suite-'))
  process.env.TMPDIR = dir
  process.once('exit', () => {
    try {
      fs.rmSync(dir, { recursive: true, force: true })
    } catch (error) {
      console.log(`note: ${dir} was not removed: ${(error as Error).message}`)
    }
  })
  return dir
}

console.log(`== temporary files under ${suiteTemporaryDirectory()} ==`)
const files = testFiles()
const plans = new Map(files.map((file) => [file, readTestPlan(file)]))
const durations = readDurations()
const measured = new Map<Leg, Map<string, number>>()
let passed = true

const postgres = Boolean(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL)
const legs: Leg[] = postgres ? ['sqlite', 'postgres'] : ['sqlite']
// Each file declaring `legs: 'either'` (the browser pages) runs in one leg, chosen to even them out.
const placed = placeEitherFiles(legs, files, plans, durations, concurrency)
for (const leg of legs) {
  const here = [...placed].filter(([, where]) => where === leg).map(([file]) => path.basename(file, '.test.ts'))
  if (here.length) console.log(`== in the ${leg} leg of the files that run in either: ${here.join(', ')} ==`)
}
const browser = await startChromium()

console.log('== suite on SQLite ==')
measured.set('sqlite', new Map())
passed = (await leg('sqlite', planLeg('sqlite', files, plans, durations, placed), measured.get('sqlite')!)) && passed

const skipped: string[] = []
if (postgres) {
  console.log('== suite on PostgreSQL (the files whose subject depends on the back end, and the browser pages placed here) ==')
  measured.set('postgres', new Map())
  passed = (await leg('postgres', planLeg('postgres', files, plans, durations, placed), measured.get('postgres')!)) && passed
} else {
  skipped.push('the PostgreSQL leg and PostgreSQL-only tests (set TEST_DATABASE_URL=postgres://...)')
}
await stopChromium(browser)
if (!(process.env.TEST_REDIS_URL || process.env.REDIS_URL)) skipped.push('the Redis store and multi-instance tests (set TEST_REDIS_URL=redis://...)')

if (values['record-durations']) {
  for (const [dialect, seconds] of measured) writeDurations(dialect, seconds)
  const recorded = [...measured].map(([dialect, seconds]) => `${seconds.size} files on ${dialect}`).join(', ')
  console.log(`durations written to ${path.relative(ROOT, DURATIONS_FILE)}: ${recorded} (a file that failed keeps its earlier one)`)
}
for (const item of skipped) console.log(`skipped: ${item}`)
process.exitCode = passed ? 0 : 1
