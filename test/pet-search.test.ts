import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'

/**
 * The search on GET /v1/pets, on a fixed shelter of animals: every filter alone and combined,
 * full-text search (the same words find the same animals on SQLite and PostgreSQL: these
 * expectations run on both), distance search, every sort paged to the end through the `Link`
 * header (no animal twice, none skipped), counts, the response cache, and every kind of bad
 * input as a 400 naming the parameter.
 */

type Pet = Record<string, unknown> & { id: number; name: string }

let t: TestApp
let clock: ManualClock
let owner: { slug: string; id: number; key: string }
const ids = new Map<string, number>()
let springfield: number
let chicago: number
let nowhere: number

async function location(name: string, coordinates?: { latitude: number; longitude: number }): Promise<number> {
  const created = await t.app.services.locations.create(owner.id, { name, ...(coordinates && { coordinates }) })
  assert.ok(created.ok)
  return created.location.id
}

before(async () => {
  clock = new ManualClock()
  t = await createTestApp({ clock })
  owner = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
  springfield = await location('Springfield shelter', { latitude: 39.7817, longitude: -89.6501 })
  chicago = await location('Chicago foster area', { latitude: 41.8781, longitude: -87.6298 })
  nowhere = await location('Somewhere without coordinates')
  const animals: Record<string, unknown>[] = [
    { name: 'Rex', categoryId: 1, breeds: { primary: 'Labrador Retriever' }, sex: 'male', age: 'adult', size: 'large', coat: 'short', goodWith: { children: 'yes', dogs: 'yes', cats: 'no' }, attributes: { spayedNeutered: true, houseTrained: true }, locationId: springfield, tags: ['calm'], description: 'A friendly chocolate lab who loves to swim.' },
    { name: 'Chloé', categoryId: 2, breeds: { primary: 'Siamese' }, sex: 'female', age: 'young', size: 'small', coat: 'short', goodWith: { children: 'yes', cats: 'yes' }, attributes: { spayedNeutered: true }, locationId: chicago, tags: ['Indoor', 'calm'], description: 'Très câline, elle adore les câlins.' },
    { name: 'Max', categoryId: 1, breeds: { primary: 'Beagle', secondary: 'Labrador Retriever', mixed: true }, sex: 'male', age: 'young', size: 'medium', goodWith: { dogs: 'yes' }, attributes: { spayedNeutered: false }, locationId: chicago, description: 'Energetic and curious.' },
    { name: 'Bella', categoryId: 1, breeds: { primary: 'German Shepherd Dog' }, sex: 'female', age: 'senior', size: 'large', coat: 'medium', goodWith: { children: 'no' }, attributes: { specialNeeds: true, specialNeedsNote: 'Arthritis' }, locationId: nowhere, tags: ['senior friend'] },
    { name: 'Thumper', categoryId: 3, breeds: { primary: 'Holland Lop' }, sex: 'male', age: 'baby', size: 'small', locationId: springfield, description: 'Tiny, fluffy and 100% adorable.' },
    { name: 'Nemo', categoryId: 7, description: '東京から来た金魚' },
    { name: 'ada', categoryId: 2, sex: 'female', age: 'adult', goodWith: { children: 'unknown' } },
    { name: 'Zed', categoryId: 99 },
  ]
  for (const [i, body] of animals.entries()) {
    clock.set(Date.UTC(2026, 10, 1 + i, 12))
    const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: body })
    assert.equal(response.statusCode, 201, response.body)
    ids.set(body.name as string, response.json<Pet>().id)
  }
  // Max is adopted (pending, then sold); Rex changes last.
  clock.set(Date.UTC(2026, 10, 20, 12))
  const order = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId: ids.get('Max') } })
  assert.equal(order.statusCode, 201)
  clock.set(Date.UTC(2026, 10, 21, 12))
  assert.equal((await t.request({ method: 'PATCH', url: `/v1/pets/${ids.get('Rex')}`, headers: { ...bearer(owner.key), 'content-type': 'application/json' }, payload: { tags: ['calm', 'swimmer'] } })).statusCode, 200)
})
after(async () => {
  await t.close()
})

