/**
 * The dashboard's animal editor and the Animals list's filters in Chromium, against the real app
 * on loopback: a whole profile added through the editor's controls (pickers, selects, dates,
 * yes/no/unknown radio groups, an amount in the currency's major unit) and read back from the
 * admin API and from /v1 with the project's key; an edit that sends a merge patch of only what
 * changed; the API's 400 and 409 shown on the field they name; the list narrowed by the API's
 * filters and search, kept in the address, and paged by its cursor in another order. On a desktop
 * and a 390 px phone; screenshots go to test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { admin } from './helpers/admin.js'
import { assertFitsPhone, chromiumMissing, dashboardSuite, DESKTOP, rowsAre, screenshot, signedInPage, textOf, v1Request } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends.
export const testPlan: TestPlan = { legs: 'either' }

type Animal = Record<string, unknown> & { id: number; name: string }

/** The yes/no/unknown radio button `answer` of the group named `legend`. */
function answer(page: Page, legend: string, choice: 'Yes' | 'No' | 'Unknown') {
  return page.getByRole('group', { name: legend, exact: true }).getByRole('radio', { name: choice, exact: true })
}

/** The body of the next PATCH the page sends while `act` runs. */
async function patchSentBy(page: Page, act: () => Promise<void>): Promise<unknown> {
  const [request] = await Promise.all([page.waitForRequest((r) => r.method() === 'PATCH'), act()])
  return request.postDataJSON()
}

