import SQLite from 'better-sqlite3'

/**
 * How long a write waits for a lock another connection holds before it fails with SQLITE_BUSY
 * (answered 503 with Retry-After). The bound counts from when the write reached the database
 * layer, its wait behind this process's earlier writes included.
 */
export const BUSY_TIMEOUT_MS = 2000

/** Most statements a connection's cache keeps; the service has far fewer query shapes than this. */
export const STATEMENT_CACHE_SIZE = 500

/** Opens the store's file with the settings every connection to it needs. */
export function openSqliteFile(file: string): SQLite.Database {
  const sqlite = new SQLite(file)
  sqlite.pragma('journal_mode = WAL')
  // Under WAL the driver defaults to NORMAL, which can lose the last commits on power loss.
  // An acknowledged write must survive, so every commit is synced.
  sqlite.pragma('synchronous = FULL')
  // The CLI and the server share the file; a writer waits for the other instead of failing.
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  sqlite.pragma('foreign_keys = ON')
  const journal = sqlite.pragma('journal_mode', { simple: true })
  const synchronous = sqlite.pragma('synchronous', { simple: true })
  if (journal !== 'wal' || synchronous !== 2) {
    sqlite.close()
    throw new Error(`SQLite at ${file} refused durable settings (journal_mode=${journal}, synchronous=${synchronous}); expected wal and FULL (2)`)
  }
  return sqlite
}
