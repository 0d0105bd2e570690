import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'

/**
 * Animal profiles through /v1: every field round-trips, a PATCH is a merge patch (null removes,
 * objects merge, arrays replace), every rule beyond the schema is a 400 naming the field and
 * leaves the animal as it was, `externalId` is unique per project, `fields` selects what an
 * answer carries, and an animal without a profile is answered exactly as the spec's Pet.
 */

type Pet = Record<string, unknown> & { id: number; name: string; categoryId: number; status: string }

let t: TestApp
let clock: ManualClock
let owner: { slug: string; id: number; key: string }
let shelterId: number

beforeEach(async () => {
  // 2026-11-22, noon UTC.
  clock = new ManualClock()
  t = await createTestApp({ clock })
  owner = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
  const shelter = await t.app.services.locations.create(owner.id, { name: 'Main shelter', coordinates: { latitude: 39.78, longitude: -89.65 } })
  assert.ok(shelter.ok)
  shelterId = shelter.location.id
})
afterEach(async () => {
  await t.close()
})

function luna(): Record<string, unknown> {
  return {
    name: 'Luna',
    categoryId: 1,
    externalId: 'A-2024-0173',
    breeds: { primary: 'Labrador Retriever', secondary: 'Beagle', mixed: true },
    sex: 'female',
    age: 'young',
    birthDate: '2024-03-01',
    birthDateEstimated: true,
    size: 'large',
    colors: ['Black', 'White'],
    coat: 'short',
    description: 'Luna is a gentle, playful girl.\nShe loves long walks.',
    goodWith: { children: 'yes', dogs: 'yes', cats: 'unknown' },
    attributes: { spayedNeutered: true, houseTrained: true, vaccinated: true, microchipped: false, specialNeeds: true, specialNeedsNote: 'Needs a daily pill.' },
    adoptionFee: { amount: 15000, currency: 'USD' },
    intakeDate: '2026-10-02',
    locationId: shelterId,
    tags: ['calm', 'good on leash'],
    videoUrls: ['https://www.youtube.com/watch?v=abc123', 'https://vimeo.com/12345'],
  }
}

async function create(body: Record<string, unknown>, key = owner.key): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: body })
}

async function created(body: Record<string, unknown>): Promise<Pet> {
  const response = await create(body)
  assert.equal(response.statusCode, 201, response.body)
  return response.json<Pet>()
}

function patch(id: number, body: unknown) {
  return t.request({ method: 'PATCH', url: `/v1/pets/${id}`, headers: { ...bearer(owner.key), 'content-type': 'application/merge-patch+json' }, payload: JSON.stringify(body) })
}

async function get(id: number, query = ''): Promise<Pet> {
  const response = await t.request({ method: 'GET', url: `/v1/pets/${id}${query}`, headers: bearer(owner.key) })
  assert.equal(response.statusCode, 200, response.body)
  return response.json<Pet>()
}

function assertError(response: LightMyRequestResponse, status: number, code: string, message: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  const body = response.json<{ code: string; message: string }>()
  assert.equal(body.code, code)
  assert.match(body.message, message)
}

