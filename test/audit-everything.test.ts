/**
 * The audit log beyond the admin's changes: every write through /v1 with the API key that made
 * it (on the group commit's path, with a webhook event, and with an Idempotency-Key alike), none
 * for a refused or rolled-back write, the service's own actions (a ban by the limiter, an
 * endpoint disabled after failing) as `system`, failed sign-ins as `anonymous`, and the list's
 * `actorKind` and `key` filters.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import sharp from 'sharp'
import { DISABLE_AFTER_MS } from '../src/webhooks/worker.js'
import type { AuditEntry } from '../src/audit/audit.schemas.js'
import { admin } from './helpers/admin.js'
import { createUser, signInRequest, TEST_PASSWORD, uniqueEmail } from './helpers/accounts.js'
import { bearer, ManualClock, type TestApp } from './helpers/app.js'
import { Receiver } from './helpers/receiver.js'
import { eventually } from './helpers/wait.js'
import { addEndpoint, createWebhooksApp, deliverAll } from './helpers/webhooks.js'


let t: TestApp
let clock: ManualClock

beforeEach(async () => {
  clock = new ManualClock()
  t = await createWebhooksApp({}, { clock })
})

afterEach(async () => {
  await t.close()
})

async function entries(query: string): Promise<AuditEntry[]> {
  const response = await admin(t, 'GET', `/audit${query}`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json<AuditEntry[]>()
}

function send(method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.request({
    method,
    url,
    headers: { ...bearer(key), ...headers, ...(body !== undefined && { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  })
}

/** A project with two keys, by their ids and secrets. */
async function projectWithKeys(): Promise<{ slug: string; first: { id: string; secret: string }; second: { id: string; secret: string } }> {
  const { slug } = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
  return { slug, first: await t.key(slug), second: await t.key(slug) }
}

