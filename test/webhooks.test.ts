/**
 * Webhooks end to end, on the suite's back end (TEST_DIALECT), to a real HTTP receiver: each
 * event type from its real trigger, written with its change (or not at all), signed per Standard
 * Webhooks (checked here with node:crypto), retried on the documented schedule, and refused for
 * addresses the operator did not allow.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, afterEach, before, beforeEach, describe, test } from 'node:test'
import { sql } from 'kysely'
import sharp from 'sharp'
import { EXPIRY_NOTICES } from '../src/keys/keys.service.js'
import { WEBHOOK_ENDPOINT_LIMITS } from '../src/limits/plans.js'
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '../src/webhooks/events.js'
import { newEventId } from '../src/webhooks/outbox.js'
import { purgeBefore } from '../src/webhooks/webhooks.repository.js'
import { PERSON_DISABLED } from '../src/webhooks/webhooks.service.js'
import { DISABLE_AFTER_MS, JITTER, MAX_ATTEMPTS, RETENTION_MS, RETRY_SCHEDULE_MS, SEALED_ELSEWHERE, secretContext } from '../src/webhooks/worker.js'
import { SecretBox } from '../src/secret-box.js'
import { admin } from './helpers/admin.js'
import { bearer, ManualClock, type TestApp } from './helpers/app.js'
import { assertSigned, type Received, Receiver, validSignatures } from './helpers/receiver.js'
import { eventually } from './helpers/wait.js'
import { eventSchemaError } from './helpers/webhook-events.js'
import { addEndpoint, createWebhooksApp, deliverAll, deliveriesOf } from './helpers/webhooks.js'

const DAY_MS = 86_400_000

let receiver: Receiver
let t: TestApp
let clock: ManualClock

beforeEach(async () => {
  receiver = await Receiver.start()
  clock = new ManualClock()
  t = await createWebhooksApp({}, { clock })
})

afterEach(async () => {
  await t.close()
  await receiver.close()
})

/** Rows of the table; of webhook_events, those whose type starts with `types` (every project's key.created is kept too). */
async function countRows(table: 'webhook_events' | 'webhook_deliveries', types = ''): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${table === 'webhook_events' ? sql`type like ${`${types}%`}` : sql`1 = 1`}`.execute(t.database.db)
  return Number(rows[0]?.n ?? 0)
}

async function post(url: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url,
    headers: { ...bearer(key), ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  })
}

describe('events from their triggers', () => {
  test('pet.created: the animal as the API shows it, with its real id, signed; batched and idempotent paths alike', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)

    // Several at once: they join one group commit, each with its event.
    const created = await Promise.all(['Rex', 'Tom', 'Kit'].map((name) => post('/v1/pets', project.key, { name, categoryId: 3 })))
    const idempotent = await post('/v1/pets', project.key, { name: 'Ida', categoryId: 4 }, { 'idempotency-key': 'once-1' })
    const replay = await post('/v1/pets', project.key, { name: 'Ida', categoryId: 4 }, { 'idempotency-key': 'once-1' })
    assert.equal(replay.headers['idempotent-replayed'], 'true')
    await deliverAll(t)

    const events = receiver.of('pet.created')
    assert.equal(events.length, 4, 'one event per animal, none for the replay')
    const pets = [...created, idempotent].map((response) => response.json<{ id: number }>())
    assert.deepEqual(events.map((e) => e.event.data).sort((a, b) => Number(a.id) - Number(b.id)), pets.sort((a, b) => a.id - b.id))
    for (const event of events) {
      assertSigned(event, endpoint.secret)
      assert.match(event.event.timestamp, /^\d{4}-\d{2}-\d{2}T/)
    }
    assert.equal(new Set(events.map((e) => e.id)).size, 4)
  })

  test('pet events carry the profile: the created animal as answered (batched and idempotent paths), the changed one as it is after the change', async () => {
    const project = await t.project()
    await addEndpoint(t, project.slug, receiver.url, ['pet.created', 'pet.updated'])
    const profile = { breeds: { primary: 'Beagle', mixed: true }, sex: 'female', goodWith: { children: 'yes' }, adoptionFee: { amount: 9000, currency: 'EUR' }, tags: ['calm'] }
    const batched = (await Promise.all(['Rex', 'Tom'].map((name) => post('/v1/pets', project.key, { name, categoryId: 1, ...profile })))).map((r) => r.json<{ id: number }>())
    const keyed = (await post('/v1/pets', project.key, { name: 'Ida', categoryId: 1, ...profile }, { 'idempotency-key': 'profile-1' })).json<{ id: number }>()
    const changed = await t.request({ method: 'PATCH', url: `/v1/pets/${keyed.id}`, headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: { sex: null, size: 'small' } })
    assert.equal(changed.statusCode, 200)
    await deliverAll(t)
    const created = receiver.of('pet.created').map((e) => e.event.data).sort((a, b) => Number(a.id) - Number(b.id))
    assert.deepEqual(created, [...batched, keyed].sort((a, b) => a.id - b.id))
    assert.deepEqual(receiver.of('pet.updated').map((e) => e.event.data), [changed.json()])
  })

  test('pet.updated and pet.deleted through /v1 and the admin API, the admin API\'s animals and orders like /v1; a refused removal writes nothing', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created', 'pet.updated', 'pet.deleted', 'order.placed', 'order.approved'])
    const send = (method: 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      t.request({ method, url, headers: { ...bearer(project.key), ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { payload: JSON.stringify(body) }) })
    const rex = (await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })).json<{ id: number }>()
    const added = await admin(t, 'POST', `/projects/${project.slug}/animals`, { name: 'Tom', categoryId: 2 })
    assert.equal(added.statusCode, 201, added.body)
    const tom = added.json<{ id: number }>()
    assert.equal((await send('PATCH', `/v1/pets/${rex.id}`, { name: 'Rexy' })).statusCode, 200)
    assert.equal((await admin(t, 'PATCH', `/projects/${project.slug}/animals/${tom.id}`, { categoryId: 5 })).statusCode, 200)
    const order = (await post('/v1/store/orders', project.key, { petId: tom.id })).json<{ id: number }>()
    // An animal with an open order is not removed: no event.
    assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/animals/${tom.id}`)).statusCode, 409)
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/orders/${order.id}/approve`)).statusCode, 200)
    assert.equal((await send('DELETE', `/v1/pets/${rex.id}`)).statusCode, 204)
    await deliverAll(t)

    // Sent side by side, so in no particular order.
    const byContent = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))
    const seen = receiver.received.map((r) => [r.event.type, r.event.data]).sort(byContent)
    assert.deepEqual(seen, [
      ['order.approved', { id: order.id, petId: tom.id, status: 'approved', createdAt: receiver.of('order.approved')[0]!.event.data.createdAt, complete: false }],
      ['order.placed', { id: order.id, petId: tom.id, status: 'placed', createdAt: receiver.of('order.placed')[0]!.event.data.createdAt, complete: false }],
      ['pet.created', { id: rex.id, name: 'Rex', categoryId: 1, status: 'available' }],
      ['pet.created', { id: tom.id, name: 'Tom', categoryId: 2, status: 'available' }],
      ['pet.deleted', { id: rex.id, name: 'Rexy', categoryId: 1, status: 'available' }],
      ['pet.updated', { id: rex.id, name: 'Rexy', categoryId: 1, status: 'available' }],
      ['pet.updated', { id: tom.id, name: 'Tom', categoryId: 5, status: 'available' }],
    ].sort(byContent))
    for (const event of receiver.received) assertSigned(event, endpoint.secret)
  })

  test('a change nobody subscribes to is kept in the event list with no delivery; another project is not told', async () => {
    const quiet = await t.project()
    const other = await t.project()
    await addEndpoint(t, other.slug, receiver.url, ['order.placed'])
    assert.equal((await post('/v1/pets', quiet.key, { name: 'Rex', categoryId: 1 })).statusCode, 201)
    assert.equal((await post('/v1/pets', other.key, { name: 'Rex', categoryId: 1 })).statusCode, 201)
    assert.equal(await countRows('webhook_deliveries'), 0)
    assert.equal(await countRows('webhook_events', 'pet.created'), 2, 'every event is kept, for a replay to a later endpoint')
  })

  test('an endpoint added, disabled or removed is seen by the next create, on every instance', async () => {
    const project = await t.project()
    const sibling = await t.sibling()
    try {
      await sibling.app.services.webhooks.worker.close()
      const create = async (on: TestApp, name: string) => {
        const response = await on.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name, categoryId: 1 }) })
        assert.equal(response.statusCode, 201)
      }
      // Both instances learn that nobody listens.
      await create(t, 'Before')
      await create(sibling, 'Before too')
      const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
      await create(sibling, 'Seen by the other instance')
      await create(t, 'Seen here')
      await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${endpoint.id}`, { enabled: false })
      await create(sibling, 'Disabled')
      await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${endpoint.id}`, { enabled: true })
      await create(sibling, 'Enabled again')
      // Every create's event is kept; those made while the endpoint was enabled have a delivery.
      const { rows } = await sql<{ data: string }>`select e.data from webhook_events e join webhook_deliveries d on d.event_id = e.id`.execute(t.database.db)
      assert.deepEqual(rows.map((row) => (JSON.parse(row.data) as { name: string }).name).sort(), ['Enabled again', 'Seen by the other instance', 'Seen here'])
      await admin(t, 'DELETE', `/projects/${project.slug}/webhooks/${endpoint.id}`)
      await create(sibling, 'Removed')
      assert.equal(await countRows('webhook_deliveries'), 0, 'none for the create after the removal (and the removed endpoint\'s went with it)')
      assert.equal(await countRows('webhook_events', 'pet.created'), 7)
    } finally {
      await sibling.app.close()
    }
  })

  test('orders: placed, approved, delivered, cancelled, each with the order; a refused move writes nothing', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['*'])
    const pet = (await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })).json<{ id: number }>()
    const pet2 = (await post('/v1/pets', project.key, { name: 'Tom', categoryId: 1 })).json<{ id: number }>()
    const order = (await post('/v1/store/orders', project.key, { petId: pet.id })).json<{ id: number }>()
    assert.equal((await post('/v1/store/orders', project.key, { petId: pet.id })).statusCode, 409)
    await post(`/v1/store/orders/${order.id}/approve`, project.key)
    await post(`/v1/store/orders/${order.id}/deliver`, project.key)
    assert.equal((await post(`/v1/store/orders/${order.id}/cancel`, project.key)).statusCode, 409)
    const second = (await post('/v1/store/orders', project.key, { petId: pet2.id })).json<{ id: number }>()
    await post(`/v1/store/orders/${second.id}/cancel`, project.key)
    await deliverAll(t)

    const types = receiver.received.map((r) => `${r.event.type}:${String(r.event.data.id)}`)
    assert.deepEqual(types.filter((type) => type.startsWith('order.')).sort(), [
      `order.approved:${order.id}`,
      `order.cancelled:${second.id}`,
      `order.delivered:${order.id}`,
      `order.placed:${order.id}`,
      `order.placed:${second.id}`,
    ].sort())
    const delivered = receiver.of('order.delivered')[0]!
    assert.deepEqual(delivered.event.data, { id: order.id, petId: pet.id, status: 'delivered', createdAt: delivered.event.data.createdAt, complete: true })
    for (const event of receiver.received) assertSigned(event, endpoint.secret)
  })

  test('key.created and key.revoked, never the secret; key.expiring 7 days and 1 day before, once each', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['key.created', 'key.revoked', 'key.expiring'])
    const created = await admin(t, 'POST', `/projects/${project.slug}/keys`, { name: 'ci', expiresInDays: 10 })
    const key = created.json<{ id: string; key: string }>()
    await admin(t, 'DELETE', `/projects/${project.slug}/keys/${key.id}`)
    const expiring = await t.key(project.slug, { expiresInMs: 10 * DAY_MS, name: 'expiring' })
    const site = (await admin(t, 'POST', `/projects/${project.slug}/keys`, { name: 'site', publishable: true, allowedOrigins: ['https://shelter.example'] })).json<{ id: string }>()
    await deliverAll(t)
    assert.deepEqual(receiver.of('key.created').map((r) => r.event.data.id), [key.id, expiring.id, site.id])
    // The key's access as the admin API shows it (the receiver checks every event against openapi.json).
    assert.deepEqual(
      receiver.of('key.created').map(({ event: { data } }) => [data.scopes, data.publishable, data.allowedOrigins]),
      [
        [null, false, []],
        [null, false, []],
        [['pets:read'], true, ['https://shelter.example']],
      ],
    )
    assert.equal(receiver.of('key.revoked')[0]?.event.data.id, key.id)
    assert.ok(receiver.of('key.revoked')[0]?.event.data.revokedAt)
    assert.ok(!receiver.received.some((r) => r.body.includes(key.key) || r.body.includes(expiring.secret)), 'no secret in any event')

    const keys = t.app.services.keys
    assert.equal(await keys.noticeExpiringKeys(), 0, 'ten days before: nothing')
    clock.advance(3 * DAY_MS + 1)
    assert.equal(await keys.noticeExpiringKeys(), 1, 'seven days before: the first notice (the revoked key has none)')
    assert.equal(await keys.noticeExpiringKeys(), 0, 'once')
    // Another instance scanning at the same time writes nothing more.
    const sibling = await t.sibling()
    try {
      assert.equal(await sibling.app.services.keys.noticeExpiringKeys(), 0)
    } finally {
      await sibling.app.close()
    }
    clock.advance(6 * DAY_MS)
    assert.equal(await keys.noticeExpiringKeys(), 1, 'one day before: the second notice')
    assert.equal(await keys.noticeExpiringKeys(), 0)
    clock.advance(DAY_MS)
    assert.equal(await keys.noticeExpiringKeys(), 0, 'expired: nothing more')
    await deliverAll(t)
    const notices = receiver.of('key.expiring')
    assert.deepEqual(
      notices.map((r) => [r.event.data.id, r.event.data.noticeDays]),
      [...EXPIRY_NOTICES].reverse().map((days) => [expiring.id, days]),
    )
    for (const event of receiver.received) assertSigned(event, endpoint.secret)
  })

  test('quota.warning at 80 % of the day and quota.exhausted at 100 %, once per day each', async () => {
    const project = await t.project({ plan: 'enterprise', perMinute: 1000, perDay: 10 })
    await addEndpoint(t, project.slug, receiver.url, ['quota.warning', 'quota.exhausted'])
    const statuses: number[] = []
    for (let i = 0; i < 14; i++) statuses.push((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(project.key) })).statusCode)
    assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(4).fill(429)])
    // The events are written beside the requests, which do not wait for them.
    await waitForRows(2)
    await deliverAll(t)
    assert.deepEqual(
      receiver.received.map((r) => [r.event.type, r.event.data.used, r.event.data.limit]).sort(),
      [
        ['quota.exhausted', 10, 10],
        ['quota.warning', 8, 10],
      ],
    )
    // The next day starts afresh.
    clock.advance(DAY_MS)
    for (let i = 0; i < 10; i++) await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(project.key) })
    await waitForRows(4)
  })

  test('user.added and user.removed when a user gains or loses access to the project (created with it, given it, deleted); an operator is no member', async () => {
    const project = await t.project()
    const other = await t.project()
    await addEndpoint(t, project.slug, receiver.url, ['user.added', 'user.removed'])
    const created = await admin(t, 'POST', '/users', { email: 'Owner@Shelter.test', role: 'owner', projects: [project.slug] })
    assert.equal(created.statusCode, 201, created.body)
    const id = created.json<{ id: number }>().id
    assert.equal((await admin(t, 'POST', '/users', { email: 'ops@shelter.test', role: 'operator' })).statusCode, 201)
    assert.equal((await admin(t, 'PUT', `/users/${id}/projects`, { projects: [other.slug] })).statusCode, 200)
    assert.equal((await admin(t, 'PUT', `/users/${id}/projects`, { projects: [other.slug, project.slug] })).statusCode, 200)
    assert.equal((await admin(t, 'PUT', `/users/${id}/projects`, { projects: [project.slug, other.slug] })).statusCode, 200, 'the projects it has: no event')
    assert.equal((await admin(t, 'DELETE', `/users/${id}`)).statusCode, 204)
    await deliverAll(t)
    const user = { id, email: 'owner@shelter.test', role: 'owner' }
    assert.deepEqual(
      receiver.received.map((r) => [r.event.type, r.event.data]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      [
        ['user.added', user],
        ['user.added', user],
        ['user.removed', user],
        ['user.removed', user],
      ],
    )
    assert.ok(!receiver.received.some((r) => /password|session/i.test(r.body)), 'no password or session in any event')
    const { rows } = await sql<{ type: string }>`select type from webhook_events where project_id = ${other.id} and type like 'user.%' order by created_at, type`.execute(t.database.db)
    assert.deepEqual(rows.map((row) => row.type), ['user.added', 'user.removed'], 'the other project keeps its own, with no endpoint')
  })

  test('ban.started for a key that kept calling while refused; ban.lifted when an operator lifts it', async () => {
    const project = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    await addEndpoint(t, project.slug, receiver.url, ['ban.started', 'ban.lifted'])
    // One request allowed, then 30 refused in the minute, and the next one bans the key.
    for (let i = 0; i < 40; i++) {
      const response = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(project.key) })
      if (response.json<{ code?: string }>().code === 'api_key_banned') break
    }
    const keyId = (await admin(t, 'GET', `/projects/${project.slug}/keys`)).json<{ id: string; bannedUntil: string | null }[]>()[0]!
    assert.ok(keyId.bannedUntil, 'the key is banned')
    assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/keys/${keyId.id}/ban`)).statusCode, 204)
    await deliverAll(t)
    const started = receiver.of('ban.started')
    assert.equal(started.length, 1)
    assert.equal(started[0]!.event.data.keyId, keyId.id)
    assert.equal(started[0]!.event.data.until, keyId.bannedUntil)
    assert.equal(receiver.of('ban.lifted')[0]?.event.data.keyId, keyId.id)
  })
})

