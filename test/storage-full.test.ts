/**
 * A full storage is an outage, not a bug: the embedded store on a 6 MiB file system under write
 * load answers refused writes 503 service_unavailable with Retry-After (never 500), logs one
 * warning when the disk fills and one line when it has room again (not a line per request),
 * reports itself not ready meanwhile, keeps answering reads, counts it all in /metrics, and takes
 * writes again once the file system is grown, without a restart and without losing any write it
 * acknowledged. PostgreSQL's disk_full (53100) and a file store's ENOSPC/EDQUOT take the same path.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import { S3ServiceException } from '@aws-sdk/client-s3'
import SQLite from 'better-sqlite3'
import sharp from 'sharp'
import Fastify, { type FastifyBaseLogger } from 'fastify'
import pg from 'pg'
import { SQLITE_FILE, openDatabase } from '../src/db/database.js'
import { errorFacts, fullStorageOf } from '../src/db/errors.js'
import { StorageFull, probeDirectory } from '../src/db/storage-full.js'
import { defineConfig } from '../src/config.js'
import { installErrorHandling } from '../src/http/error-handler.js'
import { Metrics } from '../src/ops/metrics.js'
import { DatabaseOutage } from '../src/db/outage.js'
import { ADMIN_TOKEN } from './helpers/admin.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { freshPostgresDatabase, postgresUrl } from './helpers/databases.js'
import { captureLogs } from './helpers/logs.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The file system test needs no PostgreSQL leg (the embedded store is its subject; the PostgreSQL
// part runs on the server TEST_DATABASE_URL names), and it mostly waits: on the disk, on probes.
export const testPlan: TestPlan = { legs: 'sqlite', lane: 'waiting' }

type Response = Awaited<ReturnType<TestApp['request']>>

/** The value of one sample of /metrics, by name and labels as written there; undefined when absent. */
function sample(metrics: string, name: string, labels: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}${labels} `))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}

/** Mounts a tmpfs of `size` on a new directory; a reason why not when this machine does not let us. */
function mountTmpfs(size: string): { dir: string } | { reason: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-full-'))
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' })
    return { dir }
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true })
    const stderr = String((error as { stderr?: unknown }).stderr ?? (error as Error).message).trim()
    return { reason: `cannot mount a size-limited tmpfs here (needs root or CAP_SYS_ADMIN): ${stderr}` }
  }
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' })
  } catch {
    // Something still holds a file open: detach it now, it goes when released.
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' })
  }
  fs.rmSync(dir, { recursive: true, force: true })
}

/** A refused write: the outage answer, with nothing of the machine in it. */
function assertStorageFull(response: Response, where: string, dataDir: string): void {
  assert.equal(response.statusCode, 503, `${where}: ${response.body}`)
  const body = response.json<{ code: string; message: string; status: number }>()
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'], where)
  assert.equal(body.code, 'service_unavailable', where)
  assert.equal(body.status, 503, where)
  assert.match(body.message, /storage is full/i, where)
  assert.match(String(response.headers['content-type']), /^application\/json/, where)
  for (const internal of [dataDir, os.tmpdir(), SQLITE_FILE, 'SQLITE', 'disk is full', 'ENOSPC', '/']) {
    assert.ok(!body.message.includes(internal), `${where}: the message names ${internal}: ${body.message}`)
  }
  const retryAfter = Number(response.headers['retry-after'])
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `${where}: Retry-After ${String(response.headers['retry-after'])}`)
  // The key was checked and charged: the answer carries its window, as every /v1 answer does.
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy']) {
    assert.ok(response.headers[header] !== undefined, `${where}: no ${header}`)
  }
}

describe('the embedded store on a full disk', () => {
  test('writes answer 503 with Retry-After, one warning each way, /readyz not ready, reads go on; after the disk grows, writes resume and nothing acknowledged is lost', { timeout: 300_000 }, async (t) => {
    const mounted = mountTmpfs('6m')
    if ('reason' in mounted) return t.skip(mounted.reason)
    const dataDir = mounted.dir
    const logs = captureLogs()
    let app: TestApp | undefined
    try {
      app = await createTestApp({ config: { databaseUrl: undefined, dataDir, adminToken: ADMIN_TOKEN }, logger: logs.logger })
      const { slug, key } = await app.project({ plan: 'enterprise', perMinute: 10_000_000, perDay: 100_000_000 })
      const a = app
      // About 4 KB of text that does not repeat, so that rows (and their search index) fill the disk quickly.
      const create = (i: number) =>
        a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `Pet ${i}`, categoryId: 1 + (i % 5), description: randomBytes(2048).toString('hex') } })

      const acknowledged: { id: number; name: string }[] = []
      const refused: Response[] = []
      let sent = 0
      // Batches of concurrent creates until a whole batch is refused: the disk is full.
      for (;;) {
        assert.ok(sent < 20_000, `the 6 MiB disk is not full after ${sent} creates`)
        const batch = await Promise.all(Array.from({ length: 16 }, () => create(sent++)))
        for (const response of batch) {
          if (response.statusCode === 201) acknowledged.push(response.json())
          else refused.push(response)
        }
        if (batch.every((r) => r.statusCode !== 201)) break
      }
      t.diagnostic(`${acknowledged.length} creates acknowledged, then refused: the disk is full after ${sent} creates`)
      assert.ok(acknowledged.length > 0, 'creates were acknowledged before the disk filled')
      for (const [i, response] of refused.entries()) assertStorageFull(response, `refused create ${i + 1}`, dataDir)

      // While full: more writes, each refused the same way; reads, health and the dashboard's reads answer.
      for (let i = 0; i < 25; i++) {
        const response = await create(sent++)
        assertStorageFull(response, `create ${i + 1} while full`, dataDir)
        refused.push(response)
      }
      const ready = await a.request({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 503, ready.body)
      assert.equal(ready.json().code, 'service_unavailable')
      assert.match(ready.json().message, /full/)
      assert.ok(!ready.body.includes(dataDir), 'readiness names no path')
      assert.equal((await a.request({ method: 'GET', url: '/healthz' })).statusCode, 200, '/healthz answers')
      const list = await a.request({ method: 'GET', url: '/v1/pets?limit=100', headers: bearer(key) })
      assert.equal(list.statusCode, 200, list.body)
      const first = acknowledged[0]!
      const one = await a.request({ method: 'GET', url: `/v1/pets/${first.id}`, headers: bearer(key) })
      assert.equal(one.statusCode, 200, one.body)
      assert.equal(one.json().name, first.name)
      const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` }
      for (const url of [`/admin/v1/projects/${slug}`, `/admin/v1/projects/${slug}/animals?limit=5`, `/admin/v1/projects/${slug}/usage?range=hour`, `/admin/v1/projects/${slug}/keys`]) {
        const page = await a.request({ method: 'GET', url, headers: adminHeaders })
        assert.equal(page.statusCode, 200, `${url} while full: ${page.body}`)
      }

      const full = await a.request({ method: 'GET', url: '/metrics' })
      assert.equal(sample(full.body, 'adoption_store_storage_full', '{storage="database"}'), 1, 'the gauge says the database storage is full')
      assert.equal(sample(full.body, 'adoption_store_storage_full', '{storage="files"}'), 0, 'the file storage is not')
      const counted = sample(full.body, 'adoption_store_storage_full_refusals_total', '{storage="database"}') ?? 0
      // Every refused request, and any background write (usage counts) refused meanwhile.
      assert.ok(counted >= refused.length, `${counted} refusals counted, ${refused.length} requests refused`)

      // One warning for all of it: no line per refused request, no error, no stack.
      const during = logs.lines()
      const warnings = during.filter((line) => (line.level as number) >= 40)
      assert.equal(warnings.length, 1, `${refused.length} refused writes logged ${warnings.length} warnings or errors: ${JSON.stringify(warnings.slice(0, 3))}`)
      assert.match(String(warnings[0]!.msg), /^storage full/)
      assert.equal(warnings[0]!.storage, 'database')
      assert.ok(!JSON.stringify(warnings[0]).includes('    at '), 'no stack trace')

      // Room again: the file system grows under the running service.
      execFileSync('mount', ['-o', 'remount,size=64m', dataDir])
      let readyAgain = 0
      for (let i = 0; i < 300 && readyAgain !== 200; i++) {
        readyAgain = (await a.request({ method: 'GET', url: '/readyz' })).statusCode
        if (readyAgain !== 200) await sleep(100)
      }
      assert.equal(readyAgain, 200, '/readyz is ready again once there is room, without any write')
      const after: { id: number; name: string }[] = []
      for (let i = 0; i < 10; i++) {
        const response = await create(sent++)
        assert.equal(response.statusCode, 201, `create ${i + 1} after the disk grew: ${response.body}`)
        after.push(response.json())
      }
      acknowledged.push(...after)
      const lines = logs.lines()
      const ended = lines.filter((line) => line.msg === 'storage has room again: writes are taken')
      assert.equal(ended.length, 1, 'the end is logged once')
      assert.equal(ended[0]!.storage, 'database')
      assert.equal(lines.filter((line) => (line.level as number) >= 40).length, 1, 'still one warning in all')
      const recovered = await a.request({ method: 'GET', url: '/metrics' })
      assert.equal(sample(recovered.body, 'adoption_store_storage_full', '{storage="database"}'), 0, 'the gauge is back to 0')
      assert.ok(!fs.readdirSync(dataDir).some((name) => name.startsWith('.storage-probe')), 'the probes left no file')

      await app.close()
      app = undefined
      const sqlite = new SQLite(path.join(dataDir, SQLITE_FILE), { readonly: true, fileMustExist: true })
      try {
        assert.equal(sqlite.pragma('integrity_check', { simple: true }), 'ok')
        const stored = new Map((sqlite.prepare('select id, name from pets').all() as { id: number; name: string }[]).map((row) => [row.id, row.name]))
        const missing = acknowledged.filter(({ id, name }) => stored.get(id) !== name)
        assert.deepEqual(missing, [], `every acknowledged create is stored (${acknowledged.length})`)
        // A refused create left nothing: only the acknowledged animals are there.
        assert.equal(stored.size, acknowledged.length, 'nothing but the acknowledged creates')
      } finally {
        sqlite.close()
      }
    } finally {
      await app?.close()
      unmount(dataDir)
    }
  })
})

