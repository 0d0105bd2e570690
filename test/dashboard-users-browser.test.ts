/**
 * The dashboard's Users and Account pages in Chromium, against the real app on loopback: an
 * operator creates an owner (the one-time password shown once, with a copy button), changes their
 * projects, disables, enables, resets and deletes users through confirmations; the owner signs in
 * with the one-time password and must choose their own before anything else; a disabled user's
 * open page is signed out; the Account page changes one's password and signs out the other
 * sessions. On desktop and on a 390 px phone, by keyboard where it matters. Screenshots go to
 * test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, test } from 'node:test'
import type { Page } from 'playwright-core'
import { admin } from './helpers/admin.js'
import { createUser } from './helpers/accounts.js'
import { ADMIN_TOKEN } from './helpers/admin.js'
import { assertInside, axeViolations, boxOf, chromiumMissing, dashboardSuite, DESKTOP, heading, pageScrollWidth, PHONE, screenshot, signInThroughForm, textOf } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The row of a user in the users table. */
function userRow(page: Page, email: string) {
  return page.getByRole('table', { name: 'Users' }).getByRole('row', { name: new RegExp(`^${escape(email)}`) })
}

/**
 * At this width nothing scrolls sideways, neither the page nor a table, and every button lies
 * within the viewport, and within its table cell.
 */
async function assertFits(page: Page, width: number, what: string): Promise<void> {
  assert.ok((await pageScrollWidth(page)) <= width, `${what}: the page is no wider than ${width} px`)
  for (const wrap of await page.locator('main .table-wrap').all()) {
    const [scrollWidth, clientWidth] = await wrap.evaluate((div) => [div.scrollWidth, div.clientWidth])
    assert.ok((scrollWidth ?? 0) <= (clientWidth ?? 0), `${what}: a table needs a sideways scroll (${scrollWidth} > ${clientWidth})`)
  }
  for (const button of await page.locator('main button').all()) {
    if (!(await button.isVisible())) continue
    const label = `${what}: button "${await button.innerText()}"`
    assertInside(await boxOf(button), { x: 0, y: 0, width, height: Number.MAX_SAFE_INTEGER }, `${label} within the viewport`)
    const cell = button.locator('xpath=ancestor::td[1]')
    if ((await cell.count()) > 0) assertInside(await boxOf(button), await boxOf(cell), `${label} within its cell`)
  }
}

/** Signs in with a one-time password: the page asks for a password of one's own first. */
async function signInWithOneTimePassword(page: Page, email: string, oneTime: string): Promise<void> {
  await page.goto('/dashboard/')
  await heading(page, 'Sign in').waitFor()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(oneTime)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await heading(page, 'Choose your password').waitFor()
}