describe('writes through /v1', () => {
  test('each write has an entry with the key that made it, its request id and what changed; the key\'s secret is nowhere', async () => {
    const { slug, first, second } = await projectWithKeys()
    const created = await send('POST', '/v1/pets', first.secret, { name: 'Rex', categoryId: 1 })
    assert.equal(created.statusCode, 201, created.body)
    const pet = created.json<{ id: number }>().id
    const updated = await send('PATCH', `/v1/pets/${pet}`, second.secret, { name: 'Rexy' })
    assert.equal(updated.statusCode, 200, updated.body)

    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer()
    const photos: string[] = []
    for (let i = 0; i < 2; i++) {
      const uploaded = await t.request({ method: 'POST', url: `/v1/pets/${pet}/photos`, headers: { ...bearer(first.secret), 'content-type': 'image/jpeg' }, payload: image })
      assert.equal(uploaded.statusCode, 201, uploaded.body)
      photos.push(uploaded.json<{ id: string }>().id)
    }
    assert.equal((await send('PUT', `/v1/pets/${pet}/photos/order`, first.secret, { ids: [...photos].reverse() })).statusCode, 200)
    assert.equal((await send('DELETE', `/v1/pets/${pet}/photos/${photos[0]}`, first.secret)).statusCode, 204)

    const placed = await send('POST', '/v1/store/orders', second.secret, { petId: pet })
    assert.equal(placed.statusCode, 201, placed.body)
    const order = placed.json<{ id: number }>().id
    assert.equal((await send('POST', `/v1/store/orders/${order}/approve`, second.secret)).statusCode, 200)
    assert.equal((await send('POST', `/v1/store/orders/${order}/cancel`, first.secret)).statusCode, 200)
    const removed = await send('DELETE', `/v1/pets/${pet}`, second.secret)
    assert.equal(removed.statusCode, 204, removed.body)

    const log = (await entries(`?project=${slug}&actorKind=api_key`)).reverse()
    assert.deepEqual(
      log.map((e) => [e.action, e.actor.keyId, e.target.type, e.target.id]),
      [
        ['pet.created', first.id, 'pet', String(pet)],
        ['pet.updated', second.id, 'pet', String(pet)],
        ['pet.photo_added', first.id, 'pet', String(pet)],
        ['pet.photo_added', first.id, 'pet', String(pet)],
        ['pet.photos_ordered', first.id, 'pet', String(pet)],
        ['pet.photo_removed', first.id, 'pet', String(pet)],
        ['order.placed', second.id, 'order', String(order)],
        ['order.approved', second.id, 'order', String(order)],
        ['order.cancelled', first.id, 'order', String(order)],
        ['pet.deleted', second.id, 'pet', String(pet)],
      ],
    )
    assert.deepEqual(log[0], {
      id: log[0]!.id,
      at: new Date(clock.now()).toISOString(),
      actor: { kind: 'api_key', name: `key:${first.id}`, keyId: first.id },
      action: 'pet.created',
      target: { type: 'pet', id: String(pet) },
      project: slug,
      requestId: created.headers['x-request-id'],
      details: { name: 'Rex', categoryId: 1, status: 'available' },
    })
    assert.deepEqual(log[1]!.details, { from: { name: 'Rex' }, to: { name: 'Rexy' } })
    assert.equal(log[1]!.requestId, updated.headers['x-request-id'])
    assert.equal(log[9]!.requestId, removed.headers['x-request-id'])
    const text = JSON.stringify(log)
    for (const secret of [first.secret, second.secret]) assert.ok(!text.includes(secret), 'no secret in the log')
  })

  test('creates on every path have their entry: together in a group commit, with a webhook event, with an Idempotency-Key (once, not for the replay)', async () => {
    const { slug, first } = await projectWithKeys()
    const receiver = await Receiver.start()
    try {
      await addEndpoint(t, slug, receiver.url, ['pet.created'])
      const together = await Promise.all(['A', 'B', 'C'].map((name) => send('POST', '/v1/pets', first.secret, { name, categoryId: 2 })))
      const once = await send('POST', '/v1/pets', first.secret, { name: 'D', categoryId: 2 }, { 'idempotency-key': 'audit-once' })
      const replay = await send('POST', '/v1/pets', first.secret, { name: 'D', categoryId: 2 }, { 'idempotency-key': 'audit-once' })
      assert.equal(replay.headers['idempotent-replayed'], 'true')
      await deliverAll(t)
      const ids = [...together, once].map((response) => {
        assert.equal(response.statusCode, 201, response.body)
        return String(response.json<{ id: number }>().id)
      })
      const log = await entries(`?project=${slug}&action=pet.created`)
      assert.deepEqual(log.map((e) => e.target.id).sort(), [...ids].sort(), 'one entry per animal, with its own id')
      assert.deepEqual(
        log.map((e) => [e.target.id, e.details.name]).sort(),
        [...together, once].map((r) => [String(r.json<{ id: number }>().id), r.json<{ name: string }>().name]).sort(),
      )
      // The event's animal kept its own id: the entry written in the same batch did not move it.
      assert.deepEqual(receiver.of('pet.created').map((e) => String((e.event.data as { id: number }).id)).sort(), [...ids].sort())
    } finally {
      await receiver.close()
    }
  })

  test('a refused or rolled-back write leaves no entry', async () => {
    const { slug, first } = await projectWithKeys()
    assert.equal((await send('POST', '/v1/pets', first.secret, { name: '', categoryId: 1 })).statusCode, 400)
    assert.equal((await send('DELETE', '/v1/pets/999999', first.secret)).statusCode, 404)
    const pet = (await send('POST', '/v1/pets', first.secret, { name: 'Luna', categoryId: 1 })).json<{ id: number }>().id
    assert.equal((await send('POST', '/v1/store/orders', first.secret, { petId: pet })).statusCode, 201)
    // The animal is pending: a second order is refused in its transaction.
    assert.equal((await send('POST', '/v1/store/orders', first.secret, { petId: pet })).statusCode, 409)
    // The removal deletes, finds the open order and rolls back: no pet.deleted.
    const refused = await send('DELETE', `/v1/pets/${pet}`, first.secret)
    assert.equal(refused.statusCode, 409, refused.body)
    assert.equal(refused.json<{ code: string }>().code, 'pet_has_open_order')
    // An external id taken by another animal: refused by the database, with the entry that came with it.
    assert.equal((await send('POST', '/v1/pets', first.secret, { name: 'One', categoryId: 1, externalId: 'x-1' })).statusCode, 201)
    assert.equal((await send('POST', '/v1/pets', first.secret, { name: 'Two', categoryId: 1, externalId: 'x-1' })).statusCode, 409)
    assert.deepEqual(
      (await entries(`?project=${slug}`)).filter((e) => e.actor.kind === 'api_key').map((e) => [e.action, e.details.name ?? null]),
      [
        ['pet.created', 'One'],
        ['order.placed', null],
        ['pet.created', 'Luna'],
      ],
    )
  })

  test('the list filters by actor kind and by key; a key of another project matches nothing an owner cannot see', async () => {
    const { slug, first, second } = await projectWithKeys()
    for (const key of [first, second, first]) assert.equal((await send('POST', '/v1/pets', key.secret, { name: 'N', categoryId: 1 })).statusCode, 201)
    assert.equal((await admin(t, 'POST', `/projects/${slug}/keys`, { name: 'by admin' })).statusCode, 201)

    const byFirst = await entries(`?key=${first.id}`)
    assert.equal(byFirst.length, 2)
    assert.ok(byFirst.every((e) => e.actor.keyId === first.id && e.project === slug))
    assert.equal((await entries(`?key=${second.id}&actorKind=api_key`)).length, 1)
    assert.equal((await entries(`?key=${second.id}&actorKind=cli`)).length, 0)
    const admins = await entries(`?project=${slug}&actorKind=admin_token`)
    assert.deepEqual(admins.map((e) => e.action), ['key.created'])
    const cli = await entries(`?project=${slug}&actorKind=cli`)
    assert.ok(cli.length > 0 && cli.every((e) => e.actor.kind === 'cli'))

    const wrong = await admin(t, 'GET', '/audit?actorKind=robot')
    assert.equal(wrong.statusCode, 400, wrong.body)
    assert.equal(wrong.json<{ code: string }>().code, 'invalid_request')
    // The next page keeps the filters.
    const page = await admin(t, 'GET', `/audit?actorKind=api_key&key=${first.id}&limit=1`)
    assert.match(String(page.headers.link), new RegExp(`actorKind=api_key&key=${first.id}&limit=1&before=\\d+>; rel="next"`))
  })
})

