/**
 * Deleting a project: every row of every table with a project column goes (the tables are read
 * from the database itself, so a table added later cannot be forgotten), the photos' files go,
 * its keys are refused at once and its cached answers (its animals, its adoption site) are no
 * longer served, on a second instance too; another project is untouched; only operators may.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { sql } from 'kysely'
import sharp from 'sharp'
import type { Config } from '../src/config.js'
import type { Db } from '../src/db/database.js'
import { projectTables } from '../src/projects/projects.repository.js'
import { createObjectStore } from '../src/storage/backend.js'
import { asUser, createUser, signIn } from './helpers/accounts.js'
import { admin } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'
import { testDialect } from './helpers/databases.js'
import { redisUrl } from './helpers/redis.js'
import { addEndpoint, createWebhooksApp } from './helpers/webhooks.js'

/** Two instances share cached answers on SQLite (one file) and on PostgreSQL through Redis. */
const shared = (): Partial<Config> => (testDialect === 'sqlite' || !redisUrl ? {} : { redisUrl, redisKeyPrefix: `adoption-store-test:${randomUUID()}:` })
const PLATFORM = 'platform.test'

/** Every table with a `project_id` column, as the database itself lists them. */
async function tablesWithProjectColumn(db: Db): Promise<string[]> {
  if (testDialect === 'postgres') {
    const { rows } = await sql<{ table_name: string }>`
      select c.table_name from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and c.column_name = 'project_id' and t.table_type = 'BASE TABLE'`.execute(db)
    return rows.map((row) => row.table_name).sort()
  }
  const { rows } = await sql<{ name: string }>`
    select m.name from sqlite_master m, pragma_table_info(m.name) p where m.type = 'table' and p.name = 'project_id'`.execute(db)
  return rows.map((row) => row.name).sort()
}

