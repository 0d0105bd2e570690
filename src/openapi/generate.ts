import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { buildApp } from '../app.js'
import { defineConfig } from '../config.js'
import { migrateToLatest, openDatabase } from '../db/database.js'

/**
 * The OpenAPI document as the app generates it under the default configuration, which is what
 * the committed `openapi.json` holds. Builds the app on a throwaway SQLite database.
 */
export async function generateOpenApi(): Promise<unknown> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-openapi-'))
  try {
    const config = defineConfig({ dataDir, logLevel: 'silent' })
    const database = openDatabase(config)
    await migrateToLatest(database.db)
    const app = await buildApp({ config, database, logger: false })
    await app.ready()
    const doc = app.swagger()
    await app.close()
    return doc
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
