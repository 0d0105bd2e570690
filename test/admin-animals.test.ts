/**
 * The shelter's animals and orders in the admin API (the dashboard's Animals and Orders tabs):
 * lists with their filters, name search and cursor, every change with its audit entry in the same
 * transaction, the refusals, owners kept to their projects, and /v1 reads that see an admin's
 * change at once. Every answer is checked against the admin document (the `admin()` helper).
 * Who may call each operation is test/admin-authorization.test.ts's matrix.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { commandLineChange, type Change } from '../src/audit/audit.js'
import type { AuditEntry } from '../src/audit/audit.schemas.js'
import { ADMIN_TOKEN, admin, assertMatchesAdminContract, createAdminApp } from './helpers/admin.js'
import { asUser, createUser, signIn } from './helpers/accounts.js'
import { bearer, type TestApp } from './helpers/app.js'

interface Pet {
  id: number
  name: string
  categoryId: number
  status: 'available' | 'pending' | 'sold'
}
interface AdoptionOrder {
  id: number
  petId: number
  status: string
  createdAt: string
  complete: boolean
  petName: string
  petStatus: string | null
}

let t: TestApp

before(async () => {
  t = await createAdminApp()
})
after(async () => {
  await t?.close()
})

function assertError(response: LightMyRequestResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(response.json<{ code: string }>().code, code)
  if (message) assert.match(response.json<{ message: string }>().message, message)
}

async function project(): Promise<{ slug: string; id: number; key: string }> {
  return t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
}

async function add(slug: string, body: object): Promise<Pet> {
  const response = await admin(t, 'POST', `/projects/${slug}/animals`, body)
  assert.equal(response.statusCode, 201, response.body)
  return response.json<Pet>()
}

async function listed(url: string): Promise<{ items: { id: number; name: string }[]; next: string | undefined }> {
  const response = await admin(t, 'GET', url)
  assert.equal(response.statusCode, 200, response.body)
  const next = /^<\/admin\/v1([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1]
  return { items: response.json(), next }
}

/** Every page of a list, following `Link: rel="next"`. */
async function all(url: string): Promise<{ id: number; name: string }[]> {
  const items = []
  for (let next: string | undefined = url; next; ) {
    const page = await listed(next)
    items.push(...page.items)
    next = page.next
  }
  return items
}

/** The audit entries of one request. */
async function entriesOf(response: LightMyRequestResponse): Promise<AuditEntry[]> {
  const requestId = String(response.headers['x-request-id'])
  const log = await admin(t, 'GET', '/audit?limit=100')
  return log.json<(AuditEntry & { requestId: string | null })[]>().filter((entry) => entry.requestId === requestId)
}

