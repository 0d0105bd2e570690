/**
 * The dashboard's Audit log page in Chromium, against the real app on loopback: a change made in
 * the page (a key revoked) shows up with its actor; the filters (action, project, actor kind, API
 * key) narrow the list and live in the address; older entries load on demand; an owner sees only their project's entries; the page
 * fits a 390 px phone. Screenshots go to test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { admin } from './helpers/admin.js'
import { bearer } from './helpers/app.js'
import { createUser } from './helpers/accounts.js'
import { chromiumMissing, dashboardSuite, heading, pageScrollWidth, PHONE, screenshot, signInThroughForm, textOf } from './helpers/browser.js'
import { eventually } from './helpers/wait.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

/** The actions in the table, top to bottom. */
async function actionsShown(page: Page): Promise<string[]> {
  return page.locator('table.audit tbody td[data-label="Action"]').allInnerTexts()
}

/**
 * Waits until the table shows as many entries as `wanted` accepts (it renders asynchronously).
 * Counted through the locator: a string predicate given to `waitForFunction` is evaluated in the
 * page by `eval`, which the dashboard's Content-Security-Policy refuses whenever the first check
 * fails and polling begins.
 */
async function entriesShown(page: Page, what: string, wanted: (count: number) => boolean): Promise<void> {
  const rows = page.locator('table.audit tbody tr')
  await eventually(what, async () => wanted(await rows.count()), { timeoutMs: 15_000, everyMs: 50 })
}

