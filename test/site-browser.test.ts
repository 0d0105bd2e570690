/**
 * The adoption site in Chromium, against the real app on loopback: the listing, an animal's page
 * and its enquiry form with its errors, each checked by axe-core on a desktop and a 390 px phone;
 * the enquiry sent with JavaScript off; the listing's compressed size; every image's dimensions;
 * the embed snippet pasted into another origin's page.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, describe, test } from 'node:test'
import type { Browser } from 'playwright-core'
import sharp from 'sharp'
import { admin } from './helpers/admin.js'
import { createAdminApp } from './helpers/admin.js'
import { bearer, ManualClock, type TestApp } from './helpers/app.js'
import { axeViolations, chromiumMissing, DESKTOP, freePort, launchChromium, pageScrollWidth, PHONE, screenshot } from './helpers/browser.js'
import { MIN_FILL_MS } from '../src/site/site.routes.js'
import type { TestPlan } from '../scripts/test-plan.js'

// What the browser shows is the subject; the site's rules run on both back ends in test/site.test.ts.
export const testPlan: TestPlan = { legs: 'either' }

/** The listing's HTML and CSS, compressed, at most. */
const MAX_LISTING_BYTES = 60 * 1024

describe('the adoption site in Chromium', { skip: chromiumMissing, timeout: 240_000 }, () => {
  let t: TestApp
  let browser: Browser
  let base: string
  let site: string
  let luna: number
  const clock = new ManualClock(Date.now())

  before(async () => {
    const port = await freePort()
    t = await createAdminApp({ clock, config: { mediaBaseUrl: `http://127.0.0.1:${port}/media` } })
    base = await t.app.listen({ port, host: '127.0.0.1' })
    browser = await launchChromium()
    const shelter = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    site = `${base}/sites/${shelter.slug}`
    assert.equal((await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { displayName: 'Springfield Rescue', primaryColor: '#ffdd00', about: 'Since 1999.', contactEmail: 'adopt@example.org' })).statusCode, 200)
    const photo = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer()
    for (let i = 0; i < 24; i++) {
      const created = await t.app.inject({
        method: 'POST',
        url: '/v1/pets',
        headers: bearer(shelter.key),
        payload: { name: i === 0 ? 'Luna' : `Animal ${i}`, categoryId: 1 + (i % 2), status: 'available', age: 'young', sex: 'female', size: 'medium', breeds: { primary: 'Labrador Retriever' }, description: 'Friendly and calm. '.repeat(20) },
      })
      const id = created.json<{ id: number }>().id
      if (i === 0) luna = id
      if (i < 8) {
        const uploaded = await t.app.inject({ method: 'POST', url: `/v1/pets/${id}/photos`, headers: { ...bearer(shelter.key), 'content-type': 'image/jpeg' }, payload: photo })
        assert.equal(uploaded.statusCode, 201, uploaded.body)
      }
    }
  })
  after(async () => {
    await browser?.close()
    await t?.close()
  })

  async function open(url: string, options: { javaScriptEnabled?: boolean; viewport?: typeof DESKTOP } = {}) {
    const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, javaScriptEnabled: options.javaScriptEnabled ?? true })
    const page = await context.newPage()
    const response = await page.goto(url)
    return { context, page, status: response?.status() }
  }

  test('the listing: accessible on a desktop and a phone, small, every image sized', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page, status } = await open(`${site}/`, { viewport })
      assert.equal(status, 200)
      assert.equal(await page.getByRole('heading', { level: 1 }).count(), 1)
      assert.deepEqual(await axeViolations(page), [], `listing at ${viewport.width} px`)
      assert.ok((await pageScrollWidth(page)) <= viewport.width, `no sideways scroll at ${viewport.width} px`)
      const sizes = await page.locator('img').evaluateAll((images) => images.map((img) => [img.getAttribute('width'), img.getAttribute('height')]))
      assert.equal(sizes.length, 8)
      for (const [width, height] of sizes) assert.ok(Number(width) > 0 && Number(height) > 0)
      await screenshot(page, `site-listing-${viewport.width}`)
      await context.close()
    }
    const compressed = await fetch(`${site}/`, { headers: { accept: 'text/html', 'accept-encoding': 'br' } })
    assert.equal(compressed.headers.get('content-encoding'), 'br')
    const bytes = (await t.app.inject({ method: 'GET', url: new URL(`${site}/`).pathname, headers: { 'accept-encoding': 'br' } })).rawPayload.length
    assert.ok(bytes <= MAX_LISTING_BYTES, `the listing is ${bytes} bytes compressed`)
  })

  test("an animal's page and its form's errors: accessible on a desktop and a phone", async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page, status } = await open(`${site}/animals/${luna}`, { viewport })
      assert.equal(status, 200)
      assert.deepEqual(await axeViolations(page), [], `animal page at ${viewport.width} px`)
      assert.ok((await pageScrollWidth(page)) <= viewport.width)
      clock.advance(MIN_FILL_MS + 1000)
      await page.getByLabel('Email').fill('not an email')
      await page.getByRole('button', { name: 'Send enquiry' }).click()
      await page.getByRole('heading', { name: 'Your enquiry was not sent' }).waitFor()
      assert.equal(await page.getByRole('alert').count(), 1)
      assert.match((await page.getByRole('textbox', { name: 'Your name' }).getAttribute('aria-describedby')) ?? '', /name-error/)
      assert.deepEqual(await axeViolations(page), [], `the form's errors at ${viewport.width} px`)
      await screenshot(page, `site-enquiry-errors-${viewport.width}`)
      await context.close()
    }
  })

  test('the embed, the thank-you page and the not-found page: accessible on a desktop and a phone', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      for (const [path, status] of [['/embed', 200], ['/animals/999999', 404]] as const) {
        const { context, page, status: answered } = await open(`${site}${path}`, { viewport })
        assert.equal(answered, status, path)
        assert.deepEqual(await axeViolations(page), [], `${path} at ${viewport.width} px`)
        assert.ok((await pageScrollWidth(page)) <= viewport.width, `no sideways scroll on ${path} at ${viewport.width} px`)
        await context.close()
      }
    }
    // An enquiry to another shelter's site, so this one's animals and orders stay as they are.
    const other = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
    await t.app.inject({ method: 'POST', url: '/v1/pets', headers: bearer(other.key), payload: { name: 'Rex', categoryId: 1, status: 'available' } })
    const { context, page } = await open(`${base}/sites/${other.slug}/`)
    await page.getByRole('link', { name: /Rex/ }).click()
    await page.getByLabel('Your name').fill('Grace Hopper')
    await page.getByLabel('Email').fill('grace@example.org')
    clock.advance(MIN_FILL_MS + 1000)
    await page.getByRole('button', { name: 'Send enquiry' }).click()
    await page.getByRole('heading', { name: 'Thank you' }).waitFor()
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport)
      assert.deepEqual(await axeViolations(page), [], `the thank-you page at ${viewport.width} px`)
      assert.ok((await pageScrollWidth(page)) <= viewport.width)
    }
    await context.close()
  })

  test("the embed pasted into another site's page: the listing in its frame, its search in place, its animals opening in a new tab", async () => {
    // Another site (another origin: another port), whose page holds the snippet the dashboard shows.
    const snippet = `<iframe src="${site}/embed" title="Animals for adoption" width="100%" height="900" style="border:0" loading="lazy"></iframe>`
    const other = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end(`<!doctype html><html lang="en"><head><title>Springfield Rescue</title></head><body><main><h1>Adopt</h1>${snippet}</main></body></html>`)
    })
    const port = await freePort()
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve))
    const { context, page } = await open(`http://127.0.0.1:${port}/`)
    try {
      const frame = page.frameLocator('iframe[title="Animals for adoption"]')
      await frame.getByRole('link', { name: /Luna/ }).waitFor()
      assert.equal(await frame.locator('header.site').count(), 0, 'no header inside the frame')
      assert.equal(await frame.locator('li.card').count(), 24)
      // The search runs inside the frame; an animal's page opens in a tab of its own.
      await frame.getByLabel('Search').fill('Luna')
      await frame.getByRole('button', { name: 'Search' }).click()
      // (The frame is another origin's: the host page cannot look inside, the locators can.)
      await frame.locator('li.card').nth(1).waitFor({ state: 'detached' })
      assert.equal(await frame.locator('li.card').count(), 1)
      assert.match(page.url(), new RegExp(`^http://127\\.0\\.0\\.1:${port}/$`), 'the host page stays')
      const [opened] = await Promise.all([context.waitForEvent('page'), frame.getByRole('link', { name: /Luna/ }).click()])
      await opened.waitForLoadState()
      assert.equal(opened.url(), `${site}/animals/${luna}`, "the animal's own page, with the site around it")
    } finally {
      await context.close()
      other.close()
    }
  })

  test('the enquiry is sent with JavaScript off', async () => {
    const { context, page } = await open(`${site}/animals/${luna}`, { javaScriptEnabled: false, viewport: PHONE })
    await page.getByLabel('Your name').fill('Ada Lovelace')
    await page.getByLabel('Email').fill('ada@example.org')
    await page.getByLabel('Message').fill('We have a garden.')
    clock.advance(MIN_FILL_MS + 1000)
    await page.getByRole('button', { name: 'Send enquiry' }).click()
    await page.getByRole('heading', { name: 'Thank you' }).waitFor()
    assert.match(await page.locator('main').innerText(), /Your enquiry about Luna was sent to Springfield Rescue/)
    await context.close()
    const orders = t.app.services.orders
    const projectId = (await t.app.services.projects.find(new URL(site).pathname.split('/')[2]!))!.id
    const placed = await orders.listWithPets(projectId, { limit: 10 })
    assert.deepEqual(placed.items.map((order) => [order.petName, order.enquiry?.name]), [['Luna', 'Ada Lovelace']])
  })
})