describe('the published document', () => {
  test('every event type the service emits, produced by its real trigger, matches its schema in openapi.json', async () => {
    // domain.* and certificate.* need the test DNS and CA: webhooks-domains.test.ts checks them the same way.
    const emittedHere = WEBHOOK_EVENT_TYPES.filter((type) => !type.startsWith('domain.') && !type.startsWith('certificate.'))
    const project = await t.project({ plan: 'enterprise', perMinute: 1000, perDay: 12 })
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['*'])
    const rex = (await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })).json<{ id: number }>()
    const tom = (await post('/v1/pets', project.key, { name: 'Tom', categoryId: 1 })).json<{ id: number }>()
    await t.request({ method: 'PATCH', url: `/v1/pets/${rex.id}`, headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: { name: 'Rexy' } })
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } }).jpeg().toBuffer()
    const uploaded = await t.request({ method: 'POST', url: `/v1/pets/${rex.id}/photos`, headers: { ...bearer(project.key), 'content-type': 'image/jpeg' }, payload: image })
    assert.equal(uploaded.statusCode, 201, uploaded.body)
    const removed = await t.request({ method: 'DELETE', url: `/v1/pets/${rex.id}/photos/${uploaded.json<{ id: string }>().id}`, headers: bearer(project.key) })
    assert.equal(removed.statusCode, 204, removed.body)
    const first = (await post('/v1/store/orders', project.key, { petId: rex.id })).json<{ id: number }>()
    await post(`/v1/store/orders/${first.id}/approve`, project.key)
    await post(`/v1/store/orders/${first.id}/deliver`, project.key)
    const second = (await post('/v1/store/orders', project.key, { petId: tom.id })).json<{ id: number }>()
    await post(`/v1/store/orders/${second.id}/cancel`, project.key)
    await t.request({ method: 'DELETE', url: `/v1/pets/${tom.id}`, headers: bearer(project.key) })
    const created = (await admin(t, 'POST', `/projects/${project.slug}/keys`, { name: 'ci', expiresInDays: 3 })).json<{ id: string }>()
    assert.equal(await t.app.services.keys.noticeExpiringKeys(), 1)
    await admin(t, 'DELETE', `/projects/${project.slug}/keys/${created.id}`)
    // The rest of the day's requests: the warning, then the exhaustion.
    for (let i = 0; i < 8; i++) await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(project.key) })
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/test`)).statusCode, 202)

    const banned = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    await addEndpoint(t, banned.slug, receiver.url, ['ban.started', 'ban.lifted'])
    for (let i = 0; i < 40; i++) {
      if ((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(banned.key) })).json<{ code?: string }>().code === 'api_key_banned') break
    }
    const [bannedKey] = (await admin(t, 'GET', `/projects/${banned.slug}/keys`)).json<{ id: string }[]>()
    assert.equal((await admin(t, 'DELETE', `/projects/${banned.slug}/keys/${bannedKey!.id}/ban`)).statusCode, 204)
    // The operational events: a plan changed, an endpoint disabled by a person.
    const operated = await t.project()
    await addEndpoint(t, operated.slug, receiver.url, ['*'])
    assert.equal((await admin(t, 'PUT', `/projects/${operated.slug}/plan`, { plan: 'pro' })).statusCode, 200)
    const off = await addEndpoint(t, operated.slug, 'https://127.0.0.1:9/off', ['pet.created'])
    assert.equal((await admin(t, 'PATCH', `/projects/${operated.slug}/webhooks/${off.id}`, { enabled: false })).statusCode, 200)
    const member = (await admin(t, 'POST', '/users', { email: 'member@shelter.test', role: 'viewer', projects: [operated.slug] })).json<{ id: number }>()
    assert.equal((await admin(t, 'DELETE', `/users/${member.id}`)).statusCode, 204)
    await eventually('quota.exhausted written', async () => {
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from webhook_events where type = 'quota.exhausted'`.execute(t.database.db)
      return Number(rows[0]?.n) === 1
    })
    await deliverAll(t)

    assert.deepEqual(receiver.invalid, [])
    assert.deepEqual([...receiver.validTypes].sort(), [...emittedHere, TEST_EVENT_TYPE].sort())
  })

  test('an event that differs from its schema is caught: the check can fail', () => {
    const body = (data: unknown) => JSON.stringify({ type: 'key.expiring', timestamp: new Date().toISOString(), data })
    const key = { id: 'key_1', project: 'acme', prefix: 'as_live_ab', name: null, createdAt: new Date().toISOString(), lastUsedAt: null, expiresAt: null, revokedAt: null, bannedUntil: null, scopes: null, publishable: false, allowedOrigins: [] }
    assert.equal(eventSchemaError(body({ ...key, noticeDays: 7 })), undefined)
    assert.match(eventSchemaError(body({ ...key, noticeDays: 3 })) ?? '', /noticeDays/)
    assert.match(eventSchemaError(body({ ...key, noticeDays: 7, secret: 'x' })) ?? '', /additional/)
    assert.match(eventSchemaError(body(key)) ?? '', /noticeDays/)
  })
})

