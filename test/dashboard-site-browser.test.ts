/**
 * The dashboard's Site page in Chromium: the settings loaded, changed and saved (checked through
 * the admin API and on the site itself), a refused colour shown on its field, the embed snippet
 * naming the site's /embed; an order placed through the site shows who asked on the Orders page.
 * axe-core finds nothing; the page fits a 390 px phone.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { admin } from './helpers/admin.js'
import { bearer } from './helpers/app.js'
import { assertFitsPhone, axeViolations, chromiumMissing, dashboardSuite, signedInPage, textOf } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page is the subject; the settings' rules run on both back ends in test/site.test.ts.
export const testPlan: TestPlan = { legs: 'either' }

describe('the Site page of the dashboard, in Chromium', { skip: chromiumMissing, timeout: 180_000 }, () => {
  const suite = dashboardSuite()

  test('settings saved, a refused colour on its field, the embed snippet, the enquiry beside its order', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const page = await signedInPage(suite, `/projects/${shelter.slug}/site`, { role: 'operator' })
    await page.getByRole('heading', { level: 2, name: 'Adoption site' }).waitFor()
    assert.equal(await page.getByLabel('Published').isChecked(), true)
    await page.getByLabel('Shelter name').fill('Springfield Rescue')
    await page.getByLabel('Colour').fill('red')
    await page.getByRole('button', { name: 'Save the site' }).click()
    // The API's 400 names the field: the message is shown under it, and the field is marked invalid.
    await textOf(page.locator('#site-color-error'), /primaryColor/)
    assert.equal(await page.getByLabel('Colour').getAttribute('aria-invalid'), 'true')
    await page.getByLabel('Colour').fill('#1f5f8b')
    await page.getByRole('button', { name: 'Save the site' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'saved' }), /The site is saved and published\./)
    const saved = await admin(suite.t, 'GET', `/projects/${shelter.slug}/site`)
    assert.deepEqual(saved.json(), { published: true, displayName: 'Springfield Rescue', primaryColor: '#1f5f8b' })
    const code = await page.locator('#site-embed-code').innerText()
    assert.match(code, new RegExp(`<iframe src="https://${shelter.slug}\\.platform\\.test/embed"`))
    assert.deepEqual(await axeViolations(page), [])
    await assertFitsPhone(page, 'dashboard-site')

    // An order from the site's form, with who asked, on the Orders page.
    const pet = await suite.t.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer(shelter.key), payload: { name: 'Luna', categoryId: 1 } })
    const petId = pet.json<{ id: number }>().id
    await suite.t.app.services.orders.place(shelter.id, petId, undefined, { name: 'Ada Lovelace', email: 'ada@example.org', message: 'We have a garden.' })
    await page.goto(`/dashboard/projects/${shelter.slug}/orders`)
    const row = page.getByRole('row').filter({ hasText: 'Luna' })
    await textOf(row, /Enquiry from Ada Lovelace · ada@example\.org/)
    await row.getByText('Message').click()
    await textOf(row, /We have a garden\./)
    assert.deepEqual(await axeViolations(page), [])
    await suite.closePages()
  })
})
