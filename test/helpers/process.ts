/**
 * Process-level test helpers: run the BUILT service (`node dist/cli.js serve`) exactly as a user
 * would, and its commands, as processes or through the same `runCommand` in this one (`runCli`).
 *
 * Every child started here is tracked; `cleanup()` (call it from `afterEach`) kills whatever is
 * still running and removes the temporary data directories. Every wait is bounded by a timeout.
 */
import assert from 'node:assert/strict'
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Readable, Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { after, before } from 'node:test'
import { Redis } from 'ioredis'
import { freshPostgresDatabase, testDialect } from './databases.js'
import { dropInBackground, testAppPostgresDatabase } from './postgres-pool.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
export const CLI = path.join(ROOT, 'dist', 'cli.js')

/** Fails with a message that says what to do when the CLI was not built. */
export function assertBuilt(): void {
  if (!fs.existsSync(CLI)) {
    throw new Error(`${CLI} is missing: run \`npm run build\` first (\`npm test\` does). These tests run the built CLI and build nothing.`)
  }
}

/**
 * The service's own configuration variables: removed from the children's environment so that the
 * developer's shell (a DATABASE_URL, say) cannot change what is tested. NODE_TEST_CONTEXT is the
 * test runner's, not the service's.
 */
const ISOLATED_ENV = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'ENVIRONMENT',
  'PUBLIC_BASE_URL',
  'STAGING_BASE_URL',
  'LOG_LEVEL',
  'BODY_LIMIT',
  'MAX_CONNECTIONS',
  'REDIS_URL',
  'NODE_TEST_CONTEXT',
]

export type EnvOverrides = Record<string, string | undefined>

/** How long a server may take to become healthy before it is taken to hang. */
export const START_TIMEOUT_MS = 60_000

/**
 * On the PostgreSQL leg of the suite (TEST_DIALECT=postgres), each data directory stands for a
 * PostgreSQL database of its own, taken on first use and given back by `cleanup()`: a migrated
 * one with no rows of its own, as a service leaves its store before its first request (from the
 * test apps' pool, `testAppPostgresDatabase`, emptied again for the next use), or, for a directory
 * made with `emptyDatabase`, a new database with nothing in it, deleted afterwards. Creating,
 * migrating and deleting a database per directory cost about 0.4 s of CPU each (0.36 s of it the
 * server's, the rest the migrating command's).
 */
const databases = new Map<string, Promise<{ url: string; drop(): Promise<void> }>>()
/** The data directories whose database has nothing in it, not even the schema (`makeDataDir`). */
const emptyDatabases = new Set<string>()

async function databaseUrlFor(dataDir: string | undefined, overrides: EnvOverrides): Promise<string | undefined> {
  if (testDialect !== 'postgres' || dataDir === undefined || 'DATABASE_URL' in overrides) return undefined
  let database = databases.get(dataDir)
  if (!database) {
    database = emptyDatabases.has(dataDir) ? freshPostgresDatabase() : testAppPostgresDatabase()
    databases.set(dataDir, database)
  }
  return (await database).url
}

/** The back end the process tests run on: the dialect of this leg of the suite. */
export const processDialect = testDialect

/** The PostgreSQL database a data directory stands for on the PostgreSQL leg; nothing on SQLite. */
export async function databaseUrlOf(dataDir: string): Promise<string | undefined> {
  return databaseUrlFor(dataDir, {})
}

async function childEnv(dataDir: string | undefined, overrides: EnvOverrides = {}): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ISOLATED_ENV) delete env[name]
  env.HOST = '127.0.0.1'
  env.LOG_LEVEL = 'error'
  if (dataDir !== undefined) env.DATA_DIR = dataDir
  const databaseUrl = await databaseUrlFor(dataDir, overrides)
  if (databaseUrl) env.DATABASE_URL = databaseUrl
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name]
    else env[name] = value
  }
  return env
}