describe('the profile on creation', () => {
  test('every field is stored and answered as sent (strings trimmed), by create, get and list alike', async () => {
    const sent = luna()
    const pet = await created({ ...sent, name: '  Luna ', breeds: { primary: ' Labrador Retriever ', secondary: 'Beagle', mixed: true } })
    const expected = { id: pet.id, ...sent, status: 'available' }
    assert.deepEqual(pet, expected)
    assert.deepEqual(await get(pet.id), expected)
    const list = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
    assert.deepEqual(list.json(), [expected])
  })

  test("an animal with the spec's fields only is answered with exactly the spec's fields", async () => {
    const rex = await created({ name: 'Rex', categoryId: 3 })
    assert.deepEqual(rex, { id: rex.id, name: 'Rex', categoryId: 3, status: 'available' })
    assert.deepEqual(await get(rex.id), rex)
  })

  test("fields: the spec's fields and the profile fields named, and the times on request", async () => {
    const pet = await created(luna())
    const spec = { id: pet.id, name: 'Luna', categoryId: 1, status: 'available' }
    assert.deepEqual(await get(pet.id, '?fields=sex'), { ...spec, sex: 'female' })
    assert.deepEqual(await get(pet.id, '?fields=name,sex'), { ...spec, sex: 'female' })
    assert.deepEqual(await get(pet.id, '?fields=createdAt,updatedAt'), { ...spec, createdAt: '2026-11-22T12:00:00.000Z', updatedAt: '2026-11-22T12:00:00.000Z' })
    const all = await get(pet.id, '?fields=*')
    assert.deepEqual(all, { ...pet, createdAt: '2026-11-22T12:00:00.000Z', updatedAt: '2026-11-22T12:00:00.000Z' })
    const listed = await t.request({ method: 'GET', url: '/v1/pets?fields=name,breeds', headers: bearer(owner.key) })
    assert.deepEqual(listed.json(), [{ ...spec, breeds: luna().breeds }])
    assertError(await t.request({ method: 'GET', url: `/v1/pets/${pet.id}?fields=name,secret`, headers: bearer(owner.key) }), 400, 'invalid_request', /"fields" must be \* or comma-separated fields/)
  })

  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['a currency that is not ISO 4217', { adoptionFee: { amount: 100, currency: 'XYZ' } }, /"adoptionFee\.currency" is not an ISO 4217 currency code/],
    ['a currency in lower case', { adoptionFee: { amount: 100, currency: 'usd' } }, /"adoptionFee\.currency" must be three capital letters/],
    ['a fee without its currency', { adoptionFee: { amount: 100 } }, /adoptionFee/],
    ['a negative fee', { adoptionFee: { amount: -1, currency: 'EUR' } }, /"adoptionFee\.amount" must be >= 0/],
    ['a birth date in the future', { birthDate: '2026-12-25' }, /"birthDate" is in the future/],
    ['a date that is not on the calendar', { birthDate: '2024-02-30' }, /"birthDate" must be a calendar date/],
    ['an estimate without a date', { birthDateEstimated: true }, /"birthDateEstimated" needs "birthDate"/],
    ['an intake before the birth', { birthDate: '2024-03-01', intakeDate: '2024-01-01' }, /"intakeDate" \(2024-01-01\) is before "birthDate"/],
    ['a special needs note without special needs', { attributes: { specialNeedsNote: 'Insulin' } }, /"attributes\.specialNeedsNote" needs "attributes\.specialNeeds": true/],
    ['a second breed without a first', { breeds: { secondary: 'Beagle' } }, /"breeds".*"primary"/],
    ['the same breed twice', { breeds: { primary: 'Beagle', secondary: 'beagle' } }, /"breeds\.secondary" names the same breed/],
    ['a tag twice, whatever the case', { tags: ['Calm', 'calm'] }, /"tags" names "calm" twice/],
    ['21 tags', { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) }, /"tags" must NOT have more than 20 items/],
    ['a tag with a comma', { tags: ['calm, quiet'] }, /"tags\.0"/],
    ['a video on another site', { videoUrls: ['https://example.com/video.mp4'] }, /"videoUrls" holds "https:\/\/example\.com\/video\.mp4"/],
    ['a video over plain http', { videoUrls: ['http://www.youtube.com/watch?v=abc'] }, /only https links/],
    ['a description over 10,000 characters', { description: 'x'.repeat(10_001) }, /"description" must be at most 10000 characters/],
    ['a description with a control character', { description: 'Rex\u0007' }, /"description"/],
    ['an unknown sex', { sex: 'other' }, /"sex" must be one of: female, male, unknown/],
    ['an unknown answer', { goodWith: { children: 'maybe' } }, /"goodWith\.children" must be one of: yes, no, unknown/],
    ['an unknown member of goodWith', { goodWith: { horses: 'yes' } }, /Unknown field "horses"/],
    ['an empty goodWith', { goodWith: {} }, /"goodWith"/],
    ['a location of no one', { locationId: 999_999 }, /"locationId" names no location of your project \(999999\)/],
    ['4 colours', { colors: ['a', 'b', 'c', 'd'] }, /"colors" must NOT have more than 3 items/],
    ['an externalId over 64 characters', { externalId: 'x'.repeat(65) }, /"externalId" must be at most 64 characters/],
    ['createdAt, which the service sets', { createdAt: '2026-01-01T00:00:00Z' }, /Unknown field "createdAt"/],
  ]
  for (const [what, fields, message] of refused) {
    test(`refuses ${what} with 400 naming the field, and adds nothing`, async () => {
      assertError(await create({ name: 'Rex', categoryId: 1, ...fields }), 400, 'invalid_request', message)
      const list = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })
      assert.deepEqual(list.json(), [])
    })
  }

  test("a location of another project is refused as one that does not exist", async () => {
    const other = await t.project()
    const theirs = await t.app.services.locations.create(other.id, { name: 'Their shelter' })
    assert.ok(theirs.ok)
    assertError(await create({ name: 'Rex', categoryId: 1, locationId: theirs.location.id }), 400, 'invalid_request', /"locationId" names no location of your project/)
  })

  test('externalId is unique in a project (409, nothing added), and free in another', async () => {
    await created({ name: 'Rex', categoryId: 1, externalId: 'A-1' })
    assertError(await create({ name: 'Max', categoryId: 1, externalId: 'A-1' }), 409, 'external_id_taken', /externalId "A-1"/)
    // With an Idempotency-Key the create runs in its own transaction: the same answer.
    const keyed = await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(owner.key), 'idempotency-key': 'k1' }, payload: { name: 'Max', categoryId: 1, externalId: 'A-1' } })
    assertError(keyed, 409, 'external_id_taken', /externalId "A-1"/)
    const names = (await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(owner.key) })).json<Pet[]>().map((pet) => pet.name)
    assert.deepEqual(names, ['Rex'])
    const other = await t.project()
    assert.equal((await create({ name: 'Rex', categoryId: 1, externalId: 'A-1' }, other.key)).statusCode, 201)
  })

  test('concurrent creates with one externalId: exactly one wins', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create({ name: `Pet ${i}`, categoryId: 1, externalId: 'SAME' })))
    assert.deepEqual(answers.map((answer) => answer.statusCode).sort(), [201, 409, 409, 409, 409, 409, 409, 409])
  })
})