describe('the photo files on a full file system', () => {
  test('an upload that finds no room answers 503 with Retry-After and leaves no file or photo; once there is room, uploads are taken without a restart', { timeout: 120_000 }, async (t) => {
    const mounted = mountTmpfs('32m')
    if ('reason' in mounted) return t.skip(mounted.reason)
    const dataDir = mounted.dir
    const filler = path.join(dataDir, 'filler')
    const logs = captureLogs()
    let app: TestApp | undefined
    try {
      app = await createTestApp({ config: { databaseUrl: undefined, dataDir, adminToken: ADMIN_TOKEN }, logger: logs.logger })
      const a = app
      const { key } = await app.project({ plan: 'enterprise', perMinute: 10_000_000, perDay: 100_000_000 })
      const pet = (await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })).json<{ id: number }>()
      // Noise does not compress: the photo's files take room in proportion to its size.
      const { width, height } = { width: 1600, height: 1200 }
      const image = await sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
      const upload = () => a.request({ method: 'POST', url: `/v1/pets/${pet.id}/photos`, headers: { ...bearer(key), 'content-type': 'image/jpeg' }, payload: image })
      const photos = async () => (await a.request({ method: 'GET', url: `/v1/pets/${pet.id}/photos`, headers: bearer(key) })).json<unknown[]>().length
      const mediaFiles = () => (fs.existsSync(path.join(dataDir, 'media')) ? fs.readdirSync(path.join(dataDir, 'media'), { recursive: true }).length : 0)
      const first = await upload()
      assert.equal(first.statusCode, 201, first.body)
      const filesBefore = mediaFiles()

      // Everything left taken by a file of the operator's (the database keeps its pages: a photo's
      // row is small, its files are not).
      const fd = fs.openSync(filler, 'w')
      try {
        const chunk = Buffer.alloc(256 * 1024, 1)
        for (;;) fs.writeSync(fd, chunk)
      } catch (error) {
        assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC')
      } finally {
        fs.closeSync(fd)
      }
      // Give back a little: enough for a row, not for the photo's files.
      fs.truncateSync(filler, fs.statSync(filler).size - 128 * 1024)

      const refused = await upload()
      assertStorageFull(refused, 'an upload while the file system is full', dataDir)
      assert.equal(await photos(), 1, 'the refused upload added no photo')
      assert.equal(mediaFiles(), filesBefore, 'the refused upload left no file')
      const ready = await a.request({ method: 'GET', url: '/readyz' })
      assert.equal(ready.statusCode, 503, ready.body)
      const metrics = (await a.request({ method: 'GET', url: '/metrics' })).body
      assert.equal(sample(metrics, 'adoption_store_storage_full', '{storage="files"}'), 1, 'the gauge says the file storage is full')
      assert.equal((await a.request({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: bearer(key) })).statusCode, 200, 'reads answer')

      // The operator removes the file: ready again by the probe, and the next upload is taken.
      fs.rmSync(filler)
      let readyAgain = 0
      for (let i = 0; i < 300 && readyAgain !== 200; i++) {
        readyAgain = (await a.request({ method: 'GET', url: '/readyz' })).statusCode
        if (readyAgain !== 200) await sleep(100)
      }
      assert.equal(readyAgain, 200, '/readyz is ready again once there is room')
      const again = await upload()
      assert.equal(again.statusCode, 201, again.body)
      assert.equal(await photos(), 2)
      const warnings = logs.lines().filter((line) => (line.level as number) >= 40)
      assert.equal(warnings.length, 1, `one warning: ${JSON.stringify(warnings.slice(0, 3))}`)
      assert.equal(warnings[0]!.storage, 'files')
    } finally {
      await app?.close()
      unmount(dataDir)
    }
  })
})

