import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { after, afterEach, before, describe, test } from 'node:test'
import sharp from 'sharp'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { SQLITE_FILE } from '../src/db/database.js'
import { DISPLAY_LENGTH, hashApiKey, RANDOM_LENGTH } from '../src/auth/api-key.js'
import { signIn, createUser } from './helpers/accounts.js'
import { ADMIN_TOKEN, admin } from './helpers/admin.js'
import { bearer, createTestApp, type TestApp, type TestAppOptions } from './helpers/app.js'
import { createDomainsApp, verifiedApexAndWww } from './helpers/domains.js'
import { type ChallTestSrv, pebbleMissing, startChallTestSrv, stopAll } from './helpers/pebble.js'
import { captureLogs } from './helpers/logs.js'
import { cleanup, runCli } from './helpers/process.js'
import { eventually } from './helpers/wait.js'

/**
 * Security properties that hold across routes, by the OWASP API Security Top 10 (2023). What the
 * other suites already prove (authentication of every operation in auth.test.ts, the admin
 * authorization matrix, sessions and CSRF in accounts.test.ts, limits, the dashboard's headers in
 * dashboard-static.test.ts) is not repeated here; SECURITY.md maps every item to its tests.
 */

const apps: TestApp[] = []

async function app(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await createTestApp({ ...options, config: { adminToken: ADMIN_TOKEN, ...options.config } })
  apps.push(t)
  return t
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((t) => t.close()))
})
after(cleanup)

function assertError(response: LightMyRequestResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  const body = response.json<{ code: string; message: string }>()
  assert.equal(body.code, code, response.body)
  if (message) assert.match(body.message, message)
}

async function countRows(t: TestApp, table: 'pets' | 'orders' | 'api_keys'): Promise<number> {
  const row = await t.database.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

// --- The protected operations of the public document, each with a request that succeeds ---

interface Objects {
  /** An animal to read. */
  petId: number
  /** An available animal, to order. */
  availablePetId: number
  /** An animal without orders, to remove. */
  removablePetId: number
  /** A placed order (read, then approved). */
  placedOrderId: number
  /** An approved order, to deliver. */
  approvedOrderId: number
  /** A placed order, to cancel. */
  cancellableOrderId: number
  /** A pet with two photos, to list and order. */
  photoPetId: number
  photoIds: [string, string]
  /** A photo of `petId`, to remove. */
  removablePhotoId: string
}

/** The smallest photo: what uploads send. */
const TINY_PNG = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#808080' } }).png().toBuffer()

const FIXTURES: Record<string, (o: Objects) => { method: InjectOptions['method']; url: string; payload?: object | Buffer; type?: string }> = {
  listPets: () => ({ method: 'GET', url: '/v1/pets' }),
  createPet: () => ({ method: 'POST', url: '/v1/pets', payload: { name: 'Rex', categoryId: 1 } }),
  getPet: (o) => ({ method: 'GET', url: `/v1/pets/${o.petId}` }),
  updatePet: (o) => ({ method: 'PATCH', url: `/v1/pets/${o.petId}`, payload: { name: 'Renamed' } }),
  deletePet: (o) => ({ method: 'DELETE', url: `/v1/pets/${o.removablePetId}` }),
  uploadPetPhoto: (o) => ({ method: 'POST', url: `/v1/pets/${o.availablePetId}/photos`, payload: TINY_PNG, type: 'image/png' }),
  listPetPhotos: (o) => ({ method: 'GET', url: `/v1/pets/${o.photoPetId}/photos` }),
  orderPetPhotos: (o) => ({ method: 'PUT', url: `/v1/pets/${o.photoPetId}/photos/order`, payload: { ids: [o.photoIds[1], o.photoIds[0]] } }),
  deletePetPhoto: (o) => ({ method: 'DELETE', url: `/v1/pets/${o.petId}/photos/${o.removablePhotoId}` }),
  listPetChanges: () => ({ method: 'GET', url: '/v1/pets/changes' }),
  listCategories: () => ({ method: 'GET', url: '/v1/categories' }),
  listBreeds: () => ({ method: 'GET', url: '/v1/categories/1/breeds' }),
  listLocations: () => ({ method: 'GET', url: '/v1/locations' }),
  listOrders: () => ({ method: 'GET', url: '/v1/store/orders' }),
  placeOrder: (o) => ({ method: 'POST', url: '/v1/store/orders', payload: { petId: o.availablePetId } }),
  getOrder: (o) => ({ method: 'GET', url: `/v1/store/orders/${o.placedOrderId}` }),
  approveOrder: (o) => ({ method: 'POST', url: `/v1/store/orders/${o.placedOrderId}/approve` }),
  deliverOrder: (o) => ({ method: 'POST', url: `/v1/store/orders/${o.approvedOrderId}/deliver` }),
  cancelOrder: (o) => ({ method: 'POST', url: `/v1/store/orders/${o.cancellableOrderId}/cancel` }),
}

/** The operationIds of the public document that need a key; every one must have a fixture. */
function protectedOperations(t: TestApp): string[] {
  const doc = t.app.swagger() as unknown as { paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>> }
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).filter((op) => op.security?.length).map((op) => String(op.operationId)))
  assert.ok(ids.length >= 9)
  for (const id of ids) assert.ok(FIXTURES[id], `no fixture for ${id}: add one to FIXTURES in test/security.test.ts`)
  return ids
}

