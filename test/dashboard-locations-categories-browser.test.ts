/**
 * The dashboard's Locations and Categories tabs in Chromium, against the real app on loopback:
 * locations added, edited (a merge patch of what changed) and removed, a location with animals
 * refused with the page's explanation; the default categories and the project's own, renamed,
 * given breeds, added with a chosen id, removed or restored. What the pages did is checked in the
 * admin API and on /v1 with the project's key. On a desktop and a 390 px phone; screenshots go
 * to test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { admin } from './helpers/admin.js'
import { assertTableFits, chromiumMissing, dashboardSuite, rowsAre, screenshot, signedInPage, textOf, v1Request } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends.
export const testPlan: TestPlan = { legs: 'either' }

describe('the Locations and Categories tabs in Chromium', { skip: chromiumMissing, timeout: 240_000 }, () => {
  const suite = dashboardSuite()
  const { closePages } = suite

  const signedIn = (slug: string, tab: string) => signedInPage(suite, `/projects/${slug}/${tab}`, { role: 'owner', projects: [slug] })

  test('locations: added, edited with a merge patch, removed; one with animals explained; on a phone too', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const page = await signedIn(shelter.slug, 'locations')
    await page.getByRole('heading', { level: 2, name: 'Locations' }).waitFor()
    await textOf(page.getByRole('main'), /This project has no locations yet: add the first one above\./)

    const form = page.getByRole('region', { name: 'Add a location' })
    await form.getByLabel('Name').fill('Main shelter')
    await form.getByLabel('Street and number').fill('123 Main Street')
    await form.getByLabel('City or town').fill('Springfield')
    await form.getByLabel('Country').fill('us')
    await form.getByLabel('Latitude').fill('39.7817')
    await form.getByLabel('Longitude').fill('-89.6501')
    await form.getByRole('button', { name: 'Add location' }).click()
    const added = await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^Main shelter is added \(id \d+\)\.$/)
    const id = Number(/\(id (\d+)\)/.exec(added)?.[1])
    const row = page.getByRole('row', { name: /^Main shelter\b/ })
    await textOf(row, /123 Main Street, Springfield, US.*39\.7817, -89\.6501/s)
    assert.equal(await form.getByLabel('Name').inputValue(), '', 'the form is ready for the next one')
    await form.getByLabel('Name').fill('Foster home')
    await form.getByRole('button', { name: 'Add location' }).click()
    await textOf(page.getByRole('row', { name: /^Foster home\b/ }), /None/)
    const located = await v1Request(suite.base, shelter.key, 'GET', '/locations')
    assert.deepEqual(
      (located.body as unknown as { name: string; address?: object; coordinates?: object }[]).map(({ name, address, coordinates }) => ({ name, address, coordinates })),
      [
        { name: 'Main shelter', address: { line1: '123 Main Street', city: 'Springfield', country: 'US' }, coordinates: { latitude: 39.7817, longitude: -89.6501 } },
        { name: 'Foster home', address: undefined, coordinates: undefined },
      ],
    )

    // Edit: only what changed is sent; emptied coordinates are removed.
    await row.getByRole('button', { name: 'Edit Main shelter' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit Main shelter' })
    await dialog.getByLabel('City or town').fill('Shelbyville')
    await dialog.getByLabel('Latitude').fill('')
    await dialog.getByLabel('Longitude').fill('')
    const [request] = await Promise.all([page.waitForRequest((r) => r.method() === 'PATCH'), dialog.getByRole('button', { name: 'Save' }).click()])
    assert.deepEqual(request.postDataJSON(), { address: { city: 'Shelbyville' }, coordinates: null })
    await dialog.waitFor({ state: 'detached' })
    await textOf(page.getByRole('row', { name: /^Main shelter\b/ }), /Shelbyville/)
    const edited = await admin(suite.t, 'GET', `/projects/${shelter.slug}/locations/${id}`)
    assert.deepEqual(edited.json<{ address: object; coordinates?: object }>().address, { line1: '123 Main Street', city: 'Shelbyville', country: 'US' })
    assert.equal(edited.json<{ coordinates?: object }>().coordinates, undefined)

    // A location with animals cannot go: the page says why, and links to them.
    assert.equal((await v1Request(suite.base, shelter.key, 'POST', '/pets', { name: 'Rex', categoryId: 1, locationId: id })).status, 201)
    await page.getByRole('button', { name: 'Remove Main shelter' }).click()
    await page.getByRole('dialog', { name: 'Remove Main shelter?' }).getByRole('button', { name: 'Remove location' }).click()
    const alert = page.getByRole('alert')
    await textOf(alert, /^Main shelter still has animals, so it cannot be removed: move them to another location \(or none\) first\. See the animals at Main shelter\.$/)
    assert.equal(await alert.getByRole('link').getAttribute('href'), `/dashboard/projects/${shelter.slug}/animals?locationId=${id}`)
    await screenshot(page, 'locations-in-use')
    await page.getByRole('button', { name: 'Remove Foster home' }).click()
    await page.getByRole('dialog', { name: 'Remove Foster home?' }).getByRole('button', { name: 'Remove location' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'removed' }), /^Foster home is removed\.$/)
    await rowsAre(page.locator('table.locations tbody tr'), 1)

    await assertTableFits(page, page.getByRole('table', { name: `Locations of ${shelter.slug}` }), 'locations')
    await closePages()
  })

  test('categories: the default set, one renamed with breeds added, one added with a chosen id, then removed and restored; on a phone too', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const page = await signedIn(shelter.slug, 'categories')
    const table = page.getByRole('table', { name: `Categories of ${shelter.slug}` })
    const rows = table.locator('tbody tr')
    await rowsAre(rows, 8)
    assert.deepEqual(await table.locator('tbody th').allInnerTexts(), ['Dog', 'Cat', 'Rabbit', 'Small & Furry', 'Horse', 'Bird', 'Scales, Fins & Other', 'Barnyard'])
    assert.equal(await page.getByRole('button', { name: /^Remove|^Restore/ }).count(), 0, 'nothing of the project to remove yet')

    // Rename Dog and add breeds.
    await page.getByRole('button', { name: 'Edit Dog' }).click()
    const dialog = page.getByRole('dialog', { name: 'Edit Dog' })
    await dialog.getByLabel('Name').fill('Hound')
    await dialog.getByLabel('Added breeds').fill('Shelter Special\nAaa Mix')
    await dialog.getByRole('button', { name: 'Save' }).click()
    await dialog.waitFor({ state: 'detached' })
    await textOf(page.getByRole('row', { name: /^Hound\b/ }), /2 added: Aaa Mix, Shelter Special.*Renamed \(default: Dog\)/s)
    const listed = (await v1Request(suite.base, shelter.key, 'GET', '/categories')).body as unknown as { id: number; name: string }[]
    assert.equal(listed[0]?.name, 'Hound')
    const breeds = (await v1Request(suite.base, shelter.key, 'GET', '/categories/1/breeds')).body as unknown as { name: string }[]
    assert.equal(breeds[0]?.name, 'Aaa Mix')

    // Add one with a chosen id; an id in use is refused on its field.
    const form = page.getByRole('region', { name: 'Add a category' })
    await form.getByLabel('Id').fill('2')
    await form.getByLabel('Name').fill('Axolotl')
    await form.getByRole('button', { name: 'Add category' }).click()
    await textOf(form.getByRole('alert'), /^Id 2 is Cat: choose a free id, or edit Cat in the table\.$/)
    assert.equal(await form.getByLabel('Id').getAttribute('aria-invalid'), 'true')
    await form.getByLabel('Id').fill('500')
    await form.getByLabel('Breeds').fill('Leucistic, Golden')
    await form.getByRole('button', { name: 'Add category' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^Axolotl is added \(id 500\)\.$/)
    await textOf(page.getByRole('row', { name: /^Axolotl\b/ }), /500.*2 \(2 added: Golden, Leucistic\).*Project's own/s)
    const own = await admin(suite.t, 'GET', `/projects/${shelter.slug}/categories/500/breeds`)
    assert.deepEqual(own.json(), [{ name: 'Golden' }, { name: 'Leucistic' }])
    await assertTableFits(page, table, 'categories')

    // Remove the project's own; restore the default.
    await page.getByRole('button', { name: 'Remove Axolotl' }).click()
    await page.getByRole('dialog', { name: 'Remove Axolotl?' }).getByRole('button', { name: 'Remove category' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'removed' }), /^Axolotl is removed\.$/)
    await rowsAre(rows, 8)
    await page.getByRole('button', { name: 'Restore default Hound' }).click()
    const restore = page.getByRole('dialog', { name: 'Restore Dog?' })
    await textOf(restore, /the 2 breeds it added are dropped/)
    await restore.getByRole('button', { name: 'Restore default' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'again' }), /^Category 1 is Dog again\.$/)
    await textOf(page.getByRole('row', { name: /^Dog\b/ }), /Default/)
    assert.equal(((await v1Request(suite.base, shelter.key, 'GET', '/categories')).body as unknown as { name: string }[])[0]?.name, 'Dog')
    await closePages()
  })
})