async function waitForRows(count: number): Promise<void> {
  const deadline = Date.now() + 5_000
  while ((await countRows('webhook_events', 'quota.')) < count) {
    if (Date.now() > deadline) throw new Error(`${count} events not written`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.equal(await countRows('webhook_events', 'quota.'), count)
}

describe('operational events', () => {
  test("endpoint.disabled after 5 days of failures: sent to the project's other endpoints that subscribe, never to the disabled one nor to other projects", async () => {
    const failing = await Receiver.start()
    try {
      failing.fallback = { status: 503 }
      const project = await t.project()
      const broken = await addEndpoint(t, project.slug, failing.url, ['pet.created', 'endpoint.disabled'])
      await addEndpoint(t, project.slug, receiver.url, ['endpoint.disabled'])
      const other = await t.project()
      await addEndpoint(t, other.slug, `${receiver.url}?other`, ['*'])
      await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
      await deliverAll(t)
      clock.advance(DISABLE_AFTER_MS)
      await post('/v1/pets', project.key, { name: 'B', categoryId: 1 })
      await deliverAll(t)

      const state = (await admin(t, 'GET', `/projects/${project.slug}/webhooks/${broken.id}`)).json<{ enabled: boolean; disabledReason: string }>()
      assert.equal(state.enabled, false)
      const events = receiver.of('endpoint.disabled')
      assert.equal(events.length, 1, 'one event, to the watching endpoint of the project only')
      assert.deepEqual(events[0]!.event.data, {
        id: broken.id,
        url: broken.url,
        description: null,
        disabledBy: 'service',
        reason: state.disabledReason,
        disabledAt: new Date(clock.now()).toISOString(),
      })
      assert.equal(failing.of('endpoint.disabled').length, 0, 'the disabled endpoint is not sent its own disabling')
      assert.deepEqual(receiver.invalid, [])
    } finally {
      await failing.close()
    }
  })

  test('endpoint.disabled by a person: once, with the reason; enabling, or disabling a disabled endpoint again, sends nothing', async () => {
    const project = await t.project()
    const target = await addEndpoint(t, project.slug, 'https://127.0.0.1:9/target', ['pet.created'])
    await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${target.id}`, { description: 'the CRM' })
    await addEndpoint(t, project.slug, receiver.url, ['endpoint.disabled'])
    for (const enabled of [false, false, true]) {
      const changed = await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${target.id}`, { enabled })
      assert.equal(changed.statusCode, 200, changed.body)
    }
    await deliverAll(t)
    assert.deepEqual(
      receiver.received.map((r) => r.event),
      [
        {
          type: 'endpoint.disabled',
          timestamp: new Date(clock.now()).toISOString(),
          data: { id: target.id, url: target.url, description: 'the CRM', disabledBy: 'person', reason: PERSON_DISABLED, disabledAt: new Date(clock.now()).toISOString() },
        },
      ],
    )
  })

  test('project.plan_changed: the plan and limits before and after; the plan it has sends nothing', async () => {
    const project = await t.project({ plan: 'free' })
    await addEndpoint(t, project.slug, receiver.url, ['project.plan_changed'])
    const changes = [{ plan: 'pro' }, { plan: 'pro' }, { plan: 'enterprise', perMinute: 7, perDay: 700 }, { plan: 'enterprise', perMinute: 7, perDay: 900 }]
    const answered = [{ plan: 'free', limits: { perMinute: 60, perDay: 1000 } }]
    for (const change of changes) {
      const response = await admin(t, 'PUT', `/projects/${project.slug}/plan`, change)
      assert.equal(response.statusCode, 200, response.body)
      const { plan, limits } = response.json<{ plan: string; limits: { perMinute: number; perDay: number } }>()
      answered.push({ plan, limits })
    }
    await deliverAll(t)
    const sent = receiver.of('project.plan_changed').map((r) => r.event.data)
    // Each as the admin API answered it (sent side by side, so compared in no order); the repeated pro plan is not sent.
    const byContent = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b))
    const expected = [0, 2, 3].map((i) => ({ project: project.slug, from: answered[i], to: answered[i + 1] }))
    assert.deepEqual(sent.sort(byContent), expected.sort(byContent))
    assert.deepEqual(receiver.invalid, [])
  })
})

