/**
 * The dashboard on a service whose operator configured neither custom domains (no
 * PLATFORM_DOMAIN) nor webhooks (no WEBHOOK_ENCRYPTION_KEY): the Domains and Webhooks tabs say
 * so up front, name the setting, and offer no form that could only fail; in Chromium, on a
 * desktop and a 390 px phone.
 */
import assert from 'node:assert/strict'
import { after, describe, test } from 'node:test'
import { assertFitsPhone, chromiumMissing, dashboardSuite, screenshot, signedInPage, textOf } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page is the subject; the session's features are the accounts tests' on both back ends.
export const testPlan: TestPlan = { legs: 'either' }

describe('tabs of features the operator has not configured, in Chromium', { skip: chromiumMissing, timeout: 120_000 }, () => {
  const suite = dashboardSuite({ config: { platformDomain: undefined, platformDnsTarget: undefined, webhookEncryptionKey: undefined } })
  after(() => suite.closePages())

  test('Domains names PLATFORM_DOMAIN and has no form; Webhooks names WEBHOOK_ENCRYPTION_KEY and has no form', async () => {
    const project = await suite.t.project({ plan: 'pro' })
    const page = await signedInPage(suite, `/projects/${project.slug}/domains`, { role: 'owner', projects: [project.slug] })
    await page.getByRole('heading', { level: 2, name: 'Domains' }).waitFor()
    await textOf(page.getByRole('complementary', { name: 'Custom domains are not enabled' }), /not enabled on this service[\s\S]*PLATFORM_DOMAIN/)
    assert.equal(await page.getByLabel('Domain name').count(), 0, 'no domain can be added')
    assert.equal(await page.getByRole('button', { name: 'Add domain' }).count(), 0)
    await screenshot(page, 'domains-unconfigured')
    await assertFitsPhone(page, 'domains-unconfigured')

    await page.getByRole('link', { name: 'Webhooks' }).click()
    await page.getByRole('heading', { level: 2, name: 'Webhooks' }).waitFor()
    await textOf(page.getByRole('complementary', { name: 'Webhooks are not configured' }), /not configured on this service[\s\S]*WEBHOOK_ENCRYPTION_KEY/)
    assert.equal(await page.getByLabel('URL').count(), 0, 'no endpoint can be added')
    assert.equal(await page.getByRole('button', { name: 'Add endpoint' }).count(), 0)
    await assertFitsPhone(page, 'webhooks-unconfigured')
  })
})
