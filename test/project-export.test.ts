/**
 * Exporting a project: `GET /admin/v1/projects/{slug}/export` and `projects export` answer one
 * gzip-compressed tar archive holding every kind of the project's data, a line per row, the
 * photos' files byte for byte, and a manifest counting them; no secret anywhere in it (every byte
 * is searched for the secrets the test made and for the secret columns' names); owners and
 * operators may, viewers and others may not; the export is recorded in the audit log; a reader
 * that goes away mid-archive stops it, and its temporary files are removed.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Readable } from 'node:stream'
import { after, before, describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import sharp from 'sharp'
import { extract } from 'tar-stream'
import { createObjectStore } from '../src/storage/backend.js'
import { asUser, createUser, signIn } from './helpers/accounts.js'
import { admin, ADMIN_TOKEN } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'
import { cleanup, makeDataDir, runCli } from './helpers/process.js'
import { startTestS3 } from './helpers/s3.js'
import { eventually } from './helpers/wait.js'
import { addEndpoint, createWebhooksApp } from './helpers/webhooks.js'

/** Every file of the archive by its name, and the names in the archive's order. */
async function untar(gzipped: Buffer): Promise<{ files: Map<string, Buffer>; order: string[]; raw: Buffer }> {
  const raw = gunzipSync(gzipped)
  const files = new Map<string, Buffer>()
  const order: string[] = []
  const reader = extract()
  Readable.from([raw]).pipe(reader)
  for await (const entry of reader) {
    const chunks: Buffer[] = []
    for await (const chunk of entry) chunks.push(chunk as Buffer)
    files.set(entry.header.name, Buffer.concat(chunks))
    order.push(entry.header.name)
  }
  return { files, order, raw }
}

function lines(files: Map<string, Buffer>, name: string): Record<string, unknown>[] {
  const text = files.get(name)?.toString('utf8')
  assert.ok(text !== undefined, `${name} is in the archive`)
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>)
}

/** A new project with one animal, which has one photo. */
async function projectWithPhoto(t: TestApp): Promise<{ slug: string; key: string }> {
  const project = await t.project()
  const pet = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(project.key), payload: { name: 'Rex', categoryId: 1 } })
  assert.equal(pet.statusCode, 201, pet.body)
  const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2a6f97' } }).png().toBuffer()
  const photo = await t.request({ method: 'POST', url: `/v1/pets/${pet.json<{ id: number }>().id}/photos`, headers: { ...bearer(project.key), 'content-type': 'image/png' }, payload: image })
  assert.equal(photo.statusCode, 201, photo.body)
  return project
}

const JSONL = [
  'animals.jsonl',
  'categories.jsonl',
  'locations.jsonl',
  'orders.jsonl',
  'photos.jsonl',
  'api-keys.jsonl',
  'webhook-endpoints.jsonl',
  'webhook-events.jsonl',
  'webhook-deliveries.jsonl',
  'webhook-attempts.jsonl',
  'domains.jsonl',
  'members.jsonl',
  'audit.jsonl',
  'usage.jsonl',
]

/** The names of the columns that hold secrets, as a row or a JSON key would carry them. */
const SECRET_NAMES = ['password_hash', 'passwordHash', 'private_key', 'privateKey', '"secret"', '"previous_secret"', 'previousSecret"', 'csrf_token', 'csrfToken', 'key_authorization']