describe('delivery', () => {
  test('retries follow the schedule with jitter, with the same webhook-id, until they give up', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    receiver.fallback = { status: 500, body: 'down for maintenance' }
    await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })
    await deliverAll(t)
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      const [delivery] = await deliveriesOf(t, project.slug, endpoint.id)
      assert.equal(delivery!.state, 'pending')
      assert.equal(delivery!.attempts, attempt)
      assert.equal(delivery!.lastStatus, 500)
      assert.equal(delivery!.responseExcerpt, 'down for maintenance')
      const wait = Date.parse(delivery!.nextAttemptAt!) - clock.now()
      const base = RETRY_SCHEDULE_MS[attempt - 1]!
      assert.ok(wait >= base * (1 - JITTER) && wait <= base * (1 + JITTER), `attempt ${attempt}: waits ${wait} ms for ${base} ms ±${JITTER * 100} %`)
      clock.advance(wait - 1)
      assert.equal(await t.app.services.webhooks.worker.runOnce(), 0, 'not due before its time')
      clock.advance(1)
      assert.equal(await t.app.services.webhooks.worker.runOnce(), 1)
    }
    const [delivery] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(delivery!.state, 'failed')
    assert.equal(delivery!.attempts, MAX_ATTEMPTS)
    assert.equal(delivery!.nextAttemptAt, null)
    assert.equal(receiver.received.length, MAX_ATTEMPTS)
    assert.equal(new Set(receiver.received.map((r) => r.id)).size, 1, 'one webhook-id on every attempt')
    const total = RETRY_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0)
    assert.ok(total > 2.5 * DAY_MS && total < 3.5 * DAY_MS, `about three days in all (${total / DAY_MS} days)`)
  })

  test('a redirect is not followed, a slow endpoint times out, and only a KiB of an answer is kept', async () => {
    await t.close()
    t = await createWebhooksApp({ webhookTimeoutMs: 300 }, { clock })
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    receiver.answers.push({ status: 302, headers: { location: 'http://127.0.0.1:9/elsewhere' } }, 'hang', { status: 400, body: 'x'.repeat(5000) })
    for (const name of ['A', 'B', 'C']) {
      await post('/v1/pets', project.key, { name, categoryId: 1 })
      await deliverAll(t)
    }
    const [big, slow, redirected] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(redirected!.lastStatus, 302)
    assert.match(redirected!.lastError!, /redirects are not followed/)
    assert.equal(receiver.received.length, 3, 'nothing was sent to the redirect target')
    assert.equal(slow!.lastStatus, null)
    assert.match(slow!.lastError!, /within 300 ms/)
    assert.equal(big!.lastStatus, 400)
    assert.equal(big!.responseExcerpt!.length, 1024)
    for (const delivery of [big, slow, redirected]) assert.equal(delivery!.state, 'pending')
  })

  test('an endpoint whose every attempt failed for 5 days is disabled with the reason; a success in between resets it', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    receiver.fallback = { status: 503 }
    await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
    await deliverAll(t)
    clock.advance(DISABLE_AFTER_MS - DAY_MS)
    await post('/v1/pets', project.key, { name: 'B', categoryId: 1 })
    await deliverAll(t)
    let state = (await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}`)).json<{ enabled: boolean; failingSince: string | null }>()
    assert.equal(state.enabled, true)
    assert.ok(state.failingSince)
    clock.advance(DAY_MS)
    await post('/v1/pets', project.key, { name: 'C', categoryId: 1 })
    await deliverAll(t)
    const disabled = (await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}`)).json<{ enabled: boolean; disabledReason: string }>()
    assert.equal(disabled.enabled, false)
    assert.match(disabled.disabledReason, /every delivery attempt failed since .* \(5 days\).*HTTP 503/)
    const before = receiver.received.length
    await post('/v1/pets', project.key, { name: 'D', categoryId: 1 })
    clock.advance(DAY_MS)
    await deliverAll(t)
    assert.equal(receiver.received.length, before, 'a disabled endpoint receives nothing')

    // Enabled again, it starts afresh.
    receiver.fallback = { status: 200 }
    const enabled = await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${endpoint.id}`, { enabled: true })
    assert.equal(enabled.json<{ disabledReason: string | null }>().disabledReason, null)
    await deliverAll(t)
    state = (await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}`)).json()
    assert.equal(state.failingSince, null)
  })

  test('rotation: both secrets sign during the overlap, the new one alone after it', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const rotated = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/rotate-secret`, { overlapHours: 2 })
    assert.equal(rotated.statusCode, 200, rotated.body)
    assert.equal(rotated.headers['cache-control'], 'no-store')
    const { secret, previousSecretExpiresAt } = rotated.json<{ secret: string; previousSecretExpiresAt: string }>()
    assert.notEqual(secret, endpoint.secret)
    assert.equal(previousSecretExpiresAt, new Date(clock.now() + 2 * 3_600_000).toISOString())
    const sentAfterCreating = async (name: string) => {
      await post('/v1/pets', project.key, { name, categoryId: 1 })
      await deliverAll(t)
      return receiver.received[receiver.received.length - 1]!
    }
    /** How many signatures the request carries, and how many verify with the new and with the previous secret. */
    const signatures = (received: Received) => [received.signature.split(' ').length, validSignatures(received, secret).length, validSignatures(received, endpoint.secret).length]
    assert.deepEqual(signatures(await sentAfterCreating('A')), [2, 1, 1], 'both sign during the overlap')
    clock.advance(2 * 3_600_000)
    assert.deepEqual(signatures(await sentAfterCreating('B')), [1, 1, 0], 'the new one alone after it')
  })

  test('a second rotation during an overlap is refused, naming when it ends, unless it ends the overlap at once; after it, rotation works again', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const rotate = (overlapHours?: number) => admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/rotate-secret`, overlapHours === undefined ? {} : { overlapHours })
    const first = await rotate(2)
    assert.equal(first.statusCode, 200, first.body)
    const { secret, previousSecretExpiresAt } = first.json<{ secret: string; previousSecretExpiresAt: string }>()

    clock.advance(3_600_000)
    const again = await rotate()
    assert.equal(again.statusCode, 409, again.body)
    assert.equal(again.json<{ code: string }>().code, 'rotation_in_progress')
    assert.ok(again.json<{ message: string }>().message.includes(previousSecretExpiresAt), 'the answer names when the overlap ends')
    assert.match(again.json<{ message: string }>().message, /"overlapHours": 0/)
    // Nothing changed: both secrets still sign.
    await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
    await deliverAll(t)
    const during = receiver.received[receiver.received.length - 1]!
    assert.deepEqual([validSignatures(during, secret).length, validSignatures(during, endpoint.secret).length], [1, 1])
    const audited = (await admin(t, 'GET', `/audit?targetId=${endpoint.id}&action=webhook.secret_rotated`)).json<unknown[]>()
    assert.equal(audited.length, 1, 'the refused rotation is not recorded')

    // After a leak: a new secret alone, at once.
    const now = await rotate(0)
    assert.equal(now.statusCode, 200, now.body)
    const replaced = now.json<{ secret: string; previousSecretExpiresAt: string | null }>()
    assert.equal(replaced.previousSecretExpiresAt, null)
    await post('/v1/pets', project.key, { name: 'B', categoryId: 1 })
    await deliverAll(t)
    const alone = receiver.received[receiver.received.length - 1]!
    assert.deepEqual([alone.signature.split(' ').length, validSignatures(alone, replaced.secret).length], [1, 1])

    // No overlap running: an overlap may start again.
    assert.equal((await rotate(1)).statusCode, 200)
  })

  test('two instances never both send an attempt', async () => {
    const project = await t.project()
    await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    for (let i = 0; i < 30; i++) await post('/v1/pets', project.key, { name: `P${i}`, categoryId: 1 })
    const sibling = await t.sibling()
    try {
      await sibling.app.services.webhooks.worker.close()
      const workers = [t.app.services.webhooks.worker, sibling.app.services.webhooks.worker]
      await Promise.all(workers.flatMap((worker) => [worker.runOnce(), worker.runOnce()]))
      await deliverAll(t)
    } finally {
      await sibling.app.close()
    }
    assert.equal(receiver.received.length, 30)
    assert.equal(new Set(receiver.received.map((r) => r.id)).size, 30, 'each event once')
  })

  test('redeliver sends the same event id again, once; a test event reaches a disabled endpoint', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
    await deliverAll(t)
    const [first] = await deliveriesOf(t, project.slug, endpoint.id)
    receiver.fallback = { status: 500 }
    const again = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries/${first!.id}/redeliver`)
    assert.equal(again.statusCode, 202, again.body)
    await deliverAll(t)
    assert.deepEqual(receiver.received.map((r) => r.id), [first!.eventId, first!.eventId])
    const [manual] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(manual!.manual, true)
    assert.equal(manual!.state, 'failed', 'a redelivery is attempted once')

    await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${endpoint.id}`, { enabled: false })
    receiver.fallback = { status: 204 }
    const test = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpoint.id}/test`)
    assert.equal(test.statusCode, 202, test.body)
    assert.equal(test.json<{ eventType: string }>().eventType, 'webhook.test')
    await deliverAll(t)
    assert.equal(receiver.of('webhook.test').length, 0, 'not while disabled')
  })
})

describe('attempts and the delivery log', () => {
  type Attempt = { attemptedAt: string; status: number | null; durationMs: number; error: string | null; responseExcerpt: string | null; request: { headers: Record<string, string>; body: string } | null }
  const attemptsOf = async (slug: string, endpointId: string, deliveryId: number) => {
    const response = await admin(t, 'GET', `/projects/${slug}/webhooks/${endpointId}/deliveries/${deliveryId}/attempts`)
    assert.equal(response.statusCode, 200, response.body)
    return response.json<Attempt[]>()
  }

  test('a delivery failing twice then succeeding keeps its 3 attempts in order, with the request each sent as the receiver got it', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    receiver.answers.push({ status: 500, body: 'down' }, { status: 429, body: 'slow down' }, { status: 200, body: 'thanks' })
    await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })
    for (let i = 0; i < 3; i++) {
      await deliverAll(t)
      clock.advance(DAY_MS)
    }
    const [delivery] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(delivery!.state, 'succeeded')
    const attempts = await attemptsOf(project.slug, endpoint.id, delivery!.id)
    assert.deepEqual(
      attempts.map((a) => [a.status, a.error, a.responseExcerpt]),
      [
        [500, 'HTTP 500', 'down'],
        [429, 'HTTP 429', 'slow down'],
        [200, null, 'thanks'],
      ],
    )
    assert.equal(receiver.received.length, 3)
    for (const [i, attempt] of attempts.entries()) {
      const got = receiver.received[i]!
      assert.equal(attempt.request!.body, got.body, 'the body kept is the body received')
      assert.deepEqual(Object.keys(attempt.request!.headers).sort(), ['content-type', 'user-agent', 'webhook-id', 'webhook-signature', 'webhook-timestamp'])
      for (const [name, value] of Object.entries(attempt.request!.headers)) assert.equal(got.headers[name], value, name)
      assert.ok(attempt.durationMs >= 0)
      if (i > 0) assert.ok(attempt.attemptedAt > attempts[i - 1]!.attemptedAt, 'oldest first')
    }
    const stored = JSON.stringify(attempts)
    assert.ok(!stored.includes(endpoint.secret) && !stored.includes(endpoint.secret.slice('whsec_'.length)), 'never the secret')
  })

  test('an attempt that could not be sent is kept with its reason and no request; an unknown delivery is a 404', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    const other = new SecretBox(randomBytes(32).toString('hex')).seal(endpoint.secret, secretContext(endpoint.id))
    await sql`update webhook_endpoints set secret = ${other} where id = ${endpoint.id}`.execute(t.database.db)
    await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })
    await deliverAll(t)
    const [delivery] = await deliveriesOf(t, project.slug, endpoint.id)
    const [attempt] = await attemptsOf(project.slug, endpoint.id, delivery!.id)
    assert.deepEqual([attempt!.status, attempt!.error, attempt!.request], [null, SEALED_ELSEWHERE, null])
    const missing = await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries/${delivery!.id + 1000}/attempts`)
    assert.equal(missing.statusCode, 404, missing.body)
  })

  test('filters by state, event type, webhook-id and time return exactly the matching deliveries, across pages; a bad filter is a 400', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created', 'pet.deleted'])
    receiver.answers.push({ status: 200 }, { status: 500 })
    const created = await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
    await deliverAll(t)
    const start = new Date(clock.now()).toISOString()
    clock.advance(DAY_MS)
    const middle = new Date(clock.now()).toISOString()
    await post('/v1/pets', project.key, { name: 'B', categoryId: 1 })
    await deliverAll(t)
    // Its retry not due yet: it stays pending.
    clock.advance(1_000)
    receiver.fallback = { status: 200 }
    await t.request({ method: 'DELETE', url: `/v1/pets/${created.json<{ id: number }>().id}`, headers: bearer(project.key) })
    await deliverAll(t)
    const all = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(all.length, 3)
    const [deleted, second, first] = all
    const ids = async (query: string) => {
      const response = await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries?${query}`)
      assert.equal(response.statusCode, 200, response.body)
      return response.json<{ id: number }[]>().map((d) => d.id)
    }
    assert.deepEqual(await ids('state=pending'), [second!.id])
    assert.deepEqual(await ids('state=succeeded'), [deleted!.id, first!.id])
    assert.deepEqual(await ids('eventType=pet.deleted'), [deleted!.id])
    assert.deepEqual(await ids('eventType=pet.created&state=succeeded'), [first!.id])
    assert.deepEqual(await ids(`webhookId=${second!.eventId}`), [second!.id])
    assert.deepEqual(await ids('webhookId=msg_none'), [])
    assert.deepEqual(await ids(`since=${encodeURIComponent(middle)}`), [deleted!.id, second!.id])
    assert.deepEqual(await ids(`since=${encodeURIComponent(start)}&until=${encodeURIComponent(middle)}`), [first!.id])
    assert.deepEqual(await ids(`until=${encodeURIComponent(middle)}`), [first!.id])
    // A time with an offset means the same instant.
    const offset = new Date(Date.parse(middle)).toISOString().replace('Z', '+00:00')
    assert.deepEqual(await ids(`since=${encodeURIComponent(offset)}`), [deleted!.id, second!.id])

    // The next page keeps the filters.
    const page = await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries?state=succeeded&limit=1`)
    assert.deepEqual(page.json<{ id: number }[]>().map((d) => d.id), [deleted!.id])
    const next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link))![1]!
    assert.match(next, /state=succeeded/)
    const rest = await admin(t, 'GET', next.replace(/^\/admin\/v1/, ''))
    assert.deepEqual(rest.json<{ id: number }[]>().map((d) => d.id), [first!.id])

    for (const query of ['state=sent', 'eventType=pet.nope', 'since=yesterday', `since=${encodeURIComponent(middle)}&until=${encodeURIComponent(start)}`]) {
      const refused = await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}/deliveries?${query}`)
      assert.equal(refused.statusCode, 400, `${query}: ${refused.body}`)
      assert.ok(refused.json<{ message: string }>().message, query)
    }
  })

  test('attempts are pruned with their delivery, 30 days after it finished; an endpoint removed takes them along', async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    receiver.answers.push({ status: 500 })
    await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
    await deliverAll(t)
    clock.advance(DAY_MS)
    await deliverAll(t)
    assert.equal(await countAttempts(), 2)
    clock.advance(RETENTION_MS + DAY_MS)
    await purgeBefore(t.database.db, new Date(clock.now() - RETENTION_MS).toISOString())
    assert.equal(await countAttempts(), 0)
    assert.equal(await countRows('webhook_deliveries'), 0)

    await post('/v1/pets', project.key, { name: 'B', categoryId: 1 })
    await deliverAll(t)
    assert.equal(await countAttempts(), 1)
    assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/webhooks/${endpoint.id}`)).statusCode, 204)
    assert.equal(await countAttempts(), 0)
  })
})