async function rowsOf(db: Db, table: string, projectId: number): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)} where project_id = ${projectId}`.execute(db)
  return Number(rows[0]?.count)
}

async function rowsByTable(db: Db, projectId: number): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of await tablesWithProjectColumn(db)) counts[table] = await rowsOf(db, table, projectId)
  return counts
}

describe('deleting a project', () => {
  let a: TestApp
  let b: TestApp
  before(async () => {
    a = await createWebhooksApp({ ...shared(), platformDomain: PLATFORM })
    b = await a.sibling()
  })
  after(async () => {
    await b.close()
    await a.close()
  })

  /** A project with some of everything: animals with a photo, an order, a location, a category, an endpoint and its deliveries, a domain, a published site, a member. */
  async function filled(): Promise<{ slug: string; id: number; key: string; photoKeys: string[] }> {
    const project = await a.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    const endpoint = await addEndpoint(a, project.slug, 'http://127.0.0.1:9/hook', ['pet.created'])
    assert.ok(endpoint.id)
    const location = await admin(a, 'POST', `/projects/${project.slug}/locations`, { name: 'Main shelter' })
    assert.equal(location.statusCode, 201, location.body)
    assert.equal((await admin(a, 'PUT', `/projects/${project.slug}/categories/300`, { name: 'Guinea pig', breeds: ['Teddy'] })).statusCode, 200)
    const pets: number[] = []
    for (const name of ['Rex', 'Tom']) {
      const created = await a.request({ method: 'POST', url: '/v1/pets', headers: bearer(project.key), payload: { name, categoryId: 1 } })
      assert.equal(created.statusCode, 201, created.body)
      pets.push(created.json<{ id: number }>().id)
    }
    const image = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer()
    const photo = await a.request({ method: 'POST', url: `/v1/pets/${pets[0]}/photos`, headers: { ...bearer(project.key), 'content-type': 'image/jpeg' }, payload: image })
    assert.equal(photo.statusCode, 201, photo.body)
    const order = await a.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(project.key), payload: { petId: pets[1] } })
    assert.equal(order.statusCode, 201, order.body)
    assert.equal((await admin(a, 'POST', `/projects/${project.slug}/domains`, { name: `shop.${project.slug}.test` })).statusCode, 201)
    assert.equal((await admin(a, 'PATCH', `/projects/${project.slug}/site`, { published: true, displayName: 'Doomed Rescue' })).statusCode, 200)
    await createUser(a, { role: 'owner', projects: [project.slug] })
    const rows = await a.database.db.selectFrom('pet_photos').select('variants').where('project_id', '=', project.id).execute()
    const photoKeys = rows.flatMap((row) => (JSON.parse(row.variants) as { key: string }[]).map((variant) => variant.key))
    return { ...project, photoKeys }
  }

  test('the deletion empties every project table the deletion names: a new table with a project column must be added to it', async () => {
    assert.deepEqual(await tablesWithProjectColumn(a.database.db), [...projectTables(testDialect)].sort())
  })

  test('removes every row of the project in every table, its photo files, and keeps the other project whole', async () => {
    const doomed = await filled()
    const kept = await filled()
    const before = await rowsByTable(a.database.db, doomed.id)
    for (const table of ['pets', 'pet_photos', 'orders', 'locations', 'categories', 'api_keys', 'webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'domains', 'site_settings', 'user_projects', 'audit_entries']) {
      assert.ok((before[table] ?? 0) > 0, `the fixture has rows in ${table}`)
    }
    assert.ok(doomed.photoKeys.length > 0)
    const store = createObjectStore(a.config)
    try {
      for (const key of doomed.photoKeys) assert.ok(await store.head(key), `${key} is stored before the deletion`)
      const keptBefore = await rowsByTable(a.database.db, kept.id)

      const deleted = await admin(a, 'DELETE', `/projects/${doomed.slug}`)
      assert.equal(deleted.statusCode, 200, deleted.body)
      const body = deleted.json<{ slug: string; rows: Record<string, number>; photoFiles: number }>()
      assert.equal(body.slug, doomed.slug)
      assert.equal(body.photoFiles, doomed.photoKeys.length)
      assert.equal(body.rows.pets, 2)
      assert.equal(body.rows.orders, 1)

      const after = await rowsByTable(a.database.db, doomed.id)
      assert.deepEqual(
        Object.entries(after).filter(([, count]) => count > 0),
        [],
        'no table keeps a row of the deleted project',
      )
      assert.equal(await a.database.db.selectFrom('projects').select('id').where('id', '=', doomed.id).executeTakeFirst(), undefined)
      for (const key of doomed.photoKeys) assert.equal(await store.head(key), undefined, `${key} is deleted`)
      assert.deepEqual(await rowsByTable(a.database.db, kept.id), keptBefore, 'the other project keeps every row')
      for (const key of kept.photoKeys) assert.ok(await store.head(key), `${key} of the other project is kept`)

      // The one entry about the deletion is kept, for operators, with no project.
      const entries = await a.database.db.selectFrom('audit_entries').select(['action', 'target_id', 'project_id', 'actor_name']).where('target_id', '=', doomed.slug).execute()
      assert.deepEqual(entries, [{ action: 'project.deleted', target_id: doomed.slug, project_id: null, actor_name: 'ADMIN_TOKEN' }])
      assert.equal((await admin(a, 'GET', `/projects/${doomed.slug}`)).statusCode, 404)
      assert.equal((await admin(a, 'DELETE', `/projects/${doomed.slug}`)).statusCode, 404, 'a second deletion finds nothing')
    } finally {
      await store.close()
    }
  })

  test('its keys are refused at once and its cached answers are not served, on the other instance too', async () => {
    const doomed = await filled()
    const site = { host: `${doomed.slug}.${PLATFORM}`, accept: 'text/html' }
    // B holds the project's key, its animals and its site's page.
    for (let i = 0; i < 2; i++) {
      assert.equal((await b.request({ method: 'GET', url: '/v1/pets', headers: bearer(doomed.key) })).statusCode, 200)
      const page = await b.app.inject({ method: 'GET', url: '/', headers: site })
      assert.equal(page.statusCode, 200, page.body)
      assert.match(page.body, /Doomed Rescue/)
    }
    assert.equal((await admin(a, 'DELETE', `/projects/${doomed.slug}`)).statusCode, 200)
    for (const instance of [a, b]) {
      const pets = await instance.request({ method: 'GET', url: '/v1/pets', headers: bearer(doomed.key) })
      assert.equal(pets.statusCode, 401, pets.body)
      const page = await instance.app.inject({ method: 'GET', url: '/', headers: site })
      assert.doesNotMatch(page.body, /Doomed Rescue/)
      assert.notEqual(page.statusCode, 200)
    }
  })

  test('an owner of the project is answered 403 and the project stays; an unknown project is 404', async () => {
    const project = await a.project()
    const owner = await signIn(a, ...(Object.values(await createUser(a, { role: 'owner', projects: [project.slug] })) as [string, string]))
    const refused = await asUser(a, owner, 'DELETE', `/projects/${project.slug}`)
    assert.equal(refused.statusCode, 403, refused.body)
    assert.equal(refused.json<{ code: string }>().code, 'forbidden')
    assert.equal((await admin(a, 'GET', `/projects/${project.slug}`)).statusCode, 200)
    assert.equal((await a.request({ method: 'GET', url: '/v1/pets', headers: bearer(project.key) })).statusCode, 200)
    const unknown = await admin(a, 'DELETE', '/projects/no-such-project')
    assert.equal(unknown.statusCode, 404)
    assert.equal(unknown.json<{ code: string }>().code, 'not_found')
  })
})