describe('exporting a project', () => {
  let t: TestApp
  before(async () => {
    t = await createWebhooksApp({ platformDomain: 'platform.test' }, { granted: false })
  })
  after(async () => {
    await t.close()
    await cleanup()
  })

  /** A project with some of everything, and the secrets made for it. */
  async function filled() {
    const project = await t.project({ plan: 'business' })
    const second = await t.key(project.slug, { name: 'second' })
    const endpoint = await addEndpoint(t, project.slug, 'https://hooks.example.test/in', ['pet.created', 'order.placed'])
    const location = await admin(t, 'POST', `/projects/${project.slug}/locations`, { name: 'Main shelter', coordinates: { latitude: 51.5, longitude: -0.1 } })
    assert.equal(location.statusCode, 201, location.body)
    assert.equal((await admin(t, 'PUT', `/projects/${project.slug}/categories/300`, { name: 'Guinea pig', breeds: ['Teddy'] })).statusCode, 200)
    const pets: number[] = []
    for (const [name, profile] of [['Rex', { description: 'A calm senior', sex: 'male', tags: ['calm'] }], ['Tom', {}]] as const) {
      const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(project.key), payload: { name, categoryId: 1, ...profile } })
      assert.equal(created.statusCode, 201, created.body)
      pets.push(created.json<{ id: number }>().id)
    }
    const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer()
    const photo = await t.request({ method: 'POST', url: `/v1/pets/${pets[0]}/photos`, headers: { ...bearer(project.key), 'content-type': 'image/jpeg' }, payload: image })
    assert.equal(photo.statusCode, 201, photo.body)
    const order = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(project.key), payload: { petId: pets[1] } })
    assert.equal(order.statusCode, 201, order.body)
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/domains`, { name: `shop.${project.slug}.test` })).statusCode, 201)
    assert.equal((await admin(t, 'PATCH', `/projects/${project.slug}/site`, { published: true, displayName: 'Export Rescue' })).statusCode, 200)
    const owner = await createUser(t, { role: 'owner', projects: [project.slug] })
    const session = await signIn(t, owner.email, owner.password)
    const { db } = t.database
    const stored = await db.selectFrom('webhook_endpoints').select('secret').where('id', '=', endpoint.id).executeTakeFirstOrThrow()
    const hashes = await db.selectFrom('api_keys').select('hash').where('project_id', '=', project.id).execute()
    const user = await db.selectFrom('users').select('password_hash').where('email', '=', owner.email).executeTakeFirstOrThrow()
    const sessions = await db.selectFrom('sessions').select(['id', 'csrf_token']).execute()
    const secrets = [
      project.key,
      second.secret,
      endpoint.secret,
      stored.secret,
      owner.password,
      user.password_hash,
      ADMIN_TOKEN,
      session.token,
      ...hashes.map((row) => row.hash),
      ...sessions.flatMap((row) => [row.id, row.csrf_token]),
    ]
    return { ...project, pets, owner, session, secrets, image }
  }

  async function exported(slug: string, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` }) {
    const response = await t.request({ method: 'GET', url: `/admin/v1/projects/${slug}/export`, headers })
    assert.equal(response.statusCode, 200, response.body)
    return response
  }

  test('answers a gzip-compressed tar archive of every kind of data, counted in its manifest, with the photos\' files', async () => {
    const project = await filled()
    await filled() // another project: nothing of it is in the archive
    const response = await exported(project.slug)
    assert.equal(response.headers['content-type'], 'application/gzip')
    assert.match(String(response.headers['content-disposition']), new RegExp(`^attachment; filename="${project.slug}-\\d{8}T\\d{6}Z\\.tar\\.gz"$`))
    const { files, order } = await untar(response.rawPayload)

    const photoRows = await t.database.db.selectFrom('pet_photos').select('variants').where('project_id', '=', project.id).execute()
    const photoKeys = photoRows.flatMap((row) => (JSON.parse(row.variants) as { key: string }[]).map((variant) => variant.key))
    assert.ok(photoKeys.length > 0)
    assert.deepEqual(order, ['project.json', ...JSONL, ...photoKeys.map((key) => `photos/${key}`), 'manifest.json'])

    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as { format: number; service: { name: string; version: string }; project: string; createdAt: string; counts: Record<string, number>; missingPhotoFiles: string[] }
    assert.equal(manifest.format, 1)
    assert.equal(manifest.service.name, 'adoption-store')
    assert.match(manifest.service.version, /^\d+\.\d+\.\d+$/)
    assert.equal(manifest.project, project.slug)
    assert.ok(Date.parse(manifest.createdAt) > 0)
    assert.deepEqual(manifest.missingPhotoFiles, [])
    const counts: Record<string, number> = Object.fromEntries(JSONL.map((name) => [name, lines(files, name).length]))
    assert.deepEqual(manifest.counts, { ...counts, photos: photoKeys.length })

    // Each count is the project's rows in the database.
    const { db } = t.database
    const count = async (table: 'pets' | 'categories' | 'locations' | 'orders' | 'pet_photos' | 'api_keys' | 'webhook_endpoints' | 'webhook_events' | 'webhook_deliveries' | 'domains' | 'user_projects' | 'audit_entries' | 'usage_minutes') =>
      Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', project.id).executeTakeFirstOrThrow()).n)
    const expected: Record<string, number> = {
      'animals.jsonl': await count('pets'),
      'categories.jsonl': await count('categories'),
      'locations.jsonl': await count('locations'),
      'orders.jsonl': await count('orders'),
      'photos.jsonl': await count('pet_photos'),
      'api-keys.jsonl': await count('api_keys'),
      'webhook-endpoints.jsonl': await count('webhook_endpoints'),
      'webhook-events.jsonl': await count('webhook_events'),
      'webhook-deliveries.jsonl': await count('webhook_deliveries'),
      'webhook-attempts.jsonl': 0,
      'domains.jsonl': await count('domains'),
      'members.jsonl': await count('user_projects'),
      // The export's own entry is recorded before the archive is read.
      'audit.jsonl': await count('audit_entries'),
      'usage.jsonl': await count('usage_minutes'),
    }
    assert.deepEqual(counts, expected)
    for (const name of ['animals.jsonl', 'categories.jsonl', 'locations.jsonl', 'orders.jsonl', 'photos.jsonl', 'api-keys.jsonl', 'webhook-endpoints.jsonl', 'webhook-events.jsonl', 'domains.jsonl', 'members.jsonl', 'audit.jsonl']) {
      assert.ok((counts[name] ?? 0) > 0, `the fixture has lines in ${name}`)
    }

    const projectJson = JSON.parse(files.get('project.json')!.toString('utf8')) as Record<string, unknown>
    assert.equal(projectJson.slug, project.slug)
    assert.equal(projectJson.plan, 'business')
    assert.deepEqual((projectJson.site as { displayName: string; published: boolean }).displayName, 'Export Rescue')
    const rex = lines(files, 'animals.jsonl').find((animal) => animal.name === 'Rex')
    assert.ok(rex)
    assert.equal((rex.profile as { description?: string }).description, 'A calm senior')
    assert.deepEqual(lines(files, 'webhook-endpoints.jsonl').map((endpoint) => endpoint.types), [['order.placed', 'pet.created']])
    assert.deepEqual(lines(files, 'members.jsonl').map((member) => member.email), [project.owner.email])
    assert.deepEqual(lines(files, 'categories.jsonl').map((category) => [category.id, category.name, category.breeds]), [[300, 'Guinea pig', ['Teddy']]])

    // The photos' files, byte for byte as the store holds them.
    const store = createObjectStore(t.config)
    try {
      for (const key of photoKeys) {
        const object = await store.get(key)
        assert.ok(object)
        const chunks: Buffer[] = []
        for await (const chunk of object.body) chunks.push(chunk as Buffer)
        assert.ok(files.get(`photos/${key}`)?.equals(Buffer.concat(chunks)), `photos/${key} holds the stored bytes`)
      }
    } finally {
      await store.close()
    }
    const [photoLine] = lines(files, 'photos.jsonl')
    assert.deepEqual((photoLine?.files as { path: string }[]).map((file) => file.path).sort(), photoKeys.map((key) => `photos/${key}`).sort())

    // Recorded: who exported which project.
    const entries = await db.selectFrom('audit_entries').select(['action', 'target_id', 'actor_name']).where('project_id', '=', project.id).where('action', '=', 'project.exported').execute()
    assert.deepEqual(entries, [{ action: 'project.exported', target_id: project.slug, actor_name: 'ADMIN_TOKEN' }])
  })

  test('holds no secret: every byte is searched for the secrets made and the secret columns\' names', async () => {
    const project = await filled()
    const { raw, files } = await untar((await exported(project.slug)).rawPayload)
    const text = raw.toString('latin1')
    assert.ok(project.secrets.length >= 10)
    for (const secret of project.secrets) assert.ok(secret.length >= 16 && !text.includes(secret), `the archive holds no secret (${secret.slice(0, 6)}…)`)
    for (const name of SECRET_NAMES) assert.ok(!text.includes(name), `the archive names no secret column (${name})`)
    for (const key of lines(files, 'api-keys.jsonl')) assert.deepEqual(Object.keys(key).filter((field) => /hash|secret/i.test(field)), [])
  })

  test('a project with nothing in it exports fine', async () => {
    const created = await admin(t, 'POST', '/projects', { slug: `empty-${process.pid}`, plan: 'free' })
    assert.equal(created.statusCode, 201, created.body)
    const { files, order } = await untar((await exported(`empty-${process.pid}`)).rawPayload)
    assert.deepEqual(order, ['project.json', ...JSONL, 'manifest.json'])
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as { counts: Record<string, number> }
    // Its audit entries: its creation, and the export itself (recorded before the archive is read).
    assert.deepEqual(manifest.counts, { ...Object.fromEntries(JSONL.map((name) => [name, 0])), 'audit.jsonl': 2, photos: 0 })
  })

  test('404 for an unknown project and for an owner of another project; 403 for a viewer; owners of the project may', async () => {
    const missing = await admin(t, 'GET', '/projects/no-such-project/export')
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json<{ code: string }>().code, 'not_found')
    const mine = await filled()
    const theirs = await filled()
    const other = await asUser(t, mine.session, 'GET', `/projects/${theirs.slug}/export`)
    assert.equal(other.statusCode, 404, other.body)
    assert.equal(other.json<{ code: string }>().code, 'not_found')
    const own = await asUser(t, mine.session, 'GET', `/projects/${mine.slug}/export`)
    assert.equal(own.statusCode, 200)
    assert.equal((await untar(own.rawPayload)).files.has('manifest.json'), true)
    const viewer = await createUser(t, { role: 'viewer', projects: [mine.slug] })
    const refused = await asUser(t, await signIn(t, viewer.email, viewer.password), 'GET', `/projects/${mine.slug}/export`)
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json<{ code: string }>().code, 'forbidden')
    assert.match(refused.json<{ message: string }>().message, /viewer/)
  })

  test('a reader that goes away mid-archive stops the export: its temporary files are removed, and the service exports whole again', async () => {
    const project = await projectWithPhoto(t)
    // One photo file made bigger than every socket buffer between the service and a reader: the
    // archive cannot be sent whole while its reader reads nothing.
    const name = [...(await untar((await exported(project.slug)).rawPayload)).files.keys()].find((file) => file.startsWith('photos/'))
    assert.ok(name)
    const big = randomBytes(48 * 1024 * 1024)
    const store = createObjectStore(t.config)
    try {
      await store.put(name.slice('photos/'.length), big, 'image/webp')
    } finally {
      await store.close()
    }

    // The service's temporary files go to a directory of this test's own (os.tmpdir() reads TMPDIR).
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-reader-gone-'))
    const tmpdir = process.env.TMPDIR
    process.env.TMPDIR = temp
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = t.app.server.address() as AddressInfo
      const request = http.get({ host: '127.0.0.1', port, path: `/admin/v1/projects/${project.slug}/export`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      const response = await once(request, 'response').then(([answer]) => answer as http.IncomingMessage)
      assert.equal(response.statusCode, 200)
      // The archive is being made (its files spooled under TMPDIR); its reader reads no more, then goes away.
      response.pause()
      await eventually('the export spools its files', () => fs.readdirSync(temp).length > 0, { timeoutMs: 15_000 })
      request.destroy()
      await eventually('the export stops and removes its temporary files', () => fs.readdirSync(temp).length === 0, { timeoutMs: 15_000 })
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR
      else process.env.TMPDIR = tmpdir
    }
    assert.deepEqual(fs.readdirSync(temp), [])
    fs.rmdirSync(temp)

    const { files } = await untar((await exported(project.slug)).rawPayload)
    assert.ok(files.get(name)?.equals(big), 'the next export holds the whole file')
  })
})