async function countAttempts(): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from webhook_attempts`.execute(t.database.db)
  return Number(rows[0]?.n ?? 0)
}

describe('metrics', () => {
  test('/metrics counts attempts by outcome, their time, and the age of the oldest due delivery', async () => {
    const project = await t.project()
    await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    receiver.answers.push({ status: 500 })
    await post('/v1/pets', project.key, { name: 'A', categoryId: 1 })
    await post('/v1/pets', project.key, { name: 'B', categoryId: 1 })
    clock.advance(90_000)
    const metrics = async () => (await t.app.inject({ method: 'GET', url: '/metrics' })).body
    assert.match(await metrics(), /^adoption_store_webhook_queue_age_seconds 90$/m, 'two due deliveries, the oldest 90 s late')
    await deliverAll(t)
    const text = await metrics()
    assert.match(text, /^adoption_store_webhook_attempts_total\{outcome="retrying"\} 1$/m)
    assert.match(text, /^adoption_store_webhook_attempts_total\{outcome="succeeded"\} 1$/m)
    assert.match(text, /^adoption_store_webhook_attempt_duration_seconds_count 2$/m)
    assert.match(text, /^adoption_store_webhook_queue_age_seconds 0$/m, 'the retry is not due yet')
  })
})

describe('addresses', () => {
  test('loopback, private, link-local and metadata addresses are refused unless allowed; http only to allowed networks', async () => {
    await t.close()
    t = await createWebhooksApp({ webhookAllowedNetworks: [] }, { clock })
    const project = await t.project()
    const refusedSpellings = [
      'https://127.0.0.1/hooks',
      'https://[::1]/hooks',
      'https://10.1.2.3/',
      'https://169.254.169.254/latest/meta-data',
      'https://[fd00:ec2::254]/',
      // IPv4 inside IPv6: mapped (::ffff:0:0/96), compatible (::/96), translated (::ffff:0:0:0/96),
      // NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 (2002::/16) and Teredo (2001::/32, the client inverted).
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[::127.0.0.1]/',
      'https://[::7f00:1]/',
      'https://[::10.0.0.1]/',
      'https://[::169.254.169.254]/',
      'https://[::ffff:0:127.0.0.1]/',
      'https://[::ffff:0:a00:1]/',
      'https://[64:ff9b::127.0.0.1]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[64:ff9b:1::a00:1]/',
      'https://[2002:7f00:1::1]/',
      'https://[2002:a9fe:a9fe::]/',
      'https://[2002:c0a8:101::]/',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/',
      'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/',
    ]
    for (const url of refusedSpellings) {
      const refused = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url, types: ['pet.created'] })
      assert.equal(refused.statusCode, 400, url)
      assert.match(refused.json<{ message: string }>().message, /refused: .* (loopback|private|linkLocal|uniqueLocal) address/, url)
    }
    const http = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: 'http://example.com/hooks', types: ['pet.created'] })
    assert.equal(http.statusCode, 400)
    assert.match(http.json<{ message: string }>().message, /must be an https URL/)
    // Names are judged by what DNS answers when connecting: see webhooks-domains.test.ts.
    const none = await admin(t, 'GET', `/projects/${project.slug}/webhooks`)
    assert.deepEqual(none.json(), [])
  })

  test('a name that resolves only to refused addresses is a 400 naming the field, when added and when the URL changes; one that does not resolve yet is accepted', async () => {
    for (const resolvers of [[], ['127.0.0.1:9']]) {
      await t.close()
      // The system's resolver (localhost from the hosts file), then DNS_RESOLVERS that know nothing.
      t = await createWebhooksApp({ webhookAllowedNetworks: [], dnsResolvers: resolvers }, { clock })
      const project = await t.project()
      for (const url of ['https://localhost/hooks', 'https://LOCALHOST./hooks', 'https://api.localhost:8443/']) {
        const refused = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url, types: ['pet.created'] })
        assert.equal(refused.statusCode, 400, `${url} with resolvers ${resolvers.join()}`)
        assert.match(refused.json<{ message: string }>().message, /^"url" is refused: .*localhost\.? resolves only to refused addresses: .* loopback address/, url)
      }
      // No record yet (the test's resolvers know no name): accepted, and judged again at each attempt.
      const later = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: 'https://hooks.not-yet.test/in', types: ['pet.created'] })
      assert.equal(later.statusCode, 201, later.body)
      const { id } = later.json<{ id: string }>()
      const moved = await admin(t, 'PATCH', `/projects/${project.slug}/webhooks/${id}`, { url: 'https://localhost/hooks' })
      assert.equal(moved.statusCode, 400)
      assert.match(moved.json<{ message: string }>().message, /^"url" is refused: localhost resolves only to refused addresses/)
      assert.equal((await admin(t, 'GET', `/projects/${project.slug}/webhooks/${id}`)).json<{ url: string }>().url, 'https://hooks.not-yet.test/in')
    }
  })
})

describe('domain checks when the service\'s own resolvers do not answer', () => {
  test('a background re-check keeps the domain\'s state and sends no domain.failed; it is retried a minute later', async () => {
    // The app's DNS_RESOLVERS (createAdminApp) is an address where no DNS server answers.
    const project = await t.project({ plan: 'pro' })
    await addEndpoint(t, project.slug, receiver.url, ['domain.failed', 'domain.verified'])
    const name = `shop-${process.pid}.resolver-down.test`
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/domains`, { name })).statusCode, 201)
    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 1, certificates: 0 })
    const domain = (await admin(t, 'GET', `/projects/${project.slug}/domains/${name}`)).json<{ status: { state: string; nextCheckAt: string | null } }>()
    assert.equal(domain.status.state, 'pending', 'an infrastructure fault is not the domain failing')
    assert.equal(domain.status.nextCheckAt, new Date(clock.now() + 60_000).toISOString())
    assert.equal(await countRows('webhook_events', 'domain.'), 0, 'no domain.failed')
    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 0, certificates: 0 }, 'not before the minute')
    clock.advance(60_000)
    assert.deepEqual(await t.app.domains.worker.runOnce(), { dns: 1, certificates: 0 })
    assert.equal(await countRows('webhook_events', 'domain.'), 0)
  })

  test('Verify answers 503 naming the resolvers, saves nothing and sends no domain.failed', async () => {
    const project = await t.project({ plan: 'pro' })
    await addEndpoint(t, project.slug, receiver.url, ['domain.failed', 'domain.verified'])
    const name = `verify-${process.pid}.resolver-down.test`
    assert.equal((await admin(t, 'POST', `/projects/${project.slug}/domains`, { name })).statusCode, 201)
    const before = (await admin(t, 'GET', `/projects/${project.slug}/domains/${name}`)).json<{ status: unknown }>()
    const verified = await admin(t, 'POST', `/projects/${project.slug}/domains/${name}/verify`)
    assert.equal(verified.statusCode, 503, verified.body)
    const body = verified.json<{ code: string; message: string }>()
    assert.equal(body.code, 'service_unavailable')
    assert.match(body.message, /the service's DNS resolvers do not answer\. The domain keeps its state \(pending\)/)
    assert.deepEqual((await admin(t, 'GET', `/projects/${project.slug}/domains/${name}`)).json<{ status: unknown }>().status, before.status)
    assert.equal(await countRows('webhook_events', 'domain.'), 0, 'no domain.failed')
  })
})

