/**
 * The dashboard in a real browser: Debian's Chromium driven by playwright-core (no browser
 * download, no @playwright/test). Pages are reached by their accessible names; screenshots go to
 * test-results/dashboard/ (git-ignored), never into the repository's own files.
 */
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Browser, BrowserContext, BrowserType, Locator, Page } from 'playwright-core'
import { after, before } from 'node:test'
import { DEFAULT_DASHBOARD_ROOT } from '../../src/web/dashboard.scope.js'
import { createUser } from './accounts.js'
import { createAdminApp } from './admin.js'
import { ManualClock, type TestApp, type TestAppOptions } from './app.js'

/**
 * playwright-core, required rather than imported: Node scans a CommonJS package an ES module
 * imports for its names (cjs-module-lexer), and this one's files cost each browser file about
 * half a second of CPU that way.
 */
export const { chromium } = createRequire(import.meta.url)('playwright-core') as { chromium: BrowserType }

export const CHROMIUM = '/usr/bin/chromium'
/** Why the browser suites cannot run here, or false when they can. */
export const chromiumMissing = fs.existsSync(CHROMIUM) ? false : `Chromium is not installed at ${CHROMIUM} (Debian: apt-get install chromium)`

/** Where screenshots are saved: created on demand, ignored by git. */
export const SCREENSHOTS = fileURLToPath(new URL('../../test-results/dashboard/', import.meta.url))

export const CHROMIUM_OPTIONS = {
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
}

/**
 * The variable through which `scripts/run-tests.ts` hands the browser files one Chromium it
 * launched for them all (test/helpers/browser-server.ts): its WebSocket endpoint.
 */
export const BROWSER_ENDPOINT_VARIABLE = 'TEST_BROWSER_ENDPOINT'

/**
 * Chromium: the one shared by the run when there is one, else a browser of this file's own.
 * Each test works in contexts of its own either way; `close()` on a shared browser closes this
 * file's contexts and disconnects, and leaves the browser to the others.
 */
export function launchChromium(): Promise<Browser> {
  const endpoint = process.env[BROWSER_ENDPOINT_VARIABLE]
  if (endpoint) return chromium.connect(endpoint)
  return chromium.launch(CHROMIUM_OPTIONS)
}

/** Fails early, and clearly, when the dashboard has not been built into dist/dashboard/. */
export function assertDashboardBuilt(): void {
  const index = path.join(DEFAULT_DASHBOARD_ROOT, 'index.html')
  assert.ok(fs.existsSync(index), `${index} is missing: build the dashboard first (npm run build, or npx vite build --config dashboard/vite.config.ts)`)
}

export interface DashboardPage {
  context: BrowserContext
  page: Page
  /** Errors the page reported (script errors, CSP violations, console errors other than failed HTTP answers). */
  problems: string[]
  close(): Promise<void>
}

/**
 * A page in a context of its own (its own cookies), in English and the light scheme so that
 * numbers, dates and screenshots are stable. Answers the API gives on purpose (401 before sign-in,
 * 404 for another's project) are logged by Chromium as "Failed to load resource": not problems.
 */
export async function openPage(browser: Browser, base: string, { timezoneId = 'UTC' }: { timezoneId?: string } = {}): Promise<DashboardPage> {
  const context = await browser.newContext({ baseURL: base, locale: 'en-US', timezoneId, colorScheme: 'light', viewport: DESKTOP })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`)
  })
  page.on('request', (request) => {
    const url = request.url()
    if (!url.startsWith(base) && !url.startsWith('data:')) problems.push(`request to another host: ${url}`)
  })
  return { context, page, problems, close: () => context.close() }
}

/** What a dashboard suite shares: the app, where it listens, and pages whose problems are checked. */
export interface DashboardSuite {
  /** The admin test app, listening on loopback (set once the suite's `before` ran). */
  readonly t: TestApp
  /** Its address, `http://127.0.0.1:<port>`. */
  readonly base: string
  /** A page of its own (own cookies); its problems are checked by `closePages`. */
  newPage(options?: Parameters<typeof openPage>[2]): Promise<DashboardPage>
  /** Closes the pages opened since the last call; fails on any problem they reported. */
  closePages(): Promise<void>
}

/**
 * The set-up of a dashboard suite, registered as the enclosing `describe`'s hooks: the admin test
 * app listening on loopback, and Chromium. The service's clock stands still (a whole test stays
 * in one rate-limit minute) at the browser's own time, so that what a page compares with its
 * clock (bans, "2 minutes ago") holds. `config` adds to the admin app's configuration.
 */