/** Objects in the states the fixtures need, made through the API with `key`. */
async function makeObjects(t: TestApp, key: string): Promise<Objects> {
  const create = async (url: string, payload?: object) => {
    const response = await t.request({ method: 'POST', url, headers: bearer(key), ...(payload && { payload }) })
    assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body)
    return response.json<{ id: number }>().id
  }
  const pets = [] as number[]
  for (let i = 0; i < 6; i++) pets.push(await create('/v1/pets', { name: `Pet ${i}`, categoryId: 1 }))
  const [petId, availablePetId, a, b, c, removablePetId] = pets as [number, number, number, number, number, number]
  const placedOrderId = await create('/v1/store/orders', { petId: a })
  const approvedOrderId = await create('/v1/store/orders', { petId: b })
  await create(`/v1/store/orders/${approvedOrderId}/approve`)
  const cancellableOrderId = await create('/v1/store/orders', { petId: c })
  const photo = async (pet: number) => {
    const response = await t.request({ method: 'POST', url: `/v1/pets/${pet}/photos`, headers: { ...bearer(key), 'content-type': 'image/png' }, payload: TINY_PNG })
    assert.equal(response.statusCode, 201, response.body)
    return response.json<{ id: string }>().id
  }
  const photoPetId = await create('/v1/pets', { name: 'Pix', categoryId: 1 })
  const photoIds: [string, string] = [await photo(photoPetId), await photo(photoPetId)]
  const removablePhotoId = await photo(petId)
  return { petId, availablePetId, removablePetId, placedOrderId, approvedOrderId, cancellableOrderId, photoPetId, photoIds, removablePhotoId }
}

function call(t: TestApp, operationId: string, objects: Objects, headers: Record<string, string>, extra: Partial<InjectOptions> = {}): Promise<LightMyRequestResponse> {
  const fixture = FIXTURES[operationId]!(objects)
  return t.request({ method: fixture.method, url: fixture.url, headers: fixture.type ? { ...headers, 'content-type': fixture.type } : headers, ...(fixture.payload && { payload: fixture.payload }), ...extra })
}

/** A different client address per request, so per-address limits never get in the way. */
let addresses = 0
const nextAddress = () => `10.77.${(++addresses >> 8) & 255}.${addresses & 255}`

async function enterprise(t: TestApp) {
  return t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
}

describe('API2 broken authentication: credentials only in the Authorization header', () => {
  test('a valid API key in the query string (?api_key=, ?key=, ?access_token=, ?apikey=, ?token=) is 401 on every operation', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const objects = await makeObjects(t, owner.key)
    const pets = await countRows(t, 'pets')
    for (const operationId of protectedOperations(t)) {
      for (const parameter of ['api_key', 'key', 'access_token', 'apikey', 'token']) {
        const fixture = FIXTURES[operationId]!(objects)
        const response = await call(t, operationId, objects, {}, { url: `${fixture.url}?${parameter}=${owner.key}`, remoteAddress: nextAddress() })
        assertError(response, 401, 'unauthorized', /^Missing API key/)
        assert.ok(!response.body.includes(owner.key), 'the key is not echoed')
      }
    }
    assert.equal(await countRows(t, 'pets'), pets, 'nothing was created')
  })

  test('the admin token in the query string is 401 too', async () => {
    const t = await app()
    for (const parameter of ['token', 'access_token', 'api_key', 'admin_token']) {
      const response = await t.request({ method: 'GET', url: `/admin/v1/projects?${parameter}=${ADMIN_TOKEN}` })
      assertError(response, 401, 'unauthorized', /Not signed in/)
    }
  })

  test('an API key is not an admin credential, and the admin token is not an API key', async () => {
    const t = await app()
    const owner = await enterprise(t)
    assertError(await t.request({ method: 'GET', url: '/admin/v1/projects', headers: bearer(owner.key) }), 401, 'unauthorized', /not the configured ADMIN_TOKEN/)
    assertError(await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(ADMIN_TOKEN) }), 401, 'unauthorized', /malformed/)
  })
})

