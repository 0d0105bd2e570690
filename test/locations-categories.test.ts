import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, createAdminApp } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'

/**
 * A project's locations and categories: managed in the admin API (audited, validated, each
 * project's own), read in /v1; categories start from the default set with its shipped breeds.
 */

let t: TestApp
let project: { slug: string; id: number; key: string }

beforeEach(async () => {
  t = await createAdminApp()
  project = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
})
afterEach(async () => {
  await t.close()
})

function admin(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, payload?: unknown): Promise<LightMyRequestResponse> {
  return t.request({
    method,
    url: `/admin/v1/projects/${project.slug}${path}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
    ...(payload !== undefined && { payload: JSON.stringify(payload) }),
  })
}

function v1(path: string, key = project.key): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/v1${path}`, headers: bearer(key) })
}

function assertError(response: LightMyRequestResponse, status: number, code: string, message: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(response.json<{ code: string }>().code, code)
  assert.match(response.json<{ message: string }>().message, message)
}

describe('locations', () => {
  test('added, read, changed as a merge patch and removed; /v1 lists them; the audit log records each change', async () => {
    const added = await admin('POST', '/locations', {
      name: ' Main shelter ',
      address: { line1: '123 Main Street', city: 'Springfield', region: 'IL', postalCode: '62701', country: 'US' },
      coordinates: { latitude: 39.7817, longitude: -89.6501 },
    })
    assert.equal(added.statusCode, 201, added.body)
    const location = added.json<{ id: number; name: string; createdAt: string }>()
    assert.equal(location.name, 'Main shelter')
    assert.equal(added.headers.location, `/admin/v1/projects/${project.slug}/locations/${location.id}`)
    const changed = await admin('PATCH', `/locations/${location.id}`, { address: { line2: 'Suite 4', region: null }, coordinates: null })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(changed.json<Record<string, unknown>>().address, { line1: '123 Main Street', city: 'Springfield', postalCode: '62701', country: 'US', line2: 'Suite 4' })
    assert.equal(changed.json<Record<string, unknown>>().coordinates, undefined)
    assert.deepEqual((await v1('/locations')).json(), [changed.json()])
    assert.equal((await admin('DELETE', `/locations/${location.id}`)).statusCode, 204)
    assertError(await admin('GET', `/locations/${location.id}`), 404, 'not_found', /No location with id/)
    const audit = await t.request({ method: 'GET', url: `/admin/v1/audit?project=${project.slug}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const actions = audit.json<{ action: string }[]>().map((entry) => entry.action)
    assert.deepEqual(actions.filter((action) => action.startsWith('location.')), ['location.deleted', 'location.updated', 'location.created'])
  })

  const refused: [string, unknown, RegExp][] = [
    ['a country that is not ISO 3166', { name: 'X', address: { country: 'XX' } }, /"address\.country" is not an ISO 3166-1 alpha-2 country code/],
    ['a latitude past the pole', { name: 'X', coordinates: { latitude: 91, longitude: 0 } }, /"coordinates\.latitude" must be <= 90/],
    ['coordinates without a longitude', { name: 'X', coordinates: { latitude: 1 } }, /"longitude"/],
    ['an empty name', { name: '' }, /"name" must be at least 1 character/],
    ['an unknown field', { name: 'X', phone: '555' }, /Unknown field "phone"/],
  ]
  for (const [what, body, message] of refused) {
    test(`refuses ${what} with 400 naming the field`, async () => {
      assertError(await admin('POST', '/locations', body), 400, 'invalid_request', message)
      assert.deepEqual((await admin('GET', '/locations')).json(), [])
    })
  }

  test('a location with animals is kept (409) until they move; another project cannot see or use it', async () => {
    const { id } = (await admin('POST', '/locations', { name: 'Foster area' })).json<{ id: number }>()
    const rex = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(project.key), payload: { name: 'Rex', categoryId: 1, locationId: id } })
    assert.equal(rex.statusCode, 201, rex.body)
    assertError(await admin('DELETE', `/locations/${id}`), 409, 'location_in_use', /animal \d+ among them/)
    const other = await t.project()
    assert.deepEqual((await v1('/locations', other.key)).json(), [])
    const theirs = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(other.key), payload: { name: 'Max', categoryId: 1, locationId: id } })
    assertError(theirs, 400, 'invalid_request', /"locationId" names no location of your project/)
    const otherAdmin = await t.request({ method: 'DELETE', url: `/admin/v1/projects/${other.slug}/locations/${id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    assertError(otherAdmin, 404, 'not_found', /No location/)
  })
})

describe('categories', () => {
  test('the default set with its shipped breeds, in /v1', async () => {
    const categories = (await v1('/categories')).json<{ id: number; name: string; breedCount: number }[]>()
    assert.deepEqual(
      categories.map((category) => [category.id, category.name]),
      [[1, 'Dog'], [2, 'Cat'], [3, 'Rabbit'], [4, 'Small & Furry'], [5, 'Horse'], [6, 'Bird'], [7, 'Scales, Fins & Other'], [8, 'Barnyard']],
    )
    const dogs = (await v1('/categories/1/breeds')).json<{ name: string }[]>().map((breed) => breed.name)
    assert.equal(categories[0]!.breedCount, dogs.length)
    assert.ok(dogs.length > 150 && dogs.includes('Labrador Retriever') && dogs.includes('Beagle'))
    assert.deepEqual(dogs, [...dogs].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })), 'in alphabetical order')
    assertError(await v1('/categories/42/breeds'), 404, 'not_found', /No category with id 42/)
  })

  test('a project renames a default, adds breeds and a category of its own; removing restores the default', async () => {
    const renamed = await admin('PUT', '/categories/1', { name: 'Doggos', breeds: ['Labradoodle', ' Beagle ', 'labradoodle'] })
    assert.equal(renamed.statusCode, 200, renamed.body)
    assert.deepEqual(renamed.json(), { id: 1, name: 'Doggos', breedCount: (await v1('/categories/1/breeds')).json<unknown[]>().length, defaultName: 'Dog', own: true, addedBreeds: ['Beagle', 'Labradoodle'] })
    const breeds = (await v1('/categories/1/breeds')).json<{ name: string }[]>().map((breed) => breed.name)
    assert.equal(breeds.filter((name) => name.toLowerCase() === 'beagle').length, 1, 'a breed shipped and added is listed once')
    assert.ok(breeds.includes('Labradoodle'))
    assert.equal((await admin('PUT', '/categories/300', { name: 'Guinea pig', breeds: ['Teddy'] })).statusCode, 200)
    assert.deepEqual(
      (await v1('/categories')).json<{ id: number; name: string }[]>().map((category) => [category.id, category.name]).filter(([id]) => id === 1 || id === 300),
      [[1, 'Doggos'], [300, 'Guinea pig']],
    )
    assert.deepEqual((await v1('/categories/300/breeds')).json(), [{ name: 'Teddy' }])
    assert.equal((await admin('DELETE', '/categories/1')).statusCode, 204)
    assert.equal((await v1('/categories')).json<{ name: string }[]>()[0]!.name, 'Dog')
    assert.equal((await admin('DELETE', '/categories/300')).statusCode, 204)
    assertError(await v1('/categories/300/breeds'), 404, 'not_found', /No category with id 300/)
    assertError(await admin('DELETE', '/categories/2'), 404, 'not_found', /no name or breeds of its own for category 2/)
    const other = await t.project()
    assert.equal((await v1('/categories', other.key)).json<{ name: string }[]>()[0]!.name, 'Dog', "one project's names are its own")
  })

  test('an animal of a category that names none keeps working', async () => {
    const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(project.key), payload: { name: 'Odd', categoryId: 123456 } })
    assert.equal(created.statusCode, 201)
    assert.deepEqual((await v1('/pets?categoryId=123456')).json<{ name: string }[]>().map((pet) => pet.name), ['Odd'])
  })

  test('bad input: a 400 naming the field', async () => {
    assertError(await admin('PUT', '/categories/1', { name: '' }), 400, 'invalid_request', /"name" must be at least 1 character/)
    assertError(await admin('PUT', '/categories/1', { name: 'X', breeds: Array.from({ length: 501 }, (_, i) => `b${i}`) }), 400, 'invalid_request', /"breeds" must NOT have more than 500 items/)
    assertError(await admin('PUT', '/categories/0', { name: 'X' }), 400, 'invalid_request', /"categoryId" must be >= 1/)
  })
})