describe('animals of a project (admin API)', () => {
  test('add, get, change and remove an animal, each change with its audit entry', async () => {
    const { slug, key } = await project()
    const created = await admin(t, 'POST', `/projects/${slug}/animals`, { name: '  Rex ', categoryId: 3 })
    assert.equal(created.statusCode, 201, created.body)
    const rex = created.json<Pet>()
    assert.deepEqual(rex, { id: rex.id, name: 'Rex', categoryId: 3, status: 'available' })
    assert.equal(created.headers.location, `/admin/v1/projects/${slug}/animals/${rex.id}`)
    const [createdEntry] = await entriesOf(created)
    assert.deepEqual(
      { action: createdEntry?.action, target: createdEntry?.target, project: createdEntry?.project, actor: createdEntry?.actor, details: createdEntry?.details },
      { action: 'pet.created', target: { type: 'pet', id: String(rex.id) }, project: slug, actor: { kind: 'admin_token', name: 'ADMIN_TOKEN' }, details: { name: 'Rex', categoryId: 3, status: 'available' } },
    )

    const fetched = await admin(t, 'GET', `/projects/${slug}/animals/${rex.id}`)
    assert.deepEqual(fetched.json(), rex)
    assert.equal(fetched.headers.deprecation, undefined, 'not the deprecated getPet')
    assert.equal(fetched.headers.sunset, undefined)

    // The public API has it too, and sees the admin's change on the very next read.
    assert.deepEqual((await t.request({ method: 'GET', url: `/v1/pets/${rex.id}`, headers: bearer(key) })).json(), rex)
    const changed = await admin(t, 'PATCH', `/projects/${slug}/animals/${rex.id}`, { name: 'Rexi' })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(changed.json(), { ...rex, name: 'Rexi' })
    assert.deepEqual((await t.request({ method: 'GET', url: `/v1/pets/${rex.id}`, headers: bearer(key) })).json(), { ...rex, name: 'Rexi' })
    const [changedEntry] = await entriesOf(changed)
    assert.equal(changedEntry?.action, 'pet.updated')
    assert.deepEqual(changedEntry?.details, { from: { name: 'Rex' }, to: { name: 'Rexi' } })

    // The same JSON Merge Patch as /v1 takes, under its own media type too.
    const url = `/admin/v1/projects/${slug}/animals/${rex.id}`
    const merged = await t.request({
      method: 'PATCH',
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/merge-patch+json' },
      payload: JSON.stringify({ categoryId: 7 }),
    })
    await assertMatchesAdminContract(t.app, 'PATCH', url, merged)
    assert.equal(merged.statusCode, 200, merged.body)
    assert.deepEqual(merged.json(), { ...rex, name: 'Rexi', categoryId: 7 })

    const removed = await admin(t, 'DELETE', `/projects/${slug}/animals/${rex.id}`)
    assert.equal(removed.statusCode, 204, removed.body)
    const [removedEntry] = await entriesOf(removed)
    assert.equal(removedEntry?.action, 'pet.deleted')
    assert.deepEqual(removedEntry?.details, { name: 'Rexi', categoryId: 7, status: 'available' })
    assertError(await admin(t, 'GET', `/projects/${slug}/animals/${rex.id}`), 404, 'not_found')
    assertError(await t.request({ method: 'GET', url: `/v1/pets/${rex.id}`, headers: bearer(key) }), 404, 'not_found')
  })

  test('refusals record nothing: 400 for a bad body, 404 for none, 409 while an order is open', async () => {
    const { slug, key } = await project()
    const rex = await add(slug, { name: 'Rex', categoryId: 1 })
    const refusals = [
      [await admin(t, 'POST', `/projects/${slug}/animals`, { name: 'Rex', categoryId: 1, id: 9 }), 400, 'invalid_request', /Unknown field "id"/],
      [await admin(t, 'PATCH', `/projects/${slug}/animals/${rex.id}`, {}), 400, 'invalid_request', /changes nothing/],
      [await admin(t, 'PATCH', `/projects/${slug}/animals/${rex.id}`, { status: 'sold' }), 400, 'invalid_request', /status changes only through its adoption orders/],
      [await admin(t, 'PATCH', `/projects/${slug}/animals/${rex.id + 1000}`, { name: 'X' }), 404, 'not_found', undefined],
      [await admin(t, 'DELETE', `/projects/${slug}/animals/${rex.id + 1000}`), 404, 'not_found', undefined],
    ] as const
    for (const [response, status, code, message] of refusals) {
      assertError(response, status, code, message)
      assert.deepEqual(await entriesOf(response), [], `${response.statusCode}: no entry`)
    }
    const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload: { petId: rex.id } })
    assert.equal(placed.statusCode, 201)
    const refused = await admin(t, 'DELETE', `/projects/${slug}/animals/${rex.id}`)
    assertError(refused, 409, 'pet_has_open_order', /has an open adoption order .*placed.*deliver or cancel it first/)
    assert.deepEqual(await entriesOf(refused), [])
    assert.equal((await admin(t, 'GET', `/projects/${slug}/animals/${rex.id}`)).json<Pet>().status, 'pending')
  })

  test("another project's animal is 404 in this project's paths, as one that does not exist", async () => {
    const mine = await project()
    const theirs = await project()
    const pet = await add(theirs.slug, { name: 'Theirs', categoryId: 1 })
    for (const response of [
      await admin(t, 'GET', `/projects/${mine.slug}/animals/${pet.id}`),
      await admin(t, 'PATCH', `/projects/${mine.slug}/animals/${pet.id}`, { name: 'Mine' }),
      await admin(t, 'DELETE', `/projects/${mine.slug}/animals/${pet.id}`),
    ]) {
      assertError(response, 404, 'not_found', new RegExp(`^No animal with id ${pet.id} in your project\\.$`))
    }
    assert.deepEqual((await admin(t, 'GET', `/projects/${theirs.slug}/animals/${pet.id}`)).json(), pet)
  })

  test('the list: ascending ids, status filter, the id cursor with Link rel="next", only the project\'s own', async () => {
    const { slug } = await project()
    const other = await project()
    await add(other.slug, { name: 'Not listed', categoryId: 1 })
    const ids: number[] = []
    for (let i = 0; i < 7; i++) ids.push((await add(slug, { name: `Pet ${i}`, categoryId: 1, status: i % 3 === 0 ? 'sold' : 'available' })).id)

    const first = await listed(`/projects/${slug}/animals?limit=3`)
    assert.deepEqual(first.items.map((p) => p.id), ids.slice(0, 3))
    assert.equal(first.next, `/projects/${slug}/animals?limit=3&after=${ids[2]}`)
    assert.deepEqual((await all(`/projects/${slug}/animals?limit=3`)).map((p) => p.id), ids)
    assert.deepEqual((await all(`/projects/${slug}/animals?limit=20`)).map((p) => p.id), ids, 'the default page holds them all')
    const sold = await listed(`/projects/${slug}/animals?status=sold&limit=2`)
    assert.deepEqual(sold.items.map((p) => p.id), [ids[0], ids[3]])
    assert.equal(sold.next, `/projects/${slug}/animals?limit=2&status=sold&after=${ids[3]}`)
    assert.deepEqual((await all(`/projects/${slug}/animals?status=sold&limit=2`)).map((p) => p.id), [ids[0], ids[3], ids[6]])

    for (const query of ['limit=0', 'limit=101', 'status=adopted', 'after=-1', 'name=', `name=${'x'.repeat(101)}`]) {
      assertError(await admin(t, 'GET', `/projects/${slug}/animals?${query}`), 400, 'invalid_request')
    }
  })

  test('the name search: any part of the name, whatever the case (beyond ASCII too), wildcards taken literally, with the other filters', async () => {
    const { slug } = await project()
    const names = ['Rex', 'REXI', 'Alex', 'Mia', 'ÄRGER', 'ärgerlich', '100% Dog', '100 Cats', 'snake_case', 'snakeYcase', 'back\\slash', 'Ǆemal']
    const byName = new Map<string, number>()
    for (const name of names) byName.set(name, (await add(slug, { name, categoryId: 1 })).id)
    const search = async (term: string, extra = '') => (await all(`/projects/${slug}/animals?name=${encodeURIComponent(term)}${extra}`)).map((p) => p.name)
    assert.deepEqual(await search('rex'), ['Rex', 'REXI'])
    assert.deepEqual(await search('EX'), ['Rex', 'REXI', 'Alex'])
    assert.deepEqual(await search('ärger'), ['ÄRGER', 'ärgerlich'])
    assert.deepEqual(await search('ÄRGERL'), ['ärgerlich'])
    assert.deepEqual(await search('ǆ'), ['Ǆemal'])
    assert.deepEqual(await search('%'), ['100% Dog'], '% is a plain character')
    assert.deepEqual(await search('0%'), ['100% Dog'])
    assert.deepEqual(await search('_'), ['snake_case'], '_ is a plain character')
    assert.deepEqual(await search('\\'), ['back\\slash'])
    assert.deepEqual(await search('nobody'), [])
    // With the other filters, and paged.
    const rexi = byName.get('REXI')!
    assert.equal((await admin(t, 'PATCH', `/projects/${slug}/animals/${rexi}`, { name: 'Rexina' })).statusCode, 200)
    assert.deepEqual(await search('REXIN'), ['Rexina'], 'a new name is found by its new folding')
    const page = await listed(`/projects/${slug}/animals?name=e&limit=2`)
    assert.equal(page.items.length, 2)
    assert.match(String(page.next), /^\/projects\/[^?]+\/animals\?limit=2&name=e&after=\d+$/)
    assert.deepEqual(await search('e', '&limit=2'), await search('e'))
  })

  test('a change and its audit entry commit together: when the entry cannot be written, the change is undone', async () => {
    const { id } = await project()
    const pets = t.app.services.pets
    const broken: Change = { actor: { kind: 'robot' as Change['actor']['kind'], userId: null, name: 'robot' }, requestId: 'broken' }
    const created = await pets.create(id, { name: 'Rex', categoryId: 1 }, { change: commandLineChange() })
    assert.ok(created.ok)
    const rex = created.pet
    await assert.rejects(pets.create(id, { name: 'Ghost', categoryId: 1 }, { change: broken }))
    await assert.rejects(pets.update(id, rex.id, { name: 'Changed' }, { change: broken }))
    await assert.rejects(pets.remove(id, rex.id, { change: broken }))
    const page = await pets.list(id, { limit: 10 })
    assert.deepEqual(page.items, [rex], 'no animal added, changed or removed without its entry')
  })

  test('an owner works on their projects only: another project is 404, as one that does not exist', async () => {
    const mine = await project()
    const theirs = await project()
    const pet = await add(theirs.slug, { name: 'Theirs', categoryId: 1 })
    const owner = await createUser(t, { role: 'owner', projects: [mine.slug] })
    const session = await signIn(t, owner.email, owner.password)
    const added = await asUser(t, session, 'POST', `/projects/${mine.slug}/animals`, { name: 'Mine', categoryId: 1 })
    assert.equal(added.statusCode, 201, added.body)
    const [entry] = await entriesOf(added)
    assert.deepEqual(entry?.actor, { kind: 'user', name: owner.email })
    for (const response of [
      await asUser(t, session, 'GET', `/projects/${theirs.slug}/animals`),
      await asUser(t, session, 'PATCH', `/projects/${theirs.slug}/animals/${pet.id}`, { name: 'Mine' }),
      await asUser(t, session, 'DELETE', `/projects/${theirs.slug}/animals/${pet.id}`),
      await asUser(t, session, 'GET', `/projects/${theirs.slug}/orders`),
    ]) {
      assertError(response, 404, 'not_found', new RegExp(`^No project with slug "${theirs.slug}"\\.$`))
    }
    assert.deepEqual((await admin(t, 'GET', `/projects/${theirs.slug}/animals/${pet.id}`)).json(), pet)
  })
})

