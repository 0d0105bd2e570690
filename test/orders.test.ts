import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'

/** Adoption orders: every move of the state machine, every refusal, concurrency and tenancy. */

let t: TestApp
let key: string

beforeEach(async () => {
  t = await createTestApp()
  key = (await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })).key
})
afterEach(async () => {
  await t.close()
})

interface Order {
  id: number
  petId: number
  status: string
  createdAt: string
  complete: boolean
}

async function pet(status: 'available' | 'pending' | 'sold' = 'available', as = key): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(as), payload: { name: 'Rex', categoryId: 1, status } })
  assert.equal(response.statusCode, 201)
  return response.json<{ id: number }>().id
}

async function petStatus(id: number, as = key): Promise<string> {
  return (await t.request({ method: 'GET', url: `/v1/pets/${id}`, headers: bearer(as) })).json<{ status: string }>().status
}

async function place(petId: number, as = key, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/v1/store/orders', headers: { ...bearer(as), ...headers }, payload: { petId } })
}

async function move(orderId: number, action: 'approve' | 'deliver' | 'cancel', as = key) {
  return t.request({ method: 'POST', url: `/v1/store/orders/${orderId}/${action}`, headers: bearer(as) })
}

describe('the adoption state machine', () => {
  test('place → approve → deliver: the animal goes available → pending → pending → sold', async () => {
    const petId = await pet()
    const placed = await place(petId)
    assert.equal(placed.statusCode, 201)
    const order = placed.json<Order>()
    assert.deepEqual(order, { id: order.id, petId, status: 'placed', createdAt: order.createdAt, complete: false })
    assert.equal(placed.headers.location, `/v1/store/orders/${order.id}`)
    assert.ok(!Number.isNaN(Date.parse(order.createdAt)))
    assert.equal(await petStatus(petId), 'pending')

    const approved = await move(order.id, 'approve')
    assert.equal(approved.statusCode, 200)
    assert.deepEqual(approved.json(), { ...order, status: 'approved' })
    assert.equal(await petStatus(petId), 'pending')

    const delivered = await move(order.id, 'deliver')
    assert.deepEqual(delivered.json(), { ...order, status: 'delivered', complete: true })
    assert.equal(await petStatus(petId), 'sold')

    const fetched = await t.request({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
    assert.deepEqual(fetched.json(), { ...order, status: 'delivered', complete: true })
  })

  for (const from of ['placed', 'approved'] as const) {
    test(`cancelling a ${from} order makes the animal available again, and it can be ordered anew`, async () => {
      const petId = await pet()
      const order = (await place(petId)).json<Order>()
      if (from === 'approved') await move(order.id, 'approve')
      const cancelled = await move(order.id, 'cancel')
      assert.equal(cancelled.statusCode, 200)
      assert.equal(cancelled.json<Order>().status, 'cancelled')
      assert.equal(cancelled.json<Order>().complete, false)
      assert.equal(await petStatus(petId), 'available')
      assert.equal((await place(petId)).statusCode, 201)
    })
  }

  // Every move that is not one of the four above, from every status.
  const refusals: [string, ('approve' | 'deliver' | 'cancel')[], 'approve' | 'deliver' | 'cancel', RegExp][] = [
    ['placed', [], 'deliver', /is placed: only approved orders can be delivered/],
    ['approved', ['approve'], 'approve', /is approved: only placed orders can be approved/],
    ['delivered', ['approve', 'deliver'], 'approve', /is delivered/],
    ['delivered', ['approve', 'deliver'], 'deliver', /is delivered/],
    ['delivered', ['approve', 'deliver'], 'cancel', /is delivered: only placed or approved orders can be cancelled/],
    ['cancelled', ['cancel'], 'approve', /is cancelled/],
    ['cancelled', ['cancel'], 'deliver', /is cancelled/],
    ['cancelled', ['cancel'], 'cancel', /is cancelled/],
  ]
  for (const [status, path, action, message] of refusals) {
    test(`${action} on a ${status} order is 409 invalid_transition and changes nothing`, async () => {
      const petId = await pet()
      const order = (await place(petId)).json<Order>()
      for (const step of path) assert.equal((await move(order.id, step)).statusCode, 200)
      const petBefore = await petStatus(petId)
      const refused = await move(order.id, action)
      assert.equal(refused.statusCode, 409)
      assert.equal(refused.json().code, 'invalid_transition')
      assert.match(refused.json().message, message)
      const after = await t.request({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
      assert.equal(after.json<Order>().status, status)
      assert.equal(await petStatus(petId), petBefore)
    })
  }

  for (const status of ['pending', 'sold'] as const) {
    test(`ordering a ${status} animal is 409 pet_unavailable`, async () => {
      const petId = await pet(status)
      const refused = await place(petId)
      assert.equal(refused.statusCode, 409)
      assert.equal(refused.json().code, 'pet_unavailable')
      assert.match(refused.json().message, new RegExp(`Animal ${petId} is ${status}, not available`))
      assert.equal(await petStatus(petId), status)
      const orders = await t.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(key) })
      assert.deepEqual(orders.json(), [])
    })
  }

  test('an animal already ordered cannot be ordered twice', async () => {
    const petId = await pet()
    assert.equal((await place(petId)).statusCode, 201)
    assert.equal((await place(petId)).json().code, 'pet_unavailable')
  })

  test('unknown animals and orders are 404; malformed bodies and ids are 400', async () => {
    assert.equal((await place(999_999)).statusCode, 404)
    assert.match((await place(999_999)).json().message, /No animal with id 999999/)
    assert.equal((await move(999_999, 'approve')).statusCode, 404)
    assert.equal((await t.request({ method: 'GET', url: '/v1/store/orders/999999', headers: bearer(key) })).statusCode, 404)
    for (const payload of [{}, { petId: '1' }, { petId: 0 }, { petId: 1, status: 'approved' }]) {
      const response = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload })
      assert.equal(response.statusCode, 400, JSON.stringify(payload))
    }
    assert.equal((await t.request({ method: 'POST', url: '/v1/store/orders/abc/approve', headers: bearer(key) })).statusCode, 400)
    assert.equal((await t.request({ method: 'POST', url: '/v1/store/orders/1/adopt', headers: bearer(key) })).statusCode, 404)
  })
})

