import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import net from 'node:net'
import zlib from 'node:zlib'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import sharp from 'sharp'
import { buffer } from 'node:stream/consumers'
import { Gate, processImage } from '../src/photos/images.js'
import { ImageThreads } from '../src/photos/image-threads.js'
import { MAX_KEPT_FILE_BYTES, MediaBytes } from '../src/photos/media-bytes.js'
import { MEDIA_ROUTE } from '../src/photos/media.routes.js'
import { PhotosService } from '../src/photos/photos.service.js'
import { systemClock } from '../src/clock.js'
import { createObjectStore } from '../src/storage/backend.js'
import type { ObjectStore } from '../src/storage/store.js'
import { bearer, type TestApp } from './helpers/app.js'
import { sendTo } from './helpers/domains.js'
import { testDialect } from './helpers/databases.js'
import { captureLogs } from './helpers/logs.js'
import { startTestS3, type TestS3 } from './helpers/s3.js'
import { addEndpoint, createWebhooksApp } from './helpers/webhooks.js'

/**
 * Photos of animals through /v1 and /media: an upload of any accepted type (raw or as a form) is
 * upright, in sRGB, without metadata, in every variant; the animal's answers carry it at once
 * (through the response cache); its files are served without a key, immutable, with ranges; a
 * removal stops serving at once on every instance and deletes the files; every refused upload
 * leaves no row and no file; leftovers are swept.
 */

interface Variant {
  width: number
  height: number
  url: string
}
interface Photo {
  id: string
  width: number
  height: number
  variants: { webp: Variant[]; jpeg: Variant[] }
}

let t: TestApp
let owner: { slug: string; id: number; key: string }
let petId: number
let store: ObjectStore

async function newPet(name: string, key = owner.key): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name, categoryId: 1 } })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<{ id: number }>().id
}

function upload(bytes: Buffer, options: { pet?: number; key?: string; type?: string } = {}): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: `/v1/pets/${options.pet ?? petId}/photos`,
    headers: { ...bearer(options.key ?? owner.key), 'content-type': options.type ?? 'image/jpeg' },
    payload: bytes,
  })
}

async function uploaded(bytes: Buffer): Promise<Photo> {
  const response = await upload(bytes)
  assert.equal(response.statusCode, 201, response.body)
  return response.json<Photo>()
}

function multipart(bytes: Buffer, filename: string, type: string): { payload: Buffer; contentType: string } {
  const boundary = `----photo${Date.now()}`
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`)
  return { payload: Buffer.concat([head, bytes, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` }
}

async function getPet(id = petId): Promise<Record<string, unknown>> {
  const response = await t.request({ method: 'GET', url: `/v1/pets/${id}`, headers: bearer(owner.key) })
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

/** A photo with EXIF (GPS included), an XMP packet and an orientation tag: the camera's 90° turn. */
async function cameraJpeg(width = 1600, height = 900): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#2a6f97' } })
    .composite([{ input: { create: { width: Math.round(width / 4), height: Math.round(height / 4), channels: 3, background: '#f4a261' } }, left: 0, top: 0 }])
    .withExif({ IFD0: { Make: 'TestCam', Copyright: 'Shelter' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '39/1 47/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '89/1 39/1 0/1' } })
    .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Secret Person</dc:creator></rdf:Description></rdf:RDF></x:xmpmeta>')
    .withMetadata({ orientation: 6 })
    .jpeg()
    .toBuffer()
}

async function png(width = 40, height = 30): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 10, g: 200, b: 30, alpha: 0.5 } } }).png().toBuffer()
}

/** A decompression bomb: a small PNG whose header says it is `width` × `height` (its CRC fixed). */
async function claiming(width: number, height: number): Promise<Buffer> {
  const bytes = Buffer.from(await sharp({ create: { width: 64, height: 64, channels: 3, background: '#000' } }).png().toBuffer())
  // IHDR: length (4), type (4) at 8, then width and height at 16 and 20, its CRC at 29 over type and data.
  bytes.writeUInt32BE(width, 16)
  bytes.writeUInt32BE(height, 20)
  bytes.writeUInt32BE(zlib.crc32(bytes.subarray(12, 29)), 29)
  return bytes
}

async function media(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET', on = t): Promise<LightMyRequestResponse> {
  return on.request({ method, url: new URL(url).pathname, headers })
}

