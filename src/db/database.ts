import fs from 'node:fs'
import path from 'node:path'
import { Kysely, type MigrationResultSet, Migrator, PostgresDialect, sql } from 'kysely'
import type Pg from 'pg'
import { lazy } from '../lazy.js'
import { ensureDataDir } from './data-dir.js'
import type { Config } from '../config.js'
import { migrations } from './migrations/index.js'
import { type CompiledTemplate, registerFastPath } from './prepared.js'
import type { Database, Db } from './schema.js'
import { SqliteConnections } from './sqlite.js'
import { PROBE_BYTES, probeDirectory } from './storage-full.js'

export type { Db } from './schema.js'

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
   * A write of about PROBE_BYTES where the database keeps its data, undone at once: fails with the
   * storage-full error (SQLITE_FULL's ENOSPC, PostgreSQL's 53100) while there is not that much room.
   * Run only while the storage is full (storage-full.ts).
   */
  probeRoom(): Promise<void>
  /**
   * SQLite only: a value that differs whenever the file changed since it was last looked at, by
   * the writer thread or any other process. Reads no table.
   */
  changeCounter?(): number
  close(): Promise<void>
}

export const SQLITE_FILE = 'adoption-store.db'

/** The one place that chooses the dialect: PostgreSQL when DATABASE_URL is set, else SQLite. */
export function openDatabase(config: Config, options: OpenOptions = {}): DatabaseHandle {
  return config.databaseUrl ? openPostgres(config.databaseUrl, config) : openSqlite(config.dataDir, options)
}

export interface OpenOptions {
  /**
   * For a command that serves nobody while it waits (the CLI's): SQLite's writes run on the
   * caller's thread instead of a writer thread of their own, whose start would be a sixth of a
   * short command's CPU. A write still waits for another process's lock no longer than its bound.
   */
  inlineWrites?: boolean
}

function openSqlite(dataDir: string, { inlineWrites }: OpenOptions): DatabaseHandle {
  ensureDataDir(dataDir)
  const file = path.join(dataDir, SQLITE_FILE)
  const sqlite = new SqliteConnections(file, { inlineWrites })
  const db = new Kysely<Database>({ dialect: sqlite.dialect() })
  registerFastPath(db, {
    dialect: 'sqlite',
    // Reads answer on this thread; writes and batches wait for the writer thread, never for the disk here.
    run: async <R>(template: CompiledTemplate, parameters: unknown[]) => (await sqlite.execute(template.sql, parameters)).rows as R[],
    runAll: (statements, since) => sqlite.executeAll(statements.map(({ template, parameters }) => ({ sql: template.sql, parameters })), since),
  })
  return {
    db,
    dialect: 'sqlite',
    location: file,
    changeCounter: () => sqlite.changeCounter(),
    ping: async () => sqlite.ping(),
    // SQLite grows its files in the directory they are in: room there is room for the database.
    probeRoom: () => probeDirectory(dataDir),
    close: () => db.destroy(),
  }
}

/**
 * The planner's cost of a random page read, for the service's own sessions, where the database
 * has not been given one (its source is still the default). The default, 4, models spinning disks:
 * with it, a search by breed in id order walks the primary key through every project's animals
 * (139 ms at 1,000,000 animals) rather than the project's own index (under 5 ms), because the
 * project's rows are spread over the table. 1.1 is PostgreSQL's advice for solid-state storage,
 * where databases run today. A value set in postgresql.conf, for the database or for the role is
 * kept. See docs/decisions.md.
 */
const PLANNER_SETTINGS = "select set_config('random_page_cost', '1.1', false) from pg_settings where name = 'random_page_cost' and source = 'default'"

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
    // Awaited before the connection is handed out, so its first query never waits behind another.
    onConnect: async (client: Pg.ClientBase) => {
      client.on('error', () => undefined)
      await client.query(PLANNER_SETTINGS)
    },
  })
  // A connection that breaks (server restart, network cut) reports it as an 'error' event: on the
  // pool while idle, on the client while checked out. Without listeners it would end the process;
  // the query in flight fails on its own (503) and the pool replaces the connection.
  pool.on('error', () => undefined)
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
    probeRoom: async () => {
      // A temporary table is a file of the database's tablespace, grown as rows arrive (PostgreSQL
      // allocates a table's pages when it extends it, not at a checkpoint): 1 MiB of rows asks the
      // server's disk for that room, and the rollback removes the file.
      const client = await pool.connect()
      let broken: Error | undefined
      try {
        await client.query('begin')
        await client.query('create temporary table adoption_store_room_probe (filler text) on commit drop')
        await client.query(`insert into adoption_store_room_probe select repeat(md5(i::text), 32) from generate_series(1, ${PROBE_BYTES / 1024}) as i`)
      } finally {
        // A connection that cannot even roll back is not given back to the pool.
        await client.query('rollback').catch((error: unknown) => (broken = error instanceof Error ? error : new Error(String(error))))
        client.release(broken)
      }
    },
    close: () => db.destroy(),
  }
}

/**
 * The store the configuration points at, opened, when the service has made one; undefined, having
 * made nothing, when not: no SQLite file in DATA_DIR (looked for before opening, which would make
 * it), or no migrations table in DATABASE_URL's database (looked for on the opened pool).
 */
export async function openExistingStore(config: Config, options: OpenOptions = {}): Promise<DatabaseHandle | undefined> {
  if (!config.databaseUrl) return fs.existsSync(path.join(config.dataDir, SQLITE_FILE)) ? openDatabase(config, options) : undefined
  const database = openDatabase(config, options)
  try {
    const { rows } = await sql<{ found: string | null }>`select to_regclass('schema_migrations')::text as found`.execute(database.db)
    if (rows[0]?.found != null) return database
  } catch (error) {
    await database.close()
    throw error
  }
  await database.close()
  return undefined
}

/** The migrations of `src/db/migrations`, as recorded in `schema_migrations`. */
export function migratorOf(db: Db): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  })
}

/**
 * Brings the schema to the latest migration. Safe to run from several processes at once: they
 * migrate one at a time (an advisory lock on PostgreSQL, a lock file on SQLite; see sqlite-migration-lock.ts).
 */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const result = await migratorOf(db).migrateToLatest()
  if (result.error) throw result.error
  return result
}
