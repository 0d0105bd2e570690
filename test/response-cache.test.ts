import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import sharp from 'sharp'
import type { Config } from '../src/config.js'
import { FORM_COOKIE, MIN_FILL_MS } from '../src/site/site.routes.js'
import { admin, createAdminApp } from './helpers/admin.js'
import { bearer, createTestApp, type ManualClock, type TestApp } from './helpers/app.js'
import { testDialect } from './helpers/databases.js'
import { redisUrl } from './helpers/redis.js'

/**
 * The response and principal caches, across two instances on the same data: on SQLite two
 * apps on one file, on PostgreSQL two apps sharing the database and Redis (the only way
 * PostgreSQL deployments cache). Every read on B that follows a write acknowledged by A must
 * see it.
 */
const sharing = testDialect === 'sqlite' || redisUrl !== undefined
/** Each store its own Redis namespace: every fresh database numbers its projects from 1 again. */
const shared = (): Partial<Config> => (testDialect === 'sqlite' ? {} : { redisUrl, redisKeyPrefix: `adoption-store-test:${randomUUID()}:` })

/** The cache's counters, read from /metrics. */
async function cacheCounts(t: TestApp): Promise<{ hit: number; miss: number }> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
  const count = (result: string) => Number(new RegExp(`^adoption_store_response_cache_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0)
  return { hit: count('hit'), miss: count('miss') }
}

describe('response cache across instances', { skip: sharing ? false : 'PostgreSQL caches only with Redis: set TEST_REDIS_URL' }, () => {
  let a: TestApp
  let b: TestApp
  before(async () => {
    a = await createTestApp({ config: shared() })
    b = await a.sibling()
  })
  after(async () => {
    await b.close()
    await a.close()
  })

  test('1,000 creates acknowledged by A are each visible in the very next read on B', async () => {
    const { key } = await a.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const before = await cacheCounts(b)
    let base = 0
    let stale = 0
    for (let i = 0; i < 1000; i++) {
      // Read on B first, so that B holds the page the create changes.
      const page = `/v1/pets?limit=100&after=${base}`
      assert.equal((await b.request({ method: 'GET', url: page, headers: bearer(key) })).statusCode, 200)
      const created = await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `Pet ${i}`, categoryId: 1 } })
      assert.equal(created.statusCode, 201)
      const { id } = created.json<{ id: number }>()
      const read = await b.request({ method: 'GET', url: page, headers: bearer(key) })
      if (!read.json<{ id: number }[]>().some((pet) => pet.id === id)) stale++
      if ((i + 1) % 100 === 0) base = id
    }
    assert.equal(stale, 0, 'reads on B that missed the create A had acknowledged')
    const after = await cacheCounts(b)
    // Every read after a create misses (1,000), and so does the first read of each of the ten
    // pages; every other read follows a read of the same page with no write between: a hit.
    assert.deepEqual({ miss: after.miss - before.miss, hit: after.hit - before.hit }, { miss: 1010, hit: 990 })
  })

  test("a photo added, ordered or removed on A shows in the animal's cached answers on B at once", async () => {
    const { key } = await a.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const pet = (await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Pix', categoryId: 1 } })).json<{ id: number }>()
    const photosOnB = async () => {
      const one = (await b.request({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: bearer(key) })).json<{ photos?: { id: string }[] }>()
      const listed = (await b.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).json<{ photos?: { id: string }[] }[]>()
      assert.deepEqual(listed[0]?.photos, one.photos, 'the list and the animal agree')
      return one.photos?.map((photo) => photo.id)
    }
    const upload = async (width: number) => {
      const png = await sharp({ create: { width, height: 10, channels: 3, background: '#808080' } }).png().toBuffer()
      const response = await a.request({ method: 'POST', url: `/v1/pets/${pet.id}/photos`, headers: { ...bearer(key), 'content-type': 'image/png' }, payload: png })
      assert.equal(response.statusCode, 201, response.body)
      return response.json<{ id: string }>().id
    }
    assert.equal(await photosOnB(), undefined)
    assert.equal(await photosOnB(), undefined)
    const first = await upload(20)
    assert.deepEqual(await photosOnB(), [first])
    const second = await upload(30)
    assert.deepEqual(await photosOnB(), [first, second])
    const ordered = await a.request({ method: 'PUT', url: `/v1/pets/${pet.id}/photos/order`, headers: bearer(key), payload: { ids: [second, first] } })
    assert.equal(ordered.statusCode, 200, ordered.body)
    assert.deepEqual(await photosOnB(), [second, first])
    assert.equal((await a.request({ method: 'DELETE', url: `/v1/pets/${pet.id}/photos/${second}`, headers: bearer(key) })).statusCode, 204)
    assert.deepEqual(await photosOnB(), [first])
  })

  test('an order moved on A shows in the animal pages and the order reads on B at once', async () => {
    const { key } = await a.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const pet = (await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } })).json<{ id: number }>()
    const statusOnB = async () => (await b.request({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: bearer(key) })).json<{ status: string }>().status
    const ordersOnB = async () => (await b.request({ method: 'GET', url: '/v1/store/orders', headers: bearer(key) })).json<{ status: string }[]>()
    assert.equal(await statusOnB(), 'available')
    assert.deepEqual(await ordersOnB(), [])
    const order = (await a.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload: { petId: pet.id } })).json<{ id: number }>()
    assert.equal(await statusOnB(), 'pending')
    assert.deepEqual((await ordersOnB()).map((o) => o.status), ['placed'])
    for (const [move, petStatus, orderStatus] of [
      ['approve', 'pending', 'approved'],
      ['deliver', 'sold', 'delivered'],
    ] as const) {
      assert.equal((await a.request({ method: 'POST', url: `/v1/store/orders/${order.id}/${move}`, headers: bearer(key) })).statusCode, 200)
      assert.equal(await statusOnB(), petStatus)
      assert.deepEqual((await ordersOnB()).map((o) => o.status), [orderStatus])
      const one = await b.request({ method: 'GET', url: `/v1/store/orders/${order.id}`, headers: bearer(key) })
      assert.equal(one.json<{ status: string }>().status, orderStatus)
    }
  })

  test('an animal changed or removed on A, through /v1 or by an admin, is seen by the very next reads on B', async () => {
    const { key, id } = await a.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const created = async (name: string) => (await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name, categoryId: 1 } })).json<{ id: number }>()
    const rex = await created('Rex')
    const mia = await created('Mia')
    const onB = async () => ({
      list: (await b.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).json<{ id: number; name: string }[]>().map((p) => `${p.id}:${p.name}`),
      rex: (await b.request({ method: 'GET', url: `/v1/pets/${rex.id}`, headers: bearer(key) })).statusCode,
    })
    assert.deepEqual(await onB(), { list: [`${rex.id}:Rex`, `${mia.id}:Mia`], rex: 200 })
    assert.deepEqual(await onB(), { list: [`${rex.id}:Rex`, `${mia.id}:Mia`], rex: 200 }, 'held by B now')

    const renamed = await a.request({ method: 'PATCH', url: `/v1/pets/${rex.id}`, headers: { ...bearer(key), 'content-type': 'application/merge-patch+json' }, payload: '{"name":"Rexi"}' })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.deepEqual((await onB()).list, [`${rex.id}:Rexi`, `${mia.id}:Mia`])
    // An admin's change, made by A's service itself. A request reaches B from its socket in a
    // later turn of the event loop than A's commit; in one process, a turn is let pass for it.
    assert.ok((await a.app.services.pets.update(id, mia.id, { name: 'Mimi' }, { change: commandLineChange() })).ok)
    await nextTurn()
    assert.deepEqual((await onB()).list, [`${rex.id}:Rexi`, `${mia.id}:Mimi`])

    assert.equal((await a.request({ method: 'DELETE', url: `/v1/pets/${rex.id}`, headers: bearer(key) })).statusCode, 204)
    assert.deepEqual(await onB(), { list: [`${mia.id}:Mimi`], rex: 404 })
    assert.ok((await a.app.services.pets.remove(id, mia.id, { change: commandLineChange() })).ok)
    await nextTurn()
    assert.deepEqual((await onB()).list, [])
  })

  test('a hit carries the same headers as a miss, rate limits charged as ever', async () => {
    const { key } = await a.project({ plan: 'enterprise', perMinute: 1000, perDay: 100_000 })
    for (let i = 0; i < 3; i++) {
      await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `Pet ${i}`, categoryId: 2 } })
    }
    const counts = await cacheCounts(b)
    const miss = await b.request({ method: 'GET', url: '/v1/pets?limit=2', headers: bearer(key) })
    const hit = await b.request({ method: 'GET', url: '/v1/pets?limit=2', headers: bearer(key) })
    const now = await cacheCounts(b)
    assert.deepEqual([now.miss - counts.miss, now.hit - counts.hit], [1, 1])
    assert.equal(hit.body, miss.body)
    const varying = new Set(['x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'date'])
    const stable = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)))
    assert.deepEqual(stable(hit.headers), stable(miss.headers))
    assert.match(String(hit.headers.link), /after=/)
    assert.equal(Number(hit.headers['x-ratelimit-remaining']), Number(miss.headers['x-ratelimit-remaining']) - 1, 'a hit is charged')
    // Another project's page is its own: same query, its own answer.
    const other = await a.project({ plan: 'enterprise', perMinute: 1000, perDay: 100_000 })
    assert.equal((await b.request({ method: 'GET', url: '/v1/pets?limit=2', headers: bearer(other.key) })).body, '[]')
  })

  test('a key revoked or a plan changed on A applies to the very next request on B', async () => {
    const { key, slug } = await a.project({ plan: 'enterprise', perMinute: 1000, perDay: 100_000 })
    const second = await a.key(slug)
    for (const k of [key, second.secret]) assert.equal((await b.request({ method: 'GET', url: '/v1/pets', headers: bearer(k) })).statusCode, 200)
    assert.ok((await a.app.services.keys.revoke(second.id, commandLineChange())).ok)
    const refused = await b.request({ method: 'GET', url: '/v1/pets', headers: bearer(second.secret) })
    assert.equal(refused.statusCode, 401)
    assert.match(refused.json<{ message: string }>().message, /revoked/)
    assert.ok((await a.app.services.projects.setPlan(slug, { plan: 'pro' }, commandLineChange())).ok)
    assert.equal((await b.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).headers['x-ratelimit-limit'], '300')
  })
})

describe('response cache settings', () => {
  test('RESPONSE_CACHE=off (a budget of 0 bytes) answers every read from the database', async () => {
    const t = await createTestApp({ config: { ...shared(), responseCacheBytes: 0 } })
    try {
      const { key } = await t.project({ plan: 'enterprise', perMinute: 1000, perDay: 100_000 })
      for (let i = 0; i < 3; i++) assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })).statusCode, 200)
      assert.deepEqual(await cacheCounts(t), { hit: 0, miss: 0 })
    } finally {
      await t.close()
    }
  })

  test('the cache keeps to its byte budget, least recently used first', { skip: sharing ? false : 'no cache without Redis on PostgreSQL' }, async () => {
    // Room for about two 20-animal pages.
    const t = await createTestApp({ config: { ...shared(), responseCacheBytes: 8_000 } })
    try {
      const { key } = await t.project({ plan: 'enterprise', perMinute: 1000, perDay: 100_000 })
      for (let i = 0; i < 40; i++) await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `Pet number ${i}`, categoryId: 3 } })
      const read = (after: number) => t.request({ method: 'GET', url: `/v1/pets?after=${after}`, headers: bearer(key) })
      await read(0)
      await read(10)
      await read(0) // hit: 0 is now the most recently used
      await read(20) // evicts 10
      const counts = await cacheCounts(t)
      await read(0)
      await read(10)
      const now = await cacheCounts(t)
      assert.deepEqual([now.hit - counts.hit, now.miss - counts.miss], [1, 1])
    } finally {
      await t.close()
    }
  })
})

describe("the adoption site's pages across instances", { skip: sharing ? false : 'PostgreSQL caches only with Redis: set TEST_REDIS_URL' }, () => {
  let a: TestApp
  let b: TestApp
  before(async () => {
    a = await createAdminApp({ config: shared() })
    b = await a.sibling()
  })
  after(async () => {
    await b.close()
    await a.close()
  })

  test('every change acknowledged by A (animals, orders, settings) shows in the next page on B; pages unchanged are hits', async () => {
    const { slug, key } = await a.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const onB = (path: string, cookie?: string) => b.app.inject({ method: 'GET', url: `/sites/${slug}${path}`, headers: cookie ? { cookie: `${FORM_COOKIE}=${cookie}` } : {} })
    const names = async () => [...(await onB('/')).body.matchAll(/<li class="card">.*?<h2>(.*?)<\/h2>/gs)].map((match) => match[1])

    const created = await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Luna', categoryId: 1, status: 'available' } })
    const { id } = created.json<{ id: number }>()
    assert.deepEqual(await names(), ['Luna'])
    let counts = await cacheCounts(b)
    assert.deepEqual(await names(), ['Luna'])
    assert.deepEqual(await cacheCounts(b), { ...counts, hit: counts.hit + 1 }, 'the same page again, nothing changed: a hit')

    assert.equal((await a.request({ method: 'PATCH', url: `/v1/pets/${id}`, headers: bearer(key), payload: { name: 'Luna Belle' } })).statusCode, 200)
    assert.deepEqual(await names(), ['Luna Belle'])
    assert.equal((await admin(a, 'PATCH', `/projects/${slug}/site`, { displayName: 'Springfield Rescue' })).statusCode, 200)
    assert.match((await onB('/')).body, /<title>Springfield Rescue<\/title>/)

    // The animal's page is kept once for every visitor; each visitor's form carries its own token.
    const first = await onB(`/animals/${id}`, 'visitor-one')
    counts = await cacheCounts(b)
    const second = await onB(`/animals/${id}`, 'visitor-two')
    assert.deepEqual(await cacheCounts(b), { ...counts, hit: counts.hit + 1 })
    const tokenOf = (body: string) => /name="token" value="([^"]+)"/.exec(body)?.[1]
    assert.ok(tokenOf(first.body) && tokenOf(second.body))
    assert.notEqual(tokenOf(first.body), tokenOf(second.body))
    assert.equal(first.body.replace(tokenOf(first.body)!, ''), second.body.replace(tokenOf(second.body)!, ''), 'the same page around the token')
    assert.equal(first.headers['cache-control'], 'private, no-store')
    // The token of a kept page is a real one: the enquiry it carries is placed, and the animal leaves the listing on B.
    ;(a.clock as ManualClock).advance(MIN_FILL_MS + 1000)
    const enquiry = await b.app.inject({
      method: 'POST',
      url: `/sites/${slug}/animals/${id}/enquiry`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `${FORM_COOKIE}=visitor-two` },
      payload: new URLSearchParams({ token: tokenOf(second.body)!, name: 'Ada', email: 'ada@example.org' }).toString(),
    })
    assert.equal(enquiry.statusCode, 200, enquiry.body)
    assert.deepEqual(await names(), [])
    assert.doesNotMatch((await onB(`/animals/${id}`, 'visitor-one')).body, /name="token"/)

    assert.equal((await admin(a, 'PATCH', `/projects/${slug}/site`, { published: false })).statusCode, 200)
    assert.equal((await onB('/')).statusCode, 404)
    assert.equal((await onB(`/animals/${id}`)).statusCode, 404)
  })
})