describe('storage-full errors, wherever they come from', () => {
  /** An app with nothing but the one error handler and a route that throws what it is given. */
  async function handlerWith(thrown: () => unknown) {
    const logs = captureLogs()
    const app = Fastify({ loggerInstance: logs.logger as FastifyBaseLogger })
    const metrics = new Metrics()
    const storage = new StorageFull({ probes: { database: () => Promise.reject(new Error('still full')), files: () => Promise.reject(new Error('still full')) }, log: app.log, observer: metrics.storageObserver })
    const outage = new DatabaseOutage(() => Promise.resolve(), app.log, storage)
    installErrorHandling(app, { bodyLimit: 1024 }, { outage, storage })
    app.post('/write', async () => {
      throw thrown()
    })
    await app.ready()
    return { app, storage, metrics, logs }
  }

  /** What PostgreSQL sends when it cannot extend a file: a real pg DatabaseError with SQLSTATE 53100. */
  function postgresDiskFull(): Error {
    const error = new pg.DatabaseError('could not extend file "base/16384/24576": No space left on device', 120, 'error')
    error.code = '53100'
    error.severity = 'ERROR'
    error.hint = 'Check free disk space.'
    return error
  }

  test("PostgreSQL's disk_full (53100) answers 503 with Retry-After, counted and logged once, and /readyz's watch sees the database full", async () => {
    const { app, storage, metrics, logs } = await handlerWith(postgresDiskFull)
    try {
      const responses = await Promise.all(Array.from({ length: 5 }, () => app.inject({ method: 'POST', url: '/write' })))
      for (const response of responses) {
        assert.equal(response.statusCode, 503, response.body)
        assert.equal(response.json().code, 'service_unavailable')
        assert.match(response.json().message, /storage is full/)
        assert.doesNotMatch(response.body, /base\/16384|No space|53100/)
        assert.ok(Number(response.headers['retry-after']) >= 1)
      }
      assert.deepEqual(storage.full(), ['database'])
      const text = await metrics.registry.metrics()
      assert.equal(sample(text, 'adoption_store_storage_full_refusals_total', '{storage="database"}'), 5)
      assert.equal(sample(text, 'adoption_store_storage_full', '{storage="database"}'), 1)
      const warnings = logs.lines().filter((line) => (line.level as number) >= 40)
      assert.equal(warnings.length, 1, JSON.stringify(warnings))
      assert.equal(warnings[0]!.code, '53100')
    } finally {
      storage.close()
      await app.close()
    }
  })

  test('a file store out of space (ENOSPC from the file system, EDQUOT, wrapped in its own error) answers the same, as the file storage', async (t) => {
    // A real ENOSPC where this machine can make one: a write past a tiny tmpfs.
    const mounted = mountTmpfs('64k')
    let enospc: unknown
    if ('dir' in mounted) {
      try {
        fs.writeFileSync(path.join(mounted.dir, 'photo.jpg'), Buffer.alloc(256 * 1024))
      } catch (error) {
        enospc = error
      } finally {
        unmount(mounted.dir)
      }
      assert.equal((enospc as { code?: unknown }).code, 'ENOSPC')
    } else {
      t.diagnostic(`${mounted.reason}; an ENOSPC built as Node builds one instead`)
      enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -os.constants.errno.ENOSPC, syscall: 'write' })
    }
    const edquot = Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT', errno: -(os.constants.errno.EDQUOT ?? 122), syscall: 'write' })
    const wrapped = new Error('the photo could not be stored', { cause: enospc })
    const errnoOnly = Object.assign(new Error('write failed'), { errno: -os.constants.errno.ENOSPC })
    for (const error of [enospc, edquot, wrapped, errnoOnly]) assert.equal(fullStorageOf(error), 'files', String(error))
    // An S3-compatible store out of room, as the AWS SDK reports it (MinIO: 507 XMinioStorageFull).
    const s3Full = new S3ServiceException({ name: 'XMinioStorageFull', $fault: 'server', $metadata: { httpStatusCode: 507 }, message: 'Storage backend has reached its minimum free drive threshold.' })
    assert.equal(fullStorageOf(new Error('the photo could not be stored', { cause: s3Full })), 'files')
    const s3Other = new S3ServiceException({ name: 'SlowDown', $fault: 'server', $metadata: { httpStatusCode: 503 }, message: 'Please reduce your request rate.' })
    assert.equal(fullStorageOf(s3Other), undefined, 'another S3 error is not a full storage')
    // Across a worker thread's message an Error keeps its message, not these fields; its facts
    // (errorFacts, what an image thread sends) keep them, the wrapped errors' included.
    for (const error of [wrapped, new Error('the photo could not be stored', { cause: s3Full })]) {
      assert.equal(fullStorageOf(new Error('processing a photo failed', { cause: structuredClone(errorFacts(error)) })), 'files', String(error))
    }
    assert.equal(fullStorageOf(structuredClone(errorFacts(s3Other))), undefined)

    const { app, storage, metrics, logs } = await handlerWith(() => wrapped)
    try {
      const response = await app.inject({ method: 'POST', url: '/write' })
      assert.equal(response.statusCode, 503, response.body)
      assert.equal(response.json().code, 'service_unavailable')
      assert.doesNotMatch(response.body, /photo|ENOSPC|adoption-store-full/)
      assert.deepEqual(storage.full(), ['files'])
      assert.equal(sample(await metrics.registry.metrics(), 'adoption_store_storage_full_refusals_total', '{storage="files"}'), 1)
      assert.equal(logs.lines().filter((line) => (line.level as number) >= 40).length, 1)
    } finally {
      storage.close()
      await app.close()
    }
  })

  test('other failures are not taken for a full storage: a bug stays a 500, an unreachable database stays its own outage', async () => {
    const notFull = [
      Object.assign(new pg.DatabaseError('sorry, too many clients already', 0, 'error'), { code: '53300' }),
      Object.assign(new pg.DatabaseError('out of memory', 0, 'error'), { code: '53200' }),
      Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }),
      Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }),
      Object.assign(new Error('permission denied'), { code: 'EACCES', errno: -os.constants.errno.EACCES }),
      new TypeError('x is undefined'),
      undefined,
    ]
    for (const error of notFull) assert.equal(fullStorageOf(error), undefined, String(error))

    const { app, storage, logs } = await handlerWith(() => new TypeError('x is undefined'))
    try {
      const response = await app.inject({ method: 'POST', url: '/write' })
      assert.equal(response.statusCode, 500)
      assert.equal(response.json().code, 'internal_error')
      assert.deepEqual(storage.full(), [])
      assert.ok(logs.lines().some((line) => line.msg === 'unhandled error'))
    } finally {
      storage.close()
      await app.close()
    }
  })

  test('the probes: a directory with room passes and leaves nothing; a full one fails with ENOSPC', async (t) => {
    const roomy = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-probe-'))
    try {
      await probeDirectory(roomy)
      assert.deepEqual(fs.readdirSync(roomy), [])
    } finally {
      fs.rmSync(roomy, { recursive: true, force: true })
    }
    const mounted = mountTmpfs('512k')
    if ('reason' in mounted) return t.skip(mounted.reason)
    try {
      await assert.rejects(probeDirectory(mounted.dir), (error: unknown) => fullStorageOf(error) === 'files')
      assert.deepEqual(fs.readdirSync(mounted.dir), [], 'a failed probe leaves nothing either')
    } finally {
      unmount(mounted.dir)
    }
  })

  test('the PostgreSQL probe writes and rolls back on a real server', { skip: postgresUrl ? false : 'PostgreSQL is not configured (TEST_DATABASE_URL)' }, async () => {
    const fresh = await freshPostgresDatabase()
    const database = openDatabase(defineConfig({ databaseUrl: fresh.url }))
    try {
      await database.probeRoom()
      await database.probeRoom()
    } finally {
      await database.close()
      await fresh.drop()
    }
  })
})
