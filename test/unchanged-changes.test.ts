/**
 * A change that changes nothing: every PUT and PATCH of the admin API that records an audit entry
 * or emits an event answers 200 with the resource as it is, and records and emits nothing, when
 * the values sent are the ones it already has.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, test } from 'node:test'
import { sql } from 'kysely'
import { admin } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'
import { uniqueEmail } from './helpers/accounts.js'
import { Receiver } from './helpers/receiver.js'
import { addEndpoint, createWebhooksApp } from './helpers/webhooks.js'

let t: TestApp
let receiver: Receiver

beforeEach(async () => {
  receiver = await Receiver.start()
  t = await createWebhooksApp()
})

afterEach(async () => {
  await t.close()
  await receiver.close()
})

/** The audit entries and webhook events written so far. */
async function written(): Promise<{ audit: number; events: number }> {
  const count = async (table: 'audit_entries' | 'webhook_events') => Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(t.database.db)).rows[0]?.n)
  return { audit: await count('audit_entries'), events: await count('webhook_events') }
}

/** Sends the same change twice: the first changes something, the second nothing (200, the same resource, nothing written). */
async function twice(what: string, method: 'PUT' | 'PATCH', url: string, body: unknown, same: (first: unknown, second: unknown) => void = assert.deepEqual): Promise<void> {
  const first = await admin(t, method, url, body)
  assert.equal(first.statusCode, 200, `${what}: ${first.body}`)
  const before = await written()
  const second = await admin(t, method, url, body)
  assert.equal(second.statusCode, 200, `${what} again: ${second.body}`)
  same(first.json(), second.json())
  assert.deepEqual(await written(), before, `${what} again records and emits nothing`)
}

test('every PUT and PATCH of the admin API that changes nothing records no audit entry and emits no event', async () => {
  const project = await t.project({ plan: 'free' })
  const base = `/projects/${project.slug}`
  await addEndpoint(t, project.slug, receiver.url, ['*'])

  await twice('plan', 'PUT', `${base}/plan`, { plan: 'pro' })
  await twice('enterprise plan', 'PUT', `${base}/plan`, { plan: 'enterprise', perMinute: 5, perDay: 500 })

  const pet = await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'Rex', categoryId: 1, sex: 'male' }) })
  assert.equal(pet.statusCode, 201)
  const { id: petId } = pet.json<{ id: number }>()
  await twice('animal', 'PATCH', `${base}/animals/${petId}`, { name: 'Rexy', sex: 'male', breeds: { primary: 'Beagle' } })
  // The /v1 PATCH is the same change.
  const again = await written()
  const v1 = await t.request({ method: 'PATCH', url: `/v1/pets/${petId}`, headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name: ' Rexy ', categoryId: 1 }) })
  assert.equal(v1.statusCode, 200, v1.body)
  assert.deepEqual(await written(), again, '/v1 PATCH that changes nothing emits nothing')

  await twice('category', 'PUT', `${base}/categories/3`, { name: 'Hamsters', breeds: ['Syrian', 'Roborovski'] })
  const location = await admin(t, 'POST', `${base}/locations`, { name: 'Main', address: { city: 'Springfield', country: 'US' } })
  assert.equal(location.statusCode, 201, location.body)
  await twice('location', 'PATCH', `${base}/locations/${location.json<{ id: number }>().id}`, { name: 'Main shelter', address: { city: 'Springfield' }, coordinates: { latitude: 1.5, longitude: 2 } })

  const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
  await twice('webhook endpoint', 'PATCH', `${base}/webhooks/${endpoint.id}`, { url: receiver.url, types: ['pet.deleted', 'pet.created'], description: 'ours', enabled: false })

  const domain = await admin(t, 'POST', `${base}/domains`, { name: `shop-${process.pid}.example.com` })
  assert.equal(domain.statusCode, 201, domain.body)
  await twice('primary domain', 'PUT', `${base}/domains/primary`, { name: `shop-${process.pid}.example.com` })
  await twice('no primary domain', 'PUT', `${base}/domains/primary`, { name: null })

  const other = await t.project()
  const user = await admin(t, 'POST', '/users', { email: uniqueEmail('owner'), role: 'owner', projects: [other.slug] })
  assert.equal(user.statusCode, 201, user.body)
  await twice("an owner's projects", 'PUT', `/users/${user.json<{ id: number }>().id}/projects`, { projects: [project.slug, other.slug] })
})