const live = new Set<ChildProcess>()
const tempDirs = new Set<string>()
/**
 * Process groups of servers started behind a wrapper (see `StartOptions.wrapper`): the wrapper
 * may fork the server instead of exec'ing it, so signals go to the whole group. Kept after the
 * wrapper exits, since its children may outlive it.
 */
const groups = new Set<number>()

/** Sends `signal` to every process of a group; false when none is left. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal)
    return true
  } catch {
    return false
  }
}

// Last resort: never leave a server running after the test process ends, however it ends.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL')
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL')
})

function track(child: ChildProcess): void {
  live.add(child)
  child.once('exit', () => live.delete(child))
}

/** A new empty directory under the system temp dir, removed by `cleanup()`. */
export function makeDataDir({ emptyDatabase = false }: DataDirOptions = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-cli-test-'))
  tempDirs.add(dir)
  if (emptyDatabase) emptyDatabases.add(dir)
  return dir
}

export interface DataDirOptions {
  /**
   * On PostgreSQL, the directory stands for a database with nothing in it, not even the schema,
   * as an empty directory is to SQLite: for tests of what a command or a start does where there is
   * no store yet (migrating it, refusing to make one). Without it the database is migrated.
   */
  emptyDatabase?: boolean
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

function exitOf(child: ChildProcess): Exit | undefined {
  return child.exitCode !== null || child.signalCode !== null ? { code: child.exitCode, signal: child.signalCode } : undefined
}

/** Resolves when the child has exited; rejects after `timeoutMs`. */
export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<Exit> {
  const exited = exitOf(child)
  if (exited) return Promise.resolve(exited)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit)
      reject(new Error(`process ${child.pid} did not exit within ${timeoutMs} ms`))
    }, timeoutMs)
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer)
      resolve({ code, signal })
    }
    child.once('exit', onExit)
  })
}

