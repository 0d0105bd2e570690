import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { createTestApp, type TestApp } from './helpers/app.js'
import { chromiumMissing, launchChromium } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

/**
 * The interactive reference at /docs, in a real browser: it renders every operation from the
 * app's own document, served without any outside host, and the store group's operations have no
 * "Try it out" panel while the others do. "Try it out" works at the address the server prints
 * (127.0.0.1 here, while the configured base URLs say localhost): the request goes to the host
 * the page was opened on and its answer is shown.
 */

describe('the /docs reference in Chromium', { skip: chromiumMissing }, () => {
  let t: TestApp
  let browser: Browser
  let base: string

  before(async () => {
    t = await createTestApp()
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    browser = await launchChromium()
  })
  after(async () => {
    await browser?.close()
    await t?.close()
  })

  test('renders every operation and webhook event; "Try it out" exists for pets and not for the store group or the events', async () => {
    const page = await browser.newPage()
    const problems = pageProblems(page)
    const outside: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(base) && !request.url().startsWith('data:')) outside.push(request.url())
    })

    await page.goto(`${base}/docs/`)
    await page.waitForSelector('.opblock', { timeout: 15_000 })
    const operations = await page.$$eval('.opblock', (blocks) =>
      blocks.map((block) => ({
        id: block.id,
        path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        webhook: block.closest('.webhooks') !== null,
      })),
    )
    const doc = t.app.swagger() as unknown as { paths: Record<string, object>; webhooks: Record<string, object> }
    const count = (items: Record<string, object>) => Object.values(items).reduce((sum, item) => sum + Object.keys(item).length, 0)
    assert.equal(operations.filter((o) => !o.webhook).length, count(doc.paths), 'every operation of the document is shown')
    assert.deepEqual(operations.filter((o) => o.webhook).map((o) => o.path).sort(), Object.keys(doc.webhooks).sort(), 'every webhook event is shown')

    // Each block opened by a click on its summary, read, and closed again: with every block open
    // at once, each render of the page redraws all their schemas. The clicks and the waits run in
    // the page, one block after another (a round trip to the browser for each step cost most of
    // this file's time). An opened block is empty until its `$ref`s are resolved, so it is read
    // once its responses are shown: only then does the absence of a "Try it out" button say
    // anything.
    const seen = await page.locator('body').evaluate(
      async (body, blocks) => {
        const document = body.ownerDocument
        const frame = () => new Promise((resolve) => document.defaultView?.requestAnimationFrame(resolve))
        const until = async (ready: () => boolean) => {
          for (const end = performance.now() + 15_000; !ready(); await frame()) if (performance.now() > end) return false
          return true
        }
        const part = (id: string, selector: string) => document.getElementById(id)?.querySelector(selector) ?? null
        const results: { opened: boolean; tryOut: number; closed: boolean }[] = []
        for (const { id, testable } of blocks) {
          const summary = () => part(id, '.opblock-summary-control') as { click(): void } | null
          summary()?.click()
          const opened = await until(() => part(id, '.opblock-body .responses-table .response') !== null)
          if (opened && testable) await until(() => part(id, 'button.try-out__btn') !== null)
          const tryOut = document.getElementById(id)?.querySelectorAll('button.try-out__btn').length ?? -1
          summary()?.click()
          results.push({ opened, tryOut, closed: await until(() => part(id, '.opblock-body') === null) })
        }
        return results
      },
      // An event is what the service sends to an endpoint, and the store group is not tried from
      // the page: neither has a live testing panel.
      operations.map(({ id, path, webhook }) => ({ id, testable: !webhook && !path.startsWith('/store') })),
    )
    assert.equal(seen.length, operations.length)
    for (const [i, { path, webhook }] of operations.entries()) {
      const { opened, tryOut, closed } = seen[i]!
      assert.ok(opened, `${path}: a click on its summary opens the block, and its responses are shown`)
      if (webhook) assert.equal(tryOut, 0, `${path}: a webhook event has no live testing panel`)
      else if (path.startsWith('/store')) assert.equal(tryOut, 0, `${path}: the store group has no live testing panel`)
      else assert.equal(tryOut, 1, `${path}: "Try it out" is offered`)
      assert.ok(closed, `${path}: a second click closes it`)
    }
    assert.deepEqual(outside, [], 'nothing is loaded from another host')
    assert.deepEqual(problems, [], 'no errors in the page (CSP included)')
    await page.close()
  })

  test('"Try it out" on listPets, with a real key, answers 200 in the page at the address it was opened on', async () => {
    const { key } = await t.project()
    assert.ok(!t.config.publicBaseUrl.startsWith(base), `the configured base URL (${t.config.publicBaseUrl}) is another host than the page's (${base})`)
    const page = await browser.newPage()
    const problems = pageProblems(page)
    const calls: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/pets')) calls.push(request.url())
    })

    await page.goto(`${base}/docs/`)
    await page.waitForSelector('.opblock', { timeout: 15_000 })
    await page.locator('button.authorize').first().click()
    const dialog = page.locator('.modal-ux')
    await dialog.locator('input').first().fill(key)
    await dialog.locator('button.authorize').first().click()
    await dialog.locator('button.btn-done').first().click()

    const block = page.locator('#operations-pets-listPets')
    await block.locator('.opblock-summary').first().click()
    await block.locator('button.try-out__btn').click()
    await block.locator('button.execute').click()
    const status = block.locator('.live-responses-table .response .response-col_status').first()
    await status.waitFor({ timeout: 15_000 })
    assert.equal((await status.innerText()).trim(), '200', await block.locator('.live-responses-table').innerText())
    assert.equal(calls.length, 1, calls.join(', '))
    assert.equal(new URL(calls[0]!).origin + new URL(calls[0]!).pathname, `${base}/v1/pets`, 'the call went to the host the page was opened on')
    assert.deepEqual(problems, [], 'no errors in the page (CSP included)')
    await page.close()
  })
})

/** Errors the page logs and requests that fail (a CSP refusal is both), collected as they happen. */
function pageProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('requestfailed', (request) => problems.push(`${request.url()}: ${request.failure()?.errorText}`))
  return problems
}
