/**
 * A browser suite's app and Chromium, started before the suite and closed after it: what the
 * dashboard's browser files share (test/helpers/browser.ts has the page helpers).
 */
import assert from 'node:assert/strict'
import { after, before } from 'node:test'
import type { Browser } from 'playwright-core'
import { createAdminApp } from './admin.js'
import { ManualClock, type TestApp } from './app.js'
import { assertDashboardBuilt, type DashboardPage, launchChromium, openPage } from './browser.js'

/** What a browser suite works with: its app, where it listens, and pages of their own. */
export interface DashboardSuite {
  /** The admin app (see createAdminApp), its clock standing still at the browser's own time. */
  readonly t: TestApp
  /** Where it listens, on loopback. */
  readonly base: string
  /** A page of its own (own cookies); its problems are checked by `closePages`. */
  newPage(options?: Parameters<typeof openPage>[2]): Promise<DashboardPage>
  /** Closes the pages opened since the last call, and fails on any problem they reported. */
  closePages(): Promise<void>
}

/**
 * Starts, before the suite, the app listening on loopback and Chromium (or connects to the shared
 * one); closes both after it. Call it inside the suite's `describe`.
 */
export function dashboardSuite(): DashboardSuite {
  let t: TestApp | undefined
  let base: string | undefined
  let browser: Browser | undefined
  let open: DashboardPage[] = []
  before(async () => {
    assertDashboardBuilt()
    // The service's clock stands still (a whole test stays in one rate-limit minute) at the
    // browser's own time, so that what the page compares with its clock (bans) holds.
    t = await createAdminApp({ clock: new ManualClock(Date.now()) })
    base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    browser = await launchChromium()
  })
  after(async () => {
    await Promise.all(open.map((p) => p.close()))
    await browser?.close()
    await t?.close()
  })
  const started = <T>(value: T | undefined): T => {
    assert.ok(value !== undefined, 'the suite has started')
    return value
  }
  return {
    get t() {
      return started(t)
    },
    get base() {
      return started(base)
    },
    async newPage(options = {}) {
      const page = await openPage(started(browser), started(base), options)
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
