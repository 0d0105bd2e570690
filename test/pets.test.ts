import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { GET_PET_SUNSET_AT } from '../src/pets/pets.routes.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'

let t: TestApp
let clock: ManualClock
let owner: { slug: string; key: string }

beforeEach(async () => {
  clock = new ManualClock()
  t = await createTestApp({ clock })
  owner = await t.project()
})
afterEach(async () => {
  await t.close()
})

async function create(body: unknown, key = owner.key, headers: Record<string, string> = {}) {
  return t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(key), ...headers }, payload: body as object })
}

async function seed(count: number, status?: 'available' | 'pending' | 'sold', key = owner.key): Promise<number[]> {
  const ids: number[] = []
  for (let i = 0; i < count; i++) {
    const response = await create({ name: `Pet ${i}`, categoryId: 1 + (i % 3), ...(status && { status }) }, key)
    assert.equal(response.statusCode, 201, response.body)
    ids.push(response.json<{ id: number }>().id)
  }
  return ids
}

describe('POST /v1/pets (createPet)', () => {
  test('creates an animal with status available by default, with Location', async () => {
    const response = await create({ name: 'Rex', categoryId: 7 })
    assert.equal(response.statusCode, 201)
    const pet = response.json<{ id: number; name: string; categoryId: number; status: string }>()
    assert.deepEqual(pet, { id: pet.id, name: 'Rex', categoryId: 7, status: 'available' })
    assert.ok(Number.isInteger(pet.id) && pet.id > 0)
    assert.equal(response.headers.location, `/v1/pets/${pet.id}`)
    const fetched = await t.request({ method: 'GET', url: `/v1/pets/${pet.id}`, headers: bearer(owner.key) })
    assert.deepEqual(fetched.json(), pet)
  })

  test('keeps a given status and trims the name', async () => {
    const response = await create({ name: '  Mia \t', categoryId: 9007199254740991, status: 'sold' })
    assert.equal(response.statusCode, 201)
    assert.deepEqual({ ...response.json<object>(), id: 0 }, { id: 0, name: 'Mia', categoryId: 9007199254740991, status: 'sold' })
  })

  test('accepts a 100-character name and names of any script', async () => {
    assert.equal((await create({ name: 'x'.repeat(100), categoryId: 1 })).statusCode, 201)
    assert.equal((await create({ name: 'ポチ 🐕', categoryId: 1 })).statusCode, 201)
  })

  const invalid: [string, unknown, RegExp][] = [
    ['missing name', { categoryId: 1 }, /missing the required field "name"/],
    ['missing categoryId', { name: 'Rex' }, /missing the required field "categoryId"/],
    ['empty name', { name: '', categoryId: 1 }, /"name" must be at least 1 character/],
    ['blank name', { name: '   ', categoryId: 1 }, /"name" must be at least 1 character/],
    ['101-character name', { name: 'x'.repeat(101), categoryId: 1 }, /"name" must be at most 100 characters/],
    ['control character in name', { name: 'Re\u0000x', categoryId: 1 }, /"name" has an invalid format/],
    ['name as number', { name: 42, categoryId: 1 }, /"name" must be a string/],
    ['categoryId as string', { name: 'Rex', categoryId: '1' }, /"categoryId" must be an integer/],
    ['categoryId fractional', { name: 'Rex', categoryId: 1.5 }, /"categoryId" must be an integer/],
    ['categoryId zero', { name: 'Rex', categoryId: 0 }, /"categoryId" must be >= 1/],
    ['categoryId negative', { name: 'Rex', categoryId: -4 }, /"categoryId" must be >= 1/],
    ['categoryId above 2^53-1', { name: 'Rex', categoryId: 9007199254740992 }, /"categoryId" must be <= 9007199254740991/],
    ['categoryId null', { name: 'Rex', categoryId: null }, /"categoryId" must be an integer/],
    ['unknown status', { name: 'Rex', categoryId: 1, status: 'adopted' }, /"status" must be one of: available, pending, sold/],
    ['client-chosen id', { id: 5, name: 'Rex', categoryId: 1 }, /Unknown field "id"/],
    ['unknown field', { name: 'Rex', categoryId: 1, colour: 'red' }, /Unknown field "colour"/],
    ['array body', [{ name: 'Rex', categoryId: 1 }], /must be a JSON object/i],
    ['string body', 'Rex', /must be a JSON object/i],
  ]
  for (const [name, body, message] of invalid) {
    test(`rejects ${name} with 400 invalid_request naming the problem`, async () => {
      const response = await t.request({
        method: 'POST',
        url: '/v1/pets',
        headers: { ...bearer(owner.key), 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      })
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(response.json().code, 'invalid_request')
      assert.match(response.json().message, message)
      const list = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
      assert.deepEqual(list.json(), [], 'nothing was created')
    })
  }
})

describe('Idempotency-Key on createPet', () => {
  test('a retry with the same key and body replays the first response', async () => {
    const first = await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'order-1' })
    const retry = await create({ categoryId: 1, name: 'Rex' }, owner.key, { 'idempotency-key': 'order-1' })
    assert.equal(first.statusCode, 201)
    assert.equal(retry.statusCode, 201)
    assert.deepEqual(retry.json(), first.json())
    assert.equal(retry.headers.location, first.headers.location)
    assert.equal(retry.headers['idempotent-replayed'], 'true')
    assert.equal(first.headers['idempotent-replayed'], undefined)
    const list = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
    assert.equal(list.json<unknown[]>().length, 1)
  })

  test('accepts the structured-field (quoted) form of the key', async () => {
    const first = await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': '"abc-123"' })
    const retry = await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'abc-123' })
    assert.deepEqual(retry.json(), first.json())
  })

  test('the same key with another body is 422 idempotency_key_reused', async () => {
    await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'k' })
    const reuse = await create({ name: 'Max', categoryId: 1 }, owner.key, { 'idempotency-key': 'k' })
    assert.equal(reuse.statusCode, 422)
    assert.equal(reuse.json().code, 'idempotency_key_reused')
  })

  test('a retry while the first is in flight is 409 idempotency_in_flight', async () => {
    const project = await t.database.db.selectFrom('projects').select('id').where('slug', '=', owner.slug).executeTakeFirstOrThrow()
    const { fingerprint } = await import('../src/idempotency/idempotency.service.js')
    const body = { name: 'Rex', categoryId: 1 }
    await t.database.db
      .insertInto('idempotency_keys')
      .values({
        project_id: project.id,
        key: 'slow',
        request_hash: fingerprint({ operation: 'createPet', body }),
        state: 'in_flight',
        response_status: null,
        response_body: null,
        created_at: new Date(clock.now()).toISOString(),
      })
      .execute()
    const retry = await create(body, owner.key, { 'idempotency-key': 'slow' })
    assert.equal(retry.statusCode, 409)
    assert.equal(retry.json().code, 'idempotency_in_flight')
    // A claim abandoned by a crashed request is taken over after a minute.
    clock.advance(61_000)
    const later = await create(body, owner.key, { 'idempotency-key': 'slow' })
    assert.equal(later.statusCode, 201)
  })

  test('concurrent requests with one key create exactly one animal', async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'burst' })),
    )
    const created = responses.filter((r) => r.statusCode === 201)
    assert.ok(created.length >= 1)
    assert.ok(responses.every((r) => r.statusCode === 201 || r.statusCode === 409), responses.map((r) => r.statusCode).join())
    assert.equal(new Set(created.map((r) => r.json().id)).size, 1)
    const list = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
    assert.equal(list.json<unknown[]>().length, 1)
  })

  test('keys expire after 24 hours and are scoped by project', async () => {
    const other = await t.project()
    const mine = await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'shared' })
    const theirs = await create({ name: 'Rex', categoryId: 1 }, other.key, { 'idempotency-key': 'shared' })
    assert.notEqual(theirs.json().id, mine.json().id)
    clock.advance(24 * 3600_000)
    const afterDay = await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'shared' })
    assert.equal(afterDay.statusCode, 201)
    assert.notEqual(afterDay.json().id, mine.json().id)
  })

  test('rejects a malformed key with 400', async () => {
    const response = await create({ name: 'Rex', categoryId: 1 }, owner.key, { 'idempotency-key': 'x'.repeat(256) })
    assert.equal(response.statusCode, 400)
    assert.match(response.json().message, /idempotency-key/)
  })
})