describe('API2 revocation applies everywhere', () => {
  test('a revoked key fails on every operation, on every instance, from the next request; other keys keep working', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const created = await admin(t, 'POST', `/projects/${owner.slug}/keys`, { name: 'to revoke' })
    assert.equal(created.statusCode, 201, created.body)
    const { id, key } = created.json<{ id: string; key: string }>()
    const operations = protectedOperations(t)

    // It works everywhere first, so that it is the revocation that is refused.
    const before = await makeObjects(t, key)
    for (const operationId of operations) {
      const response = await call(t, operationId, before, bearer(key))
      assert.ok(response.statusCode < 300, `${operationId} with the key before revocation: ${response.body}`)
    }
    const sibling = await t.sibling()
    try {
      assert.equal((await sibling.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).statusCode, 200)

      const revoked = await admin(t, 'DELETE', `/projects/${owner.slug}/keys/${id}`)
      assert.equal(revoked.statusCode, 200, revoked.body)
      const objects = await makeObjects(t, owner.key)
      const pets = await countRows(t, 'pets')
      for (const instance of [t, sibling]) {
        for (const operationId of operations) {
          const response = await call(instance, operationId, objects, bearer(key))
          assertError(response, 401, 'unauthorized', /^The API key was revoked at /)
          assert.equal(response.headers['www-authenticate'], 'Bearer realm="adoption-store", error="invalid_token"')
        }
      }
      assert.equal(await countRows(t, 'pets'), pets, 'nothing ran with the revoked key')
      // The project's other key is untouched.
      for (const operationId of operations) assert.ok((await call(t, operationId, objects, bearer(owner.key))).statusCode < 300, operationId)
    } finally {
      await sibling.app.close()
    }
  })

  test('a key revoked by the CLI, another process, is refused by the running service at once', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const key = await t.key(owner.slug)
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key.secret) })).statusCode, 200)
    const revoked = await runCli(['keys', 'revoke', key.id], { dataDir: t.config.dataDir, env: { DATABASE_URL: t.config.databaseUrl } })
    assert.equal(revoked.code, 0, revoked.stderr)
    assertError(await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key.secret) }), 401, 'unauthorized', /revoked/)
  })
})

describe('API1 broken object level authorization', () => {
  test("every operation on another project's object is 404, as for none, and changes nothing", async () => {
    const t = await app()
    const victim = await enterprise(t)
    const attacker = await enterprise(t)
    const objects = await makeObjects(t, victim.key)
    const state = async () => ({
      pets: await t.database.db.selectFrom('pets').select(['id', 'status', 'name']).orderBy('id').execute(),
      orders: await t.database.db.selectFrom('orders').select(['id', 'status']).orderBy('id').execute(),
    })
    const before = await state()
    for (const operationId of ['getPet', 'updatePet', 'deletePet', 'getOrder', 'approveOrder', 'deliverOrder', 'cancelOrder', 'placeOrder']) {
      const response = await call(t, operationId, objects, bearer(attacker.key))
      assertError(response, 404, 'not_found')
      assert.ok(!response.body.includes(victim.slug), 'the other project is not named')
    }
    for (const url of ['/v1/pets', '/v1/store/orders']) {
      assert.deepEqual((await t.request({ method: 'GET', url, headers: bearer(attacker.key) })).json(), [], `${url} lists only the caller's own`)
    }
    assert.deepEqual(await state(), before)
  })
})

