import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { commandLineChange } from '../../src/audit/audit.js'
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
export async function createWebhooksApp(config: Partial<Config> = {}, options: TestAppOptions & { background?: boolean; granted?: boolean } = {}): Promise<TestApp> {
  const t = await createAdminApp({ ...options, config: { webhookEncryptionKey: randomBytes(32).toString('hex'), ...LOOPBACK_ALLOWED, ...config } })
  if (!options.background) await t.app.services.webhooks.worker.close()
  return options.granted === false ? t : grantingPrivateNetworks(t)
}

/** An operator's grant of the allowed networks to a project, as the CLI and the admin API make it. */
export async function grantPrivateNetworks(t: Pick<TestApp, 'app'>, slug: string): Promise<void> {
  const granted = await t.app.services.projects.setWebhookPrivateNetworks(slug, true, commandLineChange())
  assert.ok(granted.ok)
}

/**
 * The app, each of whose new projects (its restarts' and siblings' too) an operator granted the
 * allowed networks, where the test receivers listen; `granted: false` leaves them without.
 */
function grantingPrivateNetworks(t: TestApp): TestApp {
  return {
    ...t,
    async project(options) {
      const project = await t.project(options)
      await grantPrivateNetworks(t, project.slug)
      return project
    },
    restart: async () => grantingPrivateNetworks(await t.restart()),
    sibling: async () => grantingPrivateNetworks(await t.sibling()),
  }
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
