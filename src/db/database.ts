import fs from 'node:fs'
import path from 'node:path'
import SQLite from 'better-sqlite3'
import { Kysely, type MigrationResultSet, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely'
import type Pg from 'pg'
import { lazy } from '../lazy.js'
import type { Config } from '../config.js'
import { migrations } from './migrations/index.js'
import { type CompiledTemplate, registerFastPath, runAllThroughKysely, runThroughKysely, type Statement } from './prepared.js'
import type { Database } from './schema.js'

export type Db = Kysely<Database>

const pg = lazy<typeof Pg>('pg')

/** An open database: the query builder plus what only its opener knows. */
export interface DatabaseHandle {
  readonly db: Db
  readonly dialect: 'sqlite' | 'postgres'
  /** Where the data lives, for people: a file path or a server address without credentials. */
  readonly location: string
  /** Cheap round trip used by readiness checks. */
  ping(): Promise<void>
  /**
   * SQLite only: a value that differs whenever the file changed since it was last read, through
   * this connection or any other (another process included). Reads no table: a few microseconds.
   */
  changeCounter?(): string
  close(): Promise<void>
}

export const SQLITE_FILE = 'adoption-store.db'

/** The one place that chooses the dialect: PostgreSQL when DATABASE_URL is set, else SQLite. */
export function openDatabase(config: Config): DatabaseHandle {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config) : openSqlite(config.dataDir)
}

function openSqlite(dataDir: string): DatabaseHandle {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = path.join(dataDir, SQLITE_FILE)
  const sqlite = new SQLite(file)
  sqlite.pragma('journal_mode = WAL')
  // Under WAL the driver defaults to NORMAL, which can lose the last commits on power loss.
  // An acknowledged write must survive, so every commit is synced.
  sqlite.pragma('synchronous = FULL')
  // The CLI and the server share the file; a writer waits for the other instead of failing.
  sqlite.pragma('busy_timeout = 2000')
  sqlite.pragma('foreign_keys = ON')
  const journal = sqlite.pragma('journal_mode', { simple: true })
  const synchronous = sqlite.pragma('synchronous', { simple: true })
  if (journal !== 'wal' || synchronous !== 2) {
    sqlite.close()
    throw new Error(`SQLite at ${file} refused durable settings (journal_mode=${journal}, synchronous=${synchronous}); expected wal and FULL (2)`)
  }
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) })
  const prepared = new Map<CompiledTemplate, SQLite.Statement>()
  const execute = (template: CompiledTemplate, parameters: unknown[]): unknown[] => {
    let statement = prepared.get(template)
    if (!statement) {
      statement = sqlite.prepare(template.sql)
      prepared.set(template, statement)
    }
    if (statement.reader) return statement.all(parameters)
    statement.run(parameters)
    return []
  }
  const executeAll = sqlite.transaction((statements: Statement[]) => statements.map((s) => execute(s.template, s.parameters)))
  registerFastPath(db, {
    dialect: 'sqlite',
    // While a transaction holds the one connection, a statement run beside it would see its
    // uncommitted changes and become part of it: such work waits its turn through Kysely.
    run: <R>(template: CompiledTemplate, parameters: unknown[]) =>
      sqlite.inTransaction ? runThroughKysely<R>(db, template, parameters) : Promise.resolve(execute(template, parameters) as R[]),
    runAll: (statements) => (sqlite.inTransaction ? runAllThroughKysely(db, statements) : Promise.resolve(executeAll(statements))),
  })
  const changes = sqlite.prepare(`select total_changes() || ':' || data_version from pragma_data_version`).pluck()
  return {
    db,
    dialect: 'sqlite',
    location: file,
    changeCounter: () => changes.get() as string,
    ping: async () => {
      sqlite.prepare('select 1').get()
    },
    close: () => db.destroy(),
  }
}

/** Most statements the cache keeps; the service has far fewer query shapes than this. */
const STATEMENT_CACHE_SIZE = 500

/**
 * Kysely's SQLite driver prepares every statement anew, which costs as much as running it.
 * The same SQL text always gets the same prepared statement back (statements run to completion
 * one at a time on the one connection, so reuse is safe).
 */
function withStatementCache(sqlite: SQLite.Database) {
  const statements = new Map<string, SQLite.Statement>()
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = statements.get(sql)
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear()
        statement = sqlite.prepare(sql)
        statements.set(sql, statement)
      }
      return statement
    },
  }
}

function openPostgres(url: string, settings: { databasePoolSize: number; databaseTimeoutMs: number }): DatabaseHandle {
  // 64-bit integers: every id and category the service accepts is at most 2^53 - 1 (enforced on
  // input), so they are exact as JavaScript numbers.
  const int8 = 20
  const types = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (oid === int8 ? Number : pg().types.getTypeParser(oid, format)) }
  const pool = new (pg().Pool)({
    connectionString: url,
    types,
    max: settings.databasePoolSize,
    // Every wait is bounded, so an unreachable or stuck server means a 503 within the timeout,
    // never a hang: the server cancels a slow statement, and the client stops waiting for a
    // server that does not answer at all, both at the same bound.
    connectionTimeoutMillis: settings.databaseTimeoutMs,
    statement_timeout: settings.databaseTimeoutMs,
    query_timeout: settings.databaseTimeoutMs,
    idle_in_transaction_session_timeout: settings.databaseTimeoutMs * 2,
    keepAlive: true,
  })
  // A connection that breaks (server restart, network cut) reports it as an 'error' event: on the
  // pool while idle, on the client while checked out. Without listeners it would end the process;
  // the query in flight fails on its own (503) and the pool replaces the connection.
  pool.on('error', () => undefined)
  pool.on('connect', (client) => client.on('error', () => undefined))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  registerFastPath(db, {
    dialect: 'postgres',
    // A named statement is parsed and planned once per connection, not once per request.
    run: async <R>(template: CompiledTemplate, parameters: unknown[]) =>
      (await pool.query({ name: template.name, text: template.sql, values: parameters })).rows as R[],
  })
  const { host, pathname } = new URL(url)
  return {
    db,
    dialect: 'postgres',
    location: `postgresql://${host}${pathname}`,
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: () => db.destroy(),
  }
}

/** Brings the schema to the latest migration. Safe to run from several processes at once. */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  })
  const result = await migrator.migrateToLatest()
  if (result.error) throw result.error
  return result
}
