import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buildApp } from '../src/app.js'
import { defineConfig } from '../src/config.js'
import { migrateToLatest, openDatabase } from '../src/db/database.js'
// SQLite's writer threads, from the TypeScript sources.
import './thread-scripts.js'

/** The two OpenAPI documents, keyed by the file each is committed as. */
export interface OpenApiDocuments {
  /** The public API, `/v1/openapi.json`. */
  'openapi.json': unknown
  /** The admin API, `/admin/v1/openapi.json`. */
  'openapi.admin.json': unknown
}

/**
 * The OpenAPI documents as the app generates them under the default configuration, which is
 * what the committed `openapi.json` and `openapi.admin.json` hold. Builds the app on a
 * throwaway SQLite database.
 */
export async function generateOpenApiDocuments(): Promise<OpenApiDocuments> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-openapi-'))
  try {
    // The admin document is served only to an admin: a token of this throwaway app reads it.
    const adminToken = randomBytes(16).toString('hex')
    const config = defineConfig({ dataDir, logLevel: 'silent', adminToken })
    const database = openDatabase(config)
    await migrateToLatest(database.db)
    const app = await buildApp({ config, database, logger: false })
    try {
      await app.ready()
      const admin = await app.inject({ method: 'GET', url: '/admin/v1/openapi.json', headers: { authorization: `Bearer ${adminToken}` } })
      if (admin.statusCode !== 200) throw new Error(`GET /admin/v1/openapi.json answered ${admin.statusCode}: ${admin.body}`)
      return { 'openapi.json': app.swagger(), 'openapi.admin.json': admin.json() }
    } finally {
      await app.close()
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/** The public document alone, as `openapi.json` holds it. */
export async function generateOpenApi(): Promise<unknown> {
  return (await generateOpenApiDocuments())['openapi.json']
}
