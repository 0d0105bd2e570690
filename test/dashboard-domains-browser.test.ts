/**
 * The Domains page end to end in Chromium, against Debian's Pebble (a test ACME CA) and
 * pebble-challtestsrv (its DNS) on loopback, as in domains-acme.test.ts: add a domain, see its DNS
 * record, Verify fails naming the missing CNAME, the test creates the CNAME, Verify succeeds, the
 * service's own worker gets the certificate by HTTP-01, and Remove stops the traffic at once.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Browser } from 'playwright-core'
import { systemClock } from '../src/clock.js'
import { listenHttps } from '../src/domains/https.listener.js'
import { createUser } from './helpers/accounts.js'
import type { TestApp } from './helpers/app.js'
import { assertDashboardBuilt, chromiumMissing, type DashboardPage, launchChromium, openPage, screenshot, signInThroughForm, textOf } from './helpers/browser.js'
import { createDomainsApp, DNS_TARGET, sendTo, uniqueDomain } from './helpers/domains.js'
import { type ChallTestSrv, freePorts, pebbleMissing, startChallTestSrv, startPebble, stopAll } from './helpers/pebble.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

const skip = chromiumMissing || pebbleMissing

describe('the Domains page in Chromium, with Pebble', { skip, timeout: 120_000 }, () => {
  let dns: ChallTestSrv
  let t: TestApp
  let browser: Browser
  let base: string
  let dashboard: DashboardPage | undefined

  before(async () => {
    assertDashboardBuilt()
    dns = await startChallTestSrv()
    // Pebble validates HTTP-01 on the port the service listens on, at the address the test DNS gives.
    const [httpPort = 0, httpsPort = 0] = await freePorts(2)
    const pebble = await startPebble({ httpPort, dnsServer: dns.dnsServer })
    t = await createDomainsApp(
      dns,
      {
        certificateEncryptionKey: randomBytes(32).toString('hex'),
        acmeDirectoryUrl: pebble.directoryUrl,
        acmeCaFile: pebble.caFile,
        acmeCaaDomains: ['letsencrypt.org'],
        // Served over HTTPS too, as in production (the process file starts this listener there).
        httpsPort,
        // The worker runs on its own, as in production, only faster.
        domainWorkerIntervalMs: 250,
      },
      // Real time: the CA dates certificates by it, and the page shows them.
      { clock: systemClock, background: true },
    )
    base = await t.app.listen({ port: httpPort, host: '127.0.0.1' })
    await listenHttps(t.app, { port: httpsPort, host: '127.0.0.1' })
    browser = await launchChromium()
  })
  after(async () => {
    await dashboard?.close()
    await browser?.close()
    await t?.close()
    await stopAll()
  })

  test('add → DNS record → Verify fails naming the CNAME → CNAME set → verified → certificate issued → Remove stops traffic', async () => {
    const project = await t.project({ plan: 'pro' })
    const user = await createUser(t, { role: 'operator' })
    const { name } = uniqueDomain('shop')
    dashboard = await openPage(browser, base)
    const { page, problems } = dashboard
    await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/domains`)
    await page.getByRole('heading', { level: 2, name: 'Domains' }).waitFor()
    await textOf(page.getByRole('complementary', { name: 'About custom domains' }), /plan pro or above.*up to 48 hours/s)
    await textOf(page.getByRole('main'), /This project has no custom domain yet\./)
    assert.doesNotMatch(await page.getByRole('complementary', { name: 'About custom domains' }).innerText(), /HTTPS is not configured/, 'HTTPS is configured here')

    // Add: the card with the record to create.
    await page.getByLabel('Domain name').fill(name)
    await page.getByRole('button', { name: 'Add domain' }).click()
    const status = page.locator('.tab-panel > p[role="status"]')
    await textOf(status, new RegExp(`^${name.replace(/\./g, '\\.')} is added\\.`))
    const card = page.getByRole('region', { name })
    await card.waitFor()
    const record = card.getByRole('table', { name: `DNS record for ${name}` })
    const cells = (await record.getByRole('row').nth(1).getByRole('cell').allInnerTexts()).map((cell) => cell.trim())
    assert.equal(cells[0], 'CNAME')
    assert.match(cells[1] ?? '', /^shop\b/)
    assert.match(cells[2] ?? '', new RegExp(`^${DNS_TARGET.replace(/\./g, '\\.')}\\b`))
    assert.equal(cells[3], '3600')
    await card.getByRole('button', { name: `Copy record value for ${name}` }).waitFor()
    // Pending until the first check, which the background worker (every 250 ms here) may already
    // have made by the time the page reloads the list: then it says the check failed.
    await textOf(card, /Pending verification|Verification failed/)

    // Verify before the record exists: the reason names the missing CNAME, as a warning (not a success).
    await card.getByRole('button', { name: `Verify ${name}` }).click()
    const reason = `No CNAME record for ${name}`
    await textOf(status, new RegExp(`^${name.replace(/\./g, '\\.')} is not verified yet: ${reason.replace(/\./g, '\\.')}`))
    assert.match((await status.getAttribute('class')) ?? '', /\bmessage-warning\b/, 'a failed verification is not shown as a success')
    await textOf(card, /Verification failed/)
    await screenshot(page, 'domains-verify-failed')
    await textOf(card.locator('.reason').first(), new RegExp(`^${reason.replace(/\./g, '\\.')}: create a CNAME record named shop with the value ${DNS_TARGET.replace(/\./g, '\\.')}`))
    assert.doesNotMatch(await card.innerText(), /conflicting/i, 'no record is there, so no conflicting one is mentioned')
    await textOf(card.locator('.state').filter({ has: page.getByRole('heading', { name: 'Certificate' }) }), /Pending[\s\S]*requested once the domain is verified/)

    // The record is created; Verify again.
    await dns.setCname(name, DNS_TARGET)
    await card.getByRole('button', { name: `Verify ${name}` }).click()
    await textOf(status, new RegExp(`^${name.replace(/\./g, '\\.')} is verified`))
    assert.match((await status.getAttribute('class')) ?? '', /\bmessage-success\b/)
    await textOf(card, /Verified/)
    await card.getByRole('button', { name: `Re-verify ${name}` }).waitFor()

    // The worker gets the certificate from Pebble (HTTP-01 on this service's port); the page shows it after a reload.
    const deadline = Date.now() + 60_000
    for (;;) {
      await page.reload()
      await card.waitFor()
      const text = await card.innerText()
      if (/Certificate\s+Issued/.test(text)) break
      assert.doesNotMatch(text, /Certificate\s+Failed/, 'the certificate failed')
      assert.ok(Date.now() < deadline, `no certificate after 60 s:\n${text}`)
      await sleep(500)
    }
    await textOf(card, /Valid\s+\S.*\bto\b/)
    await textOf(card, /Renewal/)
    await screenshot(page, 'domains')
    assert.equal((await sendTo(`${base}/v1/pets`, { host: name })).status, 401, 'the domain is served (a key is needed)')

    // Remove: the confirmation says traffic stops immediately.
    await card.getByRole('button', { name: `Remove ${name}` }).click()
    const dialog = page.getByRole('dialog', { name: `Remove ${name}?` })
    await textOf(dialog, new RegExp(`Traffic to ${name.replace(/\./g, '\\.')} stops immediately`))
    await dialog.getByRole('button', { name: 'Remove domain' }).click()
    await textOf(status, new RegExp(`^${name.replace(/\./g, '\\.')} is removed: it is no longer served\\.$`))
    await card.waitFor({ state: 'detached' })
    await textOf(page.getByRole('main'), /This project has no custom domain yet\./)
    const gone = await sendTo(`${base}/v1/pets`, { host: name })
    assert.equal(gone.status, 404)
    assert.equal(JSON.parse(gone.body).code, 'unknown_host')

    // A subdomain with an A record of its own: the reason names it, and only now the hint says to delete it.
    const www = uniqueDomain('www').name
    await dns.addA(www, ['192.0.2.7'])
    await page.getByLabel('Domain name').fill(www)
    await page.getByRole('button', { name: 'Add domain' }).click()
    const wwwCard = page.getByRole('region', { name: www })
    await wwwCard.getByRole('button', { name: `Verify ${www}` }).click()
    await textOf(wwwCard.locator('.reason').first(), new RegExp(`^A conflicting record for ${www.replace(/\./g, '\\.')} \\(A 192\\.0\\.2\\.7\\) blocks the CNAME`))
    await textOf(wwwCard.locator('.hint').first(), /^A record of another type for the same name \(A or AAAA\) blocks the CNAME: delete it\.$/)
    await screenshot(page, 'domains-conflicting-record')

    assert.deepEqual(problems, [], 'no script errors, CSP violations or requests to other hosts')
  })
})
