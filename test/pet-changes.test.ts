import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { fingerprint } from '../src/idempotency/idempotency.service.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'

/**
 * Changing and removing an animal through /v1 (updatePet, deletePet): the rules of the body,
 * tenancy, Idempotency-Key on PATCH, open orders refusing a removal (also under concurrency), the
 * adoption records kept, and reads that see every change at once (the response cache).
 */

interface Pet {
  id: number
  name: string
  categoryId: number
  status: string
}

let t: TestApp
let clock: ManualClock
let owner: { slug: string; id: number; key: string }

beforeEach(async () => {
  clock = new ManualClock()
  t = await createTestApp({ clock })
  owner = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
})
afterEach(async () => {
  await t.close()
})

async function create(body: object = { name: 'Rex', categoryId: 1 }, key = owner.key): Promise<Pet> {
  const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: body })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<Pet>()
}

function patch(id: number | string, body: unknown, { key = owner.key, type = 'application/merge-patch+json', headers = {} }: { key?: string; type?: string; headers?: Record<string, string> } = {}) {
  return t.request({
    method: 'PATCH',
    url: `/v1/pets/${id}`,
    headers: { ...bearer(key), 'content-type': type, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

function remove(id: number | string, key = owner.key) {
  return t.request({ method: 'DELETE', url: `/v1/pets/${id}`, headers: bearer(key) })
}

async function get(id: number, key = owner.key) {
  return t.request({ method: 'GET', url: `/v1/pets/${id}`, headers: bearer(key) })
}

async function list(query = '', key = owner.key): Promise<Pet[]> {
  const response = await t.request({ method: 'GET', url: `/v1/pets${query}`, headers: bearer(key) })
  assert.equal(response.statusCode, 200, response.body)
  return response.json<Pet[]>()
}

async function order(petId: number, ...moves: ('approve' | 'deliver' | 'cancel')[]): Promise<number> {
  const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId } })
  assert.equal(placed.statusCode, 201, placed.body)
  const { id } = placed.json<{ id: number }>()
  for (const move of moves) assert.equal((await t.request({ method: 'POST', url: `/v1/store/orders/${id}/${move}`, headers: bearer(owner.key) })).statusCode, 200)
  return id
}

function assertError(response: LightMyRequestResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(response.json<{ code: string }>().code, code)
  if (message) assert.match(response.json<{ message: string }>().message, message)
}

describe('PATCH /v1/pets/{petId} (updatePet)', () => {
  test('changes the name, the category or both; what is left out stays; the status is untouched', async () => {
    const rex = await create({ name: 'Rex', categoryId: 1, status: 'sold' })
    const renamed = await patch(rex.id, { name: '  Rexi \t' })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.deepEqual(renamed.json(), { ...rex, name: 'Rexi' })
    const moved = await patch(rex.id, { categoryId: 9007199254740991 })
    assert.deepEqual(moved.json(), { ...rex, name: 'Rexi', categoryId: 9007199254740991 })
    const both = await patch(rex.id, { name: 'Max', categoryId: 2 })
    assert.deepEqual(both.json(), { id: rex.id, name: 'Max', categoryId: 2, status: 'sold' })
    assert.equal(both.headers['idempotent-replayed'], undefined)
  })

  test('the very next reads see the change: the animal, its list page and its search by status', async () => {
    const rex = await create()
    // Read first, so the pages are held by the response cache.
    assert.deepEqual((await get(rex.id)).json(), rex)
    assert.deepEqual(await list(), [rex])
    assert.deepEqual(await list('?status=available'), [rex])
    assert.equal((await patch(rex.id, { name: 'Rexi', categoryId: 3 })).statusCode, 200)
    const changed = { ...rex, name: 'Rexi', categoryId: 3 }
    assert.deepEqual((await get(rex.id)).json(), changed)
    assert.deepEqual(await list(), [changed])
    assert.deepEqual(await list('?status=available'), [changed])
  })

  for (const type of ['application/merge-patch+json', 'application/json', 'application/json; charset=utf-8', 'application/merge-patch+json; charset=utf-8']) {
    test(`takes the body as ${type}`, async () => {
      const rex = await create()
      const response = await patch(rex.id, { name: 'Rexi' }, { type })
      assert.equal(response.statusCode, 200, response.body)
      assert.equal(response.json<Pet>().name, 'Rexi')
    })
  }

  test('other media types are 415, and the animal stays as it was', async () => {
    const rex = await create()
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json-patch+json']) {
      assertError(await patch(rex.id, { name: 'Rexi' }, { type }), 415, 'unsupported_media_type')
    }
    assert.deepEqual((await get(rex.id)).json(), rex)
  })

  const invalid: [string, unknown, RegExp][] = [
    ['an empty object', {}, /^Body changes nothing: send at least one of "name", "categoryId" or another of its \d+ fields\.$/],
    ['the id', { id: 5, name: 'Rex' }, /Unknown field "id"/],
    ['the status', { status: 'sold' }, /^Unknown field "status": an animal's status changes only through its adoption orders/],
    ['the status beside a name', { name: 'Rexi', status: 'available' }, /Unknown field "status"/],
    ['an unknown field', { colour: 'red' }, /Unknown field "colour"/],
    ['a removed name (null)', { name: null }, /"name" must be a string/],
    ['a removed category (null)', { categoryId: null }, /"categoryId" must be an integer/],
    ['an empty name', { name: '' }, /"name" must be at least 1 character/],
    ['a blank name', { name: '   ' }, /"name" must be at least 1 character/],
    ['a 101-character name', { name: 'x'.repeat(101) }, /"name" must be at most 100 characters/],
    ['a control character in the name', { name: 'Re\u0085x' }, /"name" has an invalid format/],
    ['a NUL in the name', { name: 'Re\u0000x' }, /"name"/],
    ['a category as a string', { categoryId: '1' }, /"categoryId" must be an integer/],
    ['category 0', { categoryId: 0 }, /"categoryId" must be >= 1/],
    ['a category above 2^53-1', { categoryId: 9007199254740992 }, /"categoryId" must be <= 9007199254740991/],
    ['an array', [{ name: 'Rex' }], /must be a JSON object/i],
    ['a string', 'Rex', /must be a JSON object/i],
  ]
  for (const [name, body, message] of invalid) {
    test(`refuses ${name} with 400 naming the problem, and changes nothing`, async () => {
      const rex = await create()
      assertError(await patch(rex.id, JSON.stringify(body)), 400, 'invalid_request', message)
      assert.deepEqual((await get(rex.id)).json(), rex)
    })
  }

  test('an empty body, and malformed JSON, are 400', async () => {
    const rex = await create()
    assertError(await patch(rex.id, ''), 400, 'invalid_request', /The body is empty/)
    assertError(await patch(rex.id, '{"name":'), 400, 'invalid_request', /not valid JSON/)
  })

  test("another project's animal is 404 exactly as a missing one, and is not changed", async () => {
    const other = await t.project()
    const theirs = await create({ name: 'Theirs', categoryId: 1 }, other.key)
    const foreign = await patch(theirs.id, { name: 'Mine now' })
    const missing = await patch(theirs.id + 1000, { name: 'Mine now' })
    assertError(foreign, 404, 'not_found')
    assertError(missing, 404, 'not_found')
    assert.equal(foreign.json<{ message: string }>().message.replace(/\d+/g, 'N'), missing.json<{ message: string }>().message.replace(/\d+/g, 'N'))
    assert.deepEqual((await get(theirs.id, other.key)).json(), theirs)
  })

  for (const petId of ['abc', '0', '-1', '1.5', '9007199254740992']) {
    test(`a malformed id (${petId}) is 400`, async () => {
      assertError(await patch(petId, { name: 'Rexi' }), 400, 'invalid_request', /petId/)
    })
  }
})

describe('Idempotency-Key on updatePet', () => {
  test('a retry with the same key and body replays the first answer, even after another change', async () => {
    const rex = await create()
    const first = await patch(rex.id, { name: 'Rexi' }, { headers: { 'idempotency-key': 'rename-1' } })
    assert.equal(first.statusCode, 200, first.body)
    assert.equal((await patch(rex.id, { name: 'Max' })).statusCode, 200)
    const retry = await patch(rex.id, { name: 'Rexi' }, { headers: { 'idempotency-key': 'rename-1' }, type: 'application/json' })
    assert.equal(retry.statusCode, 200)
    assert.equal(retry.headers['idempotent-replayed'], 'true')
    assert.deepEqual(retry.json(), first.json())
    assert.equal((await get(rex.id)).json<Pet>().name, 'Max', 'the replay changed nothing')
  })

  test('the same key with another body, or for another animal, is 422 idempotency_key_reused', async () => {
    const [rex, mia] = [await create(), await create({ name: 'Mia', categoryId: 1 })]
    assert.equal((await patch(rex.id, { name: 'Rexi' }, { headers: { 'idempotency-key': 'k' } })).statusCode, 200)
    assertError(await patch(rex.id, { name: 'Other' }, { headers: { 'idempotency-key': 'k' } }), 422, 'idempotency_key_reused')
    assertError(await patch(mia.id, { name: 'Rexi' }, { headers: { 'idempotency-key': 'k' } }), 422, 'idempotency_key_reused')
    assert.equal((await get(mia.id)).json<Pet>().name, 'Mia')
  })

  test('a retry while the first is in flight is 409 idempotency_in_flight', async () => {
    const rex = await create()
    const body = { name: 'Rexi' }
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        project_id: owner.id,
        key: 'slow',
        request_hash: fingerprint({ operation: 'updatePet', petId: rex.id, body }),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: new Date(clock.now()).toISOString(),
      })
      .execute()
    assertError(await patch(rex.id, body, { headers: { 'idempotency-key': 'slow' } }), 409, 'idempotency_in_flight')
    assert.equal((await get(rex.id)).json<Pet>().name, 'Rex')
  })

  test('a refused change (404, 400) does not keep its key', async () => {
    const rex = await create()
    assertError(await patch(rex.id + 1000, { name: 'Rexi' }, { headers: { 'idempotency-key': 'lost' } }), 404, 'not_found')
    assertError(await patch(rex.id + 1000, { name: 'Rexi' }, { headers: { 'idempotency-key': 'lost' } }), 404, 'not_found')
    const used = await patch(rex.id, { name: 'Rexi' }, { headers: { 'idempotency-key': 'lost' } })
    assert.equal(used.statusCode, 200, 'the key is free for another request')
    assert.equal(used.headers['idempotent-replayed'], undefined)
  })

  test('a malformed key is 400', async () => {
    const rex = await create()
    assertError(await patch(rex.id, { name: 'Rexi' }, { headers: { 'idempotency-key': 'x'.repeat(256) } }), 400, 'invalid_request', /idempotency-key/)
  })
})