describe('the animal editor and the filtered list in Chromium', { skip: chromiumMissing, timeout: 240_000 }, () => {
  const suite = dashboardSuite()
  const { closePages } = suite

  /** The admin API with the operator token, from the test: the answer's JSON, its status checked. */
  const adminJson = async <T = Animal>(method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, body?: object, status = method === 'POST' ? 201 : 200): Promise<T> => {
    const response = await admin(suite.t, method, url, body)
    assert.equal(response.statusCode, status, response.body)
    return response.json<T>()
  }

  const signedIn = (slug: string, path: string) => signedInPage(suite, `/projects/${slug}/${path}`, { role: 'operator' })

  test('a whole profile added through the editor, as the admin API and /v1 then show it; on a phone too', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const site = await adminJson<{ id: number }>('POST', `/projects/${shelter.slug}/locations`, { name: 'Main shelter', address: { city: 'Springfield', country: 'US' } })
    await adminJson('PUT', `/projects/${shelter.slug}/categories/500`, { name: 'Axolotl', breeds: ['Leucistic'] })
    const page = await signedIn(shelter.slug, 'animals')

    await page.getByRole('link', { name: 'add one with its whole profile' }).click()
    await page.getByRole('heading', { level: 2, name: 'New animal' }).waitFor()
    assert.equal(new URL(page.url()).pathname, `/dashboard/projects/${shelter.slug}/animals/new`)
    const category = page.getByLabel('Category')
    await textOf(category, /Axolotl/)
    assert.deepEqual((await category.locator('option').allInnerTexts()).slice(0, 2), ['Dog', 'Cat'], "the project's categories by name")

    await page.getByLabel('Name', { exact: true }).fill('Biscuit')
    await category.selectOption({ label: 'Cat' })
    await page.getByLabel('External id').fill('C-2025-0042')
    // The breed pickers offer the category's breeds, and take any other name.
    const breeds = page.locator('#animal-breeds option')
    await breeds.nth(50).waitFor({ state: 'attached' })
    assert.ok((await breeds.evaluateAll((options) => options.map((o) => o.getAttribute('value')))).includes('Bengal'))
    await page.getByLabel('Primary breed').fill('Bengal')
    await page.getByLabel('Secondary breed').fill('Siamese')
    await page.getByLabel('Mixed breed').check()
    await page.getByLabel('Sex').selectOption('male')
    await page.getByLabel('Age').selectOption('adult')
    await page.getByLabel('Size').selectOption('small')
    await page.getByLabel('Coat').selectOption('short')
    await page.getByLabel('Date of birth', { exact: true }).fill('2021-06-15')
    await page.getByLabel('The date of birth is an estimate').check()
    await page.getByLabel('Main colour').fill('Brown')
    await page.getByLabel('Second colour').fill('Black')
    await page.getByLabel('Description for adopters').fill('A curious cat.\nSleeps in the sun.')
    await answer(page, 'Children', 'Yes').check()
    await answer(page, 'Dogs', 'No').check()
    await answer(page, 'Cats', 'Yes').check()
    await answer(page, 'Spayed or neutered', 'Yes').check()
    await answer(page, 'House-trained', 'No').check()
    await answer(page, 'Vaccinated', 'Yes').check()
    await answer(page, 'Special needs', 'Yes').check()
    await page.getByLabel('What the special needs are').fill('Kidney diet.')
    await page.getByLabel('Currency').selectOption('EUR')
    await page.getByLabel('Amount').fill('75.5')
    await page.getByLabel('Intake date').fill('2025-01-15')
    await page.getByLabel('Location').selectOption({ label: 'Main shelter' })
    await page.getByLabel('Tags').fill('lap cat, indoor only')
    await page.getByLabel('Video links').fill('https://vimeo.com/76979871')
    await screenshot(page, 'animal-editor-new')
    await page.getByRole('button', { name: 'Add animal' }).click()

    const added = await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^Biscuit is added \(id \d+\)\.$/)
    const id = Number(/\(id (\d+)\)/.exec(added)?.[1])
    await page.waitForURL((url) => url.pathname === `/dashboard/projects/${shelter.slug}/animals/${id}`)
    await page.getByRole('heading', { level: 2, name: 'Profile of Biscuit' }).waitFor()
    const expected = {
      id,
      name: 'Biscuit',
      categoryId: 2,
      status: 'available',
      externalId: 'C-2025-0042',
      breeds: { primary: 'Bengal', secondary: 'Siamese', mixed: true },
      sex: 'male',
      age: 'adult',
      birthDate: '2021-06-15',
      birthDateEstimated: true,
      size: 'small',
      colors: ['Brown', 'Black'],
      coat: 'short',
      description: 'A curious cat.\nSleeps in the sun.',
      goodWith: { children: 'yes', dogs: 'no', cats: 'yes' },
      attributes: { spayedNeutered: true, houseTrained: false, vaccinated: true, specialNeeds: true, specialNeedsNote: 'Kidney diet.' },
      // 75.5 euros, in cents.
      adoptionFee: { amount: 7550, currency: 'EUR' },
      intakeDate: '2025-01-15',
      locationId: site.id,
      tags: ['lap cat', 'indoor only'],
      videoUrls: ['https://vimeo.com/76979871'],
    }
    assert.deepEqual(await adminJson('GET', `/projects/${shelter.slug}/animals/${id}`), expected)
    assert.deepEqual((await v1Request(suite.base, shelter.key, 'GET', `/pets/${id}`)).body, expected, '/v1 with the project key shows the same profile')
    // What was saved is what the form shows again.
    assert.equal(await page.getByLabel('Amount').inputValue(), '75.50')
    assert.equal(await answer(page, 'Dogs', 'No').isChecked(), true)

    await assertFitsPhone(page, 'animal-editor')
    await closePages()
  })

  test('an edit sends a merge patch of only what changed; the API\'s 400 and 409 are shown on their fields; an unknown category shows as its number', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const profile = {
      name: 'Rex',
      categoryId: 1,
      externalId: 'R-1',
      colors: ['Black', 'White'],
      description: 'Calm.',
      goodWith: { children: 'yes', cats: 'no' },
      attributes: { vaccinated: true, specialNeeds: true, specialNeedsNote: 'Bad hip.' },
      adoptionFee: { amount: 15000, currency: 'USD' },
      tags: ['calm'],
    }
    const rex = await adminJson('POST', `/projects/${shelter.slug}/animals`, profile)
    await adminJson('POST', `/projects/${shelter.slug}/animals`, { name: 'Mia', categoryId: 2, externalId: 'M-1' })
    const stray = await adminJson('POST', `/projects/${shelter.slug}/animals`, { name: 'Stray', categoryId: 9999 })
    const page = await signedIn(shelter.slug, `animals/${rex.id}`)
    await page.getByRole('heading', { level: 2, name: 'Profile of Rex' }).waitFor()
    await textOf(page.getByLabel('Category'), /Dog/)

    await page.getByLabel('Name', { exact: true }).fill('Rex Junior')
    await page.getByLabel('Second colour').fill('')
    await answer(page, 'Cats', 'Yes').check()
    await answer(page, 'Special needs', 'No').check()
    await page.getByLabel('Currency').selectOption('JPY')
    await page.getByLabel('Amount').fill('1500')
    const patch = await patchSentBy(page, () => page.getByRole('button', { name: 'Save changes' }).click())
    assert.deepEqual(patch, {
      name: 'Rex Junior',
      colors: ['Black'],
      goodWith: { cats: 'yes' },
      attributes: { specialNeeds: false, specialNeedsNote: null },
      adoptionFee: { amount: 1500, currency: 'JPY' },
    })
    await textOf(page.getByRole('status').filter({ hasText: 'saved' }), /^Rex Junior is saved \(name, colors, goodWith, attributes, adoptionFee\)\.$/)
    assert.deepEqual(await adminJson('GET', `/projects/${shelter.slug}/animals/${rex.id}`), {
      ...rex,
      name: 'Rex Junior',
      colors: ['Black'],
      goodWith: { children: 'yes', cats: 'yes' },
      attributes: { vaccinated: true, specialNeeds: false },
      adoptionFee: { amount: 1500, currency: 'JPY' },
    })

    // A 400 naming a field: shown under the form, and on the field, which is marked invalid.
    await page.getByLabel('Video links').fill('https://example.com/clip')
    await page.getByRole('button', { name: 'Save changes' }).click()
    const alert = page.getByRole('alert')
    await textOf(alert, /^Field "videoUrls" holds "https:\/\/example\.com\/clip": only https links to YouTube/)
    const videos = page.getByLabel('Video links')
    assert.equal(await videos.getAttribute('aria-invalid'), 'true')
    const described = (await videos.getAttribute('aria-describedby')) ?? ''
    assert.match(await page.locator(`[id="${described.split(' ')[0]}"]`).innerText(), /Field "videoUrls" holds/, 'the error is read with the field')
    await screenshot(page, 'animal-editor-error')
    await assertFitsPhone(page, 'animal-editor-error')
    await page.setViewportSize(DESKTOP)
    await videos.fill('')

    // A 409: the external id of another animal.
    await page.getByLabel('External id').fill('M-1')
    await page.getByRole('button', { name: 'Save changes' }).click()
    await textOf(alert, /M-1/)
    assert.equal(await page.getByLabel('External id').getAttribute('aria-invalid'), 'true')
    assert.equal(await videos.getAttribute('aria-invalid'), null, 'only the field named is marked')
    assert.equal((await adminJson('GET', `/projects/${shelter.slug}/animals/${rex.id}`)).externalId, 'R-1', 'nothing was saved')

    // A category id that names no category of the project: shown as its number, and kept.
    await page.goto(`/dashboard/projects/${shelter.slug}/animals/${stray.id}`)
    await page.getByRole('heading', { level: 2, name: 'Profile of Stray' }).waitFor()
    assert.equal(await page.getByLabel('Category').inputValue(), '9999')
    assert.match(await page.getByLabel('Category').locator('option:checked').innerText(), /^9999\b/)
    await page.getByLabel('Sex').selectOption('male')
    assert.deepEqual(await patchSentBy(page, () => page.getByRole('button', { name: 'Save changes' }).click()), { sex: 'male' })
    await textOf(page.getByRole('status').filter({ hasText: 'saved' }), /^Stray is saved \(sex\)\.$/)
    await closePages()
  })

  test("the list: the API's filters and search, kept in the address, narrow it; another order pages by the API's cursor; on a phone too", async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const base = `/projects/${shelter.slug}/animals`
    const barn = await adminJson<{ id: number }>('POST', `/projects/${shelter.slug}/locations`, { name: 'Barn' })
    const add = (body: object) => adminJson('POST', base, body)
    await add({ name: 'Bella', categoryId: 1, sex: 'female', age: 'young', size: 'large', breeds: { primary: 'Labrador Retriever' }, goodWith: { cats: 'yes' }, locationId: barn.id })
    await add({ name: 'Duke', categoryId: 1, sex: 'male', age: 'adult', size: 'large', breeds: { primary: 'Labrador Retriever' }, goodWith: { cats: 'no' } })
    await add({ name: 'Tom', categoryId: 2, sex: 'male', age: 'senior', size: 'small', description: 'A calm old cat.', goodWith: { cats: 'yes' }, locationId: barn.id })
    for (let i = 1; i <= 26; i++) await add({ name: `Zed ${String(i).padStart(2, '0')}`, categoryId: 3, sex: 'unknown' })
    const page = await signedIn(shelter.slug, 'animals')
    const table = page.getByRole('table', { name: new RegExp(`^Animals of ${shelter.slug}`) })
    const rows = page.locator('table.animals tbody tr')
    const names = () => table.locator('tbody th').allInnerTexts()
    await textOf(table, /Bella/)
    await textOf(page.getByRole('row', { name: /^Tom\b/ }), /Cat \(2\)/)

    // The search, from the form, into the address.
    await page.getByLabel('Search').fill('lab')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search === '?q=lab')
    await rowsAre(rows, 2)
    assert.deepEqual(await names(), ['Bella', 'Duke'])
    await page.getByLabel('Filter by sex').selectOption('female')
    await page.getByLabel('Good with cats').selectOption('yes')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search === '?q=lab&sex=female&goodWithCats=yes')
    await rowsAre(rows, 1)
    assert.deepEqual(await names(), ['Bella'])
    await screenshot(page, 'animals-filtered')

    // From the address: the form shows the filters in force.
    await page.goto(`/dashboard${base}?locationId=${barn.id}&age=senior`)
    await rowsAre(rows, 1)
    assert.deepEqual(await names(), ['Tom'])
    assert.equal(await page.getByLabel('Filter by location').inputValue(), String(barn.id))
    assert.equal(await page.getByLabel('Filter by age').inputValue(), 'senior')
    await page.goto(`/dashboard${base}?categoryId=1&size=large`)
    await rowsAre(rows, 2)
    assert.equal(await page.getByLabel('Filter by category').inputValue(), '1')
    await page.goto(`/dashboard${base}?q=calm`)
    await rowsAre(rows, 1)
    assert.deepEqual(await names(), ['Tom'])

    // By name, 25 at a time: "More animals" follows the API's cursor in that order.
    await page.goto(`/dashboard${base}`)
    await textOf(table, /Bella/)
    await page.getByLabel('Sort by').selectOption('name')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search === '?sort=name')
    await rowsAre(rows, 25)
    await textOf(table.locator('caption'), /by name/)
    await page.getByRole('button', { name: 'More animals' }).click()
    await rowsAre(rows, 29)
    const all = await names()
    assert.deepEqual(all, [...all].sort((a, b) => a.localeCompare(b)), 'in name order across the pages')
    assert.deepEqual(all.slice(0, 4), ['Bella', 'Duke', 'Tom', 'Zed 01'])

    await page.goto(`/dashboard${base}?sex=male`)
    await rowsAre(rows, 2)
    await assertFitsPhone(page, 'animals-filtered')
    await closePages()
  })
})
