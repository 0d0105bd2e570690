import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { insertPet } from '../src/pets/pets.repository.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'
import { testDialect } from './helpers/databases.js'

/**
 * The change feed, GET /v1/pets/changes: what it lists (each animal once at its latest change,
 * tombstones for removals, status moves by orders), how it pages and resumes, and the promise it
 * makes to integrators: a client that mirrors a project by polling it ends equal to the source,
 * while writers on two instances commit concurrently. On PostgreSQL, a transaction that drew its
 * sequence value first and commits last is not skipped.
 */

type Pet = Record<string, unknown> & { id: number; name: string }
interface Change {
  cursor: string
  type: 'changed' | 'removed'
  id: number
  changedAt: string
  pet?: Pet
}

let t: TestApp
let clock: ManualClock
let owner: { slug: string; id: number; key: string }

beforeEach(async () => {
  clock = new ManualClock()
  t = await createTestApp({ clock })
  owner = await t.project({ plan: 'enterprise', perMinute: 1_000_000, perDay: 10_000_000 })
})
afterEach(async () => {
  await t.close()
})

async function feed(after?: string, { app = t, limit, key = owner.key }: { app?: TestApp; limit?: number; key?: string } = {}) {
  const query = new URLSearchParams()
  if (limit !== undefined) query.set('limit', String(limit))
  if (after !== undefined) query.set('after', after)
  const response = await app.request({ method: 'GET', url: `/v1/pets/changes?${query}`, headers: bearer(key) })
  assert.equal(response.statusCode, 200, response.body)
  return { changes: response.json<Change[]>(), link: response.headers.link as string | undefined }
}

async function create(body: Record<string, unknown>, app = t): Promise<Pet> {
  const response = await app.request({ method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: body })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<Pet>()
}

async function patch(id: number, body: Record<string, unknown>, app = t) {
  return app.request({ method: 'PATCH', url: `/v1/pets/${id}`, headers: { ...bearer(owner.key), 'content-type': 'application/json' }, payload: body })
}

async function remove(id: number, app = t) {
  return app.request({ method: 'DELETE', url: `/v1/pets/${id}`, headers: bearer(owner.key) })
}

/** Every animal of the project with every field, through the list. */
async function source(app = t): Promise<Pet[]> {
  const pets: Pet[] = []
  let url: string | undefined = '/v1/pets?limit=100&fields=*'
  while (url) {
    const response = await app.request({ method: 'GET', url, headers: bearer(owner.key) })
    assert.equal(response.statusCode, 200, response.body)
    pets.push(...response.json<Pet[]>())
    url = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1]
  }
  return pets
}

describe('what the feed lists', () => {
  test('every animal once at its latest change, with every field and its times; a removal as a tombstone', async () => {
    assert.deepEqual((await feed()).changes, [])
    const rex = await create({ name: 'Rex', categoryId: 1, sex: 'male' })
    clock.advance(1000)
    const mia = await create({ name: 'Mia', categoryId: 2 })
    const first = await feed()
    assert.deepEqual(
      first.changes.map(({ cursor: _cursor, ...change }) => change),
      [
        { type: 'changed', id: rex.id, changedAt: '2026-11-22T12:00:00.000Z', pet: { ...rex, createdAt: '2026-11-22T12:00:00.000Z', updatedAt: '2026-11-22T12:00:00.000Z' } },
        { type: 'changed', id: mia.id, changedAt: '2026-11-22T12:00:01.000Z', pet: { ...mia, createdAt: '2026-11-22T12:00:01.000Z', updatedAt: '2026-11-22T12:00:01.000Z' } },
      ],
    )
    const cursor = first.changes[1]!.cursor
    assert.deepEqual((await feed(cursor)).changes, [], 'nothing after the last change')

    clock.advance(1000)
    assert.equal((await patch(rex.id, { name: 'Rexi' })).statusCode, 200)
    assert.equal((await patch(rex.id, { sex: null, size: 'large' })).statusCode, 200)
    assert.equal((await remove(mia.id)).statusCode, 204)
    const next = await feed(cursor)
    assert.deepEqual(
      next.changes.map((change) => [change.type, change.id, change.pet?.name, change.pet?.size, change.pet?.sex]),
      [
        ['changed', rex.id, 'Rexi', 'large', undefined],
        ['removed', mia.id, undefined, undefined, undefined],
      ],
      'Rex once, at its latest change, then the tombstone',
    )
    assert.equal(next.changes[0]!.changedAt, '2026-11-22T12:00:02.000Z')
    assert.match(next.changes[1]!.changedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, "a removal's time, by the database's clock")
    // From the start: both animals once, the tombstone included.
    assert.deepEqual((await feed()).changes.map((change) => [change.type, change.id]), [['changed', rex.id], ['removed', mia.id]])
  })

  test('an order moves the status: the animal is listed again', async () => {
    const rex = await create({ name: 'Rex', categoryId: 1 })
    const cursor = (await feed()).changes.at(-1)!.cursor
    clock.advance(60_000)
    const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId: rex.id } })
    assert.equal(placed.statusCode, 201)
    const { changes } = await feed(cursor)
    assert.deepEqual(changes.map((change) => [change.id, change.pet?.status, change.changedAt]), [[rex.id, 'pending', '2026-11-22T12:01:00.000Z']])
  })

  test('pages of `limit`, a Link to the next while pages are full, and resuming from any cursor', async () => {
    for (let i = 0; i < 5; i++) await create({ name: `Pet ${i}`, categoryId: 1 })
    const page1 = await feed(undefined, { limit: 2 })
    assert.equal(page1.changes.length, 2)
    assert.equal(page1.link, `</v1/pets/changes?limit=2&after=${page1.changes[1]!.cursor}>; rel="next"`)
    const page2 = await feed(page1.changes[1]!.cursor, { limit: 2 })
    const page3 = await feed(page2.changes[1]!.cursor, { limit: 2 })
    assert.equal(page3.changes.length, 1)
    assert.equal(page3.link, undefined, 'a short page: up to date')
    const names = [...page1.changes, ...page2.changes, ...page3.changes].map((change) => change.pet?.name)
    assert.deepEqual(names, ['Pet 0', 'Pet 1', 'Pet 2', 'Pet 3', 'Pet 4'])
  })

  test("another project's changes are not listed", async () => {
    const other = await t.project()
    await create({ name: 'Rex', categoryId: 1 })
    assert.deepEqual((await feed(undefined, { key: other.key })).changes, [])
  })

  test('a cursor that is not one of the feed is a 400 naming `after`; so is a limit out of range', async () => {
    for (const after of ['nope', 'MTIz', 'eC55', '!']) {
      const response = await t.request({ method: 'GET', url: `/v1/pets/changes?after=${after}`, headers: bearer(owner.key) })
      assert.equal(response.statusCode, 400, `${after}: ${response.body}`)
      assert.match(response.json<{ message: string }>().message, /"after"/)
    }
    for (const limit of ['0', '1001', 'x']) {
      const response = await t.request({ method: 'GET', url: `/v1/pets/changes?limit=${limit}`, headers: bearer(owner.key) })
      assert.equal(response.statusCode, 400)
      assert.match(response.json<{ message: string }>().message, /"limit"/)
    }
  })
})

