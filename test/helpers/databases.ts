import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { defineConfig } from '../../src/config.js'
import { type DatabaseHandle, migrateToLatest, openDatabase } from '../../src/db/database.js'

/** The PostgreSQL server tests may use: TEST_DATABASE_URL, else DATABASE_URL, else none. */
export const postgresUrl = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL || undefined

export interface TestDatabase {
  handle: DatabaseHandle
  /** Closes the handle (if still open) and deletes the database. */
  drop(): Promise<void>
}

export interface Dialect {
  name: 'sqlite' | 'postgres'
  /** A fresh, migrated database of this dialect. */
  create(): Promise<TestDatabase>
}

const sqlite: Dialect = {
  name: 'sqlite',
  async create() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-db-'))
    const handle = openDatabase(defineConfig({ dataDir }))
    await migrateToLatest(handle.db)
    return {
      handle,
      async drop() {
        await handle.close().catch(() => undefined)
        fs.rmSync(dataDir, { recursive: true, force: true })
      },
    }
  },
}

let counter = 0

/** A new, empty PostgreSQL database on the test server; `drop` deletes it. */
export async function freshPostgresDatabase(adminUrl = postgresUrl): Promise<{ url: string; drop(): Promise<void> }> {
  if (!adminUrl) throw new Error('PostgreSQL is not configured: set TEST_DATABASE_URL')
  const name = `adoption_store_test_${process.pid}_${++counter}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
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

function postgres(adminUrl: string): Dialect {
  return {
    name: 'postgres',
    async create() {
      const database = await freshPostgresDatabase(adminUrl)
      const handle = openDatabase(defineConfig({ databaseUrl: database.url }))
      await migrateToLatest(handle.db)
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
