/**
 * The one connection of a store that writes, answering requests one at a time, in the order they
 * came: on the writer thread (sqlite-writer.ts) in a process that serves, so that the wait for each
 * commit's fsync, and for a write lock another process holds (up to the busy timeout), blocks that
 * thread and never the event loop that serves requests; on the caller's own thread in a command that
 * serves nobody (see SqliteWriter). It serves one database at a time: `open` names the file,
 * `close` closes it, and the next `open` names the next.
 */
import type SQLite from 'better-sqlite3'
import { BUSY_TIMEOUT_MS, openSqliteFile, STATEMENT_CACHE_SIZE } from './sqlite-file.js'
import { monotonicMs } from '../clock.js'

/**
 * `deadline` (monotonicMs), on a write that may wait for another process's lock: the wait ends
 * there, whatever this write waited before reaching the thread (see BUSY_TIMEOUT_MS).
 */
export type Message =
  | { op: 'run'; sql: string; parameters: readonly unknown[]; deadline?: number }
  | { op: 'batch'; statements: { sql: string; parameters: readonly unknown[] }[]; deadline?: number }
  | { op: 'begin'; deadline?: number }
  | { op: 'commit' | 'rollback' | 'close' }

export type Request = Message & { id: number }

/** The database the next requests are for; not answered. */
export interface Open {
  op: 'open'
  file: string
}

/** What one statement gave: its rows, and for a statement without rows what it changed. */
export interface Outcome {
  rows: unknown[]
  changes?: number
  lastInsertRowid?: number | bigint
}

/** A thrown error as it crosses threads: its `code` (SQLITE_BUSY...) decides how it is answered. */
export interface Failure {
  message: string
  code?: unknown
}

export type Answer = { id: number } & ({ result?: unknown } | { failure: Failure })

/** The writing connection of one database at a time, opened on first use. */
export class SqliteWrites {
  #file: string | undefined
  #connection: SQLite.Database | undefined
  readonly #statements = new Map<string, SQLite.Statement>()

  /** The database the next requests are for. */
  open(file: string): void {
    this.#file = file
  }

  /** The request's answer; a thrown error as its failure. */
  answer(request: Request): Answer {
    try {
      return { id: request.id, result: this.#answer(request) }
    } catch (error) {
      const { message, code } = error as { message?: unknown; code?: unknown }
      return { id: request.id, failure: { message: String(message), code } }
    }
  }

  // Opened on first use: a file that cannot be opened fails the requests, which say why, and the
  // next request tries again.
  #sqlite(): SQLite.Database {
    if (this.#file === undefined) throw new Error('the SQLite writer has no database open')
    this.#connection ??= openSqliteFile(this.#file)
    return this.#connection
  }

  #run(sql: string, parameters: readonly unknown[]): Outcome {
    let statement = this.#statements.get(sql)
    if (!statement) {
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) this.#statements.clear()
      statement = this.#sqlite().prepare(sql)
      this.#statements.set(sql, statement)
    }
    if (statement.reader) return { rows: statement.all(parameters) }
    const { changes, lastInsertRowid } = statement.run(parameters)
    return { rows: [], changes, lastInsertRowid }
  }

  /**
   * Runs `work` waiting for a lock another process holds no later than `deadline`: the busy timeout
   * is what is left of the write's bound, and a write whose bound is spent fails at once as busy
   * (answered 503), rather than waiting a whole timeout more after others queued before it.
   */
  #until<T>(deadline: number | undefined, work: () => T): T {
    if (deadline === undefined) return work()
    const left = Math.ceil(deadline - monotonicMs())
    if (left <= 0) throw Object.assign(new Error('database is locked: the write waited its whole bound for another process'), { code: 'SQLITE_BUSY' })
    this.#sqlite().pragma(`busy_timeout = ${left}`)
    try {
      return work()
    } finally {
      this.#sqlite().pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    }
  }

  #answer(request: Request): unknown {
    switch (request.op) {
      case 'run':
        return this.#until(request.deadline, () => this.#run(request.sql, request.parameters))
      case 'batch':
        // One transaction, so one commit and one fsync for all of them; immediate, as `begin` is.
        return this.#until(request.deadline, () => this.#sqlite().transaction(() => request.statements.map(({ sql, parameters }) => this.#run(sql, parameters).rows)).immediate())
      case 'begin':
        // Immediate: the write lock is taken here, waiting up to the busy timeout. A deferred
        // transaction that reads first would fail at its first write, without waiting, whenever
        // another connection (another process on the file) committed in between (SQLITE_BUSY_SNAPSHOT).
        return void this.#until(request.deadline, () => this.#sqlite().exec('begin immediate'))
      case 'commit':
        return void this.#sqlite().exec('commit')
      case 'rollback':
        // SQLite may have rolled back already, after a busy or full disk error.
        return void (this.#sqlite().inTransaction && this.#sqlite().exec('rollback'))
      case 'close':
        this.#connection?.close()
        this.#connection = undefined
        this.#file = undefined
        // Statements belong to the closed connection.
        this.#statements.clear()
        return undefined
    }
  }
}