function get(query: string): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/v1/pets${query}`, headers: bearer(owner.key) })
}

/** The names a search finds, in the order answered. */
async function names(query: string): Promise<string[]> {
  const response = await get(query)
  assert.equal(response.statusCode, 200, response.body)
  return response.json<Pet[]>().map((pet) => pet.name)
}

/** Every page of a search, following `Link: rel="next"`, as names. */
async function allPages(query: string): Promise<{ names: string[]; pages: number }> {
  const found: string[] = []
  let url: string | undefined = `/v1/pets${query}`
  let pages = 0
  while (url) {
    const response = await t.request({ method: 'GET', url, headers: bearer(owner.key) })
    assert.equal(response.statusCode, 200, response.body)
    found.push(...response.json<Pet[]>().map((pet) => pet.name))
    pages++
    url = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1]
    assert.ok(pages < 50, 'the pages end')
  }
  return { names: found, pages }
}

const ALL = ['Rex', 'Chloé', 'Max', 'Bella', 'Thumper', 'Nemo', 'ada', 'Zed']

describe('filters', () => {
  const cases: [string, string[]][] = [
    ['?categoryId=1', ['Rex', 'Max', 'Bella']],
    ['?categoryId=2,3', ['Chloé', 'Thumper', 'ada']],
    ['?categoryId=99', ['Zed']],
    ['?breed=labrador retriever', ['Rex', 'Max']],
    ['?breed=SIAMESE,Holland Lop', ['Chloé', 'Thumper']],
    ['?sex=female', ['Chloé', 'Bella', 'ada']],
    ['?sex=male,female', ['Rex', 'Chloé', 'Max', 'Bella', 'Thumper', 'ada']],
    ['?age=young,baby', ['Chloé', 'Max', 'Thumper']],
    ['?size=large', ['Rex', 'Bella']],
    ['?coat=short', ['Rex', 'Chloé']],
    ['?goodWithChildren=yes', ['Rex', 'Chloé']],
    ['?goodWithChildren=no', ['Bella']],
    ['?goodWithChildren=unknown', ['Max', 'Thumper', 'Nemo', 'ada', 'Zed']],
    ['?goodWithChildren=yes,unknown&goodWithDogs=yes', ['Rex', 'Max']],
    ['?goodWithCats=yes', ['Chloé']],
    ['?spayedNeutered=true', ['Rex', 'Chloé']],
    ['?spayedNeutered=false', ['Max']],
    ['?houseTrained=true&spayedNeutered=true', ['Rex']],
    ['?specialNeeds=true', ['Bella']],
    [`?locationId=CHICAGO`, ['Chloé', 'Max']],
    ['?tag=calm', ['Rex', 'Chloé']],
    ['?tag=INDOOR,senior friend', ['Chloé', 'Bella']],
    ['?status=pending', ['Max']],
    ['?status=available,pending', ALL],
    ['?status=sold', []],
    ['?updatedAfter=2026-11-06T00:00:00Z', ['Nemo', 'ada', 'Zed', 'Max', 'Rex'].sort((a, b) => ALL.indexOf(a) - ALL.indexOf(b))],
    ['?categoryId=1&sex=male&size=large', ['Rex']],
  ]
  for (const [query, expected] of cases) {
    test(`${query} finds ${expected.join(', ') || 'nothing'}`, async () => {
      assert.deepEqual(await names(query.replace('CHICAGO', String(chicago))), expected)
    })
  }

  test('count=true says how many match, whatever the page', async () => {
    const response = await get('?categoryId=1,2&count=true&limit=2')
    assert.equal(response.headers['x-total-count'], '5')
    assert.equal(response.json<Pet[]>().length, 2)
    assert.equal((await get('?count=true&q=nothingmatches')).headers['x-total-count'], '0')
    assert.equal((await get('?categoryId=1')).headers['x-total-count'], undefined, 'only when asked')
  })
})

describe('q, full-text search', () => {
  const cases: [string, string[]][] = [
    ['lab', ['Rex', 'Max']],
    ['Labrador', ['Rex', 'Max']],
    ['friendly lab', ['Rex']],
    ['CHOCOLATE', ['Rex']],
    ['chloe', ['Chloé']],
    ['tres caline', ['Chloé']],
    ['très câline', ['Chloé']],
    ['câlins', ['Chloé']],
    ['indoor', ['Chloé']],
    ['senior', ['Bella']],
    ['swimmer', ['Rex']],
    ['100', ['Thumper']],
    ['adorable tiny', ['Thumper']],
    ['東京から来た金魚', ['Nemo']],
    ['ad', ['Chloé', 'Thumper', 'ada']],
    ['lab senior', []],
    ['zebra', []],
  ]
  for (const [q, expected] of cases) {
    test(`"${q}" finds ${expected.join(', ') || 'nothing'}`, async () => {
      assert.deepEqual(await names(`?q=${encodeURIComponent(q)}`), expected)
    })
  }

  test('combines with filters and sorts', async () => {
    assert.deepEqual(await names('?q=lab&sex=male&size=medium'), ['Max'])
    assert.deepEqual(await names('?q=lab&sort=-createdAt'), ['Max', 'Rex'])
  })
})

describe('near: distance search', () => {
  // Springfield to Chicago: about 279 km (173 mi).
  const springfieldPoint = '39.7817,-89.6501'

  test('only animals within the radius, each with its distance in the unit asked', async () => {
    const response = await get(`?near=${springfieldPoint}&radius=50`)
    assert.deepEqual(response.json<Pet[]>().map((pet) => [pet.name, pet.distance]), [['Rex', 0], ['Thumper', 0]])
    const wide = (await get(`?near=${springfieldPoint}&radius=300&sort=distance`)).json<Pet[]>()
    assert.deepEqual(wide.map((pet) => pet.name), ['Rex', 'Thumper', 'Chloé', 'Max'])
    const chicagoKm = wide[2]!.distance as number
    assert.ok(chicagoKm > 270 && chicagoKm < 290, `Springfield to Chicago is about 279 km, not ${chicagoKm}`)
    const miles = (await get(`?near=${springfieldPoint}&radius=200&unit=mi&sort=distance`)).json<Pet[]>()
    assert.deepEqual(miles.map((pet) => pet.name), ['Rex', 'Thumper', 'Chloé', 'Max'])
    assert.ok(Math.abs((miles[2]!.distance as number) - chicagoKm / 1.609344) < 0.2)
    assert.deepEqual(await names(`?near=${springfieldPoint}&radius=100&unit=mi`), ['Rex', 'Thumper'])
  })

  test('an animal without a location, or at a place without coordinates, is never near', async () => {
    assert.deepEqual(await names('?near=0,0&radius=20000'), ['Rex', 'Chloé', 'Max', 'Thumper'])
  })

  test('combines with the other filters, q included; distance is a field like the others', async () => {
    assert.deepEqual(await names(`?near=${springfieldPoint}&radius=300&q=lab&sex=male&categoryId=1`), ['Rex', 'Max'])
    assert.deepEqual(await names(`?near=${springfieldPoint}&radius=300&locationId=${chicago}`), ['Chloé', 'Max'])
    const slim = (await get(`?near=${springfieldPoint}&radius=50&fields=tags`)).json<Pet[]>()
    assert.deepEqual(slim[0], { id: ids.get('Rex'), name: 'Rex', categoryId: 1, status: 'available', tags: ['calm', 'swimmer'] })
  })
})

describe('sorts, paged to the end', () => {
  const byCreation = ALL
  const cases: [string, string[]][] = [
    ['', byCreation],
    ['&sort=id', byCreation],
    ['&sort=-createdAt', [...byCreation].reverse()],
    ['&sort=createdAt', byCreation],
    ['&sort=name', ['ada', 'Bella', 'Chloé', 'Max', 'Nemo', 'Rex', 'Thumper', 'Zed']],
    ['&sort=distance&near=39.7817,-89.6501&radius=300', ['Rex', 'Thumper', 'Chloé', 'Max']],
    ['&sort=-createdAt&categoryId=1,2', ['ada', 'Bella', 'Max', 'Chloé', 'Rex']],
  ]
  for (const [query, expected] of cases) {
    test(`limit=3${query}`, async () => {
      const { names: found, pages } = await allPages(`?limit=3${query}`)
      assert.deepEqual(found, expected)
      assert.equal(pages, Math.max(1, Math.ceil(expected.length / 3)))
    })
  }

  test('random: a shuffle that pages without repeats or gaps, the same for the same seed', async () => {
    const first = await allPages('?limit=3&sort=random&seed=7')
    assert.deepEqual([...first.names].sort(), [...ALL].sort())
    assert.deepEqual((await allPages('?limit=3&sort=random&seed=7')).names, first.names)
    assert.deepEqual((await allPages('?limit=5&sort=random&seed=7')).names, first.names, 'the order does not depend on the page size')
    const others = await Promise.all([1, 2, 3, 4].map(async (seed) => (await allPages(`?limit=8&sort=random&seed=${seed}`)).names.join()))
    assert.ok(others.some((order) => order !== first.names.join()), 'another seed, another order')
    assert.ok(new Set(others).size > 1, 'seeds give different shuffles')
  })

  test('the default order keeps the spec\'s `after` cursor in its Link', async () => {
    const response = await get('?limit=2&categoryId=1')
    assert.equal(response.headers.link, `</v1/pets?limit=2&categoryId=1&after=${ids.get('Max')}>; rel="next"`)
    const plain = await get('?limit=2&status=available')
    assert.equal(plain.headers.link, `</v1/pets?limit=2&status=available&after=${ids.get('Chloé')}>; rel="next"`)
  })
})

describe('the response cache', () => {
  test('a repeated search is answered exactly, and a change of any animal of the project shows at once', async () => {
    const query = '?q=lab&sort=name&fields=tags'
    const first = (await get(query)).body
    assert.equal((await get(query)).body, first)
    const rex = ids.get('Rex')!
    const renamed = await t.request({ method: 'PATCH', url: `/v1/pets/${rex}`, headers: { ...bearer(owner.key), 'content-type': 'application/json' }, payload: { name: 'Aaron' } })
    assert.equal(renamed.statusCode, 200)
    try {
      assert.deepEqual(await names(query), ['Aaron', 'Max'])
    } finally {
      await t.request({ method: 'PATCH', url: `/v1/pets/${rex}`, headers: { ...bearer(owner.key), 'content-type': 'application/json' }, payload: { name: 'Rex' } })
    }
    assert.deepEqual(await names(query), ['Max', 'Rex'])
  })

  test('a change of a location moves the distances at once', async () => {
    const query = '?near=41.8781,-87.6298&radius=10'
    assert.deepEqual(await names(query), ['Chloé', 'Max'])
    assert.ok((await t.app.services.locations.update(owner.id, chicago, { coordinates: { latitude: 39.7817, longitude: -89.6501 } })).ok)
    try {
      assert.deepEqual(await names(query), [])
    } finally {
      assert.ok((await t.app.services.locations.update(owner.id, chicago, { coordinates: { latitude: 41.8781, longitude: -87.6298 } })).ok)
    }
  })
})

describe('the document', () => {
  test('every parameter of listPets at its example, all at once, is a request that answers 200 (what "Try it out" sends)', async () => {
    const doc = t.app.swagger() as unknown as { paths: Record<string, { get: { parameters: { name: string; in: string; example?: unknown; schema?: { examples?: unknown[] } }[] } }> }
    const query = new URLSearchParams()
    for (const parameter of doc.paths['/pets']!.get.parameters) {
      if (parameter.in !== 'query') continue
      const example = parameter.example ?? parameter.schema?.examples?.[0]
      assert.notEqual(example, undefined, `${parameter.name} has an example`)
      query.set(parameter.name, String(example))
    }
    const response = await get(`?${query}`)
    assert.equal(response.statusCode, 200, response.body)
  })
})

describe('bad input: a 400 naming the parameter', () => {
  const cursorOf = async (query: string) => new URL(/^<([^>]+)>/.exec(String((await get(query)).headers.link))![1]!, 'http://x').searchParams.get('cursor')!
  const cases: [string, RegExp][] = [
    ['?sort=distance', /"sort" is "distance", which needs "near"/],
    ['?near=39.78,-89.65&radius=0', /"radius" must be more than 0/],
    ['?near=39.78,-89.65&radius=50000', /"radius" must be more than 0 and at most 20000 km/],
    ['?near=39.78,-89.65&radius=12500&unit=mi', /at most 12400 mi/],
    ['?near=91,0', /"near" has latitude 91/],
    ['?near=0,181', /"near" has longitude 181/],
    ['?near=abc', /"near" must be latitude,longitude/],
    ['?radius=10', /"radius" needs "near"/],
    ['?unit=mi', /"unit" needs "near"/],
    ['?unit=ly&near=0,0', /"unit" must be one of: km, mi/],
    ['?sort=weight', /"sort" must be one of/],
    ['?seed=3', /"seed" is for sort=random only/],
    ['?sort=random&seed=-1', /"seed" must be an integer from 0 to 2147483646/],
    ['?cursor=!!!', /"cursor" must be a cursor from a Link header/],
    ['?cursor=bm90LWpzb24', /"cursor" is not one this list gave/],
    ['?sort=name&after=3', /"after" is an id, for the default order/],
    ['?after=1&cursor=WyJpZCIsMCwxXQ', /"after" and "cursor" both/],
    ['?after=1&sort=random', /"after" is an id, for the default order/],
    ['?sex=robot', /"sex" must be one or more \(comma-separated\) of female, male, unknown/],
    ['?size=small,', /"size" must be one or more/],
    ['?status=available,lost', /"status" must be one of: available, pending, sold/],
    ['?categoryId=0', /"categoryId" must be one or more \(comma-separated\) ids/],
    ['?categoryId=9007199254740992', /"categoryId" must be ids from 1 to 9007199254740991/],
    [`?categoryId=${Array.from({ length: 21 }, (_, i) => i + 1).join(',')}`, /"categoryId" must be one or more/],
    ['?q=%21%21%21', /"q" has no letters or digits/],
    [`?q=${'a'.repeat(201)}`, /"q" must be at most 200 characters/],
    ['?updatedAfter=yesterday', /"updatedAfter" must be an RFC 3339 instant/],
    ['?spayedNeutered=yes', /"spayedNeutered" must be one of: true, false/],
    ['?count=1', /"count" must be one of: true, false/],
    ['?fields=name,weight', /"fields" must be \* or comma-separated fields among/],
    ['?limit=0', /"limit" must be >= 1/],
  ]
  for (const [query, message] of cases) {
    test(query, async () => {
      const response = await get(query)
      assert.equal(response.statusCode, 400, response.body)
      assert.equal(response.json<{ code: string }>().code, 'invalid_request')
      assert.match(response.json<{ message: string }>().message, message)
    })
  }

  test('a cursor of another order, or of another seed, is refused', async () => {
    const byName = await cursorOf('?limit=2&sort=name')
    assert.equal((await get(`?limit=2&sort=-createdAt&cursor=${byName}`)).statusCode, 400)
    const seeded = await cursorOf('?limit=2&sort=random&seed=1')
    assert.equal((await get(`?limit=2&sort=random&seed=1&cursor=${seeded}`)).statusCode, 200)
    const wrong = await get(`?limit=2&sort=random&seed=2&cursor=${seeded}`)
    assert.match(wrong.json<{ message: string }>().message, /same sort \(and seed\)/)
  })
})