describe('concurrency', () => {
  test('20 concurrent orders for one animal produce exactly one order', async () => {
    const petId = await pet()
    const responses = await Promise.all(Array.from({ length: 20 }, () => place(petId)))
    assert.equal(responses.filter((r) => r.statusCode === 201).length, 1)
    assert.deepEqual(new Set(responses.filter((r) => r.statusCode !== 201).map((r) => r.json().code)), new Set(['pet_unavailable']))
    const orders = await t.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(key) })
    assert.equal(orders.json<Order[]>().length, 1)
    assert.equal(await petStatus(petId), 'pending')
  })

  test('two instances on one database: 20 concurrent orders still produce exactly one', async () => {
    const other = await t.sibling()
    try {
      const petId = await pet()
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? t : other).app.inject({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload: { petId } }),
        ),
      )
      assert.equal(responses.filter((r) => r.statusCode === 201).length, 1, responses.map((r) => r.statusCode).join())
      assert.ok(responses.every((r) => r.statusCode === 201 || r.statusCode === 409))
    } finally {
      await other.close()
    }
  })

  test('concurrent moves of one order: exactly one cancel or deliver wins', async () => {
    const petId = await pet()
    const order = (await place(petId)).json<Order>()
    await move(order.id, 'approve')
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => move(order.id, i % 2 ? 'cancel' : 'deliver')))
    assert.equal(responses.filter((r) => r.statusCode === 200).length, 1)
    const final = responses.find((r) => r.statusCode === 200)!.json<Order>().status
    assert.equal(await petStatus(petId), final === 'delivered' ? 'sold' : 'available')
  })
})

describe('listing, idempotency and tenancy', () => {
  test('orders are listed in id order, filtered by status, paged with Link', async () => {
    const ids: number[] = []
    for (let i = 0; i < 5; i++) ids.push((await place(await pet())).json<Order>().id)
    await move(ids[1]!, 'cancel')
    await move(ids[3]!, 'cancel')
    const page = await t.request({ method: 'GET', url: '/v1/store/orders?limit=2', headers: bearer(key) })
    assert.deepEqual(
      page.json<Order[]>().map((o) => o.id),
      ids.slice(0, 2),
    )
    assert.equal(page.headers.link, `</v1/store/orders?limit=2&after=${ids[1]}>; rel="next"`)
    const cancelled = await t.request({ method: 'GET', url: '/v1/store/orders?status=cancelled', headers: bearer(key) })
    assert.deepEqual(
      cancelled.json<Order[]>().map((o) => o.id),
      [ids[1], ids[3]],
    )
    assert.equal((await t.request({ method: 'GET', url: '/v1/store/orders?status=lost', headers: bearer(key) })).statusCode, 400)
  })

  test('a retried placement with the same Idempotency-Key replays the order instead of failing', async () => {
    const petId = await pet()
    const first = await place(petId, key, { 'idempotency-key': 'adopt-rex' })
    const retry = await place(petId, key, { 'idempotency-key': 'adopt-rex' })
    assert.equal(retry.statusCode, 201)
    assert.deepEqual(retry.json(), first.json())
    assert.equal(retry.headers['idempotent-replayed'], 'true')
    const reused = await place(await pet(), key, { 'idempotency-key': 'adopt-rex' })
    assert.equal(reused.statusCode, 422)
    // A refused placement does not hold the key: after the animal is free, the same key works.
    const taken = await pet('pending')
    assert.equal((await place(taken, key, { 'idempotency-key': 'adopt-later' })).statusCode, 409)
  })

  test("another project's orders and animals are invisible: 404, and absent from lists", async () => {
    const other = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const theirPet = await pet('available', other.key)
    const theirOrder = (await place(theirPet, other.key)).json<Order>()
    assert.equal((await place(theirPet)).statusCode, 404, 'their animal cannot be ordered by us')
    assert.equal((await t.request({ method: 'GET', url: `/v1/store/orders/${theirOrder.id}`, headers: bearer(key) })).statusCode, 404)
    for (const action of ['approve', 'deliver', 'cancel'] as const) assert.equal((await move(theirOrder.id, action)).statusCode, 404)
    assert.deepEqual((await t.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(key) })).json(), [])
    assert.equal(await petStatus(theirPet, other.key), 'pending', 'their order is untouched')
  })
})