describe('API3 broken object property level authorization', () => {
  test('server-owned fields are never client-settable: 400 naming the field, and nothing is created', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const pet = { name: 'Rex', categoryId: 1 }
    for (const field of ['id', 'createdAt', 'projectId', 'project_id', 'project', 'ownerId']) {
      const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: { ...pet, [field]: 7 } })
      assertError(response, 400, 'invalid_request', new RegExp(`^Unknown field "${field}"`))
    }
    assert.equal(await countRows(t, 'pets'), 0)

    const available = (await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: pet })).json<{ id: number }>().id
    for (const [field, value] of [['id', 7], ['status', 'delivered'], ['complete', true], ['createdAt', '2020-01-01T00:00:00.000Z'], ['projectId', 1]] as const) {
      const response = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId: available, [field]: value } })
      assertError(response, 400, 'invalid_request', new RegExp(`^Unknown field "${field}"`))
    }
    assert.equal(await countRows(t, 'orders'), 0)
    const still = await t.request({ method: 'GET', url: `/v1/pets/${available}`, headers: bearer(owner.key) })
    assert.equal(still.json<{ status: string }>().status, 'available')

    for (const field of ['key', 'hash', 'prefix', 'id', 'createdAt', 'revokedAt', 'lastUsedAt', 'project']) {
      const response = await admin(t, 'POST', `/projects/${owner.slug}/keys`, { name: 'x', [field]: 'as_live_chosen' })
      assertError(response, 400, 'invalid_request', new RegExp(`^Unknown field "${field}"`))
    }
    for (const field of ['createdAt', 'address', 'limits', 'id']) {
      const response = await admin(t, 'POST', '/projects', { slug: 'chosen', plan: 'free', [field]: 'x' })
      assertError(response, 400, 'invalid_request', new RegExp(`^Unknown field "${field}"`))
    }
  })

  test('answers expose no server-side fields: no project, hash or secret beyond the documented shapes', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const objects = await makeObjects(t, owner.key)
    const pet = await t.request({ method: 'GET', url: `/v1/pets/${objects.availablePetId}`, headers: bearer(owner.key) })
    assert.deepEqual(Object.keys(pet.json()).sort(), ['categoryId', 'id', 'name', 'status'])
    // A photo: no storage key, hash or project, only its size and addresses.
    const pictured = await t.request({ method: 'GET', url: `/v1/pets/${objects.petId}`, headers: bearer(owner.key) })
    const [photo] = pictured.json<{ photos: { variants: { webp: object[] } }[] }>().photos
    assert.deepEqual(Object.keys(photo!).sort(), ['height', 'id', 'variants', 'width'])
    assert.deepEqual(Object.keys(photo!.variants.webp[0]!).sort(), ['height', 'url', 'width'])
    const order = await t.request({ method: 'GET', url: `/v1/store/orders/${objects.placedOrderId}`, headers: bearer(owner.key) })
    assert.deepEqual(Object.keys(order.json()).sort(), ['complete', 'createdAt', 'id', 'petId', 'status'])
    const keys = await admin(t, 'GET', `/projects/${owner.slug}/keys`)
    for (const listed of keys.json<Record<string, unknown>[]>()) {
      assert.deepEqual(Object.keys(listed).sort(), ['allowedOrigins', 'bannedUntil', 'createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'publishable', 'revokedAt', 'scopes'])
    }
  })
})

