/**
 * Deleting a project from the dashboard's Projects page in Chromium, against the real app on
 * loopback: the confirmation deletes only once the project's slug is typed; then the card is
 * gone, the project's key is refused and another project stays. Owners are offered no deletion.
 * A project's page offers its owners the download of its export (the archive's name is the
 * project's slug and the time); viewers are not offered it.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { axeViolations, chromiumMissing, dashboardSuite, pets, signedInPage, textOf } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page is the subject: the deletion itself is test/projects-lifecycle.test.ts's, on both back ends.
export const testPlan: TestPlan = { legs: 'either' }

describe('dashboard: deleting a project', { skip: chromiumMissing }, () => {
  const suite = dashboardSuite()

  test('the confirmation deletes only once the slug is typed; the card goes, the key is refused, the other project stays', async () => {
    const { t, base } = suite
    const doomed = await t.project()
    const kept = await t.project()
    const page = await signedInPage(suite, '/', { role: 'operator' })
    const card = page.getByRole('article', { name: doomed.slug })
    await card.getByRole('button', { name: `Delete project ${doomed.slug}` }).click()
    const dialog = page.getByRole('dialog', { name: `Delete project ${doomed.slug}?` })
    await textOf(dialog, /cannot be undone/)
    const confirm = dialog.getByRole('button', { name: 'Delete project' })
    const slug = dialog.getByLabel(`Type ${doomed.slug} to confirm`)
    assert.ok(await confirm.isDisabled(), 'nothing typed: the deletion is not offered')
    await slug.fill(kept.slug)
    assert.ok(await confirm.isDisabled(), "another project's slug does not confirm")
    assert.deepEqual(await axeViolations(page), [])

    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'detached' })
    assert.equal((await pets(base, doomed.key)).status, 200)

    await card.getByRole('button', { name: `Delete project ${doomed.slug}` }).click()
    await slug.fill(doomed.slug)
    await confirm.click()
    await textOf(page.getByRole('status').filter({ hasText: 'deleted' }), new RegExp(`^Project ${doomed.slug} deleted`))
    await card.waitFor({ state: 'detached' })
    await page.getByRole('article', { name: kept.slug }).waitFor()
    assert.equal((await pets(base, doomed.key)).status, 401, "the deleted project's key is refused")
    assert.equal((await pets(base, kept.key)).status, 200)
    await suite.closePages()
  })

  test('an owner is offered no deletion of their project', async () => {
    const project = await suite.t.project()
    const page = await signedInPage(suite, '/', { role: 'owner', projects: [project.slug] })
    await page.getByRole('article', { name: project.slug }).waitFor()
    assert.equal(await page.getByRole('button', { name: /Delete project/ }).count(), 0)
    await suite.closePages()
  })

  test("a project's page offers its owner the download of its export, named by its slug and the time; a viewer is not offered it", async () => {
    const project = await suite.t.project()
    const page = await signedInPage(suite, `/projects/${project.slug}/keys`, { role: 'owner', projects: [project.slug] })
    const link = page.getByRole('link', { name: 'Download export' })
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()])
    assert.match(download.suggestedFilename(), new RegExp(`^${project.slug}-\\d{8}T\\d{6}Z\\.tar\\.gz$`))
    // Read through the browser's connection: the browser may run in another process (test/helpers/browser.ts).
    const bytes = Buffer.concat(await (await download.createReadStream()).toArray())
    assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b], 'the file is gzip-compressed')
    await suite.closePages()

    const viewer = await signedInPage(suite, `/projects/${project.slug}/keys`, { role: 'viewer', projects: [project.slug] })
    await viewer.getByRole('note').filter({ hasText: 'Your role is viewer' }).waitFor()
    assert.equal(await viewer.getByRole('link', { name: 'Download export' }).count(), 0)
    await suite.closePages()
  })
})