describe('the service\'s own actions', () => {
  test('a ban started by the rate limiter is recorded as the system\'s, with the key', async () => {
    const { slug, key } = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    const keys = (await admin(t, 'GET', `/projects/${slug}/keys`)).json<{ id: string }[]>()
    const list = () => t.request({ method: 'GET', url: '/v1/pets', headers: bearer(key) })
    assert.equal((await list()).statusCode, 200)
    for (let i = 0; i < 30; i++) assert.equal((await list()).json<{ code: string }>().code, 'rate_limited')
    assert.equal((await list()).json<{ code: string }>().code, 'api_key_banned')
    let banned: AuditEntry[] = []
    await eventually('the ban is recorded', async () => (banned = await entries(`?project=${slug}&action=key.banned`)).length > 0)
    assert.equal(banned.length, 1)
    assert.deepEqual(banned[0]!.actor, { kind: 'system', name: 'system' })
    assert.deepEqual(banned[0]!.target, { type: 'key', id: keys[0]!.id })
    // The first ban of the key (level 0): 10 minutes.
    assert.deepEqual(banned[0]!.details, { level: 0, until: new Date(Date.parse(banned[0]!.at) + 10 * 60_000).toISOString() })
    assert.deepEqual((await entries(`?actorKind=system&project=${slug}`)).map((e) => e.action), ['key.banned'])
  })

  test('an endpoint disabled after failing for 5 days is recorded as the system\'s', async () => {
    const receiver = await Receiver.start()
    try {
      const project = await t.project()
      const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
      receiver.fallback = { status: 503 }
      assert.equal((await send('POST', '/v1/pets', project.key, { name: 'A', categoryId: 1 })).statusCode, 201)
      await deliverAll(t)
      clock.advance(DISABLE_AFTER_MS)
      assert.equal((await send('POST', '/v1/pets', project.key, { name: 'B', categoryId: 1 })).statusCode, 201)
      await deliverAll(t)
      assert.equal((await admin(t, 'GET', `/projects/${project.slug}/webhooks/${endpoint.id}`)).json<{ enabled: boolean }>().enabled, false)
      const disabled = await entries(`?project=${project.slug}&action=webhook.disabled`)
      assert.equal(disabled.length, 1)
      assert.deepEqual(disabled[0]!.actor, { kind: 'system', name: 'system' })
      assert.deepEqual(disabled[0]!.target, { type: 'webhook', id: endpoint.id })
      assert.equal(disabled[0]!.requestId, null)
      assert.equal(typeof disabled[0]!.details.failingSince, 'string')
    } finally {
      await receiver.close()
    }
  })
})

describe('failed sign-ins', () => {
  test('a wrong password and an unknown email are recorded (never the password); a throttled attempt is not', async () => {
    const email = uniqueEmail('audited')
    await createUser(t, { email, role: 'operator' })
    const wrong = await signInRequest(t, email, 'not the password at all', '10.1.0.1')
    assert.equal(wrong.statusCode, 401, wrong.body)
    const unknown = await signInRequest(t, uniqueEmail('nobody'), 'whatever password 1', '10.1.0.2')
    assert.equal(unknown.statusCode, 401, unknown.body)
    assert.equal((await signInRequest(t, email, TEST_PASSWORD, '10.1.0.3')).statusCode, 200)

    const failed = await entries('?action=session.sign_in_failed')
    assert.equal(failed.length, 2)
    const [second, first] = failed
    assert.deepEqual(first!.actor, { kind: 'anonymous', name: 'anonymous' })
    assert.equal(first!.target.type, 'user')
    assert.match(first!.target.id, /^\d+$/, "the user's id")
    assert.deepEqual(first!.details, { email, address: '10.1.0.1', reason: 'wrong_password' })
    assert.equal(first!.requestId, wrong.headers['x-request-id'])
    assert.equal(first!.project, null)
    assert.equal(second!.details.reason, 'unknown_email')
    assert.deepEqual(second!.target, { type: 'user', id: second!.details.email })
    assert.ok(!JSON.stringify(failed).includes('not the password at all'))
    assert.ok(!JSON.stringify(failed).includes('whatever password 1'))

    // The email's allowance is 5 failures per 15 minutes: past it, attempts are refused unrecorded.
    for (let i = 0; i < 8; i++) await signInRequest(t, email, `wrong ${i} password`, `10.1.1.${i}`)
    const after = await entries(`?action=session.sign_in_failed&targetType=user&targetId=${first!.target.id}`)
    assert.equal(after.length, 5, 'bounded by the throttle: 5 failures recorded for the email')
  })
})