describe('secrets: shown once, never stored, logged or answered again', () => {
  test('a key is in its creation answer and nowhere else: not in the database files, the logs, or any later answer; only its prefix is', async () => {
    const logs = captureLogs()
    const t = await app({ logger: logs.logger })
    const owner = await enterprise(t)

    const secrets: { secret: string; id: string }[] = []
    const viaApi = await admin(t, 'POST', `/projects/${owner.slug}/keys`, { name: 'admin api' })
    assert.equal(viaApi.statusCode, 201, viaApi.body)
    secrets.push({ secret: viaApi.json<{ key: string }>().key, id: viaApi.json<{ id: string }>().id })
    const viaCli = await runCli(['keys', 'create', '--project', owner.slug, '--name', 'cli', '--json'], { dataDir: t.config.dataDir, env: { DATABASE_URL: t.config.databaseUrl } })
    assert.equal(viaCli.code, 0, viaCli.stderr)
    secrets.push({ secret: JSON.parse(viaCli.stdout).key as string, id: JSON.parse(viaCli.stdout).id as string })
    secrets.push({ secret: owner.key, id: '' })

    // Traffic with every key: successes, errors, a key in the query string, a mistyped key.
    const later: LightMyRequestResponse[] = []
    const send = async (options: InjectOptions) => {
      const response = await t.request({ remoteAddress: nextAddress(), ...options })
      later.push(response)
      return response
    }
    for (const { secret } of secrets) {
      const created = await send({ method: 'POST', url: '/v1/pets', headers: { ...bearer(secret), 'idempotency-key': `k-${secret.slice(8, 12)}` }, payload: { name: 'Rex', categoryId: 1 } })
      assert.equal(created.statusCode, 201, created.body)
      await send({ method: 'POST', url: '/v1/store/orders', headers: bearer(secret), payload: { petId: created.json<{ id: number }>().id } })
      await send({ method: 'GET', url: '/v1/pets?limit=5', headers: bearer(secret) })
      await send({ method: 'GET', url: `/v1/pets?api_key=${secret}`, headers: bearer(secret) })
      await send({ method: 'GET', url: `/v1/pets?api_key=${secret}` })
      await send({ method: 'GET', url: '/v1/pets', headers: bearer(`${secret.slice(0, -1)}x`) })
      // A client's own mistakes that quote the key: a message quoting the request cuts it to its prefix.
      for (const payload of [`{"name": "${secret}"`, `{"name": ${secret}}`, secret]) {
        await send({ method: 'POST', url: '/v1/pets', headers: { ...bearer(secret), 'content-type': 'application/json' }, payload })
      }
      const misplaced = await send({ method: 'GET', url: `/v1/nowhere/${secret}`, headers: bearer(secret) })
      assert.match(misplaced.json<{ message: string }>().message, new RegExp(`^No route GET /v1/nowhere/${secret.slice(0, DISPLAY_LENGTH)}…\\.`))
    }
    const revoked = secrets[1]!
    assert.equal((await send({ method: 'DELETE', url: `/admin/v1/projects/${owner.slug}/keys/${revoked.id}`, headers: bearer(ADMIN_TOKEN) })).statusCode, 200)
    assert.equal((await send({ method: 'GET', url: '/v1/pets', headers: bearer(revoked.secret) })).statusCode, 401)
    const listed = await send({ method: 'GET', url: `/admin/v1/projects/${owner.slug}/keys`, headers: bearer(ADMIN_TOKEN) })
    for (const url of [`/admin/v1/projects/${owner.slug}`, `/admin/v1/projects/${owner.slug}/usage?range=hour`, '/admin/v1/projects', '/admin/v1/openapi.json']) {
      assert.equal((await send({ method: 'GET', url, headers: bearer(ADMIN_TOKEN) })).statusCode, 200, url)
    }
    for (const url of ['/metrics', '/v1/openapi.json', '/healthz', '/readyz']) assert.equal((await send({ method: 'GET', url })).statusCode, 200, url)
    const cliList = await runCli(['keys', 'list', '--project', owner.slug, '--json'], { dataDir: t.config.dataDir, env: { DATABASE_URL: t.config.databaseUrl } })
    assert.equal(cliList.code, 0, cliList.stderr)
    // The last use of each key is written in the background: wait for all three.
    const lastUsed = () => t.database.db.selectFrom('api_keys').select('id').where('last_used_at', 'is not', null).execute()
    await eventually('the last use of every key is stored', async () => (await lastUsed()).length === secrets.length)

    const answers = later.map((response) => `${response.statusCode} ${JSON.stringify(response.headers)} ${response.body}`).join('\n')
    const files =
      t.database.dialect === 'sqlite'
        ? fs
            .readdirSync(t.config.dataDir)
            .filter((name) => name.startsWith(SQLITE_FILE))
            .map((name) => ({ name, bytes: fs.readFileSync(path.join(t.config.dataDir, name)).toString('latin1') }))
        : []
    if (t.database.dialect === 'sqlite') assert.ok(files.some((file) => file.name.endsWith('-wal')), 'the write-ahead log is read too')
    assert.ok(logs.lines().some((line) => line.msg === 'request completed'), 'the requests were logged')

    for (const { secret } of secrets) {
      // The characters never shown: the random part after the displayed prefix. Any 8 of them in a
      // row (47 bits) would be a leak.
      const hidden = secret.slice(DISPLAY_LENGTH, 'as_live_'.length + RANDOM_LENGTH)
      const pieces = Array.from({ length: hidden.length - 7 }, (_, i) => hidden.slice(i, i + 8))
      const places: [string, string][] = [
        ['the logs', logs.text],
        ['a later answer', answers],
        ['keys list --json', cliList.stdout + cliList.stderr],
        ...files.map(({ name, bytes }): [string, string] => [name, bytes]),
      ]
      for (const [where, text] of places) {
        for (const piece of pieces) assert.ok(!text.includes(piece), `${where} holds part of the secret ${secret} (${piece})`)
      }
      // Its hash identifies the key: kept in the database, shown nowhere.
      for (const [where, text] of places.slice(0, 3)) assert.ok(!text.includes(hashApiKey(secret)), `${where} holds the hash of ${secret}`)
      // What may be shown is the prefix, to recognise the key.
      assert.ok(listed.body.includes(`"prefix":"${secret.slice(0, DISPLAY_LENGTH)}"`), 'the list shows the prefix')
    }
  })

  test('every answer that carries a secret says Cache-Control: no-store: key creation, sign-in, the session, sign-out', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const user = await createUser(t, { role: 'operator' })
    const noStore = (response: LightMyRequestResponse, what: string) => assert.equal(response.headers['cache-control'], 'no-store', `${what}: ${response.statusCode}`)

    const byToken = await admin(t, 'POST', `/projects/${owner.slug}/keys`, { name: 'bearer' })
    assert.equal(byToken.statusCode, 201)
    noStore(byToken, 'createApiKey with the admin token')

    const signedIn = await t.request({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: { email: user.email, password: user.password }, remoteAddress: nextAddress() })
    assert.equal(signedIn.statusCode, 200)
    noStore(signedIn, 'signIn (the cookie and the CSRF token)')
    const session = await signIn(t, user.email, user.password)
    const byCookie = await t.request({ method: 'POST', url: `/admin/v1/projects/${owner.slug}/keys`, headers: { ...session.headers, 'content-type': 'application/json' }, payload: { name: 'cookie' } })
    assert.equal(byCookie.statusCode, 201, byCookie.body)
    noStore(byCookie, 'createApiKey with the session cookie')
    noStore(await t.request({ method: 'GET', url: '/admin/v1/session', headers: session.headers }), 'getSession (the CSRF token)')
    noStore(await t.request({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: { email: user.email, password: 'wrong password!' }, remoteAddress: nextAddress() }), 'a refused sign-in')
    noStore(await t.request({ method: 'DELETE', url: '/admin/v1/session', headers: session.headers }), 'signOut')
  })
})

