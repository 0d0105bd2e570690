import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { defineConfig } from '../../src/config.js'
import { type DatabaseHandle, migrateToLatest, migratorOf, openDatabase, SQLITE_FILE } from '../../src/db/database.js'

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

/**
 * A new PostgreSQL database on the test server, empty, or with `migrated` a copy of the migrated
 * template; `drop` deletes it.
 */
export async function freshPostgresDatabase(adminUrl = postgresUrl, { migrated = false } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  if (!adminUrl) throw new Error('PostgreSQL is not configured: set TEST_DATABASE_URL')
  const name = `adoption_store_test_${process.pid}_${++counter}`
  const template = migrated ? await postgresTemplate(adminUrl) : undefined
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`)
  await admin.end()
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
 * A migrated PostgreSQL database for a test app, without waiting for the server to make it: each
 * call answers a spare made in the background since an earlier call and starts the next, and
 * `drop` starts the deletion in the background, a few at a time. When a spare is still being
 * made as it is wanted (tests that take less time than a `CREATE DATABASE`), more are made at
 * once, up to MAX_SPARES. Whatever is left when the process has nothing else to do (the spares,
 * deletions still running) is deleted then.
 */
export function testAppPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const next = spares.shift()
  if (next && !next.ready && wantedSpares < MAX_SPARES) wantedSpares++
  while (spares.length < wantedSpares) spares.push(spare())
  return next?.database ?? migratedDatabase()
}

const MAX_SPARES = 3
let wantedSpares = 1
const spares: Spare[] = []

interface Spare {
  database: ReturnType<typeof migratedDatabase>
  ready: boolean
}

function spare(): Spare {
  const made: Spare = { database: migratedDatabase(), ready: false }
  // An unused spare that failed is reported by the call that takes it.
  made.database.then(
    () => (made.ready = true),
    () => (made.ready = true),
  )
  return made
}

/**
 * How many deletions run at once. `DROP DATABASE` mostly waits for the server's disk (over a
 * second each on a busy machine) and several overlap well; one at a time, a file that made a few
 * hundred databases kept waiting for them for minutes after its last test.
 */
const DELETIONS_AT_ONCE = 8
const deletionQueue: (() => Promise<void>)[] = []
let deleting = 0

function startDeletions(): void {
  while (deleting < DELETIONS_AT_ONCE && deletionQueue.length > 0) {
    const drop = deletionQueue.shift()!
    deleting++
    void drop().finally(() => {
      deleting--
      startDeletions()
    })
  }
}

async function migratedDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  watchExit()
  const database = await freshPostgresDatabase(postgresUrl, { migrated: true })
  return {
    url: database.url,
    async drop() {
      dropInBackground(database)
    },
  }
}

/**
 * Deletes a test database in the background, a few at a time (see DELETIONS_AT_ONCE): no test
 * waits for it, and the process stays alive until it is done.
 */
export function dropInBackground(database: { url: string; drop(): Promise<void> }): void {
  deletionQueue.push(() =>
    database.drop().catch((error: unknown) => {
      process.stderr.write(`# could not delete the test database ${database.url}: ${String(error)}\n`)
    }),
  )
  startDeletions()
}

let watching = false
function watchExit(): void {
  if (watching) return
  watching = true
  // Fired whenever the event loop runs dry; the queued deletions' connections keep the process
  // alive until they are done, and the next time round there is nothing left to do.
  process.on('beforeExit', () => {
    for (const left of spares.splice(0)) void left.database.then((database) => database.drop(), () => undefined)
  })
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
