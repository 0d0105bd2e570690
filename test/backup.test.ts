import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, test } from 'node:test'
import { SQLITE_FILE } from '../src/db/database.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { freshPostgresDatabase, postgresUrl } from './helpers/databases.js'

/** The backup and restore procedures of docs/deployment.md, run as written. */

function has(command: string): boolean {
  try {
    execFileSync('which', [command], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

async function seed(t: TestApp): Promise<{ key: string; names: string[] }> {
  const { key } = await t.project()
  const names = ['Rex', 'Mia', 'Max']
  for (const name of names) {
    const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name, categoryId: 1 } })
    assert.equal(created.statusCode, 201)
  }
  return { key, names }
}

async function names(t: TestApp, key: string): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
  assert.equal(response.statusCode, 200)
  return response.json<{ name: string }[]>().map((p) => p.name)
}

describe('SQLite: online backup with sqlite3 .backup, restore by replacing the file', { skip: has('sqlite3') ? false : 'the sqlite3 command is not installed' }, () => {
  test('a backup taken while the server runs restores every animal and key', async () => {
    const original = await createTestApp({ config: { databaseUrl: undefined } })
    const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-backup-'))
    try {
      const { key, names: expected } = await seed(original)
      const backup = path.join(backupDir, 'backup.db')
      execFileSync('sqlite3', [path.join(original.config.dataDir, SQLITE_FILE), `.backup '${backup}'`])

      const restored = await createTestApp({ config: { databaseUrl: undefined } })
      try {
        // Stop, replace the file, remove any -wal/-shm, start: as the guide says.
        await restored.database.close()
        const file = path.join(restored.config.dataDir, SQLITE_FILE)
        fs.copyFileSync(backup, file)
        for (const suffix of ['-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true })
        const started = await restored.restart()
        try {
          assert.deepEqual(await names(started, key), expected)
        } finally {
          await started.close()
        }
      } catch (error) {
        await restored.close().catch(() => undefined)
        throw error
      }
    } finally {
      await original.close()
      fs.rmSync(backupDir, { recursive: true, force: true })
    }
  })
})

describe('PostgreSQL: pg_dump and pg_restore', { skip: postgresUrl && has('pg_dump') ? false : 'PostgreSQL or pg_dump is not available' }, () => {
  test('a dump restored into an empty database serves every animal and key', async () => {
    const source = await freshPostgresDatabase()
    const target = await freshPostgresDatabase()
    const dumpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-dump-'))
    try {
      const original = await createTestApp({ config: { databaseUrl: source.url } })
      const { key, names: expected } = await seed(original)
      const dump = path.join(dumpDir, 'adoption-store.dump')
      execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, source.url])
      await original.close()
      execFileSync('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump])
      const restored = await createTestApp({ config: { databaseUrl: target.url } })
      try {
        assert.deepEqual(await names(restored, key), expected)
        // Ids keep counting after the restored ones.
        const created = await restored.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'New', categoryId: 1 } })
        assert.equal(created.statusCode, 201)
      } finally {
        await restored.close()
      }
    } finally {
      await source.drop()
      await target.drop()
      fs.rmSync(dumpDir, { recursive: true, force: true })
    }
  })
})