describe('PATCH is a merge patch of the profile', () => {
  test('a field left out stays, null removes, nested objects merge member by member, arrays are replaced', async () => {
    const pet = await created(luna())
    clock.advance(60_000)
    const response = await patch(pet.id, {
      description: 'Now house-trained!',
      goodWith: { cats: 'no', dogs: null },
      attributes: { specialNeeds: null, specialNeedsNote: null, microchipped: true },
      breeds: { secondary: null },
      adoptionFee: { amount: 9000 },
      tags: ['calm'],
      videoUrls: null,
      externalId: null,
    })
    assert.equal(response.statusCode, 200, response.body)
    const kept = luna()
    delete kept.videoUrls
    delete kept.externalId
    const expected = {
      id: pet.id,
      ...kept,
      status: 'available',
      description: 'Now house-trained!',
      goodWith: { children: 'yes', cats: 'no' },
      attributes: { spayedNeutered: true, houseTrained: true, vaccinated: true, microchipped: true },
      breeds: { primary: 'Labrador Retriever', mixed: true },
      adoptionFee: { amount: 9000, currency: 'USD' },
      tags: ['calm'],
    }
    assert.deepEqual(response.json(), expected)
    assert.deepEqual(await get(pet.id), expected)
    const times = await get(pet.id, '?fields=createdAt,updatedAt')
    assert.deepEqual(times, { id: pet.id, name: 'Luna', categoryId: 1, status: 'available', createdAt: '2026-11-22T12:00:00.000Z', updatedAt: '2026-11-22T12:01:00.000Z' })
  })

  test('removing every member of an object removes the object', async () => {
    const pet = await created({ name: 'Rex', categoryId: 1, goodWith: { children: 'yes' } })
    const response = await patch(pet.id, { goodWith: { children: null } })
    assert.deepEqual(response.json(), { id: pet.id, name: 'Rex', categoryId: 1, status: 'available' })
  })

  test('a change that contradicts what the animal has is a 400, and the animal stays as it was', async () => {
    const pet = await created(luna())
    assertError(await patch(pet.id, { birthDate: null }), 400, 'invalid_request', /"birthDateEstimated" needs "birthDate"/)
    assertError(await patch(pet.id, { attributes: { specialNeeds: false } }), 400, 'invalid_request', /specialNeedsNote/)
    assertError(await patch(pet.id, { breeds: { primary: null } }), 400, 'invalid_request', /"breeds\.primary" is required/)
    assertError(await patch(pet.id, { intakeDate: '2020-01-01' }), 400, 'invalid_request', /"intakeDate" \(2020-01-01\) is before "birthDate"/)
    assertError(await patch(pet.id, { name: null }), 400, 'invalid_request', /"name"/)
    assert.deepEqual(await get(pet.id), pet)
  })

  test('externalId taken by another animal: 409, and the animal stays as it was', async () => {
    await created({ name: 'Rex', categoryId: 1, externalId: 'A-1' })
    const max = await created({ name: 'Max', categoryId: 1, externalId: 'A-2' })
    assertError(await patch(max.id, { externalId: 'A-1', name: 'Maxi' }), 409, 'external_id_taken', /"A-1"/)
    assert.deepEqual(await get(max.id), max)
  })

  test('an order moves the status and the time of the last change', async () => {
    const pet = await created({ name: 'Rex', categoryId: 1 })
    clock.advance(5_000)
    const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId: pet.id } })
    assert.equal(placed.statusCode, 201, placed.body)
    assert.deepEqual(await get(pet.id, '?fields=updatedAt'), { id: pet.id, name: 'Rex', categoryId: 1, status: 'pending', updatedAt: '2026-11-22T12:00:05.000Z' })
  })

  test('a location with animals cannot be removed; without them it can', async () => {
    const pet = await created({ name: 'Rex', categoryId: 1, locationId: shelterId })
    const refused = await t.app.services.locations.remove(owner.id, shelterId)
    assert.deepEqual(refused.ok ? undefined : refused.error, 'location_in_use')
    assert.equal((await patch(pet.id, { locationId: null })).statusCode, 200)
    assert.ok((await t.app.services.locations.remove(owner.id, shelterId)).ok)
  })
})
