import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely'
import { MigrationLockingAdapter } from './sqlite-migration-lock.js'
import type { SqliteWriter } from './sqlite-threads.js'
import { BUSY_TIMEOUT_MS } from './sqlite-file.js'
import type { Outcome } from './sqlite-writes.js'
import { monotonicMs } from '../clock.js'

/** What the driver needs of the store's connections (SqliteConnections, sqlite.ts). */
export interface SplitConnections {
  /** The statement when it only reads, to run on this thread; undefined when it is the writer's. */
  reading(sql: string): { iterate(parameters: unknown): IterableIterator<unknown> } | undefined
  /** Runs one statement outside any transaction. */
  execute(sql: string, parameters: readonly unknown[]): Promise<Outcome>
  close(): Promise<void>
}

/** Kysely on the store's connections: reads here, writes and transactions on the writer thread. */
export function sqliteDialect(file: string, connections: SplitConnections, writer: SqliteWriter): Dialect {
  return {
    createAdapter: () => new MigrationLockingAdapter(file),
    createDriver: () => new SplitDriver(connections, writer),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  }
}

/** Kysely's connections: each a view that sends each statement where it belongs. */
class SplitDriver implements Driver {
  constructor(
    readonly connections: SplitConnections,
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
    readonly connections: SplitConnections,
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
    // The bound counts from here: the wait for this process's earlier writes is part of it.
    const deadline = monotonicMs() + BUSY_TIMEOUT_MS
    const release = await this.writer.lock()
    try {
      await this.writer.send({ op: 'begin', deadline })
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
