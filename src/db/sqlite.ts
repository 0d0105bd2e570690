import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import SQLite from 'better-sqlite3'
import type * as Esbuild from 'esbuild'
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import { openSqliteFile, STATEMENT_CACHE_SIZE } from './sqlite-file.js'
import type { Answer, Failure, Message, Open, Outcome, Request } from './sqlite-writer.js'

/** A statement for the writer thread, as its SQL and parameters. */
export interface WriterStatement {
  sql: string
  parameters: readonly unknown[]
}

/**
 * The store's file through two connections, so that the event loop never waits for SQLite's disk
 * or for another process. Reads outside a transaction run at once on this thread's read-only
 * connection: under WAL they never wait for a writer, and they see every committed write.
 * Everything else runs on the writer thread: writes, and whole transactions (their reads must see
 * their own writes), one at a time.
 */
export class SqliteConnections {
  readonly #file: string
  readonly #reader: SQLite.Database
  readonly #writer: SqliteWriter
  readonly #statements = new Map<string, SQLite.Statement>()
  readonly #dataVersion: SQLite.Statement<[], number>
  #version = 0
  #looked = false

  constructor(file: string) {
    this.#file = file
    // Opened here first, so that a file SQLite cannot use fails the opening, and a new file is
    // switched to WAL before anything else opens it.
    this.#reader = openSqliteFile(file)
    // Any write that reached this connection would be a bug: it fails instead of blocking.
    this.#reader.pragma('query_only = 1')
    // Under WAL a read waits for no writer; it could only meet a lock while another process
    // recovers the file after a crash, and would rather answer 503 than stall every request.
    this.#reader.pragma('busy_timeout = 0')
    this.#dataVersion = this.#reader.prepare<[], number>('pragma data_version').pluck()
    this.#writer = new SqliteWriter(file)
  }

  /** The statement when it only reads, to run on this thread; undefined when it is the writer's. */
  reading(sql: string): SQLite.Statement | undefined {
    let statement = this.#statements.get(sql)
    if (!statement) {
      try {
        statement = this.#reader.prepare(sql)
      } catch {
        // Not valid SQL: the writer runs it and reports the error, as for any other statement.
        return undefined
      }
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear()
      this.#statements.set(sql, statement)
    }
    // A pragma may set something on the connection it runs on: that is the writer's.
    return statement.reader && statement.readonly && !/^\s*pragma\b/i.test(sql) ? statement : undefined
  }

  /** Runs one statement outside any transaction: here when it reads, else on the writer in its turn. */
  async execute(sql: string, parameters: readonly unknown[]): Promise<Outcome> {
    const statement = this.reading(sql)
    if (statement) return { rows: statement.all(parameters) }
    return this.#writer.alone(() => this.#writer.send({ op: 'run', sql, parameters }) as Promise<Outcome>)
  }

  /**
   * Runs statements in one transaction on the writer, the rows of each: one commit (one fsync)
   * for all, and the answer comes only once it is durable.
   */
  executeAll(statements: WriterStatement[]): Promise<unknown[][]> {
    return this.#writer.alone(() => this.#writer.send({ op: 'batch', statements }) as Promise<unknown[][]>)
  }