describe("a category's breeds (admin API)", () => {
  test('the shipped breeds and those the project added, in alphabetical order; an id that names no category is 404', async () => {
    const { slug } = await project()
    const breeds = async (id: number) => (await admin(t, 'GET', `/projects/${slug}/categories/${id}/breeds`)).json<{ name: string }[]>().map((breed) => breed.name)
    const shipped = await breeds(1)
    assert.ok(shipped.includes('Labrador Retriever'))
    assert.deepEqual(shipped, [...shipped].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })))

    assert.equal((await admin(t, 'PUT', `/projects/${slug}/categories/1`, { name: 'Dog', breeds: ['Aaa Shelter Mix'] })).statusCode, 200)
    assert.deepEqual(await breeds(1), ['Aaa Shelter Mix', ...shipped])
    assert.equal((await admin(t, 'PUT', `/projects/${slug}/categories/500`, { name: 'Axolotl', breeds: ['Leucistic', 'Golden'] })).statusCode, 200)
    assert.deepEqual(await breeds(500), ['Golden', 'Leucistic'])

    assertError(await admin(t, 'GET', `/projects/${slug}/categories/501/breeds`), 404, 'not_found', /No category with id 501/)
  })
})

describe('adoption orders of a project (admin API)', () => {
  async function place(key: string, petId: number): Promise<number> {
    const response = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload: { petId } })
    assert.equal(response.statusCode, 201, response.body)
    return response.json<{ id: number }>().id
  }

  test('each order with its animal beside it; status filter; cursor; a removed animal keeps its name', async () => {
    const { slug, key } = await project()
    const rex = await add(slug, { name: 'Rex', categoryId: 1 })
    const mia = await add(slug, { name: 'Mia', categoryId: 1 })
    const bo = await add(slug, { name: 'Bo', categoryId: 1 })
    const first = await place(key, rex.id)
    const second = await place(key, mia.id)
    const third = await place(key, bo.id)
    assert.equal((await admin(t, 'POST', `/projects/${slug}/orders/${third}/cancel`)).statusCode, 200)

    const page = await admin(t, 'GET', `/projects/${slug}/orders?limit=2`)
    assert.equal(page.statusCode, 200, page.body)
    const orders = page.json<AdoptionOrder[]>()
    assert.deepEqual(
      orders.map((o) => [o.id, o.petId, o.status, o.petName, o.petStatus, o.complete]),
      [
        [first, rex.id, 'placed', 'Rex', 'pending', false],
        [second, mia.id, 'placed', 'Mia', 'pending', false],
      ],
    )
    assert.equal(page.headers.link, `</admin/v1/projects/${slug}/orders?limit=2&after=${second}>; rel="next"`)
    assert.deepEqual((await all(`/projects/${slug}/orders?limit=2`)).map((o) => o.id), [first, second, third])
    const cancelled = await admin(t, 'GET', `/projects/${slug}/orders?status=cancelled`)
    assert.deepEqual(cancelled.json<AdoptionOrder[]>().map((o) => [o.id, o.petName, o.petStatus]), [[third, 'Bo', 'available']])

    // The animal of a closed order is removed: the order stays, with its name, and no status.
    assert.equal((await admin(t, 'DELETE', `/projects/${slug}/animals/${bo.id}`)).statusCode, 204)
    const kept = await admin(t, 'GET', `/projects/${slug}/orders?status=cancelled`)
    assert.deepEqual(kept.json<AdoptionOrder[]>().map((o) => [o.id, o.petId, o.petName, o.petStatus]), [[third, bo.id, 'Bo', null]])
    for (const query of ['limit=0', 'status=lost', 'after=x']) assertError(await admin(t, 'GET', `/projects/${slug}/orders?${query}`), 400, 'invalid_request')
  })

  test('approve, deliver, cancel: each answers the order with its animal as the move left it, and records its entry', async () => {
    const { slug, key } = await project()
    const rex = await add(slug, { name: 'Rex', categoryId: 1 })
    const mia = await add(slug, { name: 'Mia', categoryId: 1 })
    const adopted = await place(key, rex.id)
    const returned = await place(key, mia.id)
    const moves = [
      [adopted, 'approve', 'approved', 'pending', 'order.approved', 'placed'],
      [adopted, 'deliver', 'delivered', 'sold', 'order.delivered', 'approved'],
      [returned, 'approve', 'approved', 'pending', 'order.approved', 'placed'],
      [returned, 'cancel', 'cancelled', 'available', 'order.cancelled', 'approved'],
    ] as const
    for (const [id, move, status, petStatus, action, from] of moves) {
      const response = await admin(t, 'POST', `/projects/${slug}/orders/${id}/${move}`)
      assert.equal(response.statusCode, 200, response.body)
      const order = response.json<AdoptionOrder>()
      assert.deepEqual([order.id, order.status, order.petStatus, order.complete], [id, status, petStatus, status === 'delivered'])
      const [entry] = await entriesOf(response)
      assert.deepEqual(
        { action: entry?.action, target: entry?.target, project: entry?.project, details: entry?.details },
        { action, target: { type: 'order', id: String(id) }, project: slug, details: { petId: order.petId, from, to: status } },
      )
    }
    // The public API agrees, at once.
    assert.equal((await t.request({ method: 'GET', url: `/v1/pets/${rex.id}`, headers: bearer(key) })).json<Pet>().status, 'sold')
    assert.equal((await t.request({ method: 'GET', url: `/v1/store/orders/${returned}`, headers: bearer(key) })).json<{ status: string }>().status, 'cancelled')

    const refused = await admin(t, 'POST', `/projects/${slug}/orders/${adopted}/cancel`)
    assertError(refused, 409, 'invalid_transition', /is delivered: only placed or approved orders can be cancelled/)
    assert.deepEqual(await entriesOf(refused), [], 'a refused move records nothing')
    assertError(await admin(t, 'POST', `/projects/${slug}/orders/${adopted + 1000}/approve`), 404, 'not_found')
    const other = await project()
    assertError(await admin(t, 'POST', `/projects/${other.slug}/orders/${returned}/approve`), 404, 'not_found', /^No order with id \d+ in your project\.$/)
  })
})
