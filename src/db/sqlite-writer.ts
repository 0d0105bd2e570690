/**
 * The SQLite writer thread (started by `SqliteWriter` in sqlite-threads.ts): it owns the one connection
 * that writes, so the wait for each commit's fsync, and for a write lock another process holds
 * (up to the busy timeout), blocks this thread and never the event loop that serves requests.
 * It answers requests one at a time, in the order they came. It serves one database at a time:
 * `open` names the file, `close` closes it, and the thread then waits for its next `open`.
 */
import { parentPort } from 'node:worker_threads'
import type SQLite from 'better-sqlite3'
import { BUSY_TIMEOUT_MS, openSqliteFile, STATEMENT_CACHE_SIZE } from './sqlite-file.js'

/**
 * `deadline` (epoch ms), on a write that may wait for another process's lock: the wait ends
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

const port = parentPort!
let file: string | undefined
let connection: SQLite.Database | undefined
const statements = new Map<string, SQLite.Statement>()

// Opened on first use: a file that cannot be opened fails the requests, which say why, and the
// next request tries again.
function sqlite(): SQLite.Database {
  if (file === undefined) throw new Error('the SQLite writer thread has no database open')
  connection ??= openSqliteFile(file)
  return connection
}

function run(sql: string, parameters: readonly unknown[]): Outcome {
  let statement = statements.get(sql)
  if (!statement) {
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
    statement = sqlite().prepare(sql)
    statements.set(sql, statement)
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
function until<T>(deadline: number | undefined, work: () => T): T {
  if (deadline === undefined) return work()
  const left = Math.ceil(deadline - Date.now())
  if (left <= 0) throw Object.assign(new Error('database is locked: the write waited its whole bound for another process'), { code: 'SQLITE_BUSY' })
  sqlite().pragma(`busy_timeout = ${left}`)
  try {
    return work()
  } finally {
    sqlite().pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  }
}

function answer(request: Request): unknown {
  switch (request.op) {
    case 'run':
      return until(request.deadline, () => run(request.sql, request.parameters))
    case 'batch':
      // One transaction, so one commit and one fsync for all of them; immediate, as `begin` is.
      return until(request.deadline, () => sqlite().transaction(() => request.statements.map(({ sql, parameters }) => run(sql, parameters).rows)).immediate())
    case 'begin':
      // Immediate: the write lock is taken here, waiting up to the busy timeout. A deferred
      // transaction that reads first would fail at its first write, without waiting, whenever
      // another connection (another process on the file) committed in between (SQLITE_BUSY_SNAPSHOT).
      return void until(request.deadline, () => sqlite().exec('begin immediate'))
    case 'commit':
      return void sqlite().exec('commit')
    case 'rollback':
      // SQLite may have rolled back already, after a busy or full disk error.
      return void (sqlite().inTransaction && sqlite().exec('rollback'))
    case 'close':
      connection?.close()
      connection = undefined
      file = undefined
      // Statements belong to the closed connection.
      statements.clear()
      return undefined
  }
}

port.on('message', (request: Request | Open) => {
  if (request.op === 'open') {
    file = request.file
    return
  }
  try {
    port.postMessage({ id: request.id, result: answer(request) } satisfies Answer)
  } catch (error) {
    const { message, code } = error as { message?: unknown; code?: unknown }
    port.postMessage({ id: request.id, failure: { message: String(message), code } } satisfies Answer)
  }
})