export function dashboardSuite(options: Pick<TestAppOptions, 'config'> = {}): DashboardSuite {
  let app: TestApp | undefined
  let browser: Browser | undefined
  let address: string | undefined
  let open: DashboardPage[] = []
  before(async () => {
    assertDashboardBuilt()
    // Photos are served at the suite's own address, as by default beside the API: their thumbnails come from the page's host.
    const port = await freePort()
    app = await createAdminApp({ clock: new ManualClock(Date.now()), ...options, config: { mediaBaseUrl: `http://127.0.0.1:${port}/media`, ...options.config } })
    address = await app.app.listen({ port, host: '127.0.0.1' })
    browser = await launchChromium()
  })
  after(async () => {
    await Promise.all(open.map((p) => p.close()))
    await browser?.close()
    await app?.close()
  })
  const ready = <T>(value: T | undefined): T => {
    assert.ok(value !== undefined, 'the dashboard suite is set up in its before hook')
    return value
  }
  return {
    get t() {
      return ready(app)
    },
    get base() {
      return ready(address)
    },
    async newPage(options = {}) {
      const page = await openPage(ready(browser), ready(address), options)
      open.push(page)
      return page
    },
    async closePages() {
      const problems = open.flatMap((p) => p.problems)
      await Promise.all(open.map((p) => p.close()))
      open = []
      assert.deepEqual(problems, [], 'no script errors, CSP violations or requests to other hosts')
    },
  }
}

/** A port free on loopback now, to listen on once the app that needs its address is built. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

/** The viewports pages are checked at: a desktop, and a phone 390 CSS px wide. */
export const DESKTOP = { width: 1280, height: 900 }
export const PHONE = { width: 390, height: 844 }

export interface Box {
  x: number
  y: number
  width: number
  height: number
}

/** Where an element is on the page, in CSS px; fails when it is not rendered. */
export async function boxOf(locator: Locator): Promise<Box> {
  const box = await locator.boundingBox()
  assert.ok(box, `${String(locator)} has no box: it is not rendered`)
  return box
}

/** Fails unless `inner` lies within `outer` (half a pixel of rounding allowed). */
export function assertInside(inner: Box, outer: Box, what: string): void {
  const ok = inner.x >= outer.x - 0.5 && inner.y >= outer.y - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5 && inner.y + inner.height <= outer.y + outer.height + 0.5
  assert.ok(ok, `${what}: ${JSON.stringify(inner)} is not inside ${JSON.stringify(outer)}`)
}

/** The page's own width, to compare with the viewport's: wider means a sideways scroll. */
export function pageScrollWidth(page: Page): Promise<number> {
  return page.locator('html').evaluate((html) => html.scrollWidth)
}

/** A full-page screenshot under test-results/dashboard/. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true })
  const file = path.join(SCREENSHOTS, `${name}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

/** The page's main heading. */
export function heading(page: Page, name: string | RegExp): Locator {
  return page.getByRole('heading', { level: 1, name })
}

/**
 * Does `close` take `dialog` off the page with the focus already on `target`? Read by a
 * MutationObserver the moment the dialog leaves the DOM, before the next frame: focus that comes
 * back only later was on the page's body meanwhile, where a keyboard or screen reader user loses
 * their place.
 */
export async function focusedOnRemoval(dialog: Locator, target: Locator, close: () => Promise<void>): Promise<boolean> {
  type Watched = { focusOnRemoval?: Promise<boolean> }
  const watched = await dialog.elementHandle()
  await watched.evaluate((element, wanted) => {
    const page = element.ownerDocument
    ;(element as Watched).focusOnRemoval = new Promise((resolve, reject) => {
      const observer = new page.defaultView!.MutationObserver(() => {
        if (element.isConnected) return
        observer.disconnect()
        clearTimeout(timer)
        resolve(page.activeElement === wanted)
      })
      const timer = setTimeout(() => {
        observer.disconnect()
        reject(new Error('the dialog is still on the page after 15 s'))
      }, 15_000)
      observer.observe(page.body, { childList: true, subtree: true })
    })
  }, await target.elementHandle())
  await close()
  return watched.evaluate((element) => (element as Watched).focusOnRemoval ?? false)
}