describe('CR, LF and control characters never reach a header or a log line', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

  test('an X-Request-Id with CR/LF or control characters is replaced, never echoed', async () => {
    const logs = captureLogs()
    const t = await app({ logger: logs.logger })
    for (const id of ['abc\r\nSet-Cookie: stolen=1', 'abc\nx', 'abc\rx', 'a\u0000b', 'a\u001b[31mred', 'a\u2028b', 'a\u0085b']) {
      for (const url of ['/healthz', '/v1/pets', '/nowhere']) {
        const response = await t.request({ method: 'GET', url, headers: { 'x-request-id': id } })
        assert.match(String(response.headers['x-request-id']), UUID, JSON.stringify(id))
        assert.equal(response.headers['set-cookie'], undefined)
        assert.ok(!response.body.includes(id))
      }
    }
    const lines = logs.lines()
    assert.ok(lines.length > 0)
    for (const line of lines) if (line.reqId !== undefined) assert.match(String(line.reqId), UUID)
  })

  test('over the wire, a header value with a bare CR is refused (400 envelope) and one with a bare LF cannot add a response header', async () => {
    const t = await app()
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as net.AddressInfo
    const exchange = (request: string) =>
      new Promise<string>((resolve) => {
        let received = ''
        const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write(request, 'latin1'))
        socket.setEncoding('latin1')
        socket.on('data', (chunk: string) => (received += chunk))
        socket.on('error', () => undefined)
        socket.on('close', () => resolve(received))
        socket.setTimeout(10_000, () => socket.destroy())
      })
    const cr = await exchange('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: abc\rSet-Cookie: stolen=1\r\nConnection: close\r\n\r\n')
    assert.match(cr, /^HTTP\/1\.1 400 /)
    assert.match(cr, /"code":"invalid_request"/)
    const lf = await exchange('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: abc\nSet-Cookie: stolen=1\r\nConnection: close\r\n\r\n')
    const head = lf.slice(0, lf.indexOf('\r\n\r\n'))
    assert.match(head, /^HTTP\/1\.1 (200|400) /)
    assert.doesNotMatch(head, /set-cookie/i)
    const id = /\r\nx-request-id: ([^\r\n]*)/i.exec(head)?.[1]
    if (id !== undefined) assert.match(id, UUID)
  })

  test('names with CR, LF or other control characters are refused; line separators are stored and answered as JSON', async () => {
    const logs = captureLogs()
    const t = await app({ logger: logs.logger })
    const owner = await enterprise(t)
    for (const name of ['Rex\r\nSet-Cookie: stolen=1', 'Rex\nx', 'Rex\u0000', 'Rex\u001b[2J', 'Rex\u007f', 'Rex\u0085', 'Rex\u009b31m']) {
      const pet = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: { name, categoryId: 1 } })
      assertError(pet, 400, 'invalid_request', /^Body field "name" has an invalid format\.$/)
      const key = await admin(t, 'POST', `/projects/${owner.slug}/keys`, { name })
      assertError(key, 400, 'invalid_request', /without control characters|must not contain the NUL character/)
    }
    assert.equal(await countRows(t, 'pets'), 0)

    // Not control characters: accepted, kept as sent, and answered as JSON on one line.
    const name = 'Rex\u2028the\u2029dog \u202eevil'
    const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: { name, categoryId: 1 } })
    assert.equal(created.statusCode, 201, created.body)
    const listed = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
    assert.equal(listed.json<{ name: string }[]>()[0]?.name, name)
    for (const response of [created, listed]) {
      assert.ok(!/[\r\n]/.test(response.body), 'the JSON answer is one line')
      assert.ok(!JSON.stringify(response.headers).includes('\\u2028'), 'the name is in no header')
    }
    assert.ok(!logs.text.includes('Rex'), 'names are not logged')
    logs.lines()
  })

  test('input echoed in error messages is JSON-escaped in the body and in the logs, and reaches no header', async () => {
    const logs = captureLogs()
    const t = await app({ logger: logs.logger })
    const owner = await enterprise(t)
    const requests: InjectOptions[] = [
      { method: 'GET', url: '/admin/v1/projects/a%0D%0ASet-Cookie:%20stolen=1', headers: bearer(ADMIN_TOKEN) },
      { method: 'GET', url: '/v1/nowhere%0D%0ASet-Cookie:%20stolen=1', headers: bearer(owner.key) },
      { method: 'GET', url: '/v1/pets/1%0D%0ASet-Cookie:%20stolen=1', headers: bearer(owner.key) },
      { method: 'GET', url: '/v1/pets?status=sold%0D%0ASet-Cookie:%20stolen=1', headers: bearer(owner.key) },
      { method: 'POST', url: '/admin/v1/projects', headers: bearer(ADMIN_TOKEN), payload: { slug: 'a\r\nSet-Cookie: stolen=1', plan: 'free' } },
    ]
    for (const request of requests) {
      const response = await t.request(request)
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, `${String(request.url)}: ${response.statusCode}`)
      assert.equal(response.headers['set-cookie'], undefined, String(request.url))
      assert.ok(!/[\r\n]/.test(response.body), `${String(request.url)}: a raw CR or LF in the body: ${response.body}`)
      for (const [name, value] of Object.entries(response.headers)) assert.ok(!/[\r\n]/.test(String(value)), `${name} carries CR or LF`)
    }
    const project = await t.request(requests[0]!)
    assert.match(project.json<{ message: string }>().message, /^No project with slug "a\r\nSet-Cookie: stolen=1"\.$/, 'the decoded slug is in the message, escaped by JSON')
    const lines = logs.lines()
    assert.ok(lines.length >= requests.length)
  })

  test('a Location built from input is a plain path: slugs are checked before they name a project', async () => {
    const t = await app()
    for (const slug of ['a\r\nb', '../x', 'a/b', 'https://evil.example', 'A', '-a']) {
      const response = await admin(t, 'POST', '/projects', { slug, plan: 'free' })
      assertError(response, 400, 'invalid_request')
      assert.equal(response.headers.location, undefined)
    }
    const created = await admin(t, 'POST', '/projects', { slug: 'shelter-1', plan: 'free' })
    assert.equal(created.statusCode, 201)
    assert.equal(created.headers.location, '/admin/v1/projects/shelter-1')
  })
})

