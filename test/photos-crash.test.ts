/**
 * The BUILT server killed with SIGKILL in the middle of photo uploads, on each back end (SQLite
 * always; PostgreSQL in its leg): one upload whose body is half sent, and one of a 12-megapixel
 * JPEG whose variants are already stored while its row waits to be committed. After a restart on
 * the same data the animal has no photo and no photo row exists; the stored leftovers are kept
 * within the grace period (an upload in progress looks the same) and `media verify` names them;
 * an hour later (the server run under libfaketime) the sweep has removed them and `media verify`
 * reports clean.
 *
 * Being mid-upload is made certain, not timed: before the upload the test takes the lock the
 * commit needs (SQLite: the file's write lock from another connection; PostgreSQL: the animal's
 * row, FOR UPDATE), so the upload's files are stored and its row cannot be committed; the kill
 * comes once all its files are on disk, well within the database's wait for the lock.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, before, describe, test } from 'node:test'
import SQLite from 'better-sqlite3'
import pg from 'pg'
import sharp from 'sharp'
import { FULL_SIZE_CAP, VARIANT_FORMATS, VARIANT_WIDTHS } from '../src/photos/images.js'
import { freshPostgresDatabase, legSkip, postgresUrl } from './helpers/databases.js'
import { assertBuilt, cleanup, cliJson, type CliOptions, type EnvOverrides, makeDataDir, requestJson, runCli, type ServerProcess, startServer } from './helpers/process.js'


const faketime = (() => {
  try {
    return execFileSync('which', ['faketime'], { encoding: 'utf8' }).trim() || undefined
  } catch {
    return undefined
  }
})()

/** Holds the lock the upload's commit needs, until `release`. */
interface Lock {
  release(): Promise<void>
}

interface BackEnd {
  name: string
  skip: string | false
  open(): Promise<{ env: EnvOverrides; dataDir: string; lock(petId: number): Promise<Lock>; photoRows(): Promise<number>; remove(): Promise<void> }>
}

const backEnds: BackEnd[] = [
  {
    name: 'SQLite',
    skip: legSkip.sqlite,
    async open() {
      const dataDir = makeDataDir()
      const file = path.join(dataDir, 'adoption-store.db')
      return {
        env: {},
        dataDir,
        async lock() {
          // Another connection's write lock: the server's transaction waits its busy timeout for it.
          const sqlite = new SQLite(file)
          sqlite.exec('BEGIN IMMEDIATE')
          return {
            async release() {
              sqlite.exec('ROLLBACK')
              sqlite.close()
            },
          }
        },
        async photoRows() {
          const sqlite = new SQLite(file, { readonly: true, fileMustExist: true })
          try {
            return (sqlite.prepare('select count(*) as n from pet_photos').get() as { n: number }).n
          } finally {
            sqlite.close()
          }
        },
        remove: async () => undefined,
      }
    },
  },
  {
    name: 'PostgreSQL',
    skip: legSkip.postgres,
    async open() {
      const database = await freshPostgresDatabase(postgresUrl)
      const query = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
        const client = new pg.Client({ connectionString: database.url, connectionTimeoutMillis: 5_000 })
        await client.connect()
        try {
          return (await client.query<T>(text, values)).rows
        } finally {
          await client.end()
        }
      }
      return {
        env: { DATABASE_URL: database.url },
        dataDir: makeDataDir(),
        async lock(petId) {
          // The animal's row: the upload's transaction updates it first, and waits for it.
          const client = new pg.Client({ connectionString: database.url, connectionTimeoutMillis: 5_000 })
          await client.connect()
          await client.query('begin')
          const locked = await client.query('select id from pets where id = $1 for update', [petId])
          assert.equal(locked.rowCount, 1)
          return {
            async release() {
              await client.query('rollback')
              await client.end()
            },
          }
        },
        async photoRows() {
          return Number((await query<{ n: string }>('select count(*) as n from pet_photos'))[0]?.n)
        },
        remove: () => database.drop(),
      }
    },
  },
]

/** A 12-megapixel JPEG (4000 × 3000) of noise: seconds of work to turn into its variants. */
function bigJpeg(): Promise<Buffer> {
  return sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#6b8f71', noise: { type: 'gaussian', mean: 120, sigma: 40 } } })
    .jpeg({ quality: 85 })
    .toBuffer()
}

/** The files of the 4000-pixel-wide photo: each width below the full size's cap, and the cap, in each format. */
const STORED_FILES = (VARIANT_WIDTHS.filter((width) => width < FULL_SIZE_CAP).length + 1) * VARIANT_FORMATS.length

/**
 * Every file under `dir`, relative to it (temporary ones included). A directory the sweep removes
 * while it is being read fails the read (ENOENT): it is read again, until a read sees no removal.
 */
function filesUnder(dir: string): string[] {
  for (;;) {
    if (!fs.existsSync(dir)) return []
    try {
      return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
        .sort()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
}

/**
 * Starts an upload and answers once part of its body has been written to the socket; the rest is
 * never sent. Connection errors (the server dies) are swallowed: the answer is not awaited.
 */
async function halfSentUpload(server: ServerProcess, petId: number, key: string, bytes: Buffer): Promise<void> {
  const request = http.request(`${server.url}/v1/pets/${petId}/photos`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'image/jpeg', 'content-length': String(bytes.length) },
  })
  request.on('error', () => undefined)
  request.on('response', (response) => response.resume())
  await new Promise<void>((resolve, reject) => request.write(bytes.subarray(0, bytes.length >> 1), (error) => (error ? reject(error) : resolve())))
}