/** Waits until the element's text matches (the page renders asynchronously); answers the text. */
export async function textOf(locator: Locator, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs
  // The last text actually read: a read cut short by the deadline does not hide what was shown.
  let text: string | undefined
  for (;;) {
    text = (await locator.first().innerText({ timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined)) ?? text
    if (text !== undefined && pattern.test(text)) return text
    if (Date.now() > deadline) {
      const shot = await screenshot(locator.page(), `failed-${Date.now()}`).catch(() => 'none')
      assert.fail(`${String(locator)}: text ${text === undefined ? '(never found)' : JSON.stringify(text)} does not match ${String(pattern)} after ${timeoutMs} ms (screenshot: ${shot})`)
    }
    await sleep(50)
  }
}

/**
 * Signs in through the sign-in form; with `next` (a dashboard path), opens that page first and
 * lets sign-in bring the user back to it. Answers once the page asked for is shown.
 */
export async function signInThroughForm(page: Page, email: string, password: string, next = '/'): Promise<void> {
  await page.goto(`/dashboard${next}`)
  await heading(page, 'Sign in').waitFor()
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname !== '/dashboard/sign-in')
  if (next === '/') await heading(page, 'Projects').waitFor()
  else await page.waitForURL((url) => url.pathname === `/dashboard${next}`)
}

/**
 * A page of its own, signed in through the form as a new user (`account`: its role, and an
 * owner's projects) on `next`, a dashboard path.
 */
export async function signedInPage(suite: DashboardSuite, next: string, account: Parameters<typeof createUser>[1] = {}): Promise<Page> {
  const user = await createUser(suite.t, account)
  const { page } = await suite.newPage()
  await signInThroughForm(page, user.email, user.password, next)
  return page
}

/** On a 390 px phone, the page needs no sideways scroll; its screenshot is `<name>-phone`. */
export async function assertFitsPhone(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE)
  assert.ok((await pageScrollWidth(page)) <= PHONE.width, `${name}: the page is no wider than a phone`)
  await screenshot(page, `${name}-phone`)
}

/** `GET /v1/pets` with a key, from the test (not the browser). */
export async function pets(base: string, key: string): Promise<{ status: number; code: string | undefined; limit: string | null }> {
  const response = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })
  const body = (await response.json()) as { code?: string }
  return { status: response.status, code: Array.isArray(body) ? undefined : body.code, limit: response.headers.get('x-ratelimit-limit') }
}

/** At both sizes: the page needs no sideways scroll, the table none either, and every button of a row lies within its row and the screen. */
export async function assertTableFits(page: Page, table: Locator, name: string): Promise<void> {
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport)
    const where = `${name} at ${viewport.width} px`
    for (const row of (await table.locator('tbody tr').all()).slice(0, 6)) {
      const rowBox = await boxOf(row)
      for (const button of await row.getByRole('button').all()) {
        const buttonBox = await boxOf(button)
        assertInside(buttonBox, rowBox, `${where}: button "${await button.innerText()}" within its row`)
        assertInside(buttonBox, { x: 0, y: 0, width: viewport.width, height: Number.MAX_SAFE_INTEGER }, `${where}: button "${await button.innerText()}" on screen`)
      }
    }
    assert.ok((await pageScrollWidth(page)) <= viewport.width, `${where}: the page is no wider than the screen`)
    const [scrollWidth, clientWidth] = await table.locator('xpath=ancestor::div[contains(@class, "table-wrap")][1]').evaluate((div) => [div.scrollWidth, div.clientWidth])
    assert.ok((scrollWidth ?? 0) <= (clientWidth ?? 0), `${where}: the table needs no sideways scroll (${scrollWidth} > ${clientWidth})`)
    await screenshot(page, viewport === DESKTOP ? name : `${name}-phone`)
  }
  await page.setViewportSize(DESKTOP)
}

/** Waits until `rows` are exactly `count` (the page renders asynchronously). */
export async function rowsAre(rows: Locator, count: number): Promise<void> {
  await rows.nth(count - 1).waitFor()
  await rows.nth(count).waitFor({ state: 'detached' })
}

export function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === element.ownerDocument.activeElement)
}

/** A call of /v1 with a project's key, from the test (not the browser): its status and JSON body. */
export async function v1Request(base: string, key: string, method: string, path: string, body?: object): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
  const response = await fetch(`${base}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }) },
    body: body && JSON.stringify(body),
  })
  return { status: response.status, body: response.status === 204 ? undefined : ((await response.json()) as Record<string, unknown>) }
}

/** axe-core's rules on the page as it is: every violation, with where it is. */
export async function axeViolations(page: Page): Promise<string[]> {
  const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
  // Evaluated by the browser's debugger, not as a page script: the pages' CSPs allow no inline script.
  await page.evaluate(source)
  const violations = await page.locator('html').evaluate(async (html) => {
    type Results = { violations: { id: string; help: string; nodes: { target: unknown[] }[] }[] }
    const { axe } = html.ownerDocument.defaultView as unknown as { axe: { run: (context: unknown) => Promise<Results> } }
    return (await axe.run(html.ownerDocument)).violations
  })
  return violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`)
}
