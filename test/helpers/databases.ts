import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { defineConfig } from '../../src/config.js'
import { type DatabaseHandle, migrateToLatest, migratorOf, openDatabase, SQLITE_FILE } from '../../src/db/database.js'
// SQLite's writer threads, from the TypeScript sources.
import '../../scripts/thread-scripts.js'

/** The PostgreSQL server tests may use: TEST_DATABASE_URL, else DATABASE_URL, else none. */
export const postgresUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined

export interface TestDatabase {
  handle: DatabaseHandle
  /** Closes the handle (if still open) and deletes the database. */
  drop(): Promise<void>
}

export interface Dialect {
  name: 'sqlite' | 'postgres'
  /** A fresh, migrated database of this dialect; with `upTo`, migrated up to that migration only. */
  create(options?: { upTo?: string }): Promise<TestDatabase>
}

/** Runs `work` on a fresh, migrated database of `dialect` (see `create`), dropped afterwards whatever happens. */
export async function withDatabase<T>(dialect: Dialect, work: (handle: DatabaseHandle) => Promise<T>, options?: { upTo?: string }): Promise<T> {
  const { handle, drop } = await dialect.create(options)
  try {
    return await work(handle)
  } finally {
    await drop()
  }
}

/** Migrates to the latest migration, or up to `upTo` (its name) included. */
async function migrate(handle: DatabaseHandle, upTo: string | undefined): Promise<void> {
  if (upTo === undefined) {
    await migrateToLatest(handle.db)
    return
  }
  const { error } = await migratorOf(handle.db).migrateTo(upTo)
  if (error) throw error
}

const sqlite: Dialect = {
  name: 'sqlite',
  async create({ upTo } = {}) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-db-'))
    const handle = openDatabase(defineConfig({ dataDir }))
    await migrate(handle, upTo)
    return {
      handle,
      async drop() {
        await handle.close().catch(() => undefined)
        fs.rmSync(dataDir, { recursive: true, force: true })
      },
    }
  },
}

/**
 * Migrated templates: migrating a fresh database costs more than most tests, so the test apps
 * start from a copy of one database migrated once. Templates are named by a digest of the code
 * that shapes the schema (every file of src/db), so a change there makes a new one; the
 * processes of a run (and later runs) share them. Suites about migrations themselves
 * (`Dialect.create`, the CLI's `migrate`, process tests) still migrate empty databases.
 */
const SCHEMA_CODE = fileURLToPath(new URL('../../src/db/', import.meta.url))

let digest: string | undefined
function schemaDigest(): string {
  if (!digest) {
    const hash = createHash('sha256')
    const files = (fs.readdirSync(SCHEMA_CODE, { recursive: true, encoding: 'utf8' }) as string[]).sort()
    for (const file of files) {
      const full = path.join(SCHEMA_CODE, file)
      if (!fs.statSync(full).isFile()) continue
      hash.update(`${file}\0`).update(fs.readFileSync(full)).update('\0')
    }
    digest = hash.digest('hex').slice(0, 16)
  }
  return digest
}

let sqliteTemplate: Promise<string> | undefined