describe('GET /v1/pets (listPets)', () => {
  test('lists in ascending id order with the default limit of 20 and a Link to the next page', async () => {
    const ids = await seed(25)
    const first = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
    assert.equal(first.statusCode, 200)
    assert.deepEqual(
      first.json<{ id: number }[]>().map((p) => p.id),
      ids.slice(0, 20),
    )
    assert.equal(first.headers.link, `</v1/pets?limit=20&after=${ids[19]}>; rel="next"`)
    const next = await t.request({ method: 'GET', url: `/v1/pets?limit=20&after=${ids[19]}`, headers: bearer(owner.key) })
    assert.deepEqual(
      next.json<{ id: number }[]>().map((p) => p.id),
      ids.slice(20),
    )
    assert.equal(next.headers.link, undefined, 'no next link on the last page')
  })

  test('following Link pages through everything exactly once', async () => {
    const ids = await seed(7)
    const seen: number[] = []
    let url: string | undefined = '/v1/pets?limit=3'
    while (url) {
      const page = await t.request({ method: 'GET', url, headers: bearer(owner.key) })
      seen.push(...page.json<{ id: number }[]>().map((p) => p.id))
      url = /^<([^>]+)>; rel="next"$/.exec(String(page.headers.link ?? ''))?.[1]
    }
    assert.deepEqual(seen, ids)
  })

  test('filters by status, and the Link keeps the filter', async () => {
    const available = await seed(3, 'available')
    const sold = await seed(3, 'sold')
    const response = await t.request({ method: 'GET', url: '/v1/pets?status=sold&limit=2', headers: bearer(owner.key) })
    assert.deepEqual(
      response.json<{ id: number }[]>().map((p) => p.id),
      sold.slice(0, 2),
    )
    assert.equal(response.headers.link, `</v1/pets?limit=2&status=sold&after=${sold[1]}>; rel="next"`)
    const avail = await t.request({ method: 'GET', url: '/v1/pets?status=available', headers: bearer(owner.key) })
    assert.deepEqual(
      avail.json<{ id: number }[]>().map((p) => p.id),
      available,
    )
  })

  test('limit bounds: 1 and 100 accepted', async () => {
    await seed(2)
    const one = await t.request({ method: 'GET', url: '/v1/pets?limit=1', headers: bearer(owner.key) })
    assert.equal(one.json<unknown[]>().length, 1)
    const hundred = await t.request({ method: 'GET', url: '/v1/pets?limit=100', headers: bearer(owner.key) })
    assert.equal(hundred.json<unknown[]>().length, 2)
  })

  const badQueries: [string, RegExp][] = [
    ['limit=0', /limit" must be >= 1/],
    ['limit=101', /limit" must be <= 100/],
    ['limit=abc', /limit" must be an integer from 1 to 100/],
    ['limit=1.5', /limit" must be an integer/],
    ['limit=', /limit" must be an integer/],
    ['status=adopted', /status" must be one of: available, pending, sold/],
    ['after=-1', /after" must be an integer from 0 to 9007199254740991/],
    ['after=x', /after" must be an integer/],
    ['_=123&limit=0', /limit" must be >= 1/],
    ['limit=1&limit=2', /limit" must be an integer/],
  ]
  for (const [query, message] of badQueries) {
    test(`rejects ?${query} with 400`, async () => {
      const response = await t.request({ method: 'GET', url: `/v1/pets?${query}`, headers: bearer(owner.key) })
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(response.json().code, 'invalid_request')
      assert.match(response.json().message, message)
    })
  }

  test('unknown query parameters are ignored (cache busters such as ?_=123); known ones are still checked', async () => {
    await seed(3, 'sold')
    const plain = await t.request({ method: 'GET', url: '/v1/pets?limit=2', headers: bearer(owner.key) })
    assert.equal(plain.statusCode, 200, plain.body)
    for (const query of ['limit=2&_=1732450000000', 'limit=2&stauts=sold', 'limit=2&x=%00&x=1&y[z]=2']) {
      const response = await t.request({ method: 'GET', url: `/v1/pets?${query}`, headers: bearer(owner.key) })
      assert.equal(response.statusCode, 200, `?${query}: ${response.body}`)
      assert.equal(response.body, plain.body, `?${query}: the same page as without the unknown parameter`)
      // The next page's link carries only the parameters the service understood.
      assert.equal(response.headers.link, plain.headers.link, `?${query}`)
    }
  })

  test("another project's animals are absent", async () => {
    const other = await t.project()
    await seed(2, undefined, other.key)
    const mine = await seed(1)
    const response = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
    assert.deepEqual(
      response.json<{ id: number }[]>().map((p) => p.id),
      mine,
    )
  })
})

describe('GET /v1/pets/{petId} (getPet, deprecated)', () => {
  test('answers the animal with Deprecation, Sunset and successor Link', async () => {
    const [id] = await seed(1)
    const response = await t.request({ method: 'GET', url: `/v1/pets/${id}`, headers: bearer(owner.key) })
    assert.equal(response.statusCode, 200)
    assert.equal(response.json().id, id)
    assert.match(String(response.headers.deprecation), /^@\d+$/)
    assert.equal(response.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT')
    assert.equal(response.headers.link, '</v1/pets>; rel="successor-version"')
  })

  test('errors carry the deprecation headers too', async () => {
    const missing = await t.request({ method: 'GET', url: '/v1/pets/999', headers: bearer(owner.key) })
    assert.equal(missing.statusCode, 404)
    assert.equal(missing.json().code, 'not_found')
    assert.equal(missing.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT')
    const unauthenticated = await t.request({ method: 'GET', url: '/v1/pets/1' })
    assert.equal(unauthenticated.statusCode, 401)
    assert.equal(unauthenticated.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT')
  })

  test("another project's animal is 404, exactly like a missing one", async () => {
    const other = await t.project()
    const [theirs] = await seed(1, undefined, other.key)
    const foreign = await t.request({ method: 'GET', url: `/v1/pets/${theirs}`, headers: bearer(owner.key) })
    const missing = await t.request({ method: 'GET', url: `/v1/pets/${(theirs ?? 0) + 1000}`, headers: bearer(owner.key) })
    assert.equal(foreign.statusCode, 404)
    assert.equal(foreign.json().code, missing.json().code)
    assert.equal(foreign.json().message.replace(/\d+/g, 'N'), missing.json().message.replace(/\d+/g, 'N'))
  })

  for (const petId of ['abc', '0', '-1', '1.5', '9007199254740992', '99999999999999999999']) {
    test(`malformed id ${petId} is 400`, async () => {
      const response = await t.request({ method: 'GET', url: `/v1/pets/${petId}`, headers: bearer(owner.key) })
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(response.json().code, 'invalid_request')
      assert.match(response.json().message, /petId/)
    })
  }

  test('answers 410 gone from the sunset instant on, and not a millisecond before', async () => {
    const [id] = await seed(1)
    clock.set(GET_PET_SUNSET_AT - 1)
    assert.equal((await t.request({ method: 'GET', url: `/v1/pets/${id}`, headers: bearer(owner.key) })).statusCode, 200)
    clock.set(GET_PET_SUNSET_AT)
    const gone = await t.request({ method: 'GET', url: `/v1/pets/${id}`, headers: bearer(owner.key) })
    assert.equal(gone.statusCode, 410)
    assert.equal(gone.json().code, 'gone')
    assert.match(gone.json().message, /GET \/v1\/pets/)
    assert.equal(gone.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT')
  })
})