describe('exporting a project whose photos are in an S3 bucket', () => {
  test("the archive holds the photos' files as the bucket holds them", async () => {
    const s3 = await startTestS3()
    const t = await createWebhooksApp({ ...s3.config }, { granted: false })
    try {
      const project = await projectWithPhoto(t)
      const response = await admin(t, 'GET', `/projects/${project.slug}/export`)
      assert.equal(response.statusCode, 200)
      const { files } = await untar(response.rawPayload)
      const store = createObjectStore(t.config)
      assert.equal(store.kind, 's3')
      try {
        const paths = [...files.keys()].filter((name) => name.startsWith('photos/'))
        assert.ok(paths.length > 0)
        for (const name of paths) {
          const object = await store.get(name.slice('photos/'.length))
          assert.ok(object)
          const chunks: Buffer[] = []
          for await (const chunk of object.body) chunks.push(chunk as Buffer)
          assert.ok(files.get(name)?.equals(Buffer.concat(chunks)), `${name} holds the bucket's bytes`)
        }
        assert.equal((JSON.parse(files.get('manifest.json')!.toString('utf8')) as { counts: { photos: number } }).counts.photos, paths.length)
      } finally {
        await store.close()
      }
    } finally {
      await t.close()
      await s3.close()
    }
  })
})