describe('endpoints per plan', () => {
  test('a project has at most its plan\'s number of endpoints: one more is a 409 limit_reached naming the limit; a larger plan allows more', async () => {
    const project = await t.project({ plan: 'free' })
    const add = (i: number) => admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: `${receiver.url}/${i}`, types: ['pet.created'] })
    for (let i = 0; i < WEBHOOK_ENDPOINT_LIMITS.free; i++) assert.equal((await add(i)).statusCode, 201)
    const over = await add(WEBHOOK_ENDPOINT_LIMITS.free)
    assert.equal(over.statusCode, 409, over.body)
    const { code, message } = over.json<{ code: string; message: string }>()
    assert.equal(code, 'limit_reached')
    assert.ok(message.includes(`${WEBHOOK_ENDPOINT_LIMITS.free} webhook endpoints`) && message.includes('free') && message.includes(`pro allows ${WEBHOOK_ENDPOINT_LIMITS.pro}`), message)
    assert.equal((await admin(t, 'GET', `/projects/${project.slug}/webhooks`)).json<unknown[]>().length, WEBHOOK_ENDPOINT_LIMITS.free)

    // Removing one makes room; so does a larger plan.
    const [first] = (await admin(t, 'GET', `/projects/${project.slug}/webhooks`)).json<{ id: string }[]>()
    assert.equal((await admin(t, 'DELETE', `/projects/${project.slug}/webhooks/${first!.id}`)).statusCode, 204)
    assert.equal((await add(100)).statusCode, 201)
    assert.equal((await admin(t, 'PUT', `/projects/${project.slug}/plan`, { plan: 'pro' })).statusCode, 200)
    for (let i = WEBHOOK_ENDPOINT_LIMITS.free; i < WEBHOOK_ENDPOINT_LIMITS.pro; i++) assert.equal((await add(200 + i)).statusCode, 201)
    assert.equal((await add(300)).statusCode, 409)
  })
})