describe('the audit log page in Chromium', { skip: chromiumMissing, timeout: 120_000 }, () => {
  const suite = dashboardSuite()
  const { newPage, closePages } = suite

  test('an operator sees a change made in the page with its actor, filters by action and project, and pages back', async () => {
    const { t } = suite
    const shelter = await t.project({ plan: 'pro' })
    const other = await t.project({ plan: 'free' })
    // 55 keys made with the admin token: more than one page of entries.
    for (let i = 0; i < 55; i++) assert.equal((await admin(t, 'POST', `/projects/${other.slug}/keys`, { name: `bulk-${i}` })).statusCode, 201)
    const key = await t.key(shelter.slug, { name: 'front desk' })
    const operator = await createUser(t, { role: 'operator' })
    const { page } = await newPage()
    await signInThroughForm(page, operator.email, operator.password, `/projects/${shelter.slug}/keys`)

    // A change made in the page.
    const row = page.getByRole('row', { name: /front desk/ })
    await row.getByRole('button', { name: 'Revoke' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
    await textOf(page.getByRole('status'), /is revoked/)

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
    await heading(page, 'Audit log').waitFor()
    const first = page.locator('table.audit tbody tr').first()
    await textOf(first, /key\.revoked/)
    const text = await first.innerText()
    assert.match(text, new RegExp(operator.email.replace(/[.+]/g, '\\$&')), 'the operator is the actor')
    assert.match(text, new RegExp(key.id), 'the key is the target')
    assert.match(text, new RegExp(shelter.slug))
    assert.equal((await actionsShown(page)).length, 50, 'one page of 50')
    await screenshot(page, 'audit')

    await page.getByRole('button', { name: 'Older entries' }).click()
    await entriesShown(page, 'more than 50 entries', (count) => count > 50)
    const all = await actionsShown(page)
    assert.ok(all.length > 50, `${all.length} entries after "Older entries"`)

    // Filters: in the address, and applied.
    await page.getByLabel('Action').selectOption('key.revoked')
    await page.getByLabel('Project').selectOption(shelter.slug)
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search.includes('action=key.revoked'))
    assert.match(new URL(page.url()).search, new RegExp(`project=${shelter.slug}`))
    await entriesShown(page, 'one entry', (count) => count === 1)
    assert.deepEqual(await actionsShown(page), ['key.revoked'])
    await page.getByLabel('Action').selectOption('domain.removed')
    await page.getByRole('button', { name: 'Show' }).click()
    await textOf(page.getByRole('main'), /No entries match these filters\./)

    // The address alone opens the same view.
    await page.goto(`/dashboard/audit?action=key.created&project=${other.slug}`)
    await heading(page, 'Audit log').waitFor()
    await entriesShown(page, '50 entries', (count) => count === 50)
    assert.ok((await actionsShown(page)).every((action) => action === 'key.created'))
    assert.equal(await page.getByLabel('Action').inputValue(), 'key.created', 'the form shows the filters in force')
    await closePages()
  })

  test('the actor kind and key filters show the writes one API key made through /v1, and live in the address', async () => {
    const { t } = suite
    const shelter = await t.project({ plan: 'pro' })
    const front = await t.key(shelter.slug, { name: 'front desk' })
    const back = await t.key(shelter.slug, { name: 'back office' })
    for (const [key, name] of [
      [front, 'Biscuit'],
      [back, 'Pepper'],
      [front, 'Mochi'],
    ] as const) {
      const created = await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(key.secret), 'content-type': 'application/json' }, payload: JSON.stringify({ name, categoryId: 1 }) })
      assert.equal(created.statusCode, 201, created.body)
    }
    const operator = await createUser(t, { role: 'operator' })
    const { page } = await newPage()
    await signInThroughForm(page, operator.email, operator.password, '/audit')
    await heading(page, 'Audit log').waitFor()

    await page.getByLabel('Actor kind').selectOption('api_key')
    await page.getByLabel('API key').fill(front.id)
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL((url) => url.search.includes('actorKind=api_key'))
    assert.match(new URL(page.url()).search, new RegExp(`key=${front.id}`))
    await entriesShown(page, "the front desk key's two writes", (count) => count === 2)
    const rows = await page.locator('table.audit tbody tr').allInnerTexts()
    assert.deepEqual(
      rows.map((row) => [/pet\.created/.test(row), row.includes(`key:${front.id}`), /Mochi|Biscuit/.exec(row)?.[0]]),
      [
        [true, true, 'Mochi'],
        [true, true, 'Biscuit'],
      ],
    )
    await screenshot(page, 'audit-key-filter')

    // The address alone opens the same view, with the filters in the form.
    await page.goto(`/dashboard/audit?actorKind=api_key&key=${back.id}`)
    await heading(page, 'Audit log').waitFor()
    await entriesShown(page, "the back office key's write", (count) => count === 1)
    assert.match((await page.locator('table.audit tbody tr').allInnerTexts())[0]!, /Pepper/)
    assert.equal(await page.getByLabel('Actor kind').inputValue(), 'api_key')
    assert.equal(await page.getByLabel('API key').inputValue(), back.id)
    // Another kind: none of these writes.
    await page.getByLabel('Actor kind').selectOption('anonymous')
    await page.getByRole('button', { name: 'Show' }).click()
    await textOf(page.getByRole('main'), /No entries match these filters\./)
    await closePages()
  })

  test("an owner sees only their project's entries, and the page fits a phone", async () => {
    const { t } = suite
    const mine = await t.project({ plan: 'pro' })
    const theirs = await t.project({ plan: 'pro' })
    await t.key(theirs.slug, { name: 'not for owners' })
    const owner = await createUser(t, { role: 'owner', projects: [mine.slug] })
    const { page } = await newPage()
    await page.setViewportSize(PHONE)
    await signInThroughForm(page, owner.email, owner.password, '/audit')
    await heading(page, 'Audit log').waitFor()
    await textOf(page.getByRole('main'), /You see your projects' entries and your own changes\./)
    await entriesShown(page, 'some entries', (count) => count > 0)
    const rows = await page.locator('table.audit tbody tr').allInnerTexts()
    for (const row of rows) assert.ok(row.includes(mine.slug) || row.includes('session.signed_in'), `an owner sees: ${row}`)
    assert.ok(!rows.some((row) => row.includes(theirs.slug)), "no entry of another's project")
    const options = await page.getByLabel('Project').locator('option').allInnerTexts()
    assert.deepEqual(options, ['All projects', mine.slug])
    assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'no sideways scroll at 390 px')
    await screenshot(page, 'audit-phone')
    await closePages()
  })
})