/** A migrated SQLite file to copy, made once; renamed into place whole, so a reader never sees half of it. */
function sqliteTemplateFile(): Promise<string> {
  sqliteTemplate ??= (async () => {
    const dir = path.join(os.tmpdir(), 'adoption-store-templates')
    const file = path.join(dir, `sqlite-${schemaDigest()}.db`)
    if (fs.existsSync(file)) return file
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-template-'))
    try {
      const handle = openDatabase(defineConfig({ dataDir: work }))
      await migrateToLatest(handle.db)
      await handle.close()
      // The last connection's close checkpoints the WAL into the file and deletes it.
      if (fs.existsSync(path.join(work, `${SQLITE_FILE}-wal`))) throw new Error(`the SQLite template in ${work} kept its WAL after closing`)
      fs.mkdirSync(dir, { recursive: true })
      fs.renameSync(path.join(work, SQLITE_FILE), file)
      return file
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })()
  return sqliteTemplate
}

/** Puts a migrated store file into `dataDir`, as if the service had migrated it there. */
export async function copyMigratedSqlite(dataDir: string): Promise<void> {
  fs.copyFileSync(await sqliteTemplateFile(), path.join(dataDir, SQLITE_FILE))
}

const postgresTemplates = new Map<string, Promise<string>>()

/**
 * The migrated PostgreSQL template database on the server of `adminUrl`, made under an advisory
 * lock by the first process that needs it, under another name and then renamed, so that no
 * process copies a half-migrated one. Nothing stays connected to it: a copy needs that.
 */
function postgresTemplate(adminUrl: string): Promise<string> {
  let template = postgresTemplates.get(adminUrl)
  if (!template) {
    template = (async () => {
      const name = `adoption_store_template_${schemaDigest()}`
      const admin = new pg.Client({ connectionString: adminUrl })
      await admin.connect()
      try {
        const exists = async () => (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
        if (await exists()) return name
        await admin.query("SELECT pg_advisory_lock(hashtext('adoption-store test template'))")
        if (await exists()) return name
        const building = `${name}_building_${process.pid}`
        await admin.query(`DROP DATABASE IF EXISTS ${building}`)
        await admin.query(`CREATE DATABASE ${building}`)
        const url = new URL(adminUrl)
        url.pathname = `/${building}`
        const handle = openDatabase(defineConfig({ databaseUrl: url.toString() }))
        try {
          await migrateToLatest(handle.db)
        } finally {
          await handle.close()
        }
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`)
        await dropStaleFreeDatabases(admin)
        return name
      } finally {
        // Ending the session releases the advisory lock too.
        await admin.end()
      }
    })()
    postgresTemplates.set(adminUrl, template)
  }
  return template
}

let counter = 0

/** A new name for a test database of this process. */
export function testDatabaseName(): string {
  return `adoption_store_test_${process.pid}_${++counter}`
}

/**
 * A new PostgreSQL database on the test server, empty, or with `migrated` a copy of the migrated
 * template; `drop` deletes it.
 */
export async function freshPostgresDatabase(adminUrl = postgresUrl, { migrated = false } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  if (!adminUrl) throw new Error('PostgreSQL is not configured: set TEST_DATABASE_URL')
  const name = testDatabaseName()
  const template = migrated ? await postgresTemplate(adminUrl) : undefined
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`)
  await admin.end()
  return databaseNamed(adminUrl, name)
}

/** The database `name` on the server of `adminUrl`: its URL, and its deletion. */
export function databaseNamed(adminUrl: string, name: string): { url: string; drop(): Promise<void> } {
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: adminUrl })
      await cleanup.connect()
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await cleanup.end()
    },
  }
}

/**
 * The names of the emptied databases processes leave for others (postgres-pool.ts), of this
 * schema: `<prefix><pid>_<n>`.
 */
export const freePrefix = () => `adoption_store_free_${schemaDigest()}_`

/** A new name for a database this process leaves free. */
export function freeDatabaseName(): string {
  return `${freePrefix()}${process.pid}_${++counter}`
}

/** Any schema's. */
const FREE_PATTERN = 'adoption\\_store\\_free\\_%'

/** Deletes the free databases of other schemas: made when a new template is, none is wanted again. */
async function dropStaleFreeDatabases(admin: pg.Client): Promise<void> {
  const stale = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE datname LIKE $1 AND NOT starts_with(datname, $2)', [FREE_PATTERN, freePrefix()])
  for (const { datname } of stale.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`)
}

function postgres(adminUrl: string): Dialect {
  return {
    name: 'postgres',
    async create({ upTo } = {}) {
      const database = await freshPostgresDatabase(adminUrl)
      const handle = openDatabase(defineConfig({ databaseUrl: database.url }))
      await migrate(handle, upTo)
      return {
        handle,
        async drop() {
          await handle.close().catch(() => undefined)
          await database.drop()
        },
      }
    },
  }
}

/**
 * The dialect the HTTP suites run on: SQLite, or PostgreSQL with TEST_DIALECT=postgres (the
 * second leg of `npm test` when a server is configured).
 */
export const testDialect: 'sqlite' | 'postgres' = process.env.TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite'
if (testDialect === 'postgres' && !postgresUrl) throw new Error('TEST_DIALECT=postgres needs TEST_DATABASE_URL (or DATABASE_URL)')

/** Every dialect this run can test: SQLite always, PostgreSQL when a server is configured. */
export const dialects: Dialect[] = postgresUrl ? [sqlite, postgres(postgresUrl)] : [sqlite]

if (!postgresUrl) {
  process.stdout.write('# PostgreSQL not configured (TEST_DATABASE_URL / DATABASE_URL): dialect suites run on SQLite only\n')
}

/**
 * The skip reasons of a test made once per back end in its own leg: the SQLite case in the SQLite
 * leg (or a run without TEST_DIALECT), the PostgreSQL case in the PostgreSQL leg, when configured.
 */
export const legSkip = {
  sqlite: process.env.TEST_DIALECT === 'postgres' ? 'ran in the SQLite leg of the suite (TEST_DIALECT=sqlite)' : false,
  postgres: !postgresUrl
    ? 'PostgreSQL not configured (TEST_DATABASE_URL / DATABASE_URL)'
    : process.env.TEST_DIALECT === 'sqlite'
      ? 'runs in the PostgreSQL leg of the suite (TEST_DIALECT=postgres)'
      : false,
} as const