describe('secrets sealed with another key', () => {
  const oldKey = randomBytes(32).toString('hex')
  /** The endpoint's secret as another key (one the service was started with before) sealed it. */
  const sealedWithOldKey = async (app: TestApp, endpoint: { id: string; secret: string }) => {
    await sql`update webhook_endpoints set secret = ${new SecretBox(oldKey).seal(endpoint.secret, secretContext(endpoint.id))} where id = ${endpoint.id}`.execute(app.database.db)
  }

  test("a delivery fails with a reason the operator can act on, and is retried; it is not left pending for ever", async () => {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    await sealedWithOldKey(t, endpoint)
    assert.equal((await post('/v1/pets', project.key, { name: 'Rex', categoryId: 1 })).statusCode, 201)
    assert.equal(await t.app.services.webhooks.worker.runOnce(), 1)
    const [delivery] = await deliveriesOf(t, project.slug, endpoint.id)
    assert.equal(delivery!.attempts, 1)
    assert.equal(delivery!.lastError, SEALED_ELSEWHERE)
    assert.match(delivery!.lastError!, /WEBHOOK_PREVIOUS_ENCRYPTION_KEYS/)
    // Retried on the schedule: the operator may restart with the key meanwhile.
    assert.equal(delivery!.state, 'pending')
    assert.ok(Date.parse(delivery!.nextAttemptAt!) >= clock.now() + RETRY_SCHEDULE_MS[0]! * (1 - JITTER))
    assert.equal(receiver.received.length, 0, 'nothing was sent unsigned')
  })

  test('with the old key in WEBHOOK_PREVIOUS_ENCRYPTION_KEYS, it opens the secret and the delivery is signed with it', async () => {
    const rotated = await createWebhooksApp({ webhookPreviousEncryptionKeys: [randomBytes(32).toString('hex'), oldKey] }, { clock })
    try {
      const project = await rotated.project()
      const endpoint = await addEndpoint(rotated, project.slug, receiver.url, ['pet.created'])
      await sealedWithOldKey(rotated, endpoint)
      const created = await rotated.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'Rex', categoryId: 1 }) })
      assert.equal(created.statusCode, 201)
      await deliverAll(rotated)
      const [received] = await receiver.waitFor('pet.created')
      assertSigned(received!, endpoint.secret)
      assert.equal((await deliveriesOf(rotated, project.slug, endpoint.id))[0]!.state, 'succeeded')
    } finally {
      await rotated.close()
    }
  })
})