  /** Kysely on these connections. */
  dialect(): Dialect {
    return {
      createAdapter: () => new MigrationLockingAdapter(this.#file),
      createDriver: () => new SplitDriver(this, this.#writer),
      createQueryCompiler: () => new SqliteQueryCompiler(),
      createIntrospector: (db) => new SqliteIntrospector(db),
    }
  }

  /**
   * A number that moves whenever the file may have changed: each answer of the writer thread
   * (this process's writes, counted exactly) plus the reader's `data_version` (which moves with
   * any other connection's commit, another process's included). `data_version` starts a read
   * transaction, whose file locks cost more than the rest of a cached answer, so it is looked at
   * once per turn of the event loop: the requests of one turn were read from their sockets in
   * that turn, after what was committed before they were sent.
   */
  changeCounter(): number {
    if (!this.#looked) {
      this.#looked = true
      this.#version = this.#dataVersion.get()!
      setImmediate(() => {
        this.#looked = false
      })
    }
    return this.#version + this.#writer.answers
  }

  /** Never touches the file, so another process's lock cannot delay it; fails if the writer is gone. */
  ping(): void {
    this.#writer.assertRunning()
    this.#reader.prepare('select 1').get()
  }

  /** Once the writer has finished the work it was given. */
  async close(): Promise<void> {
    await this.#writer.close()
    this.#reader.close()
  }
}

/** Longest wait for another process's migration of the same file, and how often to look. */
const MIGRATION_WAIT_MS = 5 * 60_000
const MIGRATION_POLL_MS = 50

/**
 * Kysely's SQLite adapter takes no lock around migrations: it assumes one process. Here the
 * service, a command and a second instance may open a new file at the same moment, and each would
 * apply the same migrations (one failing with "table already exists" partway through its own).
 * While it migrates, a process holds an exclusive SQLite lock on a file of its own beside the
 * store (`<store>-migration-lock`, empty, never removed: a removed lock file could be locked twice);
 * the next one waits for it, then finds nothing left to apply. The operating system releases the
 * lock of a process that dies. Not the store file itself: the migration writes to it.
 */
class MigrationLockingAdapter extends SqliteAdapter {
  #lock: SQLite.Database | undefined

  constructor(readonly store: string) {
    super()
  }

  override async acquireMigrationLock(): Promise<void> {
    // No busy timeout: it would block the event loop; waiting is the loop below.
    const lock = new SQLite(`${this.store}-migration-lock`, { timeout: 0 })
    const deadline = Date.now() + MIGRATION_WAIT_MS
    for (;;) {
      try {
        lock.exec('begin exclusive')
        this.#lock = lock
        return
      } catch (error) {
        const busy = (error as { code?: unknown }).code === 'SQLITE_BUSY'
        if (!busy || Date.now() >= deadline) {
          lock.close()
          throw busy ? new Error(`another process has been migrating ${this.store} for over ${MIGRATION_WAIT_MS / 60_000} minutes`) : error
        }
      }
      await sleep(MIGRATION_POLL_MS)
    }
  }

  // Closing the connection ends its transaction and frees the lock.
  override async releaseMigrationLock(): Promise<void> {
    this.#lock?.close()
    this.#lock = undefined
  }
}

/**
 * From dist the writer is the compiled .js beside this module. From source (tsx, in tests) it is
 * the .ts: bundled once per process into one CommonJS script (esbuild, which tsx runs on), so
 * each worker starts without a TypeScript loader of its own, a third of a second each.
 */
function startWriter(): Worker {
  // The thread holds statements and rows in flight, nothing more: a small heap is its own V8
  // instance's whole cost in memory.
  const options = { resourceLimits: { maxYoungGenerationSizeMb: 4 } }
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./sqlite-writer.js', import.meta.url), options)
  writerScript ??= bundleWriter()
  return new Worker(writerScript, { ...options, eval: true })
}

/**
 * Writer threads whose database was closed, each ready for the next database this process opens.
 * A thread's start costs about 35 ms of CPU and opening a file on it almost nothing, so a program
 * that opens databases in turn (an embedding program, the test suite's app per test) starts one
 * thread, not one per database. Idle threads are unreferenced: none keeps the process alive.
 */
const idleWriters: Worker[] = []
const IDLE_WRITERS = 2

function takeWriter(): Worker {
  for (let worker = idleWriters.pop(); worker; worker = idleWriters.pop()) {
    // -1 once the thread has exited (it could only have crashed while idle).
    if (worker.threadId !== -1) return worker
  }
  return startWriter()
}

async function returnWriter(worker: Worker): Promise<void> {
  if (idleWriters.length < IDLE_WRITERS) idleWriters.push(worker)
  else await worker.terminate()
}

let writerScript: string | undefined

function bundleWriter(): string {
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild
  const { outputFiles } = esbuild.buildSync({
    entryPoints: [fileURLToPath(new URL('./sqlite-writer.ts', import.meta.url))],
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
}

/** The writer thread, as requests that resolve with its answers. */
class SqliteWriter {
  readonly #worker: Worker
  readonly #waiting = new Map<number, { resolve(result: unknown): void; reject(error: unknown): void }>()
  #ids = 0
  /** Answers received so far: each may follow a change of the file. */
  answers = 0
  /** Settles when the last holder of the writer releases it. */
  #tail: Promise<void> = Promise.resolve()
  /** Why requests fail: the thread stopped, or the database was closed. */
  #stopped: Error | undefined
  #closed: Promise<void> | undefined

  constructor(file: string) {
    this.#worker = takeWriter()
    // Idle, the thread does not keep the process alive; `send` holds it while an answer is due.
    this.#worker.unref()
    this.#worker.on('message', this.#answered)
    this.#worker.on('error', this.#stop)
    this.#worker.on('exit', this.#exited)
    this.#worker.postMessage({ op: 'open', file } satisfies Open)
  }

  readonly #answered = ({ id, ...answer }: Answer): void => {
    const waiting = this.#waiting.get(id)
    this.#waiting.delete(id)
    this.answers++
    if (this.#waiting.size === 0) this.#worker.unref()
    if ('failure' in answer) waiting?.reject(revive(answer.failure))
    else waiting?.resolve(answer.result)
  }

  readonly #exited = (code: number): void => this.#stop(new Error(`the SQLite writer thread exited with code ${code}`))

  send(message: Message): Promise<unknown> {
    if (this.#stopped) return Promise.reject(this.#stopped)
    const id = ++this.#ids
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) this.#worker.ref()
      this.#waiting.set(id, { resolve, reject })
      this.#worker.postMessage({ ...message, id } satisfies Request)
    })
  }

  /**
   * Waits for the writer to be free and takes it: a transaction holds it from begin to end, so no
   * other statement lands inside it. Resolves with the function that frees it.
   */
  lock(): Promise<() => void> {
    const previous = this.#tail
    let release!: () => void
    this.#tail = new Promise((resolve) => (release = resolve))
    return previous.then(() => release)
  }

  async alone<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.lock()
    try {
      return await work()
    } finally {
      release()
    }
  }

  assertRunning(): void {
    if (this.#stopped) throw this.#stopped
  }

  /**
   * Once the thread has finished the work it was given and closed the connection, it is free for
   * the next database this process opens; this one's requests fail from then on.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close()
    return this.#closed
  }

  async #close(): Promise<void> {
    if (this.#stopped) return
    const failure = await this.alone(() => this.send({ op: 'close' })).then(
      () => undefined,
      (error: unknown) => error ?? new Error('the SQLite writer thread did not close the database'),
    )
    this.#stop(new Error('the SQLite database is closed'))
    this.#worker.off('message', this.#answered).off('error', this.#stop).off('exit', this.#exited)
    this.#worker.unref()
    if (failure === undefined) return returnWriter(this.#worker)
    // A thread whose connection did not close cleanly is not handed on.
    await this.#worker.terminate()
    throw failure
  }

  readonly #stop = (error: Error): void => {
    this.#stopped ??= error
    for (const { reject } of this.#waiting.values()) reject(this.#stopped)
    this.#waiting.clear()
  }
}

/** The error thrown on the writer, with the `code` that classifies it (see errors.ts). */
function revive({ message, code }: Failure): Error {
  return Object.assign(new Error(message), { name: 'SqliteError', code })
}

/** Kysely's connections: each a view that sends each statement where it belongs. */
class SplitDriver implements Driver {
  constructor(
    readonly connections: SqliteConnections,
    readonly writer: SqliteWriter,
  ) {}

  async init(): Promise<void> {}

  // Nothing to pool: reads share the one reader, and the writer is taken per transaction.
  async acquireConnection(): Promise<DatabaseConnection> {
    return new SplitConnection(this.connections, this.writer)
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SplitConnection).begin()
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SplitConnection).commit()
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SplitConnection).rollback()
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.connections.close()
  }
}