async function storedKeys(): Promise<string[]> {
  const keys: string[] = []
  for await (const object of store.list('photos/')) keys.push(object.key)
  return keys
}

async function photoRows(): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from pet_photos`.execute(t.database.db)
  return Number(rows[0]!.n)
}

function assertError(response: LightMyRequestResponse, status: number, code: string, message: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  const body = response.json<{ code: string; message: string }>()
  assert.equal(body.code, code)
  assert.match(body.message, message)
}

let s3: TestS3 | undefined

function hooks(backend: 'files' | 's3'): void {
  beforeEach(async () => {
    s3 = backend === 's3' ? await startTestS3() : undefined
    t = await createWebhooksApp({ photoMaxBytes: 2 * 1024 * 1024, photoMaxPixels: 40_000_000, ...s3?.config })
    owner = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    petId = await newPet('Luna')
    store = createObjectStore(t.config)
    assert.equal(store.kind, backend)
  })
  afterEach(async () => {
    await t.close()
    await store.close()
    await s3?.close()
  })
}

// The whole suite on each object store: files under DATA_DIR, and an S3-protocol server. The
// PostgreSQL leg runs it with the store instances share when they share a database server, the
// bucket: what the stores do is the same whichever database keeps the rows, and the SQLite leg
// runs both.
const backends = testDialect === 'postgres' ? (['s3'] as const) : (['files', 's3'] as const)
for (const backend of backends) {
  describe(`with photos kept in ${backend}`, () => {
    hooks(backend)

    describe('an upload', () => {
      test('is turned upright, stripped of EXIF, GPS and XMP, and stored at every width below its own in WebP and JPEG', async () => {
        const photo = await uploaded(await cameraJpeg(1600, 900))
        // Orientation 6: the 1600 × 900 picture stands 900 × 1600.
        assert.deepEqual([photo.width, photo.height], [900, 1600])
        for (const format of ['webp', 'jpeg'] as const) {
          assert.deepEqual(photo.variants[format].map((v) => v.width), [100, 300, 600, 900])
        }
        for (const variant of [...photo.variants.webp, ...photo.variants.jpeg]) {
          const response = await media(variant.url)
          assert.equal(response.statusCode, 200, response.body)
          const meta = await sharp(response.rawPayload).metadata()
          assert.equal(meta.width, variant.width)
          assert.equal(meta.height, variant.height)
          assert.equal(meta.exif, undefined, `${variant.url} keeps EXIF`)
          assert.equal(meta.xmp, undefined, `${variant.url} keeps XMP`)
          assert.equal(meta.icc, undefined)
          assert.equal(meta.orientation, undefined)
          assert.ok(!response.rawPayload.includes(Buffer.from('Secret Person')) && !response.rawPayload.includes(Buffer.from('TestCam')))
          assert.equal(meta.space, 'srgb')
        }
        // The main colour is where it was once turned: the orange corner is now top right.
        const { data, info } = await sharp((await media(photo.variants.jpeg[0]!.url)).rawPayload).raw().toBuffer({ resolveWithObject: true })
        const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)]
        assert.ok(at(info.width - 2, 2)[0]! > 200, `top right is orange: ${at(info.width - 2, 2).join(',')}`)
        assert.ok(at(1, info.height - 2)[0]! < 100, `bottom left is blue: ${at(1, info.height - 2).join(',')}`)
      })

      test('is never enlarged, and a very large one is capped at 2048 pixels on its longer side', async () => {
        const small = await uploaded(await png(40, 30))
        assert.deepEqual(small.variants.webp.map((v) => [v.width, v.height]), [[40, 30]])
        const large = await uploaded(await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#000' } }).jpeg().toBuffer())
        assert.deepEqual([large.width, large.height], [2048, 683])
        assert.deepEqual(large.variants.jpeg.map((v) => v.width), [100, 300, 600, 1200, 2048])
      })

      test('is typed by its bytes: a PNG sent as image/jpeg in a form named .jpg, a WebP, an AVIF and a GIF (its first frame) are accepted', async () => {
        const form = multipart(await png(), 'luna.jpg', 'image/jpeg')
        const response = await t.request({ method: 'POST', url: `/v1/pets/${petId}/photos`, headers: { ...bearer(owner.key), 'content-type': form.contentType }, payload: form.payload })
        assert.equal(response.statusCode, 201, response.body)
        const base = sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
        for (const bytes of [await base.clone().webp().toBuffer(), await base.clone().avif().toBuffer(), await base.clone().gif().toBuffer()]) {
          const photo = await uploaded(bytes)
          assert.deepEqual([photo.width, photo.height], [64, 48])
        }
        // An animated GIF: its first frame.
        const frames = await sharp({ create: { width: 32, height: 64, channels: 3, background: '#ff0000' } }).gif().toBuffer()
        const animated = await sharp(frames, { pages: -1 }).gif({ loop: 0 }).toBuffer()
        const photo = await uploaded(animated)
        assert.deepEqual([photo.width, photo.height], [32, 64])
        assert.equal(((await getPet()).photos as Photo[]).length, 5)
      })

      test('shows in the animal at once, through the response cache; an animal without photos answers as before', async () => {
        const before = await getPet()
        assert.equal('photos' in before, false)
        const list = async () => (await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })).json<Record<string, unknown>[]>()
        assert.equal('photos' in (await list())[0]!, false)
        const first = await uploaded(await png())
        const second = await uploaded(await png(20, 20))
        assert.deepEqual(((await getPet()).photos as Photo[]).map((p) => p.id), [first.id, second.id])
        assert.deepEqual(((await list())[0]!.photos as Photo[]).map((p) => p.id), [first.id, second.id])
        const listed = await t.request({ method: 'GET', url: `/v1/pets/${petId}/photos`, headers: bearer(owner.key) })
        assert.deepEqual(listed.json<Photo[]>(), (await getPet()).photos)
      })
    })

    describe('a refused upload leaves no row and no file', () => {
      const cases: [string, () => Promise<Buffer> | Buffer, number, string, RegExp][] = [
        ['HEIC', () => Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic'), Buffer.alloc(64)]), 415, 'unsupported_image_type', /HEIC.*JPEG, PNG, WebP, AVIF or GIF/],
        ['an SVG with a script', () => Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 415, 'unsupported_image_type', /SVG/],
        ['a zip', () => Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100)]), 415, 'unsupported_image_type', /ZIP/],
        ['0 bytes', () => Buffer.alloc(0), 400, 'invalid_request', /empty/],
        ['a truncated JPEG', async () => (await cameraJpeg(800, 600)).subarray(0, 3000), 422, 'invalid_image', /truncated or corrupt/],
        ['a corrupt PNG', async () => Buffer.concat([(await png(300, 300)).subarray(0, 60), Buffer.alloc(400, 7)]), 422, 'invalid_image', /truncated or corrupt/],
        ['a 30,000 × 30,000 image', () => claiming(30000, 30000), 413, 'image_too_large', /30000 × 30000.*limit is 40 MP/],
        ['more bytes than the limit', () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(2 * 1024 * 1024)]), 413, 'payload_too_large', /limit of 2097152 bytes/],
      ]
      for (const [name, bytes, status, code, message] of cases) {
        test(name, async () => {
          const response = await upload(await bytes())
          assertError(response, status, code, message)
          // Past the byte limit the rest is not read: the connection closes after the answer.
          if (code === 'payload_too_large') assert.equal(response.headers.connection, 'close')
          assert.equal(await photoRows(), 0)
          assert.deepEqual(await storedKeys(), [])
          assert.equal('photos' in (await getPet()), false)
        })
      }

      test('the 21st photo of an animal', async () => {
        const small = await png(8, 8)
        for (let i = 0; i < 20; i++) await uploaded(small)
        const keys = await storedKeys()
        assertError(await upload(small), 409, 'limit_reached', /20 photos/)
        assert.equal(await photoRows(), 20)
        assert.deepEqual(await storedKeys(), keys)
      })

      test("another project's animal, or none, is 404", async () => {
        const other = await t.project()
        const theirs = await newPet('Theirs', other.key)
        assertError(await upload(await png(), { pet: theirs }), 404, 'not_found', new RegExp(`No animal with id ${theirs}`))
        assertError(await upload(await png(), { pet: 999999 }), 404, 'not_found', /No animal/)
        assert.equal(await photoRows(), 0)
        assert.deepEqual(await storedKeys(), [])
      })

      test('a form without a file, and a path parameter out of range, are 400 naming it', async () => {
        const boundary = 'x123'
        const response = await t.request({
          method: 'POST',
          url: `/v1/pets/${petId}/photos`,
          headers: { ...bearer(owner.key), 'content-type': `multipart/form-data; boundary=${boundary}` },
          payload: `--${boundary}--\r\n`,
        })
        assertError(response, 400, 'invalid_request', /no file/)
        assertError(await upload(await png(), { pet: 0 }), 400, 'invalid_request', /petId/)
      })

      test('a client that disconnects mid-upload', async () => {
        const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
        const { port } = new URL(address)
        const bytes = await cameraJpeg(1200, 800)
        await new Promise<void>((resolve) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => {
            socket.write(`POST /v1/pets/${petId}/photos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner.key}\r\nContent-Type: image/jpeg\r\nContent-Length: ${bytes.length}\r\n\r\n`)
            socket.write(bytes.subarray(0, bytes.length / 2), () => setTimeout(() => socket.destroy(), 100))
          })
          socket.on('close', () => resolve())
          socket.on('error', () => resolve())
        })
        // The server notices, and nothing was stored; it still answers.
        await new Promise((resolve) => setTimeout(resolve, 300))
        assert.equal(await photoRows(), 0)
        assert.deepEqual(await storedKeys(), [])
        assert.equal((await uploaded(await png())).width, 40)
      })
    })

    describe('serving a file', () => {
      test('needs no key, is immutable with a strong ETag, answers HEAD, Range and If-None-Match', async () => {
        const photo = await uploaded(await cameraJpeg(800, 600))
        const url = photo.variants.jpeg.at(-1)!.url
        assert.match(url, /^http:\/\/localhost:\d+\/media\/photos\/[A-Za-z0-9_-]{22}\/[0-9a-f]{32}-\d+\.jpg$/)
        const whole = await media(url)
        assert.equal(whole.statusCode, 200)
        assert.equal(whole.headers['cache-control'], 'public, max-age=31536000, immutable')
        assert.equal(whole.headers['content-type'], 'image/jpeg')
        assert.equal(whole.headers['x-content-type-options'], 'nosniff')
        const etag = String(whole.headers.etag)
        assert.match(etag, /^"[0-9a-f]{64}"$/)
        assert.equal(Number(whole.headers['content-length']), whole.rawPayload.length)
        const webp = await media(photo.variants.webp[0]!.url)
        assert.equal(webp.headers['content-type'], 'image/webp')
        // Compressed already: sent as they are, whatever the client accepts.
        const offered = await media(url, { 'accept-encoding': 'br, gzip' })
        assert.equal(offered.headers['content-encoding'], undefined)
        assert.deepEqual(offered.rawPayload, whole.rawPayload)

        const head = await media(url, {}, 'HEAD')
        assert.equal(head.statusCode, 200)
        assert.equal(head.headers.etag, etag)
        assert.equal(head.headers['content-length'], whole.headers['content-length'])

        const part = await media(url, { range: 'bytes=10-29' })
        assert.equal(part.statusCode, 206)
        assert.equal(part.headers['content-range'], `bytes 10-29/${whole.rawPayload.length}`)
        assert.deepEqual(part.rawPayload, whole.rawPayload.subarray(10, 30))
        const tail = await media(url, { range: 'bytes=-5' })
        assert.deepEqual(tail.rawPayload, whole.rawPayload.subarray(-5))
        assertError(await media(url, { range: `bytes=${whole.rawPayload.length}-` }), 416, 'range_not_satisfiable', /bytes/)

        assert.equal((await media(url, { 'if-none-match': etag })).statusCode, 304)
        // The same bytes again: the same content, so the same hash in its address (another photo id).
        const again = await uploaded(await cameraJpeg(800, 600))
        assert.equal(again.variants.jpeg.at(-1)!.url.split('/').at(-1), url.split('/').at(-1))
        assert.notEqual(again.id, photo.id)
        // A file the photo does not have, or a made-up photo: 404.
        assert.equal((await media(url.replace(/\/[0-9a-f]{32}-/, `/${'0'.repeat(32)}-`))).statusCode, 404)
        assert.equal((await media(url.replace(photo.id, 'A'.repeat(22)))).statusCode, 404)
      })

      test('once served, a small file is answered from memory (its ranges too), while its photo exists', async () => {
        const photo = await uploaded(await png())
        const url = photo.variants.webp[0]!.url
        const first = await media(url)
        assert.equal(first.statusCode, 200)
        // Its bytes taken from the store behind the service's back: the kept copy answers.
        await store.delete([new URL(url).pathname.replace(/^\/media\//, '')])
        const again = await media(url)
        assert.equal(again.statusCode, 200)
        assert.deepEqual(again.rawPayload, first.rawPayload)
        const part = await media(url, { range: 'bytes=2-5' })
        assert.equal(part.statusCode, 206)
        assert.equal(part.headers['content-range'], `bytes 2-5/${first.rawPayload.length}`)
        assert.deepEqual(part.rawPayload, first.rawPayload.subarray(2, 6))
        // A file of the photo not served yet is read from the store.
        const jpeg = photo.variants.jpeg[0]!.url
        await store.delete([new URL(jpeg).pathname.replace(/^\/media\//, '')])
        assert.equal((await media(jpeg)).statusCode, 404)
      })

      test('over a connection, a file in memory is answered before routing, exactly as the route answers; anything else goes through the route', async () => {
        const logs = captureLogs()
        const u = await createWebhooksApp({ ...s3?.config }, { logger: logs.logger })
        try {
          const shelter = await u.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
          const pet = (await u.request({ method: 'POST', url: '/v1/pets', headers: bearer(shelter.key), payload: { name: 'Pix', categoryId: 1 } })).json<{ id: number }>().id
          const added = await u.request({ method: 'POST', url: `/v1/pets/${pet}/photos`, headers: { ...bearer(shelter.key), 'content-type': 'image/png' }, payload: await png() })
          assert.equal(added.statusCode, 201, added.body)
          const photo = added.json<Photo>()
          const base = await u.app.listen({ port: 0, host: '127.0.0.1' })
          const path = new URL(photo.variants.webp[0]!.url).pathname
          const answer = async (response: Response) => {
            const headers = Object.fromEntries([...response.headers].filter(([name]) => !['date', 'x-request-id', 'connection', 'keep-alive'].includes(name)))
            return { status: response.status, headers, body: Buffer.from(await response.arrayBuffer()).toString('base64'), id: response.headers.get('x-request-id') }
          }
          const get = async (headers: Record<string, string> = {}, method = 'GET') => answer(await fetch(base + path, { method, headers }))
          /** Whether each answer of the media route since the last call was given before routing. */
          let seen = 0
          const early = () => {
            const lines = logs.lines().filter((line) => line.msg === 'request completed' && line.route === MEDIA_ROUTE)
            const fresh = lines.slice(seen).map((line) => line.early === true)
            seen = lines.length
            return fresh
          }

          const answers = [await get(), await get(), await get({ 'x-request-id': 'req-42' })]
          // The embedded store knows without a read that the photo still exists; PostgreSQL is asked each time.
          const kept = u.database.changeCounter !== undefined
          assert.deepEqual(early(), kept ? [false, true, true] : [false, false, false])
          for (const later of answers.slice(1)) assert.deepEqual({ ...later, id: null }, { ...answers[0]!, id: null })
          assert.equal(answers[0]!.status, 200)
          assert.equal(answers[0]!.headers['cache-control'], 'public, max-age=31536000, immutable')
          assert.equal(answers[2]!.id, 'req-42', "the client's request id, as the route keeps it")

          // A range, HEAD, a revalidation and a query go through the route.
          assert.equal((await get({ range: 'bytes=0-3' })).status, 206)
          assert.equal((await get({}, 'HEAD')).status, 200)
          assert.equal((await get({ 'if-none-match': answers[0]!.headers.etag! })).status, 304)
          assert.equal((await answer(await fetch(`${base}${path}?v=1`))).status, 200)
          assert.deepEqual(early(), [false, false, false, false])
          // So does any host but the API's own: host routing answers it.
          assert.equal((await sendTo(base + path, { host: `${shelter.slug}.platform.test` })).status, 200)
          assert.equal((await sendTo(base + path, { host: 'nobody.example' })).status, 404)
          assert.deepEqual(early(), [false, false])
          // Counted as every answer is.
          const metrics = (await u.app.inject({ method: 'GET', url: '/metrics' })).body
          assert.match(metrics, new RegExp(`^adoption_store_http_requests_total\\{method="GET",route="${MEDIA_ROUTE}",status="200"\\} 5$`, 'm'))

          // Removed: the very next request is 404, from the route.
          assert.equal((await u.request({ method: 'DELETE', url: `/v1/pets/${pet}/photos/${photo.id}`, headers: bearer(shelter.key) })).statusCode, 204)
          assert.equal((await get()).status, 404)
          assert.deepEqual(early(), [false])
        } finally {
          await u.close()
        }
      })

      test("a served photo's row is kept while the database's change counter stands still, and read again once it moves", async () => {
        const photo = await uploaded(await png())
        const name = photo.variants.webp[0]!.url.split('/').at(-1)!
        let counter = 1
        const service = new PhotosService({ db: t.database.db, clock: systemClock, store, config: t.config, generations: { dataChanged: async () => undefined }, outbox: t.app.services.webhooks.outbox, log: console, changeCounter: () => counter, images: new ImageThreads({ storage: t.config }) })
        assert.equal((await service.file(photo.id, name))?.contentType, 'image/webp')
        await sql`delete from pet_photos where id = ${photo.id}`.execute(t.database.db)
        // Nothing told it: the kept row answers.
        assert.ok(await service.file(photo.id, name))
        counter++
        assert.equal(await service.file(photo.id, name), undefined)
        // Without a counter, every file's row is read.
        const plain = new PhotosService({ db: t.database.db, clock: systemClock, store, config: t.config, generations: { dataChanged: async () => undefined }, outbox: t.app.services.webhooks.outbox, log: console, images: new ImageThreads({ storage: t.config }) })
        assert.equal(await plain.file(photo.id, name), undefined)
      })

      test('the bytes kept: files up to 512 KB, within the budget, least recently used out first; none with a budget of 0', async () => {
        const read = async (bytes: MediaBytes, key: string, size: number) => {
          const got = await bytes.read(key, size)
          return got && (Buffer.isBuffer(got.body) ? got.body : await buffer(got.body))
        }
        const big = Buffer.alloc(MAX_KEPT_FILE_BYTES + 1, 7)
        const files = { 'photos/T/a.webp': Buffer.alloc(400, 1), 'photos/T/b.webp': Buffer.alloc(400, 2), 'photos/T/c.webp': Buffer.alloc(400, 3), 'photos/T/big.jpg': big }
        for (const [key, bytes] of Object.entries(files)) await store.put(key, bytes, 'image/webp')
        // Room for two small files (each counted with 200 bytes for its entry).
        const kept = new MediaBytes(store, 1_300)
        const none = new MediaBytes(store, 0)
        for (const key of ['photos/T/a.webp', 'photos/T/b.webp', 'photos/T/a.webp', 'photos/T/c.webp']) assert.deepEqual(await read(kept, key, 400), files[key as keyof typeof files])
        assert.deepEqual(await read(kept, 'photos/T/big.jpg', big.length), big)
        assert.deepEqual(await read(none, 'photos/T/a.webp', 400), files['photos/T/a.webp'])
        await store.delete(Object.keys(files))
        // a was used after b: b went when c came.
        assert.deepEqual(await read(kept, 'photos/T/a.webp', 400), files['photos/T/a.webp'])
        assert.deepEqual(await read(kept, 'photos/T/c.webp', 400), files['photos/T/c.webp'])
        assert.equal(await read(kept, 'photos/T/b.webp', 400), undefined)
        assert.equal(await read(kept, 'photos/T/big.jpg', big.length), undefined)
        assert.equal(await read(none, 'photos/T/a.webp', 400), undefined)
      })
    })

    describe('changes', () => {
      test('a removed photo stops being served at once, on every instance, and its files are deleted; the next becomes the main one', async () => {
        const sibling = await t.sibling()
        try {
          const first = await uploaded(await png())
          const second = await uploaded(await png(20, 10))
          const url = first.variants.webp[0]!.url
          assert.equal((await media(url, {}, 'GET', sibling)).statusCode, 200)
          await getPet()
          const removed = await t.request({ method: 'DELETE', url: `/v1/pets/${petId}/photos/${first.id}`, headers: bearer(owner.key) })
          assert.equal(removed.statusCode, 204, removed.body)
          assert.equal((await media(url)).statusCode, 404)
          assert.equal((await media(url, {}, 'GET', sibling)).statusCode, 404)
          assert.deepEqual(((await getPet()).photos as Photo[]).map((p) => p.id), [second.id])
          assert.ok((await storedKeys()).every((key) => !key.includes(first.id)))
          assertError(await t.request({ method: 'DELETE', url: `/v1/pets/${petId}/photos/${first.id}`, headers: bearer(owner.key) }), 404, 'not_found', /no photo/)
        } finally {
          await sibling.app.close()
        }
      })

      test('the order puts the main photo first; an order that is not every photo once is 400', async () => {
        const [a, b, c] = [await uploaded(await png()), await uploaded(await png(10, 10)), await uploaded(await png(12, 12))]
        const order = (ids: string[]) => t.request({ method: 'PUT', url: `/v1/pets/${petId}/photos/order`, headers: bearer(owner.key), payload: { ids } })
        const response = await order([c.id, a.id, b.id])
        assert.equal(response.statusCode, 200, response.body)
        assert.deepEqual(response.json<Photo[]>().map((p) => p.id), [c.id, a.id, b.id])
        assert.deepEqual(((await getPet()).photos as Photo[]).map((p) => p.id), [c.id, a.id, b.id])
        assertError(await order([a.id, b.id]), 400, 'invalid_request', /every photo/)
        assertError(await order([a.id, b.id, 'A'.repeat(22)]), 400, 'invalid_request', /not a photo/)
        assertError(await order([a.id, a.id, b.id]), 400, 'invalid_request', /ids/)
        assert.deepEqual(((await getPet()).photos as Photo[]).map((p) => p.id), [c.id, a.id, b.id])
      })

      test("removing the animal removes its photos' rows and files", async () => {
        const photo = await uploaded(await png())
        const removed = await t.request({ method: 'DELETE', url: `/v1/pets/${petId}`, headers: bearer(owner.key) })
        assert.equal(removed.statusCode, 204, removed.body)
        assert.equal(await photoRows(), 0)
        assert.deepEqual(await storedKeys(), [])
        assert.equal((await media(photo.variants.jpeg[0]!.url)).statusCode, 404)
      })

      test('pet.photo_added and pet.photo_removed are written with the change', async () => {
        await addEndpoint(t, owner.slug, 'http://127.0.0.1:9/hook', ['pet.photo_added', 'pet.photo_removed'])
        const photo = await uploaded(await png())
        await t.request({ method: 'DELETE', url: `/v1/pets/${petId}/photos/${photo.id}`, headers: bearer(owner.key) })
        const { rows } = await sql<{ type: string; data: string }>`select type, data from webhook_events where type like 'pet.photo_%' order by type`.execute(t.database.db)
        assert.deepEqual(rows.map((row) => row.type), ['pet.photo_added', 'pet.photo_removed'])
        for (const row of rows) assert.deepEqual(JSON.parse(row.data), { petId, photo })
      })
    })

    describe('leftovers', () => {
      test('the sweep deletes stored files no photo names once they are older than the grace period, and keeps the others', async () => {
        const photo = await uploaded(await png())
        await store.put('photos/AAAAAAAAAAAAAAAAAAAAAA/leftover-100.webp', Buffer.from('x'), 'image/webp')
        const kept = await storedKeys()
        // Within the grace period: kept (an upload in progress stores its files before its row).
        assert.equal(await t.app.services.photos.sweep(Date.now() - 60_000), 0)
        assert.deepEqual(await storedKeys(), kept)
        assert.equal(await t.app.services.photos.sweep(Date.now() + 60_000), 1)
        assert.deepEqual(await storedKeys(), kept.filter((key) => !key.startsWith('photos/AAAA')))
        assert.equal((await media(photo.variants.webp[0]!.url)).statusCode, 200)
        const report = await t.app.services.photos.verify()
        assert.deepEqual([report.photos, report.missing, report.orphans], [1, [], []])
      })

      test('verify reports rows without files and files without rows', async () => {
        const photo = await uploaded(await png())
        const key = new URL(photo.variants.webp[0]!.url).pathname.replace('/media/', '')
        await store.delete([key])
        await store.put('photos/BBBBBBBBBBBBBBBBBBBBBB/stray-100.jpg', Buffer.from('x'), 'image/jpeg')
        const report = await t.app.services.photos.verify()
        assert.deepEqual(report.missing, [{ photoId: photo.id, petId, key }])
        assert.deepEqual(report.orphans.map((o) => o.key), ['photos/BBBBBBBBBBBBBBBBBBBBBB/stray-100.jpg'])
      })
    })
  })
}

test('processing runs at most N photos at once', async () => {
  const gate = new Gate(2)
  let running = 0
  let most = 0
  await Promise.all(
    Array.from({ length: 7 }, () =>
      gate.run(async () => {
        most = Math.max(most, ++running)
        await new Promise((resolve) => setTimeout(resolve, 5))
        running--
      }),
    ),
  )
  assert.equal(most, 2)
})

test('an image thread stores what processing on the event loop makes; the pieces of the upload move to it without a copy, a slice of a larger buffer is copied', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-image-thread-'))
  const settings = { dataDir, s3Bucket: undefined, s3Endpoint: undefined, s3Region: 'us-east-1', s3ForcePathStyle: true, s3Prefix: '' }
  const store = createObjectStore(settings)
  const threads = new ImageThreads({ storage: settings })
  const stored = async () => {
    const keys: string[] = []
    for await (const object of store.list('photos/')) keys.push(object.key)
    return keys.sort()
  }
  try {
    const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#3a7' } }).png().toBuffer()
    const expected = await processImage(Buffer.from(photo), 40_000_000)
    assert.ok(expected.ok)
    // The upload as two pieces, each a buffer of its own (never of the shared pool), as HTTP delivers them.
    const own = (bytes: Buffer) => Buffer.from(new Uint8Array(bytes).buffer)
    const pieces = [own(photo.subarray(0, 1000)), own(photo.subarray(1000))]
    const got = await threads.process(pieces, 40_000_000, 'photos/first/')
    assert.ok(got.ok)
    assert.deepEqual(pieces.map((piece) => piece.length), [0, 0], "the upload's memory moved to the thread")
    assert.equal(got.photo.hash, expected.photo.hash)
    assert.deepEqual(
      got.photo.variants.map((v) => [v.format, v.width, v.height, v.hash, v.size, v.key]),
      expected.photo.variants.map((v) => [v.format, v.width, v.height, v.hash, v.bytes.length, `photos/first/${v.hash.slice(0, 32)}-${v.width}.${v.format === 'jpeg' ? 'jpg' : 'webp'}`]),
    )
    // Every variant is in the store, with the bytes processing made.
    assert.deepEqual(await stored(), got.photo.variants.map((v) => v.key).sort())
    for (const variant of expected.photo.variants) {
      const read = await store.get(got.photo.variants.find((v) => v.hash === variant.hash)!.key)
      assert.ok(read)
      assert.ok((await buffer(read.body)).equals(variant.bytes))
    }
    // A view into a larger buffer is copied, so the rest of that buffer stays usable.
    const larger = Buffer.concat([Buffer.from('prefix'), photo])
    const again = await threads.process([larger.subarray(6)], 40_000_000, 'photos/second/')
    assert.ok(again.ok)
    assert.equal(again.photo.hash, expected.photo.hash)
    assert.equal(larger.subarray(0, 6).toString(), 'prefix')
    // A refusal comes back as the same outcome, and stores nothing.
    const before = await stored()
    assert.deepEqual(await threads.process([Buffer.from('not an image at all')], 40_000_000, 'photos/third/'), await processImage(Buffer.from('not an image at all'), 40_000_000))
    assert.deepEqual(await stored(), before)
  } finally {
    await threads.close()
  }
  // Closed, it starts a thread again when asked.
  const reopened = await threads.process([await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).png().toBuffer()], 40_000_000, 'photos/fourth/')
  assert.ok(reopened.ok)
  await threads.close()
  await store.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

test('an image thread that cannot store a file fails the upload and leaves none of its files', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-image-thread-'))
  // The media directory is a file: nothing can be written under it.
  fs.writeFileSync(path.join(dataDir, 'media'), 'not a directory')
  const threads = new ImageThreads({ storage: { dataDir, s3Bucket: undefined, s3Endpoint: undefined, s3Region: 'us-east-1', s3ForcePathStyle: true, s3Prefix: '' } })
  try {
    const photo = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#a37' } }).jpeg().toBuffer()
    // The store's error code comes back with the failure: the error handling reads it (a full disk is a 503).
    await assert.rejects(threads.process([photo], 40_000_000, 'photos/failing/'), (error: Error) => {
      assert.match(error.message, /processing a photo failed: .*(ENOTDIR|EEXIST)/s)
      assert.match(String((error.cause as { code?: unknown }).code), /^(ENOTDIR|EEXIST)$/)
      return true
    })
    assert.equal(fs.readFileSync(path.join(dataDir, 'media'), 'utf8'), 'not a directory')
    // The thread is still there for the next upload.
    await assert.rejects(threads.process([photo], 40_000_000, 'photos/failing-again/'), /processing a photo failed/)
  } finally {
    await threads.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})