describe('without a sealing key', () => {
  let bare: TestApp
  before(async () => {
    bare = await createWebhooksApp({ webhookEncryptionKey: undefined, certificateEncryptionKey: undefined })
  })
  after(async () => bare.close())
  test('adding an endpoint says what to configure', async () => {
    const project = await bare.project()
    const response = await admin(bare, 'POST', `/projects/${project.slug}/webhooks`, { url: 'https://example.com/', types: ['pet.created'] })
    assert.equal(response.statusCode, 503)
    assert.match(response.json<{ message: string }>().message, /WEBHOOK_ENCRYPTION_KEY/)
  })
})

describe('event ids', () => {
  test('are msg_ and 24 base62 digits that sort by time, with a random part that differs within a millisecond', () => {
    // Times a millisecond, a 62nd digit's step and years apart, each given twice.
    const times = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2026, 0, 1) + 62, Date.UTC(2026, 0, 1) + 62 ** 3, Date.UTC(2040, 5, 30), Date.UTC(2100, 0, 1)]
    const ids = times.flatMap((at) => [newEventId(at), newEventId(at)])
    for (const id of ids) assert.match(id, /^msg_[0-9A-Za-z]{24}$/)
    for (let i = 0; i < times.length; i++) {
      const [first, second] = [ids[2 * i]!, ids[2 * i + 1]!]
      assert.equal(first.slice(0, 12), second.slice(0, 12), 'the same time, the same prefix')
      assert.notEqual(first, second, 'the random part differs')
      if (i > 0) assert.ok(ids[2 * i - 1]!.slice(0, 12) < first.slice(0, 12), `${ids[2 * i - 1]} sorts before ${first}`)
    }
  })
})
