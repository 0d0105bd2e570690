import type SQLite from 'better-sqlite3'
import type { Dialect } from 'kysely'
import { sqliteDialect } from './sqlite-driver.js'
import { BUSY_TIMEOUT_MS, openSqliteFile, STATEMENT_CACHE_SIZE } from './sqlite-file.js'
import { SqliteWriter } from './sqlite-threads.js'
import type { Outcome } from './sqlite-writes.js'
import { monotonicMs } from '../clock.js'

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

  /** `inlineWrites`: the writes on this thread (see SqliteWriter), for a command that serves nobody. */
  constructor(file: string, { inlineWrites = false }: { inlineWrites?: boolean } = {}) {
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
    this.#writer = new SqliteWriter(file, { inline: inlineWrites })
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
    const deadline = monotonicMs() + BUSY_TIMEOUT_MS
    return this.#writer.alone(() => this.#writer.send({ op: 'run', sql, parameters, deadline }) as Promise<Outcome>)
  }

  /**
   * Runs statements in one transaction on the writer, the rows of each: one commit (one fsync)
   * for all, and the answer comes only once it is durable.
   */
  executeAll(statements: WriterStatement[], since = monotonicMs()): Promise<unknown[][]> {
    return this.#writer.alone(() => this.#writer.send({ op: 'batch', statements, deadline: since + BUSY_TIMEOUT_MS }) as Promise<unknown[][]>)
  }

  /** Kysely on these connections. */
  dialect(): Dialect {
    return sqliteDialect(this.#file, this, this.#writer)
  }

  /**
   * A number that moves whenever the file may have changed: each answer of a writer thread on the
   * file in this process (this process's writes, counted exactly, through every handle it opened
   * on the file) plus the reader's `data_version` (which moves with any other connection's commit,
   * another process's included). `data_version` starts a read transaction, whose file locks cost
   * more than the rest of a cached answer, so it is looked at once per turn of the event loop:
   * the requests of one turn were read from their sockets in that turn, after what was committed
   * before they were sent.
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
