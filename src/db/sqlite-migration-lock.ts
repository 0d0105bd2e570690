import { setTimeout as sleep } from 'node:timers/promises'
import SQLite from 'better-sqlite3'
import { SqliteAdapter } from 'kysely'

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
export class MigrationLockingAdapter extends SqliteAdapter {
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