describe('a redirect Location built from the request', { skip: pebbleMissing }, () => {
  let dns: ChallTestSrv
  before(async () => {
    dns = await startChallTestSrv()
  })
  after(stopAll)

  test('keeps the configured target: X-Forwarded-Proto gives http or https only, and the request target only a path', async () => {
    const t = await createDomainsApp(dns, { trustProxy: true })
    apps.push(t)
    const { project, apex, www } = await verifiedApexAndWww(t, dns)
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/domains/redirects`, { from: www, to: apex })).statusCode, 200)

    const cases: [Record<string, string>, string, string][] = [
      [{}, '/v1/pets?limit=5', `http://${apex}/v1/pets?limit=5`],
      [{ 'x-forwarded-proto': 'https' }, '/v1/pets', `https://${apex}/v1/pets`],
      [{ 'x-forwarded-proto': 'javascript' }, '/v1/pets', `http://${apex}/v1/pets`],
      [{ 'x-forwarded-proto': 'https://evil.example/#' }, '/x', `http://${apex}/x`],
      [{}, '/%0D%0ASet-Cookie:%20stolen=1', `http://${apex}/%0D%0ASet-Cookie:%20stolen=1`],
      [{}, '//evil.example/x', `http://${apex}//evil.example/x`],
    ]
    for (const [headers, url, location] of cases) {
      const response = await t.request({ method: 'GET', url, headers: { host: www, ...headers } })
      assert.equal(response.statusCode, 301, url)
      assert.equal(response.headers.location, location, `${url} ${JSON.stringify(headers)}`)
      assert.equal(response.headers['set-cookie'], undefined)
    }

    // An absolute-form request target names another host: only its path would ever be kept.
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const { port } = t.app.server.address() as net.AddressInfo
    const answer = await new Promise<string>((resolve) => {
      let received = ''
      const socket = net.connect({ port, host: '127.0.0.1' }, () => socket.write(`GET http://evil.example/steal HTTP/1.1\r\nHost: ${www}\r\nConnection: close\r\n\r\n`))
      socket.setEncoding('latin1')
      socket.on('data', (chunk: string) => (received += chunk))
      socket.on('error', () => undefined)
      socket.on('close', () => resolve(received))
      socket.setTimeout(10_000, () => socket.destroy())
    })
    const location = /\r\nlocation: ([^\r\n]*)/i.exec(answer)?.[1]
    assert.ok(location === undefined || location.startsWith(`http://${apex}/`), `Location: ${location}`)
    assert.ok(!answer.includes('evil.example'), answer)
  })
})

