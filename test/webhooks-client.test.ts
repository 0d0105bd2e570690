/**
 * The typed client's `verifyWebhook`: it accepts what the service really sends (a delivery to a
 * real receiver), and refuses a wrong secret, an altered body and a stale timestamp. The signed
 * requests built here use node:crypto, per the Standard Webhooks specification.
 */
import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { verifyWebhook, type WebhookEvent, WebhookVerificationError } from '../src/client/index.js'
import { systemClock } from '../src/clock.js'
import { bearer } from './helpers/app.js'
import { Receiver } from './helpers/receiver.js'
import { addEndpoint, createWebhooksApp, deliverAll } from './helpers/webhooks.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The typed client's signature check, the same whichever back end signed (docs/decisions.md).
export const testPlan: TestPlan = { legs: 'sqlite' }

function signed(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000), id = 'msg_test') {
  const signature = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` }
}

const secret = `whsec_${randomBytes(32).toString('base64')}`
const other = `whsec_${randomBytes(32).toString('base64')}`
const body = JSON.stringify({ type: 'pet.created', timestamp: new Date().toISOString(), data: { id: 1, name: 'Rex', categoryId: 2, status: 'available' } })

test('verifies what the service sends, typed by the event type', async () => {
  const receiver = await Receiver.start()
  const t = await createWebhooksApp({}, { clock: systemClock })
  try {
    const project = await t.project()
    const endpoint = await addEndpoint(t, project.slug, receiver.url, ['pet.created'])
    await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'Rex', categoryId: 2 }) })
    await deliverAll(t)
    const [received] = await receiver.waitFor('pet.created')
    const event: WebhookEvent = verifyWebhook(endpoint.secret, received!.body, received!.headers)
    assert.equal(event.type, 'pet.created')
    if (event.type === 'pet.created') assert.equal(event.data.name, 'Rex')
    // With the Fetch API's Headers, and with the previous and the new secret during a rotation.
    const headers = new Headers(Object.entries(received!.headers).map(([name, value]) => [name, String(value)]))
    assert.equal(verifyWebhook([other, endpoint.secret], Buffer.from(received!.body), headers).type, 'pet.created')
  } finally {
    await t.close()
    await receiver.close()
  }
})

test('refuses a wrong secret, an altered body, a stale or missing timestamp', () => {
  assert.equal(verifyWebhook(secret, body, signed(secret, body)).type, 'pet.created')
  assert.throws(() => verifyWebhook(other, body, signed(secret, body)), WebhookVerificationError)
  assert.throws(() => verifyWebhook(secret, body.replace('Rex', 'Max'), signed(secret, body)), WebhookVerificationError)
  assert.throws(() => verifyWebhook(secret, body, signed(secret, body, Math.floor(Date.now() / 1000) - 600)), WebhookVerificationError)
  assert.throws(() => verifyWebhook(secret, body, { 'webhook-id': 'msg_test', 'webhook-signature': signed(secret, body)['webhook-signature'] }), WebhookVerificationError)
})