class SplitConnection implements DatabaseConnection {
  /** Set while this connection's transaction holds the writer. */
  #release: (() => void) | undefined

  constructor(
    readonly connections: SqliteConnections,
    readonly writer: SqliteWriter,
  ) {}

  async executeQuery<R>({ sql, parameters }: CompiledQuery): Promise<QueryResult<R>> {
    const { rows, changes, lastInsertRowid } = this.#release
      ? ((await this.writer.send({ op: 'run', sql, parameters })) as Outcome)
      : await this.connections.execute(sql, parameters)
    return {
      rows: rows as R[],
      numAffectedRows: changes === undefined ? undefined : BigInt(changes),
      insertId: lastInsertRowid === undefined ? undefined : BigInt(lastInsertRowid),
    }
  }

  async *streamQuery<R>({ sql, parameters }: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.#release ? undefined : this.connections.reading(sql)
    if (!statement) throw new Error('SQLite streams only reads made outside a transaction')
    for (const row of statement.iterate(parameters)) yield { rows: [row as R] }
  }

  async begin(): Promise<void> {
    const release = await this.writer.lock()
    try {
      await this.writer.send({ op: 'begin' })
    } catch (error) {
      release()
      throw error
    }
    this.#release = release
  }

  // A failed commit leaves the transaction open: Kysely rolls it back next, which frees the writer.
  async commit(): Promise<void> {
    await this.writer.send({ op: 'commit' })
    this.#end()
  }

  async rollback(): Promise<void> {
    try {
      await this.writer.send({ op: 'rollback' })
    } finally {
      this.#end()
    }
  }

  #end(): void {
    this.#release?.()
    this.#release = undefined
  }
}
