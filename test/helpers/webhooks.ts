import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { Config } from '../../src/config.js'
import type { WebhookDelivery, WebhookEndpoint } from '../../src/webhooks/webhooks.schemas.js'
import { admin, createAdminApp } from './admin.js'
import type { TestApp, TestAppOptions } from './app.js'

/** Loopback is where the test receivers listen: the operator setting that allows it, as a deployment would set it. */
export const LOOPBACK_ALLOWED: Partial<Config> = { webhookAllowedNetworks: ['127.0.0.0/8'] }

/**
 * An app with webhooks: a key that seals secrets, loopback allowed, and the delivery worker
 * stopped (tests run passes with `worker.runOnce()`, so nothing is sent behind their back)
 * unless `background` is set.
 */
export async function createWebhooksApp(config: Partial<Config> = {}, options: TestAppOptions & { background?: boolean } = {}): Promise<TestApp> {
  const t = await createAdminApp({ ...options, config: { webhookEncryptionKey: randomBytes(32).toString('hex'), ...LOOPBACK_ALLOWED, ...config } })
  if (!options.background) await t.app.services.webhooks.worker.close()
  return t
}

export async function addEndpoint(t: TestApp, slug: string, url: string, types: string[]): Promise<WebhookEndpoint & { secret: string }> {
  const response = await admin(t, 'POST', `/projects/${slug}/webhooks`, { url, types })
  assert.equal(response.statusCode, 201, response.body)
  return response.json()
}

export async function deliveriesOf(t: TestApp, slug: string, endpointId: string): Promise<WebhookDelivery[]> {
  const response = await admin(t, 'GET', `/projects/${slug}/webhooks/${endpointId}/deliveries?limit=100`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

/** Runs delivery passes until none is due. */
export async function deliverAll(t: TestApp): Promise<void> {
  while ((await t.app.services.webhooks.worker.runOnce()) > 0);
}
