/**
 * Scoped and publishable API keys: what a key made with scopes may call on /v1, the CORS answers
 * of a publishable key's origins (and the refusal of others), their own rate-limit budget, and
 * the checks at creation through the admin API.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { admin, createAdminApp } from './helpers/admin.js'
import { bearer, type ManualClock, type TestApp } from './helpers/app.js'

let t: TestApp
let project: { slug: string; id: number; key: string }

beforeEach(async () => {
  t = await createAdminApp()
  project = await t.project()
})
afterEach(async () => {
  await t.close()
})

const SHELTER = 'https://shelter.example'

function body(response: LightMyRequestResponse): { code: string; message: string } {
  return response.json()
}

async function newPet(key: string): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })
}

describe('scoped keys', () => {
  test('a pets:read key lists and gets animals; creating one is 403 insufficient_scope naming pets:write', async () => {
    const pet = (await newPet(project.key)).json<{ id: number }>()
    const { secret } = await t.key(project.slug, { scopes: ['pets:read'] })
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(secret) })).statusCode, 200)
    assert.equal((await t.request({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: bearer(secret) })).statusCode, 200)
    assert.equal((await t.request({ method: 'GET', url: '/v1/categories', headers: bearer(secret) })).statusCode, 200)
    const refused = await newPet(secret)
    assert.equal(refused.statusCode, 403)
    assert.equal(body(refused).code, 'insufficient_scope')
    assert.match(body(refused).message, /"pets:write"/)
    assert.ok(refused.headers['x-ratelimit-limit'], 'refused after the rate limit: its headers are there')
    assert.equal(refused.headers['access-control-allow-origin'], undefined)
    const orders = await t.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(secret) })
    assert.equal(orders.statusCode, 403)
    assert.match(body(orders).message, /"orders:read"/)
  })

  test('an orders-only key cannot read animals, and can place and read orders', async () => {
    const pet = (await newPet(project.key)).json<{ id: number }>()
    const { secret } = await t.key(project.slug, { scopes: ['orders:read', 'orders:write'] })
    const pets = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(secret) })
    assert.equal(pets.statusCode, 403)
    assert.equal(body(pets).code, 'insufficient_scope')
    assert.match(body(pets).message, /"pets:read"/)
    assert.equal((await t.app.inject({ method: 'HEAD', url: '/v1/pets', headers: bearer(secret) })).statusCode, 403, 'HEAD is checked as GET')
    const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(secret), payload: { petId: pet.id } })
    assert.equal(placed.statusCode, 201)
    assert.equal((await t.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(secret) })).statusCode, 200)
  })

  test('a key made without scopes does everything, as before, and never gets CORS headers', async () => {
    const created = await newPet(project.key)
    assert.equal(created.statusCode, 201)
    const id = created.json<{ id: number }>().id
    for (const [method, url, payload] of [
      ['GET', '/v1/pets'],
      ['GET', `/v1/pets/${id}`],
      ['GET', `/v1/pets/${id}/photos`],
      ['PATCH', `/v1/pets/${id}`, { name: 'Max' }],
      ['POST', '/v1/store/orders', { petId: id }],
      ['GET', '/v1/store/orders'],
    ] as const) {
      const response = await t.request({
        method,
        url,
        headers: { ...bearer(project.key), origin: SHELTER, ...(method === 'PATCH' && { 'content-type': 'application/merge-patch+json' }) },
        ...(payload && { payload }),
      })
      assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`)
      assert.equal(response.headers['access-control-allow-origin'], undefined)
    }
  })

  test('every /v1 operation documents its scope and the 403', async () => {
    const document = t.app.swagger() as unknown as { paths: Record<string, Record<string, { operationId: string; 'x-scopes'?: string[]; responses: Record<string, unknown> }>> }
    const scopes = Object.fromEntries(Object.values(document.paths).flatMap((operations) => Object.values(operations).map((op) => [op.operationId, op['x-scopes']?.join(' ')])))
    assert.deepEqual(scopes, {
      listPets: 'pets:read',
      createPet: 'pets:write',
      listPetChanges: 'pets:read',
      getPet: 'pets:read',
      updatePet: 'pets:write',
      deletePet: 'pets:write',
      uploadPetPhoto: 'pets:write',
      listPetPhotos: 'pets:read',
      orderPetPhotos: 'pets:write',
      deletePetPhoto: 'pets:write',
      listCategories: 'pets:read',
      listBreeds: 'pets:read',
      listLocations: 'pets:read',
      listOrders: 'orders:read',
      placeOrder: 'orders:write',
      getOrder: 'orders:read',
      approveOrder: 'orders:write',
      deliverOrder: 'orders:write',
      cancelOrder: 'orders:write',
    })
    for (const operations of Object.values(document.paths)) for (const op of Object.values(operations)) assert.ok(op.responses['403'], op.operationId)
  })
})

describe('publishable keys', () => {
  async function publishable(): Promise<string> {
    return (await t.key(project.slug, { publishable: true, allowedOrigins: [SHELTER, 'http://localhost:5173'] })).secret
  }

  test('from an allowed origin: CORS headers on answers, and the preflight is answered', async () => {
    const key = await publishable()
    const listed = await t.request({ method: 'GET', url: '/v1/pets', headers: { ...bearer(key), origin: SHELTER } })
    assert.equal(listed.statusCode, 200)
    assert.equal(listed.headers['access-control-allow-origin'], SHELTER)
    assert.match(String(listed.headers.vary), /Origin/)
    assert.match(String(listed.headers['access-control-expose-headers']), /X-RateLimit-Remaining/)
    const local = await t.request({ method: 'GET', url: '/v1/pets', headers: { ...bearer(key), origin: 'http://localhost:5173' } })
    assert.equal(local.headers['access-control-allow-origin'], 'http://localhost:5173')

    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/pets',
      headers: { origin: SHELTER, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], SHELTER)
    assert.match(String(preflight.headers['access-control-allow-methods']), /GET/)
    assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/)
    assert.match(String(preflight.headers.vary), /Origin/)
    // An OPTIONS that is not a preflight is answered as before.
    assert.equal((await t.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: bearer(key) })).statusCode, 405)
  })

  test('from another origin: 403 origin_not_allowed without CORS headers, preflight included', async () => {
    const key = await publishable()
    for (const origin of ['https://evil.example', 'https://shelter.example:8443', 'http://shelter.example']) {
      const refused = await t.request({ method: 'GET', url: '/v1/pets', headers: { ...bearer(key), origin } })
      assert.equal(refused.statusCode, 403, origin)
      assert.equal(body(refused).code, 'origin_not_allowed')
      assert.equal(refused.headers['access-control-allow-origin'], undefined)
      const preflight = await t.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: { origin, 'access-control-request-method': 'GET' } })
      assert.equal(preflight.statusCode, 403, origin)
      assert.equal(preflight.headers['access-control-allow-origin'], undefined)
    }
  })

  test('a publishable key only reads: a write is 403 insufficient_scope', async () => {
    const key = await publishable()
    const refused = await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(key), origin: SHELTER }, payload: { name: 'Rex', categoryId: 1 } })
    assert.equal(refused.statusCode, 403)
    assert.equal(body(refused).code, 'insufficient_scope')
    assert.match(body(refused).message, /"pets:write"/)
    // The page may read the refusal.
    assert.equal(refused.headers['access-control-allow-origin'], SHELTER)
  })

  test('a revoked publishable key no longer answers preflights for its origin', async () => {
    await publishable()
    const { id } = await t.key(project.slug, { publishable: true, allowedOrigins: ['https://other.example'] })
    const preflight = () => t.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: { origin: 'https://other.example', 'access-control-request-method': 'GET' } })
    assert.equal((await preflight()).statusCode, 204)
    assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/keys/${id}`)).statusCode, 200)
    const refused = await preflight()
    assert.equal(refused.statusCode, 403)
    assert.equal(body(refused).code, 'origin_not_allowed')
    assert.equal(refused.headers['access-control-allow-origin'], undefined)
  })

  test('without any live publishable key, a preflight is 405 as before the keys existed, without CORS headers', async () => {
    const preflight = (headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: { origin: SHELTER, 'access-control-request-method': 'GET', ...headers } })
    const none = await preflight()
    assert.equal(none.statusCode, 405)
    assert.equal(body(none).code, 'method_not_allowed')
    assert.ok(none.headers.allow)
    assert.ok(!Object.keys(none.headers).some((name) => name.startsWith('access-control-')), JSON.stringify(none.headers))
    assert.equal((await preflight({ origin: 'null' })).statusCode, 405, 'nor for an origin no key could list')

    // A revoked or expired publishable key is none.
    const revoked = await t.key(project.slug, { publishable: true, allowedOrigins: [SHELTER] })
    assert.equal((await preflight()).statusCode, 204)
    assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/keys/${revoked.id}`)).statusCode, 200)
    assert.equal((await preflight()).statusCode, 405)
    await t.key(project.slug, { publishable: true, allowedOrigins: [SHELTER], expiresInMs: 60_000 })
    assert.equal((await preflight()).statusCode, 204)
    const clock = t.clock as ManualClock
    clock.advance(60_001)
    assert.equal((await preflight()).statusCode, 405)
  })

  test("on a project's host, only that project's publishable keys answer its preflights", async () => {
    await publishable()
    const other = await t.project()
    const preflight = (slug: string, origin: string) =>
      t.app.inject({ method: 'OPTIONS', url: '/v1/pets', headers: { host: `${slug}.platform.test`, origin, 'access-control-request-method': 'GET' } })
    assert.equal((await preflight(project.slug, SHELTER)).statusCode, 204)
    assert.equal((await preflight(project.slug, 'https://evil.example')).statusCode, 403)
    // The other project has no publishable key: its host takes no cross-origin request at all.
    assert.equal((await preflight(other.slug, SHELTER)).statusCode, 405)
    assert.equal((await preflight(other.slug, 'https://evil.example')).statusCode, 405)
    await t.key(other.slug, { publishable: true, allowedOrigins: ['https://other.example'] })
    assert.equal((await preflight(other.slug, SHELTER)).statusCode, 403, "the first project's origin is not the other's")
    assert.equal((await preflight(other.slug, 'https://other.example')).statusCode, 204)
  })

  test('publishable keys have a budget of their own, the size of the plan', async () => {
    const key = await publishable()
    const secretKey = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(project.key) })
    const web = await t.request({ method: 'GET', url: '/v1/pets', headers: { ...bearer(key), origin: SHELTER } })
    assert.equal(secretKey.headers['x-ratelimit-limit'], '60')
    assert.equal(web.headers['x-ratelimit-limit'], '60')
    assert.equal(secretKey.headers['x-ratelimit-remaining'], '59')
    assert.equal(web.headers['x-ratelimit-remaining'], '59', "the secret key's request is not charged to the publishable keys")
  })
})

describe('creating scoped and publishable keys (admin API)', () => {
  test('scopes, publishable and allowedOrigins are kept and listed', async () => {
    const scoped = await admin(t, 'POST', `/projects/${project.slug}/keys`, { name: 'reader', scopes: ['orders:read', 'pets:read'] })
    assert.equal(scoped.statusCode, 201)
    assert.deepEqual(scoped.json().scopes, ['pets:read', 'orders:read'])
    assert.equal(scoped.json().publishable, false)
    const web = await admin(t, 'POST', `/projects/${project.slug}/keys`, { publishable: true, allowedOrigins: [SHELTER] })
    assert.equal(web.statusCode, 201)
    assert.deepEqual([web.json().scopes, web.json().publishable, web.json().allowedOrigins], [['pets:read'], true, [SHELTER]])
    const listed = (await admin(t, 'GET', `/projects/${project.slug}/keys`)).json<{ scopes: string[] | null; publishable: boolean }[]>()
    // Created at the same instant (the test clock stands still), so in id order: compared as a set.
    assert.deepEqual(
      listed.map((key) => JSON.stringify([key.scopes, key.publishable])).sort(),
      [
        [null, false],
        [['pets:read', 'orders:read'], false],
        [['pets:read'], true],
      ]
        .map((key) => JSON.stringify(key))
        .sort(),
    )
  })

  test('invalid scopes and origins are 400 naming the field', async () => {
    for (const [payload, field] of [
      [{ scopes: ['pets:admin'] }, /scopes/],
      [{ scopes: [] }, /scopes/],
      [{ publishable: true, allowedOrigins: [SHELTER], scopes: ['pets:write'] }, /scopes/],
      [{ publishable: true, allowedOrigins: [SHELTER], scopes: ['orders:read'] }, /scopes/],
      [{ publishable: true }, /allowedOrigins/],
      [{ allowedOrigins: [SHELTER] }, /allowedOrigins/],
      [{ publishable: true, allowedOrigins: ['https://shelter.example/'] }, /allowedOrigins\[0\]/],
      [{ publishable: true, allowedOrigins: [SHELTER, 'http://shelter.example'] }, /allowedOrigins\[1\]/],
      [{ publishable: true, allowedOrigins: ['https://shelter.example/path'] }, /allowedOrigins/],
      [{ publishable: true, allowedOrigins: ['*'] }, /allowedOrigins/],
      [{ publishable: true, allowedOrigins: ['https://Shelter.example'] }, /allowedOrigins/],
    ] as const) {
      const response = await admin(t, 'POST', `/projects/${project.slug}/keys`, payload)
      assert.equal(response.statusCode, 400, JSON.stringify(payload))
      assert.equal(body(response).code, 'invalid_request')
      assert.match(body(response).message, field, JSON.stringify(payload))
    }
  })
})
