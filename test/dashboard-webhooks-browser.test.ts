/**
 * The Webhooks tab end to end in Chromium, with a real receiving server: add an endpoint (its
 * secret shown once), send a test event and see its delivery in the log, watch a failed delivery
 * and redeliver it, rotate the secret, disable and remove; on a desktop and on a 390 px phone,
 * with screenshots in test-results/dashboard/.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { createUser } from './helpers/accounts.js'
import { axeViolations, chromiumMissing, dashboardSuite, pageScrollWidth, PHONE, screenshot, signInThroughForm, textOf } from './helpers/browser.js'
import { Receiver, validSignatures } from './helpers/receiver.js'
import { eventually } from './helpers/wait.js'
import type { TestPlan } from '../scripts/test-plan.js'
import { grantPrivateNetworks } from './helpers/webhooks.js'
import { admin } from './helpers/admin.js'
import { bearer } from './helpers/app.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

describe('the Webhooks tab in Chromium', { skip: chromiumMissing, timeout: 120_000 }, () => {
  // The delivery worker runs on its own, as in production, only more often.
  const suite = dashboardSuite({ config: { webhookEncryptionKey: randomBytes(32).toString('hex'), webhookAllowedNetworks: ['127.0.0.0/8'], webhookWorkerIntervalMs: 100 } })
  let receiver: Receiver
  before(async () => {
    receiver = await Receiver.start()
  })
  after(async () => {
    await receiver?.close()
  })

  test('add → secret shown once → test event delivered and signed → a failure redelivered → rotate → disable → remove, on desktop and phone', async () => {
    const { t } = suite
    const project = await t.project()
    await grantPrivateNetworks(t, project.slug)
    const user = await createUser(t, { role: 'owner', projects: [project.slug] })
    const { page } = await suite.newPage()
    await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/webhooks`)
    await page.getByRole('heading', { level: 2, name: 'Webhooks' }).waitFor()
    await textOf(page.getByRole('main'), /This project has no webhook endpoints yet\./)

    // Add, for two event types.
    await page.getByLabel('URL').fill(receiver.url)
    await page.getByLabel('All events').uncheck()
    await page.getByLabel('pet.created').check()
    await page.getByLabel('order.placed').check()
    await page.getByRole('button', { name: 'Add endpoint' }).click()
    const secret = (await page.getByTestId('new-webhook-secret').innerText()).trim()
    assert.match(secret, /^whsec_/)
    await screenshot(page, 'webhooks-secret')
    await page.getByRole('button', { name: 'I have copied the secret' }).click()
    assert.equal(await page.getByTestId('new-webhook-secret').count(), 0, 'the secret is gone once dismissed')
    const card = page.getByRole('region', { name: receiver.url })
    await textOf(card, /Events: order\.placed, pet\.created/)

    // A test event reaches the receiver, signed with the secret shown, and shows in the log.
    await card.getByRole('button', { name: `Send test event to ${receiver.url}` }).click()
    const [received] = await receiver.waitFor('webhook.test')
    assert.equal(validSignatures(received!, secret).length, 1)
    const log = card.getByRole('table', { name: `Deliveries to ${receiver.url}` })
    // The worker records an outcome just after the receiver has answered: the log is refreshed
    // until it shows it.
    const refreshedUntil = (shown: RegExp, where = log) =>
      eventually(
        `${String(where)} shows ${String(shown)}`,
        async () => {
          await card.getByRole('button', { name: `Refresh the deliveries of ${receiver.url}` }).click()
          return shown.test(await where.innerText())
        },
        { timeoutMs: 15_000, everyMs: 100 },
      )
    await refreshedUntil(/webhook\.test[\s\S]*Delivered[\s\S]*HTTP 204/)

    // A failure, then a redelivery of it.
    receiver.fallback = { status: 500, body: 'not today' }
    await card.getByRole('button', { name: `Send test event to ${receiver.url}` }).click()
    await receiver.waitFor('webhook.test', 2)
    // The owner of a project granted the private networks sees the failure, not what the receiver answered.
    await refreshedUntil(/Failed[\s\S]*HTTP 500/)
    receiver.fallback = { status: 200 }
    await log.getByRole('button', { name: /^Redeliver webhook\.test/ }).first().click()
    await receiver.waitFor('webhook.test', 3)
    assert.equal(receiver.received[2]!.id, receiver.received[1]!.id, 'the same event id again')
    await refreshedUntil(/Delivered/, log.locator('tbody tr').first())

    // The failed delivery's attempt: its status and the request sent, as the receiver got it (its
    // answer is the operator's to read here too).
    const failed = receiver.received[1]!
    await log.locator('tbody tr').nth(1).getByRole('button', { name: /^Attempts of webhook\.test/ }).click()
    const attempts = card.getByRole('region', { name: `Attempts of webhook.test ${failed.id}` })
    await textOf(attempts, /HTTP 500[\s\S]*Request sent/)
    assert.ok(!(await attempts.innerText()).includes('not today'), "the owner does not read the receiver's answer")
    const sent = await attempts.locator('pre').last().innerText()
    assert.ok(sent.includes(`webhook-id: ${failed.id}`), sent)
    assert.ok(sent.includes(`webhook-signature: ${failed.signature}`), sent)
    assert.ok(sent.trimEnd().endsWith(failed.body), 'the body sent is the body received')
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations with the filters and an attempt shown')
    await page.setViewportSize(PHONE)
    assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'an attempt fits a phone')
    assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations on a phone either')
    await screenshot(page, 'webhooks-attempts-phone')
    await page.setViewportSize({ width: 1280, height: 900 })

    // Filters: only the failed delivery, then one event by its webhook-id.
    await card.getByLabel('State').selectOption('failed')
    await card.getByRole('button', { name: `Filter the deliveries of ${receiver.url}` }).click()
    await eventually('only the failed delivery is listed', async () => (await log.locator('tbody tr').count()) === 1 && /Failed/.test(await log.innerText()))
    await card.getByLabel('State').selectOption('')
    await card.getByLabel('webhook-id').fill(received!.id)
    await card.getByRole('button', { name: `Filter the deliveries of ${receiver.url}` }).click()
    await eventually('only the first test event is listed', async () => (await log.locator('tbody tr').count()) === 1 && (await log.innerText()).includes(received!.id))
    await card.getByLabel('webhook-id').fill('')
    await card.getByRole('button', { name: `Filter the deliveries of ${receiver.url}` }).click()
    await eventually('every delivery is listed again', async () => (await log.locator('tbody tr').count()) === 3)
    await screenshot(page, 'webhooks')

    // On a phone: nothing wider than the screen, the log stacked.
    await page.setViewportSize(PHONE)
    assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'no sideways scroll on a phone')
    await screenshot(page, 'webhooks-phone')
    await page.setViewportSize({ width: 1280, height: 900 })

    // Rotate: a new secret, shown once; both sign for a day.
    await card.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click()
    const rotated = (await page.getByTestId('new-webhook-secret').innerText()).trim()
    assert.notEqual(rotated, secret)
    await page.getByRole('button', { name: 'I have copied the secret' }).click()
    await textOf(card, /The previous secret also signs until/)

    // Disable, then remove.
    await card.getByRole('button', { name: `Disable ${receiver.url}` }).click()
    await textOf(card, /Disabled/)
    await card.getByRole('button', { name: `Remove ${receiver.url}` }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Remove endpoint' }).click()
    await textOf(page.getByRole('main'), /is removed\./)
    assert.equal(await page.getByRole('region', { name: receiver.url }).count(), 0)
    await suite.closePages()
  })

  test('"Replay events since…" sends an endpoint added later the events of its types, each once; "Recover failed since…" says when nothing failed', async () => {
    const { t } = suite
    const project = await t.project()
    await grantPrivateNetworks(t, project.slug)
    const late = await Receiver.start()
    try {
      receiver.received.length = 0
      receiver.fallback = { status: 204 }
      const first = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: receiver.url, types: ['pet.created'] })
      assert.equal(first.statusCode, 201, first.body)
      for (const name of ['Rex', 'Tom']) {
        const created = await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(project.key), 'content-type': 'application/json' }, payload: JSON.stringify({ name, categoryId: 1 }) })
        assert.equal(created.statusCode, 201, created.body)
      }
      const sent = await receiver.waitFor('pet.created', 2)
      const second = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: late.url, types: ['pet.created'] })
      assert.equal(second.statusCode, 201, second.body)

      const user = await createUser(t, { role: 'owner', projects: [project.slug] })
      const { page } = await suite.newPage()
      await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/webhooks`)
      const card = page.getByRole('region', { name: late.url })
      // The default is a day before now: the events just sent are in it.
      await card.getByRole('button', { name: `Replay events since… to ${late.url}` }).click()
      await textOf(card, /2 events are on their way\./)
      const replayed = await late.waitFor('pet.created', 2)
      assert.deepEqual(replayed.map((r) => r.id).sort(), sent.map((r) => r.id).sort(), 'the same webhook-ids')
      await card.getByRole('button', { name: `Replay events since… to ${late.url}` }).click()
      await textOf(card, /No event to replay since then: the endpoint has them all\./)
      assert.equal(late.received.length, 2, 'each event once')

      const firstCard = page.getByRole('region', { name: receiver.url })
      await firstCard.getByRole('button', { name: `Recover failed since… for ${receiver.url}` }).click()
      await textOf(firstCard, /No failed delivery to send again since then\./)
      // A time beyond the retention period is refused with the reason.
      await firstCard.getByLabel('Since').fill('2000-01-01T00:00')
      await firstCard.getByRole('button', { name: `Recover failed since… for ${receiver.url}` }).click()
      await textOf(firstCard, /since must be within the last 30 days/)
      assert.deepEqual(await axeViolations(page), [], 'axe-core: no violations with the forms shown')
      await page.setViewportSize(PHONE)
      assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'the forms fit a phone')
      await screenshot(page, 'webhooks-replay-phone')
      await suite.closePages()
    } finally {
      await late.close()
    }
  })
})