describe('DELETE /v1/pets/{petId} (deletePet)', () => {
  test('removes the animal: 204, then it is gone from every read, and a second removal is 404', async () => {
    const [rex, mia] = [await create(), await create({ name: 'Mia', categoryId: 2 })]
    assert.deepEqual(await list(), [rex, mia])
    assert.equal((await get(rex.id)).statusCode, 200)
    const removed = await remove(rex.id)
    assert.equal(removed.statusCode, 204)
    assert.equal(removed.body, '')
    assert.deepEqual(await list(), [mia])
    assert.deepEqual(await list('?status=available'), [mia])
    assertError(await get(rex.id), 404, 'not_found')
    assertError(await remove(rex.id), 404, 'not_found')
    assertError(await patch(rex.id, { name: 'Back' }), 404, 'not_found')
  })

  test('is refused with 409 pet_has_open_order while an order is placed or approved, and changes nothing', async () => {
    for (const moves of [[], ['approve']] as const) {
      const rex = await create()
      const orderId = await order(rex.id, ...moves)
      const refused = await remove(rex.id)
      assertError(refused, 409, 'pet_has_open_order', new RegExp(`^Animal ${rex.id} has an open adoption order \\(order ${orderId}, ${moves.length ? 'approved' : 'placed'}\\): deliver or cancel it first`))
      assert.equal((await get(rex.id)).json<Pet>().status, 'pending')
    }
  })

  test('keeps the adoption records: a delivered or cancelled order outlives its animal', async () => {
    const rex = await create()
    const delivered = await order(rex.id, 'approve', 'deliver')
    const mia = await create({ name: 'Mia', categoryId: 1 })
    const cancelled = await order(mia.id, 'cancel')
    for (const [pet, orderId, status] of [
      [rex, delivered, 'delivered'],
      [mia, cancelled, 'cancelled'],
    ] as const) {
      const before = (await t.request({ method: 'GET', url: `/v1/store/orders/${orderId}`, headers: bearer(owner.key) })).json()
      assert.equal((await remove(pet.id)).statusCode, 204)
      const after = await t.request({ method: 'GET', url: `/v1/store/orders/${orderId}`, headers: bearer(owner.key) })
      assert.equal(after.statusCode, 200, after.body)
      assert.deepEqual(after.json(), before)
      assert.equal(after.json<{ status: string; petId: number }>().status, status)
      assertError(await get(pet.id), 404, 'not_found')
    }
    const orders = (await t.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(owner.key) })).json<{ id: number }[]>()
    assert.deepEqual(orders.map((o) => o.id), [delivered, cancelled])
    // The removed animal's id is never given to another one.
    assert.ok((await create()).id > mia.id)
  })

  test("another project's animal is 404 exactly as a missing one, and stays", async () => {
    const other = await t.project()
    const theirs = await create({ name: 'Theirs', categoryId: 1 }, other.key)
    const foreign = await remove(theirs.id)
    const missing = await remove(theirs.id + 1000)
    assertError(foreign, 404, 'not_found')
    assertError(missing, 404, 'not_found')
    assert.equal(foreign.json<{ message: string }>().message.replace(/\d+/g, 'N'), missing.json<{ message: string }>().message.replace(/\d+/g, 'N'))
    assert.deepEqual((await get(theirs.id, other.key)).json(), theirs)
  })

  test('a body sent anyway is read: JSON is ignored, other media types are 415', async () => {
    const rex = await create()
    const text = await t.request({ method: 'DELETE', url: `/v1/pets/${rex.id}`, headers: { ...bearer(owner.key), 'content-type': 'text/plain' }, payload: 'please' })
    assertError(text, 415, 'unsupported_media_type')
    assert.equal((await get(rex.id)).statusCode, 200)
  })

  test('an order placed at the same moment as a removal either wins (409) or finds no animal (404), never both', async () => {
    for (let round = 0; round < 25; round++) {
      const pet = await create({ name: `Racer ${round}`, categoryId: 1 })
      const place = () => t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId: pet.id } })
      // Sent in both orders, so that each side gets to go first.
      const [placed, removed] = round % 2 === 0 ? await Promise.all([place(), remove(pet.id)]) : (await Promise.all([remove(pet.id), place()])).reverse()
      assert.ok(placed && removed)
      const outcome = `${placed.statusCode}/${removed.statusCode}`
      assert.ok(outcome === '201/409' || outcome === '404/204', `round ${round}: order ${placed.statusCode} ${placed.body}, removal ${removed.statusCode} ${removed.body}`)
      if (outcome === '201/409') assertError(removed, 409, 'pet_has_open_order')
      else assertError(placed, 404, 'not_found')
    }
    // No open order names an animal that is gone.
    const open = await t.database.db.selectFrom('orders').select('pet_id').where('status', 'in', ['placed', 'approved']).execute()
    for (const { pet_id } of open) assert.equal((await get(pet_id)).statusCode, 200, `order of animal ${pet_id}`)
  })
})
