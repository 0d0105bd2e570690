/**
 * Controls of the Webhooks tab in Chromium: the operator's grant of the private networks
 * (WEBHOOK_ALLOWED_NETWORKS) to a project, confirmed, then withdrawn, each change in the project
 * and the audit log, and shown to an owner as text only; the delivery log's time filters
 * (created since, created before), on deliveries made at times the service's clock chose; and the
 * project's event list, read by a viewer, page by page and filtered.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createUser } from './helpers/accounts.js'
import { admin } from './helpers/admin.js'
import type { ManualClock } from './helpers/app.js'
import { axeViolations, chromiumMissing, dashboardSuite, signInThroughForm, textOf } from './helpers/browser.js'
import { Receiver } from './helpers/receiver.js'
import { eventually } from './helpers/wait.js'
import { grantPrivateNetworks } from './helpers/webhooks.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page is the subject: the API calls under it are the API files' subject on both back ends.
export const testPlan: TestPlan = { legs: 'either' }

const HOUR = 3_600_000

describe('the Webhooks tab’s operator controls in Chromium', { skip: chromiumMissing, timeout: 300_000 }, () => {
  const suite = dashboardSuite({ config: { webhookEncryptionKey: randomBytes(32).toString('hex'), webhookAllowedNetworks: ['127.0.0.0/8'] } })
  let receiver: Receiver
  before(async () => {
    receiver = await Receiver.start()
  })
  after(async () => {
    await receiver?.close()
  })

  test('an operator grants the private networks (after confirming) and withdraws them; an owner sees the state, not the control', async () => {
    const { t } = suite
    const project = await t.project()
    const grantOf = async () => (await admin(t, 'GET', `/projects/${project.slug}`)).json<{ webhookPrivateNetworks: boolean }>().webhookPrivateNetworks
    const changes = async () =>
      (await admin(t, 'GET', `/audit?project=${project.slug}&action=project.webhook_private_networks_changed`)).json<{ action: string }[]>().map((entry) => entry.action)
    assert.equal(await grantOf(), false)

    const operator = await createUser(t, { role: 'operator' })
    const { page } = await suite.newPage()
    await signInThroughForm(page, operator.email, operator.password, `/projects/${project.slug}/webhooks`)
    const card = page.getByRole('region', { name: 'Private networks' })
    await textOf(card, /Not granted[\s\S]*public addresses only[\s\S]*WEBHOOK_ALLOWED_NETWORKS is set on this service/)

    // Cancelling the confirmation changes nothing.
    await card.getByRole('button', { name: 'Grant private networks…' }).click()
    const dialog = page.getByRole('dialog')
    await textOf(dialog, /internal networks of WEBHOOK_ALLOWED_NETWORKS/)
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations with the confirmation shown')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    assert.equal(await grantOf(), false, 'a cancelled grant is no grant')

    await card.getByRole('button', { name: 'Grant private networks…' }).click()
    await dialog.getByRole('button', { name: 'Grant private networks', exact: true }).click()
    await textOf(card, /may now reach the private networks/)
    await textOf(card, /Granted/)
    assert.equal(await grantOf(), true)
    assert.deepEqual(await changes(), ['project.webhook_private_networks_changed'])
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations with the grant shown')

    await card.getByRole('button', { name: 'Withdraw private networks' }).click()
    await textOf(card, /may no longer reach the private networks/)
    assert.equal(await grantOf(), false)
    assert.deepEqual(await changes(), ['project.webhook_private_networks_changed', 'project.webhook_private_networks_changed'])

    // An owner of a granted project sees the grant, without a control or the service's setting.
    await grantPrivateNetworks(t, project.slug)
    const owner = await createUser(t, { role: 'owner', projects: [project.slug] })
    const ownerPage = (await suite.newPage()).page
    await signInThroughForm(ownerPage, owner.email, owner.password, `/projects/${project.slug}/webhooks`)
    const ownerCard = ownerPage.getByRole('region', { name: 'Private networks' })
    await textOf(ownerCard, /Granted[\s\S]*may reach the private networks/)
    assert.equal(await ownerCard.getByRole('button').count(), 0, 'an owner has no control')
    assert.doesNotMatch(await ownerCard.innerText(), /is set on this service/)
  })

  test('the delivery log’s "Created since" and "Created before" narrow it to the deliveries made in that time', async () => {
    const { t } = suite
    const clock = t.clock as ManualClock
    const project = await t.project()
    await grantPrivateNetworks(t, project.slug)
    // The owner first: their user.added comes before the endpoint, which is sent only the three test events.
    const user = await createUser(t, { role: 'owner', projects: [project.slug] })
    const created = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url, types: ['*'] })
    assert.equal(created.statusCode, 201, created.body)
    const endpointId = created.json<{ id: string }>().id
    // Three test events, an hour apart on the service's clock.
    const start = clock.now()
    const eventIds: string[] = []
    for (let i = 0; i < 3; i++) {
      if (i > 0) clock.advance(HOUR)
      const sent = await admin(t, 'POST', `/projects/${project.slug}/webhooks/${endpointId}/test`)
      assert.equal(sent.statusCode, 202, sent.body)
      eventIds.push(sent.json<{ eventId: string }>().eventId)
    }

    const { page } = await suite.newPage()
    await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/webhooks`)
    const card = page.getByRole('region', { name: receiver.url })
    await card.getByRole('button', { name: `Deliveries of ${receiver.url}` }).click()
    const log = card.getByRole('table', { name: `Deliveries to ${receiver.url}` })
    await eventually('the three deliveries are listed', async () => (await log.locator('tbody tr').count()) === 3)

    // The inputs take the browser's local time: the page writes the instants as they show them.
    const local = async (ms: number) => {
      const offsetMinutes = await page.evaluate((at) => new Date(at).getTimezoneOffset(), ms)
      return new Date(ms - offsetMinutes * 60_000).toISOString().slice(0, 19)
    }
    const since = card.getByLabel('Created since')
    const until = card.getByLabel('Created before')
    const filter = card.getByRole('button', { name: `Filter the deliveries of ${receiver.url}` })

    await since.fill(await local(start + HOUR / 2))
    await until.fill(await local(start + HOUR + HOUR / 2))
    await filter.click()
    await eventually('only the middle delivery is listed', async () => (await log.locator('tbody tr').count()) === 1 && (await log.innerText()).includes(eventIds[1]!))
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations with the time filters set')

    await until.fill('')
    await filter.click()
    await eventually('the two later deliveries are listed', async () => (await log.locator('tbody tr').count()) === 2)
    const text = await log.innerText()
    assert.ok(text.includes(eventIds[1]!) && text.includes(eventIds[2]!) && !text.includes(eventIds[0]!), text)

    await since.fill(await local(start + 3 * HOUR))
    await filter.click()
    await textOf(card, /No delivery matches these filters\./)
  })

  test('the event list shows every event of the project, no endpoint needed, page by page, with its data, narrowed by type and time', async () => {
    const { t } = suite
    const clock = t.clock as ManualClock
    const project = await t.project()
    // A viewer: reading the list changes nothing. Their user.added follows the project key's key.created.
    clock.advance(60_000)
    const viewer = await createUser(t, { role: 'viewer', projects: [project.slug] })
    // 21 animals, a minute apart on the service's clock: 23 events, more than a page of 20.
    const start = clock.now()
    for (let i = 1; i <= 21; i++) {
      clock.advance(60_000)
      const added = await admin(t, 'POST', `/projects/${project.slug}/animals`, { name: `Pup ${i}`, categoryId: 1 })
      assert.equal(added.statusCode, 201, added.body)
    }
    const listed = await admin(t, 'GET', `/projects/${project.slug}/events?limit=100`)
    assert.equal(listed.statusCode, 200, listed.body)
    const events = listed.json<{ id: string; type: string; data: { name?: string; email?: string } }[]>()
    assert.deepEqual(
      events.map((event) => event.type),
      [...Array<string>(21).fill('pet.created'), 'user.added', 'key.created'],
    )

    const { page } = await suite.newPage()
    await signInThroughForm(page, viewer.email, viewer.password, `/projects/${project.slug}/webhooks`)
    const card = page.getByRole('region', { name: 'Events' })
    const table = card.getByRole('table', { name: 'Events of the project, newest first' })
    const shownIds = async () => (await table.locator('tbody tr td[data-label="webhook-id"]').allInnerTexts()).map((text) => text.trim())
    await eventually('the first page of events is listed', async () => (await table.locator('tbody tr').count()) === 20)
    assert.deepEqual(await shownIds(), events.slice(0, 20).map((event) => event.id), 'newest first, as the API lists them')
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations with the event list shown')

    await card.getByRole('button', { name: 'Older events' }).click()
    await eventually('every event is listed', async () => (await table.locator('tbody tr').count()) === 23)
    assert.deepEqual(await shownIds(), events.map((event) => event.id))
    await textOf(card, /No older events\./)

    // The data of an event, as its endpoints receive it.
    const added = events[21]!
    await card.getByRole('button', { name: `Data of user.added ${added.id}` }).click()
    const data = card.getByLabel(`Data of user.added ${added.id}`)
    assert.deepEqual(JSON.parse(await data.innerText()), added.data)
    assert.equal(added.data.email, viewer.email)

    // The inputs take the browser's local time: the page writes the instants as they show them.
    const local = async (ms: number) => {
      const offsetMinutes = await page.evaluate((at) => new Date(at).getTimezoneOffset(), ms)
      return new Date(ms - offsetMinutes * 60_000).toISOString().slice(0, 19)
    }
    // Animals 5 to 7 were added at start + 5, 6 and 7 minutes.
    await card.getByLabel('Event type').selectOption('pet.created')
    await card.getByLabel('Happened since').fill(await local(start + 5 * 60_000))
    await card.getByLabel('Happened before').fill(await local(start + 8 * 60_000))
    await card.getByRole('button', { name: 'Filter the events' }).click()
    await eventually('only the three events of that time are listed', async () => (await table.locator('tbody tr').count()) === 3)
    const names = events.filter((event) => ['Pup 5', 'Pup 6', 'Pup 7'].includes(event.data.name ?? '')).map((event) => event.id)
    assert.deepEqual(await shownIds(), names)

    await card.getByLabel('Event type').selectOption('user.removed')
    await card.getByRole('button', { name: 'Filter the events' }).click()
    await textOf(card, /No event matches these filters\./)
  })
})