/** The line a server logs once it listens (at info), naming the address it bound in `url`. */
const READY_LINE = /^\{.*"msg":"adoption store ready at .*$/m

/** A running `node dist/cli.js serve`, with its output captured. */
export class ServerProcess {
  private out = ''
  private err = ''
  private bound: number | undefined

  constructor(
    readonly child: ChildProcess,
    /** The port asked for; 0: any, which the server's ready line names (`waitUntilListening`). */
    readonly requestedPort: number,
    readonly dataDir: string,
    /** True when the child leads its own process group, which every signal then reaches whole. */
    readonly group = false,
  ) {
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.out += chunk))
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.err += chunk))
  }

  /** The port this server bound, as its own ready line says (the one asked for, before it). */
  get port(): number {
    const port = this.bound ?? this.requestedPort
    if (port === 0) throw new Error(`the port of server pid ${this.pid} is known once it listens: await waitUntilListening() first`)
    return port
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`
  }
  get pid(): number {
    return this.child.pid ?? -1
  }
  get stdout(): string {
    return this.out
  }
  get stderr(): string {
    return this.err
  }
  get exit(): Exit | undefined {
    return exitOf(this.child)
  }

  /** The captured output, for assertion messages. */
  describe(): string {
    const tail = (text: string) => (text.length > 4000 ? `…${text.slice(-4000)}` : text)
    return `server pid ${this.pid} on port ${this.bound ?? this.requestedPort}, exit ${JSON.stringify(this.exit ?? null)}\n--- stdout\n${tail(this.out)}\n--- stderr\n${tail(this.err)}`
  }

  /** Waits until stdout matches `pattern`; fails if the process exits first or time runs out. */
  async waitForStdout(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const match = pattern.exec(this.out)
      if (match) return match
      if (this.exit) throw new Error(`server exited before printing ${pattern}\n${this.describe()}`)
      if (Date.now() > deadline) throw new Error(`server did not print ${pattern} within ${timeoutMs} ms\n${this.describe()}`)
      await sleep(20)
    }
  }

  /**
   * Waits for the server's own ready line and takes the port it bound from it, so that no other
   * process's answer (on a port picked in advance and taken meanwhile) is ever taken for this
   * server's. Fails if the process exits first or time runs out.
   */
  async waitUntilListening(timeoutMs = START_TIMEOUT_MS): Promise<number> {
    const [line] = await this.waitForStdout(READY_LINE, timeoutMs).catch((error: Error) => {
      throw new Error(`${error.message}\n(the ready line is logged at LOG_LEVEL info or lower)`)
    })
    const port = Number(new URL((JSON.parse(line) as { url: string }).url).port)
    if (this.requestedPort !== 0 && port !== this.requestedPort) throw new Error(`asked for port ${this.requestedPort}, the server says ${port}\n${this.describe()}`)
    this.bound = port
    return port
  }

  /**
   * Waits until `GET /healthz` answers 200; fails as soon as the process exits. The time limit
   * only catches a server that hangs: a start takes a second or two of CPU, and far longer than
   * that on a busy machine, which is no failure (start-up speed is the benchmark's to measure).
   */
  async waitUntilHealthy(timeoutMs = START_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      if (this.exit) throw new Error(`server exited before becoming healthy\n${this.describe()}`)
      try {
        const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1_000) })
        if (response.status === 200) {
          await response.body?.cancel()
          return
        }
        await response.body?.cancel()
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`server was not healthy within ${timeoutMs} ms\n${this.describe()}`)
      await sleep(50)
    }
  }

  /**
   * Waits until the port refuses connections: the server has stopped accepting new ones, which
   * it does once its shutdown has begun. Fails if time runs out.
   */
  async waitUntilRefusing(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const refused = await new Promise<boolean>((resolve) => {
        const socket = net.connect({ port: this.port, host: '127.0.0.1' })
        socket.setTimeout(1_000, () => socket.destroy())
        socket.once('connect', () => {
          socket.destroy()
          resolve(false)
        })
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
        socket.once('close', () => resolve(false))
      })
      if (refused) return
      if (Date.now() > deadline) throw new Error(`port ${this.port} still accepts connections after ${timeoutMs} ms\n${this.describe()}`)
      await sleep(10)
    }
  }

  signal(signal: NodeJS.Signals): void {
    const sent = this.group ? signalGroup(this.pid, signal) : this.child.kill(signal)
    if (!sent) throw new Error(`could not send ${signal} to ${this.describe()}`)
  }

  waitForExit(timeoutMs = 12_000): Promise<Exit> {
    return waitForExit(this.child, timeoutMs)
  }

  /** SIGTERM, then waits for the exit; SIGKILL and an error if it takes longer than `timeoutMs`. */
  async stop(timeoutMs = 12_000): Promise<Exit> {
    if (this.exit) return this.exit
    this.signal('SIGTERM')
    try {
      return await this.waitForExit(timeoutMs)
    } catch (error) {
      this.child.kill('SIGKILL')
      await waitForExit(this.child, 5_000).catch(() => undefined)
      throw new Error(`${(error as Error).message}\n${this.describe()}`)
    }
  }

  /** SIGKILL: no chance to clean up, like a crash or an OOM kill. */
  async kill(): Promise<Exit> {
    if (this.exit) return this.exit
    if (this.group) signalGroup(this.pid, 'SIGKILL')
    else this.child.kill('SIGKILL')
    return this.waitForExit(5_000)
  }
}

export interface StartOptions {
  /** Default: 0 (PORT=0), any free port: the server binds one and its ready line names it. */
  port?: number
  /** Default: a new temporary directory. */
  dataDir?: string
  /**
   * Environment overrides (undefined removes a variable). Defaults: HOST=127.0.0.1, LOG_LEVEL=info
   * (the level of the ready line the port is read from).
   */
  env?: EnvOverrides
  /** CLI arguments; default `['serve']`. */
  args?: string[]
  /** Wait until the server says it listens and /healthz answers there (default true). */
  healthy?: boolean
  timeoutMs?: number
  /**
   * A program and its arguments to run `node dist/cli.js ...` under, e.g. `['faketime', '-f', '+40s']`.
   * The server then leads its own process group, and `signal`, `stop`, `kill` and `cleanup()` reach
   * the whole group (a wrapper that forks would otherwise leave the server running). The exit
   * reported is the wrapper's; `faketime` waits for its child and exits with its status.
   */
  wrapper?: string[]
}

/**
 * Starts `node dist/cli.js serve` with its own DATA_DIR, on any free port (PORT=0) unless told
 * one; the port is the one the server's own ready line names.
 */
export async function startServer(options: StartOptions = {}): Promise<ServerProcess> {
  assertBuilt()
  const dataDir = options.dataDir ?? makeDataDir()
  const port = options.port ?? 0
  const [wrapper, ...wrapperArgs] = options.wrapper ?? []
  const command = [process.execPath, CLI, ...(options.args ?? ['serve'])]
  const env = await childEnv(dataDir, { PORT: String(port), LOG_LEVEL: 'info', ...options.env })
  const child = spawn(wrapper ?? process.execPath, wrapper ? [...wrapperArgs, ...command] : command.slice(1), {
    cwd: dataDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: wrapper !== undefined,
  })
  track(child)
  if (wrapper && child.pid !== undefined) groups.add(child.pid)
  const server = new ServerProcess(child, port, dataDir, wrapper !== undefined)
  if (options.healthy ?? true) {
    const deadline = Date.now() + (options.timeoutMs ?? START_TIMEOUT_MS)
    await server.waitUntilListening(deadline - Date.now())
    await server.waitUntilHealthy(deadline - Date.now())
  }
  return server
}

export interface CliResult {
  /** The exit code; null when the process was ended by a signal. */
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  /** True when the command was killed for running longer than its timeout. */
  timedOut: boolean
  ms: number
}

export interface CliOptions {
  dataDir?: string
  env?: EnvOverrides
  timeoutMs?: number
  /** Written to the command's standard input, which is then closed (it is closed empty without). */
  input?: string
  /** Run as a process of its own (`node dist/cli.js`) even where it could run in this one. */
  process?: boolean
}

/** The options whose value is a file: an argument of a command run in this process must not depend on its working directory. */
const PATH_OPTIONS = new Set(['--out', '--output', '--file', '--data-dir'])

/**
 * Whether a command can run in this process with what it would see as a process of its own: a
 * command of the store or the API (not `serve`, which is a process's life), with no file named
 * relative to the working directory a process would have been given.
 */
function runsInProcess(args: string[], options: CliOptions): boolean {
  const [command] = args
  if (options.process || command === undefined || command.startsWith('-') || command === 'serve') return false
  const dataDir = options.env?.DATA_DIR
  if (dataDir !== undefined && !path.isAbsolute(dataDir)) return false
  return args.every((arg, i) => !PATH_OPTIONS.has(args[i - 1] ?? '') || arg === '-' || path.isAbsolute(arg))
}

/**
 * Runs the command `adoption-store ...args` to completion; never rejects on a failing command.
 * Where it can (`runsInProcess`), through `runCommand` in this process, on a terminal of strings
 * with the environment a process would get: the built command is that function on the process's
 * own terminal (src/cli.ts), and a process costs about 0.3 s of CPU to load it. Else, and with
 * `process: true`, as `node dist/cli.js ...args`, killed after `timeoutMs`. Either way a command
 * still running after `timeoutMs` (by default as long as a server may take to start) is taken to
 * hang.
 */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? START_TIMEOUT_MS
  const env = await childEnv(options.dataDir, options.env)
  // Without a data directory a process runs in the temporary directory (below), where DATA_DIR's default, ./data, is this.
  if (runsInProcess(args, options)) return runHere(args, { DATA_DIR: path.join(os.tmpdir(), 'data'), ...env }, options.input, timeoutMs)
  assertBuilt()
  const started = performance.now()
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: options.dataDir ?? os.tmpdir(),
        env,
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        resolve({
          code: child.exitCode,
          signal: child.signalCode,
          stdout,
          stderr,
          timedOut: Boolean(error && (error as { killed?: boolean }).killed && child.signalCode === 'SIGKILL'),
          ms: performance.now() - started,
        })
      },
    )
    // A command that exits without reading its input must not fail the test with EPIPE.
    child.stdin?.on('error', () => undefined).end(options.input)
    track(child)
  })
}

/** `runCli` in this process: what the command printed, and its status (null, with `timedOut`, past `timeoutMs`). */
async function runHere(args: string[], env: NodeJS.ProcessEnv, input: string | undefined, timeoutMs: number): Promise<CliResult> {
  const { runCommand } = await import('../../src/cli/program.js')
  const collect = () => {
    const chunks: Buffer[] = []
    const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => done(void chunks.push(chunk)) })
    return { stream, text: () => Buffer.concat(chunks).toString('utf8') }
  }
  const stdout = collect()
  const stderr = collect()
  const stdin = Readable.from(input === undefined ? [] : [Buffer.from(input)])
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<null>((resolve) => (timer = setTimeout(resolve, timeoutMs, null)))
  const code = await Promise.race([runCommand(args, { stdout: stdout.stream, stderr: stderr.stream, stdin, env }), hung])
  clearTimeout(timer)
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text(), timedOut: code === null, ms: performance.now() - started }
}

/** Runs a CLI command that must succeed and print JSON; answers the parsed JSON. */
export async function cliJson<T>(args: string[], options: CliOptions): Promise<T> {
  const result = await runCli(args, options)
  assert.equal(result.code, 0, `${args.join(' ')} failed (${result.timedOut ? 'timed out' : `exit ${result.code}`}):\n${result.stderr}`)
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    assert.fail(`${args.join(' ')} did not print JSON:\n${result.stdout}`)
  }
}

export interface JsonAnswer<T = unknown> {
  status: number
  headers: Headers
  body: T
}

/** One request to a running server with an API key, the body (if any) sent and read as JSON. */
export async function requestJson<T = unknown>(server: ServerProcess, method: string, url: string, key: string, body?: unknown, timeoutMs = 10_000): Promise<JsonAnswer<T>> {
  const response = await fetch(new URL(url, server.url), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T }
}

export interface InstanceAnswer<T = unknown> extends JsonAnswer<T> {
  /** Which instance answered: its index in `servers`. */
  instance: number
}

/** `requestJson` to instance `instance` of `servers`, the answer marked with the instance. */
export async function requestInstance<T = unknown>(servers: ServerProcess[], instance: number, method: string, url: string, key: string, body?: unknown): Promise<InstanceAnswer<T>> {
  const server = servers[instance]
  assert.ok(server, `no instance ${instance}`)
  return { ...(await requestJson<T>(server, method, url, key, body)), instance }
}

/** How many times each value occurs, by its string form. */
export function tally<T>(values: T[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1
  return counts
}

/** Kills every child still running (SIGKILL), removes the temporary directories and gives back the databases (in the background). */
export async function cleanup(): Promise<void> {
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL')
  groups.clear()
  await Promise.all(
    [...live].map(async (child) => {
      child.kill('SIGKILL')
      await waitForExit(child, 5_000).catch(() => undefined)
    }),
  )
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true })
  tempDirs.clear()
  emptyDatabases.clear()
  // The server that used each database has exited: emptying it for reuse, or deleting it, is left to the background.
  const dropping = [...databases.values()]
  databases.clear()
  for (const database of dropping) dropInBackground(await database)
}

/** A Redis key prefix of its own, as REDIS_KEY_PREFIX: `adoption-store-test:<uuid>:`. */
export function uniqueRedisPrefix(): string {
  return `adoption-store-test:${randomUUID()}:`
}

/** Deletes every key under `prefix` (never anything else); answers how many there were. */
export async function deleteRedisKeys(redisUrl: string, prefix: string): Promise<number> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 5_000 })
  redis.on('error', () => undefined)
  try {
    await redis.connect()
    let deleted = 0
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000)
      cursor = next
      if (keys.length) deleted += await redis.del(...keys)
    } while (cursor !== '0')
    return deleted
  } finally {
    redis.disconnect()
  }
}

/**
 * A PostgreSQL database and a Redis key prefix of their own, for instances that share both: the
 * database migrated (see `databaseUrlFor`), or with `emptyDatabase` one with nothing in it.
 */
export interface SharedStore {
  /** DATABASE_URL, REDIS_URL, REDIS_KEY_PREFIX and REDIS_TIMEOUT_MS, for the instances and the CLI. */
  env: { DATABASE_URL: string; REDIS_URL: string; REDIS_KEY_PREFIX: string; REDIS_TIMEOUT_MS: string }
  /** Gives back the database (see `cleanup`), then deletes every Redis key under the prefix. */
  drop(): Promise<void>
}

export async function sharedStore(redisUrl: string, { emptyDatabase = false }: DataDirOptions = {}): Promise<SharedStore> {
  const database = await (emptyDatabase ? freshPostgresDatabase() : testAppPostgresDatabase())
  const prefix = uniqueRedisPrefix()
  return {
    // Instances sharing a store are tested for what they share. On a machine so busy that a Redis
    // answer takes longer than the 250 ms default they would fall back to limits of their own
    // (redis-outage.test.ts tests that), so here they wait for it up to 2 s.
    env: { DATABASE_URL: database.url, REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, REDIS_TIMEOUT_MS: '2000' },
    async drop() {
      await database.drop()
      await deleteRedisKeys(redisUrl, prefix)
    },
  }
}

/** `cleanup()`, then drops `store` (if the suite got as far as creating it). */
export async function cleanupWithStore(store: SharedStore | undefined): Promise<void> {
  await cleanup()
  await store?.drop()
}

/**
 * Instances sharing one store, for the describe block this is called in. Before its tests: a
 * fresh PostgreSQL database and Redis key prefix, whose variables (with `extraEnv`) fill `env`,
 * then `start` starts the instances into `servers`. After them: every process stopped and the
 * store dropped. Nothing happens when `skip` says why the block is skipped.
 */
export function sharedInstances({
  skip,
  redisUrl,
  extraEnv = {},
  start,
}: {
  skip: string | false
  redisUrl: string | undefined
  extraEnv?: EnvOverrides
  start: (env: EnvOverrides) => Promise<ServerProcess[]>
}): { env: EnvOverrides; servers: ServerProcess[]; cli: () => CliOptions } {
  const env: EnvOverrides = {}
  const servers: ServerProcess[] = []
  let store: SharedStore | undefined
  before(
    async () => {
      if (skip) return
      assertBuilt()
      store = await sharedStore(redisUrl!)
      Object.assign(env, store.env, extraEnv)
      servers.push(...(await start(env)))
    },
    { timeout: 60_000 },
  )
  after(() => (skip ? undefined : cleanupWithStore(store)), { timeout: 30_000 })
  return { env, servers, cli: () => ({ env }) }
}

/**
 * Waits, if needed, until the current fixed window of `lengthMs` has at least `needMs` left, so a
 * burst that must fit in one window does. The windows are those of Redis's clock (the shared
 * limiter's) with `redisUrl`, else of this machine's (in-process limits of a server started here).
 * Answers that clock's time (ms) when it returns.
 */
export async function waitForWindowRoom(redisUrl: string | undefined, lengthMs: number, needMs: number): Promise<number> {
  if (needMs >= lengthMs) throw new Error(`${needMs} ms never fit in a ${lengthMs} ms window`)
  const redis = redisUrl === undefined ? undefined : new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2_000, commandTimeout: 5_000 })
  redis?.on('error', () => undefined)
  try {
    await redis?.connect()
    const now = async () => {
      if (!redis) return Date.now()
      const [seconds, micros] = await redis.time()
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000)
    }
    const start = await now()
    const left = lengthMs - (start % lengthMs)
    if (left >= needMs) return start
    await sleep(left + 50)
    return await now()
  } finally {
    redis?.disconnect()
  }
}