describe('projects export (the command)', () => {
  let dataDir: string
  before(async () => {
    dataDir = makeDataDir()
    assert.equal((await runCli(['projects', 'create', 'shelter'], { dataDir })).code, 0)
    fs.writeFileSync(path.join(dataDir, 'pets.csv'), 'name,categoryId,status\nRex,1,available\nTom,2,available\n')
    assert.equal((await runCli(['pets', 'import', '--project', 'shelter', '--file', path.join(dataDir, 'pets.csv')], { dataDir })).code, 0)
  })
  after(cleanup)

  test('writes the archive to --out, which untars to the project\'s data', async () => {
    const out = path.join(dataDir, 'shelter.tar.gz')
    const result = await runCli(['projects', 'export', 'shelter', '--out', out], { dataDir })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stderr, /Exported project shelter to /)
    const { files } = await untar(fs.readFileSync(out))
    // The archive lists animals by id; the import's two rows may take their ids in either order.
    assert.deepEqual(lines(files, 'animals.jsonl').map((animal) => animal.name).sort(), ['Rex', 'Tom'])
    assert.equal(JSON.parse(files.get('project.json')!.toString('utf8')).slug, 'shelter')
    assert.deepEqual(fs.readdirSync(dataDir).filter((name) => name.includes('.partial-')), [], 'no partial file is left')
  })

  test('an unknown project is an error naming it, and writes nothing', async () => {
    const out = path.join(dataDir, 'none.tar.gz')
    const result = await runCli(['projects', 'export', 'nowhere', '--out', out], { dataDir })
    assert.equal(result.code, 1)
    assert.match(result.stderr, /No project with slug "nowhere"/)
    assert.equal(fs.existsSync(out), false)
  })
})