describe('a mirror that polls the feed ends equal to the source', () => {
  test('writers on two instances, a mirror polling both, every change and removal applied', async () => {
    const b = await t.sibling()
    try {
      const instances = [t, b]
      const mirror = new Map<number, Pet>()
      let cursor: string | undefined
      let polls = 0
      const poll = async () => {
        const { changes } = await feed(cursor, { app: instances[polls++ % 2]!, limit: 50 })
        for (const change of changes) {
          if (change.type === 'removed') mirror.delete(change.id)
          else mirror.set(change.id, change.pet!)
          cursor = change.cursor
        }
        return changes.length
      }

      let writing = true
      const mirroring = (async () => {
        while (writing) {
          await poll()
          await new Promise((resolve) => setTimeout(resolve, 5))
        }
      })()
      // Four writers, two on each instance: creates, changes, orders and removals interleaved.
      const writer = async (w: number) => {
        const app = instances[w % 2]!
        const mine: number[] = []
        for (let i = 0; i < 30; i++) {
          const step = i % 5
          if (step < 2 || mine.length === 0) {
            mine.push((await create({ name: `W${w}-${i}`, categoryId: 1 + (i % 3), tags: [`w${w}`] }, app)).id)
          } else if (step === 2) {
            assert.equal((await patch(mine[i % mine.length]!, { description: `Changed by ${w} at ${i}`, size: 'small' }, app)).statusCode, 200)
          } else if (step === 3) {
            const order = await app.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(owner.key), payload: { petId: mine[0] } })
            assert.ok([201, 409].includes(order.statusCode), order.body)
          } else {
            const id = mine.pop()!
            assert.ok([204, 409].includes((await remove(id, app)).statusCode))
          }
        }
      }
      try {
        await Promise.all([0, 1, 2, 3].map(writer))
      } finally {
        writing = false
        await mirroring
      }
      // Caught up: until a page comes back empty.
      while ((await poll()) > 0);

      const expected = await source()
      assert.ok(expected.length > 20, `the writers left animals (${expected.length})`)
      assert.deepEqual([...mirror.values()].sort((x, y) => x.id - y.id), expected)
    } finally {
      await b.close()
    }
  })

  test(
    'a transaction that drew its place first and commits last is not skipped',
    { skip: testDialect === 'sqlite' ? 'SQLite commits one writer at a time: a change cannot commit after one that followed it' : false },
    async () => {
      const early = await create({ name: 'First', categoryId: 1 })
      const start = (await feed()).changes.at(-1)!.cursor
      assert.equal((await feed()).changes.at(-1)!.id, early.id)

      // A transaction writes an animal and stays open...
      let release!: () => void
      const held = new Promise<void>((resolve) => (release = resolve))
      let written!: () => void
      const wrote = new Promise<void>((resolve) => (written = resolve))
      const late = t.database.db.transaction().execute(async (trx) => {
        await insertPet(trx, owner.id, { name: 'Late', categoryId: 1, status: 'available', createdAt: new Date(clock.now()).toISOString() })
        written()
        await held
      })
      await wrote
      // ...while another writes after it and commits first.
      const after = await create({ name: 'After', categoryId: 1 })
      const whileOpen = await feed(start)
      assert.ok(!whileOpen.changes.some((change) => change.id === after.id), 'a change is held back while one before it may still commit')
      release()
      await late
      const resumed = await feed(whileOpen.changes.at(-1)?.cursor ?? start)
      assert.deepEqual(resumed.changes.map((change) => change.pet?.name), ['Late', 'After'])
    },
  )
})