async function waitFor(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await probe())) {
    assert.ok(Date.now() < deadline, `${what}: not within ${timeoutMs} ms\n${describe()}`)
    await sleep(5)
  }
}

before(() => assertBuilt())
afterEach(cleanup)

describe('photo uploads under kill -9', () => {
  for (const backEnd of backEnds) {
    test(`${backEnd.name}: an upload cut by SIGKILL leaves no photo, and its stored files are swept`, { skip: backEnd.skip, timeout: 180_000 }, async (t) => {
      const store = await backEnd.open()
      try {
        const cli: CliOptions = { dataDir: store.dataDir, env: store.env }
        await cliJson(['projects', 'create', 'crash', '--plan', 'enterprise', '--per-minute', '100000', '--per-day', '1000000', '--json'], cli)
        const { key } = await cliJson<{ key: string }>(['keys', 'create', '--project', 'crash', '--json'], cli)
        const mediaDir = path.join(store.dataDir, 'media')
        const bytes = await bigJpeg()

        const server = await startServer({ dataDir: store.dataDir, env: store.env })
        const created = await requestJson<{ id: number }>(server, 'POST', '/v1/pets', key, { name: 'Crash', categoryId: 1 })
        assert.equal(created.status, 201, JSON.stringify(created.body))
        const petId = created.body.id

        // One upload is still being received when the server dies.
        await halfSentUpload(server, petId, key, bytes)
        // The other is processed and its files stored, but its row cannot be committed yet.
        const lock = await store.lock(petId)
        let released = false
        try {
          const whole = fetch(`${server.url}/v1/pets/${petId}/photos`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'image/jpeg' }, body: bytes }).then(
            (response) => `answered ${response.status}`,
            () => 'connection lost',
          )
          // Every file stored whole (none of them a temporary one): the upload waits for the lock to commit its row.
          const stored = () => filesUnder(mediaDir).filter((file) => !path.basename(file).startsWith('.tmp-'))
          await waitFor(`the upload's ${STORED_FILES} files stored`, () => stored().length === STORED_FILES, 60_000, () => server.describe())
          const exit = await server.kill()
          assert.equal(exit.signal, 'SIGKILL', server.describe())
          assert.equal(await whole, 'connection lost', 'the upload was not answered before the kill')
          const left = filesUnder(mediaDir)
          t.diagnostic(`at the kill: ${left.length} file(s) under media/: ${left.join(', ')}`)
          assert.ok(left.length > 0)
          await lock.release()
          released = true
        } finally {
          if (!released) await lock.release()
        }

        // Restarted: no photo, no row; the leftovers are younger than the grace period, so kept.
        const restarted = await startServer({ dataDir: store.dataDir, env: store.env })
        const photos = await requestJson<unknown[]>(restarted, 'GET', `/v1/pets/${petId}/photos`, key)
        assert.equal(photos.status, 200, JSON.stringify(photos.body))
        assert.deepEqual(photos.body, [])
        const pet = await requestJson<Record<string, unknown>>(restarted, 'GET', `/v1/pets/${petId}`, key)
        assert.equal(pet.status, 200)
        assert.ok(pet.body.photos === undefined || (Array.isArray(pet.body.photos) && pet.body.photos.length === 0), JSON.stringify(pet.body))
        assert.equal(await store.photoRows(), 0)
        const leftovers = filesUnder(mediaDir)
        assert.ok(leftovers.length > 0, 'the sweep keeps files younger than its grace period')
        assert.deepEqual(await restarted.stop(), { code: 0, signal: null }, restarted.describe())

        const before = await runCli(['media', 'verify', '--json'], cli)
        assert.equal(before.code, 1, `media verify names the leftovers (exit 1)\n${before.stdout}${before.stderr}`)
        const found = JSON.parse(before.stdout) as { photos: number; missing: unknown[]; orphans: { key: string }[] }
        assert.deepEqual([found.photos, found.missing], [0, []])
        assert.deepEqual(found.orphans.map((o) => o.key).sort(), leftovers.map((file) => file.split(path.sep).join('/')))

        if (!faketime) {
          t.skip('faketime is not installed: the sweep an hour later is not run')
          return
        }
        // An hour and more later: the server's first sweep, at start, removes the leftovers.
        const later = await startServer({ dataDir: store.dataDir, env: store.env, wrapper: [faketime, '-f', '+2h'] })
        await waitFor('the sweep to remove the leftovers', () => filesUnder(mediaDir).length === 0, 30_000, () => `${filesUnder(mediaDir).join('\n')}\n${later.describe()}`)
        const after = await requestJson<unknown[]>(later, 'GET', `/v1/pets/${petId}/photos`, key)
        assert.deepEqual([after.status, after.body], [200, []])
        await later.stop()

        const verified = await runCli(['media', 'verify'], cli)
        assert.equal(verified.code, 0, `${verified.stdout}${verified.stderr}`)
        assert.match(verified.stdout, /^0 photos, 0 stored files\nok: every photo has its files, and every file its photo/)
      } finally {
        await cleanup()
        await store.remove()
      }
    })
  }
})
