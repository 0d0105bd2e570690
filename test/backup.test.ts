import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { before, describe, test } from 'node:test'
import sharp from 'sharp'
import { SQLITE_FILE } from '../src/db/database.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { freshPostgresDatabase, postgresUrl } from './helpers/databases.js'
import { assertBuilt, runCli } from './helpers/process.js'

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

interface Photo {
  id: string
  variants: { webp: { url: string }[]; jpeg: { url: string }[] }
}

/** A photo of the key's first animal, uploaded; answers it and the bytes of its first WebP file as served. */
async function seedPhoto(t: TestApp, key: string): Promise<{ petId: number; photo: Photo; served: Buffer }> {
  const [pet] = (await t.request({ method: 'GET', url: '/v1/pets?limit=1', headers: bearer(key) })).json<{ id: number }[]>()
  assert.ok(pet)
  const image = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer()
  const uploaded = await t.request({ method: 'POST', url: `/v1/pets/${pet.id}/photos`, headers: { ...bearer(key), 'content-type': 'image/jpeg' }, payload: image })
  assert.equal(uploaded.statusCode, 201, uploaded.body)
  const photo = uploaded.json<Photo>()
  return { petId: pet.id, photo, served: await served(t, photo) }
}

/** The bytes of the photo's first WebP file, which must be served. */
async function served(t: TestApp, photo: Photo): Promise<Buffer> {
  const response = await t.request({ method: 'GET', url: new URL(photo.variants.webp[0]!.url).pathname })
  assert.equal(response.statusCode, 200, response.body)
  return response.rawPayload
}

/** `adoption-store media verify` (`runCli`) on a data directory and database: must report every photo with its files and no other file. */
async function mediaVerify(dataDir: string, databaseUrl: string | undefined): Promise<void> {
  const result = await runCli(['media', 'verify'], { dataDir, env: { DATABASE_URL: databaseUrl } })
  assert.equal(result.code, 0, `media verify failed:\n${result.stdout}${result.stderr}`)
  assert.match(result.stdout, /^1 photo, \d+ stored files\nok: every photo has its files, and every file its photo/)
}

async function names(t: TestApp, key: string): Promise<string[]> {
  const response = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
  assert.equal(response.statusCode, 200)
  return response.json<{ name: string }[]>().map((p) => p.name)
}

// `media verify` is the command's (`runCli`).
before(() => assertBuilt())

describe('SQLite: online backup with sqlite3 .backup, restore by replacing the file', { skip: has('sqlite3') && has('rsync') ? false : 'the sqlite3 or rsync command is not installed' }, () => {
  test('a backup taken while the server runs, then its media, restores every animal, key and photo', async () => {
    const original = await createTestApp({ config: { databaseUrl: undefined } })
    const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-backup-'))
    try {
      const { key, names: expected } = await seed(original)
      const { petId, photo, served: bytes } = await seedPhoto(original, key)
      // The database first, then the media: as the guide says.
      const backup = path.join(backupDir, 'backup.db')
      execFileSync('sqlite3', [path.join(original.config.dataDir, SQLITE_FILE), `.backup '${backup}'`])
      execFileSync('rsync', ['-a', `${path.join(original.config.dataDir, 'media')}/`, `${path.join(backupDir, 'media')}/`])

      const restored = await createTestApp({ config: { databaseUrl: undefined } })
      try {
        // Stop, replace the file, remove any -wal/-shm, put the media back, verify, start: as the guide says.
        await restored.database.close()
        const file = path.join(restored.config.dataDir, SQLITE_FILE)
        fs.copyFileSync(backup, file)
        for (const suffix of ['-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true })
        const media = path.join(restored.config.dataDir, 'media')
        fs.rmSync(media, { recursive: true, force: true })
        execFileSync('rsync', ['-a', `${path.join(backupDir, 'media')}/`, `${media}/`])
        await mediaVerify(restored.config.dataDir, undefined)
        const started = await restored.restart()
        try {
          assert.deepEqual(await names(started, key), expected)
          const photos = await started.request({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: bearer(key) })
          assert.deepEqual(photos.json<Photo[]>().map((p) => p.id), [photo.id])
          assert.deepEqual(await served(started, photo), bytes)
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
  test('a dump restored into an empty database, with its media, serves every animal, key and photo', async () => {
    const source = await freshPostgresDatabase()
    const target = await freshPostgresDatabase()
    const dumpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-dump-'))
    try {
      const original = await createTestApp({ config: { databaseUrl: source.url } })
      const { key, names: expected } = await seed(original)
      const { petId, photo, served: bytes } = await seedPhoto(original, key)
      const dump = path.join(dumpDir, 'adoption-store.dump')
      execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, source.url])
      // After the dump has finished: the media.
      fs.cpSync(path.join(original.config.dataDir, 'media'), path.join(dumpDir, 'media'), { recursive: true, preserveTimestamps: true })
      await original.close()
      execFileSync('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump])
      const fresh = await createTestApp({ config: { databaseUrl: target.url } })
      try {
        // Stop, put the media back, verify, start: as the guide says.
        await fresh.database.close()
        fs.cpSync(path.join(dumpDir, 'media'), path.join(fresh.config.dataDir, 'media'), { recursive: true, preserveTimestamps: true })
        await mediaVerify(fresh.config.dataDir, target.url)
        const restored = await fresh.restart()
        try {
          assert.deepEqual(await names(restored, key), expected)
          const photos = await restored.request({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: bearer(key) })
          assert.deepEqual(photos.json<Photo[]>().map((p) => p.id), [photo.id])
          assert.deepEqual(await served(restored, photo), bytes)
          // Ids keep counting after the restored ones.
          const created = await restored.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'New', categoryId: 1 } })
          assert.equal(created.statusCode, 201)
        } finally {
          await restored.close()
        }
      } catch (error) {
        await fresh.close().catch(() => undefined)
        throw error
      }
    } finally {
      await source.drop()
      await target.drop()
      fs.rmSync(dumpDir, { recursive: true, force: true })
    }
  })
})
