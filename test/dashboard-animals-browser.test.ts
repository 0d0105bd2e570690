/**
 * The dashboard's Animals and Orders tabs in Chromium, against the real app on loopback: the
 * animals table paged by its cursor, filtered by status and name (in the address), an animal
 * added, edited in a dialog (by keyboard) and removed (with its confirmation, and the 409 of an
 * open order explained); the orders with their animals beside them, approved, delivered and
 * cancelled after a confirmation. What the page did is checked on /v1 with the project's key.
 * Both tabs on a desktop and on a 390 px phone; screenshots go to test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createUser } from './helpers/accounts.js'
import { assertTableFits as assertFits, chromiumMissing, dashboardSuite, focusedOnRemoval, isFocused, pageScrollWidth, PHONE, rowsAre, screenshot, signInThroughForm, textOf, v1Request } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

const NAMES = ['Bella', 'Max', 'Luna', 'Charlie', 'Lucy', 'Cooper', 'Daisy', 'Milo', 'Lola', 'Rocky', 'Sadie', 'Buddy', 'Molly', 'Bear', 'Bailey', 'Duke', 'Stella', 'Tucker', 'Zoe', 'Oliver', 'Penny', 'Jack', 'Rosie', 'Teddy', 'Nala', 'Leo', 'Coco', 'Winston', 'Maggie', 'Ziggy']

describe('the Animals and Orders tabs in Chromium', { skip: chromiumMissing, timeout: 180_000 }, () => {
  const suite = dashboardSuite()
  const { newPage, closePages } = suite

  /** /v1 with the project's key, from the test. */
  const v1 = (key: string, method: string, path: string, body?: object) => v1Request(suite.base, key, method, path, body)

  test('animals: paged with "More", filtered in the address, added, edited by keyboard, removed; an open order explained; on a phone too', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    for (const [i, name] of NAMES.entries()) {
      const created = await v1(shelter.key, 'POST', '/pets', { name, categoryId: 1 + (i % 4), status: i % 7 === 3 ? 'sold' : 'available' })
      assert.equal(created.status, 201)
    }
    const operator = await createUser(suite.t, { role: 'operator' })
    const { page } = await newPage()
    await signInThroughForm(page, operator.email, operator.password)

    await page.getByRole('link', { name: `Animals of ${shelter.slug}` }).click()
    await page.getByRole('heading', { level: 2, name: 'Animals' }).waitFor()
    assert.equal(new URL(page.url()).pathname, `/dashboard/projects/${shelter.slug}/animals`)
    const table = page.getByRole('table', { name: new RegExp(`^Animals of ${shelter.slug}`) })
    const rows = table.locator('tbody tr')
    await textOf(table, /Bella/)
    assert.equal(await rows.count(), 25, 'one page of 25')
    await page.getByRole('button', { name: 'More animals' }).click()
    await rowsAre(page.locator('table.animals tbody tr'), 30)
    assert.equal(await page.getByRole('button', { name: 'More animals' }).count(), 0, 'no more pages')
    assert.deepEqual((await table.locator('tbody th').allInnerTexts()).slice(-2), ['Maggie', 'Ziggy'])
    await textOf(page.getByRole('row', { name: /^Charlie\b/ }), /sold/)

    // Add one: it shows at the end, and /v1 has it.
    await page.getByLabel('Name', { exact: true }).fill('Biscuit')
    await page.getByLabel('Category id').fill('2')
    await page.getByRole('button', { name: 'Add animal' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'added' }), /^Biscuit is added \(id \d+\)\.$/)
    const biscuit = page.getByRole('row', { name: /^Biscuit\b/ })
    await textOf(biscuit, /available/)
    const biscuitId = Number(/\(id (\d+)\)/.exec(await page.getByRole('status').filter({ hasText: 'added' }).innerText())?.[1])
    assert.equal((await v1(shelter.key, 'GET', `/pets/${biscuitId}`)).body?.name, 'Biscuit')

    // Filters live in the address.
    await page.getByLabel('Name contains').fill('BIS')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search === '?name=BIS')
    await rowsAre(page.locator('table.animals tbody tr'), 1)
    assert.deepEqual(await table.locator('tbody th').allInnerTexts(), ['Biscuit'])
    await page.goto(`/dashboard/projects/${shelter.slug}/animals?status=sold`)
    await rowsAre(page.locator('table.animals tbody tr'), 4)
    assert.equal(await page.getByLabel('Filter by status').inputValue(), 'sold', 'the form shows the filter in force')
    await page.goto(`/dashboard/projects/${shelter.slug}/animals?name=nobody`)
    await textOf(page.getByRole('main'), /No animals match these filters\./)
    await page.goto(`/dashboard/projects/${shelter.slug}/animals?name=bis`)
    await textOf(table, /Biscuit/)

    // Edit by keyboard: the dialog opens on the name, Enter saves, focus comes back.
    const edit = page.getByRole('button', { name: 'Edit Biscuit' })
    await edit.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'Edit Biscuit' })
    await dialog.waitFor()
    assert.ok(await isFocused(dialog.getByLabel('Name')), 'focus on the name')
    await screenshot(page, 'animals-edit')
    assert.ok(await focusedOnRemoval(dialog, edit, () => page.keyboard.press('Escape')), 'Escape closes it, focus back on Edit')
    await page.keyboard.press('Enter')
    await dialog.waitFor()
    await page.keyboard.press('Control+A')
    await page.keyboard.type('Biscuit Junior')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Control+A')
    await page.keyboard.type('3')
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'detached' })
    await textOf(page.getByRole('status').filter({ hasText: 'saved' }), /^Biscuit Junior is saved\.$/)
    await textOf(page.getByRole('row', { name: /^Biscuit Junior\b/ }), /\b3\b/)
    assert.deepEqual((await v1(shelter.key, 'GET', `/pets/${biscuitId}`)).body, { id: biscuitId, name: 'Biscuit Junior', categoryId: 3, status: 'available' })

    // An animal with an open order cannot be removed, and the page says why and where to go.
    const order = await v1(shelter.key, 'POST', '/store/orders', { petId: biscuitId })
    assert.equal(order.status, 201)
    await page.reload()
    await page.getByRole('button', { name: 'Remove Biscuit Junior' }).click()
    const confirm = page.getByRole('dialog', { name: 'Remove Biscuit Junior?' })
    await confirm.waitFor()
    assert.ok(await isFocused(confirm.getByRole('button', { name: 'Cancel' })), 'focus on Cancel')
    await textOf(confirm, /delivered and cancelled adoption orders are kept/)
    await confirm.getByRole('button', { name: 'Remove animal' }).click()
    const alert = page.getByRole('alert')
    await textOf(alert, /^Biscuit Junior has an open adoption order \(placed or approved\), so it cannot be removed yet\. Deliver or cancel the order on the Orders tab, then remove the animal\.$/)
    await screenshot(page, 'animals-open-order')
    assert.equal((await v1(shelter.key, 'GET', `/pets/${biscuitId}`)).status, 200, 'still there')
    assert.equal(await alert.getByRole('link', { name: 'Orders tab' }).getAttribute('href'), `/dashboard/projects/${shelter.slug}/orders`)

    // One without orders goes.
    await page.goto(`/dashboard/projects/${shelter.slug}/animals`)
    await textOf(table, /Bella/)
    await page.getByRole('button', { name: 'Remove Bella' }).click()
    await page.getByRole('dialog', { name: 'Remove Bella?' }).getByRole('button', { name: 'Remove animal' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'removed' }), /^Bella is removed\.$/)
    assert.equal(await page.getByRole('row', { name: /^Bella\b/ }).count(), 0)
    const first = (await fetch(`${suite.base}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${shelter.key}` } }).then((r) => r.json())) as { name: string }[]
    assert.equal(first[0]?.name, 'Max', 'Bella is gone from /v1 too')

    await assertFits(page, table, 'animals')
    await closePages()
  })

  test('orders: each with its animal; approve, deliver and cancel after a confirmation; the animal follows; on a phone too', async () => {
    const shelter = await suite.t.project({ plan: 'pro' })
    const animal = async (name: string) => (await v1(shelter.key, 'POST', '/pets', { name, categoryId: 1 })).body?.id as number
    const place = async (petId: number) => (await v1(shelter.key, 'POST', '/store/orders', { petId })).body?.id as number
    const [rex, mia, bo, kit] = [await animal('Rex'), await animal('Mia'), await animal('Bo'), await animal('Kit')]
    const rexOrder = await place(rex)
    const miaOrder = await place(mia)
    const boOrder = await place(bo)
    const kitOrder = await place(kit)
    assert.equal((await v1(shelter.key, 'POST', `/store/orders/${boOrder}/cancel`)).status, 200)
    assert.equal((await v1(shelter.key, 'DELETE', `/pets/${bo}`)).status, 204, "a removed animal's order stays")
    assert.equal((await v1(shelter.key, 'POST', `/store/orders/${kitOrder}/approve`)).status, 200)

    const operator = await createUser(suite.t, { role: 'operator' })
    const { page } = await newPage()
    await signInThroughForm(page, operator.email, operator.password, `/projects/${shelter.slug}/orders`)
    await page.getByRole('heading', { level: 2, name: 'Adoption orders' }).waitFor()
    const table = page.getByRole('table', { name: new RegExp(`^Adoption orders of ${shelter.slug}`) })
    const row = (id: number) => page.getByRole('row', { name: new RegExp(`^Order ${id}\\b`) })
    await textOf(row(rexOrder), /Rex.*pending.*placed/s)
    await textOf(row(boOrder), /Bo.*removed.*cancelled.*Closed/s)
    await textOf(row(kitOrder), /Kit.*pending.*approved/s)
    await screenshot(page, 'orders-before')

    // Approve, then deliver: the animal is sold.
    await row(rexOrder).getByRole('button', { name: `Approve ${rexOrder}` }).click()
    const approve = page.getByRole('dialog', { name: `Approve order ${rexOrder}?` })
    await textOf(approve, /Rex stays pending until the order is delivered/)
    await approve.getByRole('button', { name: 'Approve order' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'Order' }), new RegExp(`^Order ${rexOrder} is approved; Rex is pending\\.$`))
    await textOf(row(rexOrder), /approved/)
    await row(rexOrder).getByRole('button', { name: `Deliver ${rexOrder}` }).click()
    await page.getByRole('dialog', { name: `Deliver order ${rexOrder}?` }).getByRole('button', { name: 'Deliver order' }).click()
    await textOf(row(rexOrder), /sold.*delivered.*Closed/s)
    assert.equal((await v1(shelter.key, 'GET', `/pets/${rex}`)).body?.status, 'sold')

    // Cancel: "Keep the order" (or Escape) changes nothing; confirmed, the animal is available again.
    const cancelButton = row(miaOrder).getByRole('button', { name: `Cancel order ${miaOrder}` })
    await cancelButton.click()
    const cancel = page.getByRole('dialog', { name: `Cancel order ${miaOrder}?` })
    assert.ok(await isFocused(cancel.getByRole('button', { name: 'Keep the order' })), 'focus on the harmless choice')
    await screenshot(page, 'orders-cancel')
    assert.ok(await focusedOnRemoval(cancel, cancelButton, () => page.keyboard.press('Escape')), 'focus back on the button')
    assert.equal((await v1(shelter.key, 'GET', `/store/orders/${miaOrder}`)).body?.status, 'placed')
    await cancelButton.click()
    await cancel.getByRole('button', { name: 'Cancel order' }).click()
    await textOf(row(miaOrder), /Mia.*available.*cancelled/s)
    assert.equal((await v1(shelter.key, 'GET', `/pets/${mia}`)).body?.status, 'available')

    // The filter lives in the address.
    await page.getByLabel('Filter by status').selectOption('approved')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search === '?status=approved')
    await rowsAre(page.locator('table.orders tbody tr'), 1)
    await textOf(row(kitOrder), /Kit/)
    await page.goto(`/dashboard/projects/${shelter.slug}/orders`)
    await textOf(row(kitOrder), /Kit/)
    await assertFits(page, table, 'orders')
    await closePages()
  })

  test('an empty project says so on both tabs, on a phone', async () => {
    const empty = await suite.t.project({ plan: 'free' })
    const owner = await createUser(suite.t, { role: 'owner', projects: [empty.slug] })
    const { page } = await newPage()
    await page.setViewportSize(PHONE)
    await signInThroughForm(page, owner.email, owner.password, `/projects/${empty.slug}/animals`)
    await textOf(page.getByRole('main'), /This project has no animals yet: add the first one above\./)
    assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'no sideways scroll')
    await screenshot(page, 'animals-empty-phone')
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Orders' }).click()
    await textOf(page.getByRole('main'), /This project has no adoption orders yet\./)
    assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'no sideways scroll')
    await screenshot(page, 'orders-empty-phone')
    await closePages()
  })
})