describe('API8 security misconfiguration', () => {
  test('no CORS grant to an origin no publishable key lists, no preflight without publishable keys, no server fingerprint', async () => {
    const t = await app()
    const owner = await enterprise(t)
    const origin = { origin: 'https://evil.example' }
    const answers = async () => [
      await t.request({ method: 'GET', url: '/v1/pets', headers: { ...origin, ...bearer(owner.key) } }),
      await t.request({ method: 'GET', url: '/admin/v1/projects', headers: { ...origin, ...bearer(ADMIN_TOKEN) } }),
      await t.request({ method: 'GET', url: '/healthz', headers: origin }),
      await t.request({ method: 'GET', url: '/v1/openapi.json', headers: origin }),
    ]
    const preflight = () => t.request({ method: 'OPTIONS', url: '/v1/pets', headers: { ...origin, 'access-control-request-method': 'POST' } })
    const assertNoGrant = (responses: LightMyRequestResponse[]) => {
      for (const response of responses) {
        for (const name of Object.keys(response.headers)) {
          assert.ok(!name.startsWith('access-control-'), `${name} on ${response.statusCode}`)
          assert.ok(!['x-powered-by', 'server'].includes(name), `${name} reveals the server`)
        }
      }
    }
    // Without publishable keys the API takes no cross-origin request: OPTIONS is no method of it.
    const before = await preflight()
    assertError(before, 405, 'method_not_allowed')
    assertNoGrant([...(await answers()), before])

    // A publishable key for another origin grants that origin only: not this one, on no answer.
    const site = await admin(t, 'POST', `/projects/${owner.slug}/keys`, { name: 'site', publishable: true, allowedOrigins: ['https://shelter.example'] })
    assert.equal(site.statusCode, 201, site.body)
    const refused = await preflight()
    assertError(refused, 403, 'origin_not_allowed')
    const fromPage = await t.request({ method: 'GET', url: '/v1/pets', headers: { ...origin, ...bearer(site.json<{ key: string }>().key) } })
    assertError(fromPage, 403, 'origin_not_allowed')
    assertNoGrant([...(await answers()), refused, fromPage])
  })
})