describe('the Users and Account pages in Chromium', { skip: chromiumMissing, timeout: 180_000 }, () => {
  // Webhooks configured, so a viewer's Webhooks page has endpoints to show.
  const suite = dashboardSuite({ config: { webhookEncryptionKey: randomBytes(32).toString('hex') } })
  const { newPage, closePages } = suite

  test('an operator creates an owner and manages them; the owner must choose a password of their own at the first sign-in; disabling signs their page out', async () => {
    const { t } = suite
    const shelter = await t.project({ plan: 'pro' })
    const clinic = await t.project({ plan: 'free' })
    const operator = await createUser(t, { role: 'operator', email: 'ops@shelter.example' })
    const { page, context } = await newPage()
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await signInThroughForm(page, operator.email, operator.password)

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click()
    await heading(page, 'Users').waitFor()
    assert.equal(new URL(page.url()).pathname, '/dashboard/users')
    const own = userRow(page, operator.email)
    await textOf(own, /\(you\)/)
    assert.equal(await own.getByRole('button').count(), 0, 'no action on oneself')
    assert.equal(await own.getByRole('link', { name: 'Your password' }).getAttribute('href'), '/dashboard/account')

    // Create an owner of one project: the one-time password, this once.
    const email = 'ann@shelter.example'
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Role').selectOption('owner')
    await page.getByRole('group', { name: 'Projects' }).getByLabel(shelter.slug).check()
    await page.getByRole('button', { name: 'Create user' }).click()
    const box = page.getByRole('region', { name: `User ${email} created` })
    await textOf(box, /it will not be shown again/)
    const oneTime = (await textOf(page.getByTestId('one-time-password'), /^[A-Za-z0-9_-]{24}$/)).trim()
    assert.equal(await page.getByRole('heading', { name: `User ${email} created` }).evaluate((h) => h === h.ownerDocument.activeElement), true, 'focus on the new password')
    await box.getByRole('button', { name: 'Copy password' }).click()
    await textOf(box.getByRole('status'), /^Copied$/)
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), oneTime, 'the copy button copied the password')
    const row = userRow(page, email)
    await textOf(row, /owner/)
    await textOf(row, /One-time password\s+until/)
    await screenshot(page, 'users-created')
    await assertFits(page, DESKTOP.width, 'users with a new one-time password')
    await page.setViewportSize(PHONE)
    await assertFits(page, PHONE.width, 'users with a new one-time password, phone')
    await screenshot(page, 'users-created-phone')
    await page.setViewportSize(DESKTOP)
    await box.getByRole('button', { name: 'I have copied the password' }).click()
    assert.equal(await box.count(), 0, 'dismissed')
    assert.ok(!(await page.content()).includes(oneTime), 'the password is gone from the page')

    // Their projects, by keyboard: the dialog opens on Cancel, Space ticks, Enter saves.
    await row.getByRole('button', { name: `Projects of ${email}` }).focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: `Projects of ${email}` })
    await dialog.waitFor()
    assert.equal(await dialog.getByRole('button', { name: 'Cancel' }).evaluate((b) => b === b.ownerDocument.activeElement), true, 'focus on Cancel')
    await dialog.getByLabel(clinic.slug).focus()
    await page.keyboard.press('Space')
    assert.equal(await dialog.getByLabel(clinic.slug).isChecked(), true)
    await screenshot(page, 'users-projects-dialog')
    await dialog.getByRole('button', { name: 'Save projects' }).focus()
    await page.keyboard.press('Enter')
    await dialog.waitFor({ state: 'detached' })
    await textOf(page.getByRole('status').filter({ hasText: 'now belongs' }), new RegExp(`^${escape(email)} now belongs to ${[clinic.slug, shelter.slug].sort().join(', ')}\\.$`))
    await textOf(row, new RegExp(`${clinic.slug}, ${shelter.slug}|${shelter.slug}, ${clinic.slug}`))

    // The owner signs in with the one-time password: they choose their own before anything else.
    const owner = await newPage()
    await signInWithOneTimePassword(owner.page, email, oneTime)
    assert.equal(new URL(owner.page.url()).pathname, '/dashboard/sign-in', 'still signing in')
    assert.equal(await owner.page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no page of the dashboard yet')
    assert.equal(await owner.page.getByLabel('Email').inputValue(), email, 'the email, for password managers')
    await owner.page.getByLabel('New password', { exact: true }).fill('ann chose this one')
    await owner.page.getByLabel('New password again').fill('ann chose another')
    await owner.page.getByRole('button', { name: 'Save password and sign in' }).click()
    await textOf(owner.page.getByRole('alert'), /The two new passwords differ/)
    await screenshot(owner.page, 'sign-in-choose-password')
    await owner.page.setViewportSize(PHONE)
    await assertFits(owner.page, PHONE.width, 'choosing a password, phone')
    await screenshot(owner.page, 'sign-in-choose-password-phone')
    await owner.page.setViewportSize(DESKTOP)
    await owner.page.getByLabel('New password again').fill('ann chose this one')
    await owner.page.getByRole('button', { name: 'Save password and sign in' }).click()
    await heading(owner.page, 'Projects').waitFor()
    // The heading comes first; the list once the API has answered.
    await owner.page.getByRole('article').nth(1).waitFor()
    assert.equal(await owner.page.getByRole('article').count(), 2, "the owner's two projects")
    assert.equal(await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).count(), 0, 'no Users page for owners')
    // In the operator's list, at the next visit: no one-time password any more, and a last sign-in.
    await page.reload()
    await textOf(row, /Enabled/)
    assert.doesNotMatch(await row.innerText(), /never|One-time/)

    // Disable, through its confirmation (Escape first: nothing happens): the owner's page is signed out.
    await row.getByRole('button', { name: `Disable ${email}` }).click()
    const confirm = page.getByRole('dialog', { name: `Disable ${email}?` })
    await textOf(confirm, /their sessions end now/)
    await page.keyboard.press('Escape')
    await confirm.waitFor({ state: 'detached' })
    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
    await heading(owner.page, 'Audit log').waitFor()
    await row.getByRole('button', { name: `Disable ${email}` }).click()
    await confirm.getByRole('button', { name: 'Disable user' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'disabled' }), new RegExp(`^${escape(email)} is disabled\\.$`))
    await textOf(row, /Disabled/)
    await owner.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click()
    await heading(owner.page, 'Sign in').waitFor()
    await textOf(owner.page.getByRole('main'), /Your session has ended: sign in again\./)
    await owner.page.getByLabel('Email').fill(email)
    await owner.page.getByLabel('Password').fill('ann chose this one')
    await owner.page.getByRole('button', { name: 'Sign in' }).click()
    await textOf(owner.page.getByRole('alert'), /^Wrong email or password\.$/)

    // Enable, then reset: a new one-time password, and the page asks for a new password again.
    await row.getByRole('button', { name: `Enable ${email}` }).click()
    await textOf(row, /Enabled/)
    await row.getByRole('button', { name: `Reset password of ${email}` }).click()
    await page.getByRole('dialog', { name: `Reset the password of ${email}?` }).getByRole('button', { name: 'Reset password' }).click()
    const reset = (await textOf(page.getByRole('region', { name: `Password of ${email} reset` }).getByTestId('one-time-password'), /^[A-Za-z0-9_-]{24}$/)).trim()
    assert.notEqual(reset, oneTime)
    await screenshot(page, 'users-reset')
    await signInWithOneTimePassword(owner.page, email, reset)
    await owner.page.getByLabel('New password', { exact: true }).fill('ann after the reset')
    await owner.page.getByLabel('New password again').fill('ann after the reset')
    await owner.page.getByRole('button', { name: 'Save password and sign in' }).click()
    await heading(owner.page, 'Projects').waitFor()

    // Delete, through its confirmation: gone from the list, and the owner's page is signed out.
    await row.getByRole('button', { name: `Delete ${email}` }).click()
    await page.getByRole('dialog', { name: `Delete ${email}?` }).getByRole('button', { name: 'Delete user' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'deleted' }), new RegExp(`^${escape(email)} is deleted\\.$`))
    await row.waitFor({ state: 'detached' })
    await owner.page.reload()
    await heading(owner.page, 'Sign in').waitFor()

    const audit = (await admin(t, 'GET', '/audit?targetType=user&limit=100')).json<{ action: string; actor: { name: string } }[]>()
    const byOperator = audit.filter((e) => e.actor.name === operator.email).map((e) => e.action)
    assert.deepEqual(byOperator.slice(0, 6), ['user.deleted', 'user.password_reset', 'user.enabled', 'user.disabled', 'user.projects_changed', 'user.created'])
    await closePages()
  })

  test('the Account page changes one\'s password and signs out the other sessions; it fits a phone', async () => {
    const { t } = suite
    const project = await t.project({ plan: 'pro' })
    const owner = await createUser(t, { role: 'owner', projects: [project.slug] })
    const { page } = await newPage()
    const other = await newPage()
    await signInThroughForm(page, owner.email, owner.password)
    await signInThroughForm(other.page, owner.email, owner.password)

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
    await heading(page, 'Account').waitFor()
    await textOf(page.getByRole('main'), new RegExp(`Email\\s+${escape(owner.email)}`))
    await textOf(page.getByRole('main'), new RegExp(`Projects\\s+${project.slug}`))
    await page.getByLabel('Current password').fill('not my password')
    await page.getByLabel('New password', { exact: true }).fill('a fresh pass phrase')
    await page.getByLabel('New password again').fill('a fresh pass phrase')
    await page.getByRole('button', { name: 'Change password' }).click()
    await textOf(page.getByRole('alert'), /The current password is not right/)
    await page.getByLabel('Current password').fill(owner.password)
    await page.getByRole('button', { name: 'Change password' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'changed' }), /^Your password is changed\. Your other sessions are signed out; this one stays\.$/)
    assert.equal(await page.getByLabel('Current password').inputValue(), '', 'the fields are cleared')
    await screenshot(page, 'account')
    await page.setViewportSize(PHONE)
    await assertFits(page, PHONE.width, 'account, phone')
    await screenshot(page, 'account-phone')

    // This session stays; the other one is signed out at its next call.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click()
    await heading(page, 'Projects').waitFor()
    await other.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit log' }).click()
    await heading(other.page, 'Sign in').waitFor()
    await signInThroughForm(other.page, owner.email, 'a fresh pass phrase')

    // An owner who opens the Users page by its address is told it is for operators.
    await page.goto('/dashboard/users')
    await heading(page, 'Users').waitFor()
    await textOf(page.getByRole('main'), /Only operators manage users\./)
    assert.equal(await page.getByRole('table').count(), 0)
    await closePages()
  })

  test('a viewer sees every page of their project with no control that changes anything, and axe finds nothing', async () => {
    const { t } = suite
    const project = await t.project({ plan: 'pro' })
    const added = await t.request({ method: 'POST', url: `/admin/v1/projects/${project.slug}/animals`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'Biscuit', categoryId: 1 } })
    assert.equal(added.statusCode, 201, added.body)
    const ordered = await t.request({ method: 'POST', url: '/v1/store/orders', headers: { authorization: `Bearer ${project.key}` }, payload: { petId: added.json<{ id: number }>().id } })
    assert.equal(ordered.statusCode, 201, ordered.body)
    // Something on every page: a location, a domain, a webhook endpoint, a category of its own.
    for (const [path, body] of [
      ['locations', { name: 'North shelter', address: { line1: '1 Main St', city: 'Springfield', country: 'US' }, coordinates: { latitude: 40, longitude: -75 } }],
      ['domains', { name: `adopt-${project.slug}.example.org` }],
      ['webhooks', { url: 'https://hooks.example.org/adoption', types: ['pet.created'] }],
    ] as const) {
      const made = await admin(t, 'POST', `/projects/${project.slug}/${path}`, body)
      assert.equal(made.statusCode, 201, `${path}: ${made.body}`)
    }
    const ferret = await admin(t, 'PUT', `/projects/${project.slug}/categories/100`, { name: 'Ferret' })
    assert.ok(ferret.statusCode < 300, ferret.body)
    const viewer = await createUser(t, { role: 'viewer', projects: [project.slug] })
    const { page } = await newPage()
    await signInThroughForm(page, viewer.email, viewer.password)
    const changes = [/^Add/, /^(Delete|Remove)/, /^Save/, /^Edit/, /^(Approve|Cancel)/, /^(Create|Revoke|Rotate|Disable|Enable|Verify|Re-verify|Send test|Redeliver|Move|Make main)/]
    const seen: Record<string, RegExp> = {
      animals: /Biscuit/,
      orders: /Biscuit/,
      locations: /North shelter/,
      categories: /Ferret/,
      keys: /Default key|key/i,
      site: /Adoption site/,
      domains: /adopt-/,
      webhooks: /hooks\.example\.org/,
    }
    for (const [tab, shown] of Object.entries(seen)) {
      await page.goto(`/dashboard/projects/${project.slug}/${tab}`)
      await textOf(page.getByRole('main'), shown)
      await textOf(page.getByRole('note'), /Your role is viewer: you can see this project but not change it\./)
      for (const label of changes) assert.equal(await page.getByRole('main').getByRole('button', { name: label }).count(), 0, `${tab}: no ${label} button`)
      assert.deepEqual(await axeViolations(page), [], `${tab}: axe`)
    }
    // The site's settings and an animal's profile are shown in their fields, which cannot be changed.
    await page.goto(`/dashboard/projects/${project.slug}/site`)
    assert.equal(await page.getByLabel('Shelter name').isDisabled(), true)
    await page.goto(`/dashboard/projects/${project.slug}/animals/${added.json<{ id: number }>().id}`)
    await page.getByRole('heading', { level: 2, name: 'Profile of Biscuit' }).waitFor()
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Biscuit')
    assert.equal(await page.getByLabel('Name', { exact: true }).isDisabled(), true)
    for (const label of changes) assert.equal(await page.getByRole('main').getByRole('button', { name: label }).count(), 0, `the animal's profile: no ${label} button`)
    assert.deepEqual(await axeViolations(page), [], "the animal's profile: axe")
    await closePages()
  })

  test('the users table on a phone: each user a block of labelled lines, every button on screen', async () => {
    const { t } = suite
    const project = await t.project({ plan: 'pro' })
    const operator = await createUser(t, { role: 'operator' })
    await createUser(t, { role: 'owner', projects: [project.slug], email: 'a-very-long-address-for-a-shelter-volunteer@adoption-shelter.example' })
    const disabled = await createUser(t, { role: 'operator' })
    const listed = (await admin(t, 'GET', '/users')).json<{ id: number; email: string }[]>()
    assert.equal((await admin(t, 'POST', `/users/${listed.find((u) => u.email === disabled.email)!.id}/disable`)).statusCode, 200)
    const { page } = await newPage()
    await page.setViewportSize(PHONE)
    await signInThroughForm(page, operator.email, operator.password, '/users')
    await heading(page, 'Users').waitFor()
    await userRow(page, disabled.email).waitFor()
    await textOf(userRow(page, disabled.email), /Disabled/)
    await assertFits(page, PHONE.width, 'users, phone')
    await screenshot(page, 'users-phone')
    await page.setViewportSize(DESKTOP)
    await assertFits(page, DESKTOP.width, 'users, desktop')
    await screenshot(page, 'users')
    await closePages()
  })
})
