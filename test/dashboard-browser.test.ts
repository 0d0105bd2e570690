/**
 * The dashboard end to end in Chromium, against the real app listening on loopback: sign-in, API
 * keys (the secret shown once, revoke), plan changes, usage with 429s and a ban, and what an owner
 * can and cannot reach. The test itself calls /v1 with the keys the pages show, to check that what
 * was done in the page holds on the API. Screenshots of every page go to test-results/dashboard/.
 * The domain flow, which needs Pebble, is in dashboard-domains-browser.test.ts.
 */
import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Page } from 'playwright-core'
import { ADMIN_TOKEN } from './helpers/admin.js'
import { createUser } from './helpers/accounts.js'
import { assertInside, boxOf, chromiumMissing, dashboardSuite, DESKTOP, heading, pageScrollWidth, pets, PHONE, screenshot, signInThroughForm, textOf } from './helpers/browser.js'
import type { TestPlan } from '../scripts/test-plan.js'

// The page, what it sends and what it shows, is the subject: the API calls under it are the API
// files' subject on both back ends (measured with V8 coverage on PostgreSQL, the browser files
// reached no line, branch or function of src/ that the other files did not).
export const testPlan: TestPlan = { legs: 'either' }

/**
 * The keys table holds together at desktop width and on a phone: every cell is a real table cell
 * spanning its row, every button lies within its cell and row, a prefix is on one line, and at
 * 390 px nothing needs a sideways scroll (neither the page nor the table). Screenshots of both.
 */
async function assertKeysTableFits(page: Page, slug: string, name: string): Promise<void> {
  const table = page.getByRole('table', { name: `Keys of ${slug}`, exact: true })
  for (const viewport of [DESKTOP, PHONE]) {
    await page.setViewportSize(viewport)
    const where = `${viewport.width} px`
    for (const row of await table.locator('tbody tr').all()) {
      const rowBox = await boxOf(row)
      for (const button of await row.getByRole('button').all()) {
        const label = `${where}, button "${await button.innerText()}"`
        const buttonBox = await boxOf(button)
        assertInside(buttonBox, rowBox, `${label} within its row`)
        assertInside(buttonBox, await boxOf(button.locator('xpath=ancestor::td[1]')), `${label} within its cell`)
        assertInside(buttonBox, { x: 0, y: 0, width: viewport.width, height: Number.MAX_SAFE_INTEGER }, `${label} within the viewport`)
      }
      const prefix = row.locator('code').first()
      assert.equal(await prefix.evaluate((code) => new Set([...code.getClientRects()].map((rect) => Math.round(rect.top))).size), 1, `${where}: the prefix ${await prefix.innerText()} is on one line`)
      if (viewport === DESKTOP) {
        for (const cell of await row.locator('td').all()) {
          assert.equal(await cell.evaluate((td) => td.ownerDocument.defaultView?.getComputedStyle(td).display), 'table-cell', `${where}: a cell of the row stays a table cell`)
          const cellBox = await boxOf(cell)
          assert.ok(Math.abs(cellBox.y - rowBox.y) <= 1 && Math.abs(cellBox.height - rowBox.height) <= 1, `${where}: a cell spans its row (${JSON.stringify(cellBox)} in ${JSON.stringify(rowBox)})`)
        }
      }
    }
    assert.ok((await pageScrollWidth(page)) <= viewport.width, `${where}: the page is no wider than the viewport`)
    const wrap = table.locator('xpath=ancestor::div[contains(@class, "table-wrap")][1]')
    const [scrollWidth, clientWidth] = await wrap.evaluate((div) => [div.scrollWidth, div.clientWidth])
    assert.ok((scrollWidth ?? 0) <= (clientWidth ?? 0), `${where}: the table needs no sideways scroll (${scrollWidth} > ${clientWidth})`)
    await screenshot(page, viewport === DESKTOP ? name : `${name}-phone`)
  }
  await page.setViewportSize(DESKTOP)
}

/** Each chart label's size as read, in CSS px: its font size times the scale its SVG is drawn at. */
function chartLabelSizes(page: Page): Promise<number[]> {
  return page.locator('svg.chart text').evaluateAll((texts) =>
    texts.map((text) => {
      const svg = text.closest('svg')
      const viewBoxWidth = Number((svg?.getAttribute('viewBox') ?? '').split(' ')[2])
      const style = text.ownerDocument.defaultView?.getComputedStyle(text)
      return Number.parseFloat(style?.fontSize ?? '0') * ((svg?.getBoundingClientRect().width ?? 0) / viewBoxWidth)
    }),
  )
}

/** On a phone (390 px) the usage charts' labels read at 11 CSS px or more, and the page needs no sideways scroll. */
async function assertUsageFitsPhone(page: Page, name: string): Promise<void> {
  await page.setViewportSize(PHONE)
  const deadline = Date.now() + 5_000
  let sizes = await chartLabelSizes(page)
  // The charts are redrawn at their new width once the page has resized; until a chart is
  // measured its size is not a number yet (0 px drawn at a width of 0), so that waits too.
  while (!(Math.min(...sizes) >= 11) && Date.now() < deadline) {
    await sleep(100)
    sizes = await chartLabelSizes(page)
  }
  assert.ok(sizes.length > 0, 'chart labels found')
  assert.ok(Math.min(...sizes) >= 11, `every chart label reads at 11 px or more on a phone: ${sizes.map((size) => size.toFixed(1)).join(', ')}`)
  assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'the page is no wider than the phone')
  await screenshot(page, name)
  await page.setViewportSize(DESKTOP)
}

describe('the dashboard in Chromium', { skip: chromiumMissing, timeout: 300_000 }, () => {
  // The service's clock stands still (a whole test stays in one rate-limit minute) at the
  // browser's own time, so that what the page compares with its clock (bans) holds.
  const suite = dashboardSuite()
  const { newPage, closePages } = suite

  test('sign-in: a wrong password shows the API\'s message; the right one lands on Projects', async () => {
    const { t } = suite
    const project = await t.project({ plan: 'pro' })
    const user = await createUser(t, { role: 'operator' })
    const { page } = await newPage()

    // Any page without a session goes to sign-in.
    await page.goto('/dashboard/')
    await heading(page, 'Sign in').waitFor()
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in')
    await screenshot(page, 'sign-in')

    await page.getByLabel('Email').fill(user.email)
    await page.getByLabel('Password').fill('not the password at all')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await textOf(page.getByRole('alert'), /^Wrong email or password\.$/)
    assert.equal(new URL(page.url()).pathname, '/dashboard/sign-in', 'still on sign-in')

    await page.getByLabel('Password').fill(user.password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await heading(page, 'Projects').waitFor()
    assert.equal(new URL(page.url()).pathname, '/dashboard/')
    assert.equal(await page.getByRole('alert').count(), 0, 'the error is gone')
    const card = page.getByRole('article', { name: project.slug })
    await textOf(card, /Plan\s+pro/)
    await textOf(card, /300 requests per minute, 10,000 per day/)
    // The host only: whether it answers over HTTPS depends on what runs in front of the service.
    const address = await textOf(card, new RegExp(`Address\\s+${project.slug}\\.platform\\.test\\b`))
    assert.doesNotMatch(address, /https?:\/\//, 'no scheme claimed')
    await textOf(page.getByRole('banner'), new RegExp(`${user.email.replace(/[.+]/g, '\\$&')} \\(operator\\)`))
    await screenshot(page, 'projects')
    await closePages()
  })

  test('keys: a new key\'s secret is shown once and works; revoked in the page, it gets 401', async () => {
    const { t, base } = suite
    // Readable names: this page's screenshot illustrates the README (docs/images/dashboard-keys.png).
    const project = { slug: 'acme-shelter' }
    assert.ok((await t.app.services.projects.create(project.slug, { plan: 'pro' }, commandLineChange())).ok)
    await t.key(project.slug, { name: 'mobile-app' })
    const user = await createUser(t, { role: 'operator', email: 'ops@acme.example' })
    const { page } = await newPage()
    await signInThroughForm(page, user.email, user.password)

    await page.getByRole('link', { name: `API keys of ${project.slug}` }).click()
    await page.getByRole('heading', { level: 2, name: 'API keys' }).waitFor()
    assert.equal(new URL(page.url()).pathname, `/dashboard/projects/${project.slug}/keys`)
    await page.getByRole('table', { name: `Keys of ${project.slug}` }).waitFor()

    await page.getByLabel('Name').fill('website')
    await page.getByLabel('Expires in (days)').fill('30')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secretBox = page.getByTestId('new-key-secret')
    const secret = (await textOf(secretBox, /^as_live_[0-9A-Za-z]{28}_[0-9A-Za-z]{6}$/)).trim()
    await textOf(page.getByRole('region', { name: /New key "website" created/ }), /it will not be shown again/)
    const row = page.getByRole('row', { name: /^website\b/ })
    await textOf(row, new RegExp(`${secret.slice(0, 12)}…`))
    await textOf(row, /Active/)
    await assertKeysTableFits(page, project.slug, 'keys')

    const allowed = await pets(base, secret)
    assert.equal(allowed.status, 200, 'the key from the page works on /v1')

    // Away and back: the secret is not shown again (only its prefix is kept).
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Usage' }).click()
    await page.getByRole('heading', { level: 2, name: 'Usage' }).waitFor()
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'API keys' }).click()
    await page.getByRole('table', { name: `Keys of ${project.slug}` }).waitFor()
    assert.equal(await secretBox.count(), 0, 'the secret is gone after navigating away')
    await page.reload()
    await page.getByRole('table', { name: `Keys of ${project.slug}` }).waitFor()
    assert.equal(await secretBox.count(), 0, 'and after a reload')
    assert.ok(!(await page.content()).includes(secret), 'nowhere in the page')

    // Revoke, through the confirmation dialog: focus on Cancel, Escape closes it and nothing happens.
    const revokeButton = page.getByRole('button', { name: 'Revoke website' })
    await revokeButton.click()
    const dialog = page.getByRole('dialog', { name: 'Revoke the key website?' })
    await dialog.waitFor()
    assert.equal(await dialog.getByRole('button', { name: 'Cancel' }).evaluate((button) => button === button.ownerDocument.activeElement), true, 'focus on Cancel')
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    assert.equal((await pets(base, secret)).status, 200, 'cancelled: the key still works')
    await revokeButton.click()
    await dialog.getByRole('button', { name: 'Revoke key' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'revoked' }), /^The key website is revoked\.$/)
    assert.equal(await revokeButton.count(), 0, 'a revoked key has no Revoke button')
    // Revoked keys are folded away, closed: out of the keys table, shown when asked for.
    await row.waitFor({ state: 'hidden' })
    assert.equal(await page.getByRole('table', { name: `Keys of ${project.slug}` }).getByRole('row', { name: /^website\b/ }).count(), 0, 'not among the keys in use')
    const revokedList = page.getByRole('group').filter({ has: page.getByText('Revoked keys (1)', { exact: true }) })
    assert.equal(await revokedList.evaluate((details) => details.hasAttribute('open')), false, 'closed by default')
    await page.getByText('Revoked keys (1)', { exact: true }).click()
    const revokedRow = page.getByRole('table', { name: `Revoked keys of ${project.slug}` }).getByRole('row', { name: /^website\b/ })
    await textOf(revokedRow, /Revoked/)
    await assertKeysTableFits(page, project.slug, 'keys-revoked')

    const refused = await pets(base, secret)
    assert.equal(refused.status, 401, 'the revoked key is refused from the next request')
    await closePages()
  })

  test('keys with scopes: made in the form, a scoped key calls only its scopes; a publishable key shows its origins; the table still fits', async () => {
    const { t, base } = suite
    const project = await t.project({ plan: 'pro' })
    const longOrigin = 'https://adoptions.riverside-county-animal-shelter.example'
    await t.key(project.slug, { name: 'shelter-site', publishable: true, allowedOrigins: [longOrigin, 'http://localhost:5173'] })
    const user = await createUser(t, { role: 'operator' })
    const { page } = await newPage()
    await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/keys`)
    const table = page.getByRole('table', { name: `Keys of ${project.slug}`, exact: true })
    await table.waitFor()

    await page.getByLabel('Name').fill('reader')
    await page.getByRole('checkbox', { name: /^pets:read / }).check()
    await page.getByRole('checkbox', { name: /^orders:read / }).check()
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await textOf(page.getByTestId('new-key-secret'), /^as_live_\S+$/)).trim()
    await textOf(table.getByRole('row', { name: /^reader\b/ }), /pets:read, orders:read/)
    assert.equal((await pets(base, secret)).status, 200, 'pets:read: the animals are read')
    const write = await fetch(`${base}/v1/pets`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Rex', categoryId: 1 }) })
    assert.equal(write.status, 403, 'no pets:write: adding an animal is refused')
    assert.equal(((await write.json()) as { code: string }).code, 'insufficient_scope')

    // A publishable key reads only: the other scopes cannot be ticked.
    await page.getByLabel('Name').fill('widget')
    await page.getByRole('checkbox', { name: /^Publishable/ }).check()
    assert.equal(await page.getByRole('checkbox', { name: /^pets:write / }).isDisabled(), true, 'pets:write cannot be ticked for a publishable key')
    await page.getByRole('textbox', { name: 'Allowed origins' }).fill('https://shelter.example\nhttp://localhost:5173')
    await page.getByRole('button', { name: 'Create key' }).click()
    const widget = table.getByRole('row', { name: /^widget\b/ })
    await textOf(widget, /pets:read\s+Publishable\s+https:\/\/shelter\.example\s+http:\/\/localhost:5173/)
    await textOf(table.getByRole('row', { name: /^shelter-site\b/ }), new RegExp(`Publishable\\s+${longOrigin.replace(/[.]/g, '\\.')}`))
    // The project's first key, made without scopes, may call everything.
    await textOf(table.getByRole('row', { name: /^\(no name\)/ }), /\ball\b/)
    await assertKeysTableFits(page, project.slug, 'keys-scopes')
    await closePages()
  })

  test('plans: an operator changes a plan in the page; the next /v1 request has the new limit', async () => {
    const { t, base } = suite
    const project = await t.project({ plan: 'free' })
    const user = await createUser(t, { role: 'operator' })
    assert.equal((await pets(base, project.key)).limit, '60')
    const { page } = await newPage()
    await signInThroughForm(page, user.email, user.password)
    const card = page.getByRole('article', { name: project.slug })
    const plan = card.getByLabel(`Plan of ${project.slug}`)
    const change = card.getByRole('button', { name: `Change plan of ${project.slug}` })

    await plan.selectOption('business')
    await change.click()
    const dialog = page.getByRole('dialog', { name: `Change the plan of ${project.slug}?` })
    await textOf(dialog, /From free to business/)
    await dialog.getByRole('button', { name: 'Change plan' }).click()
    await textOf(page.getByRole('status').filter({ hasText: 'now on plan' }), new RegExp(`^Project ${project.slug} is now on plan business\\.$`))
    await textOf(card, /1,000 requests per minute, 100,000 per day/)
    const business = await pets(base, project.key)
    assert.equal(business.status, 200)
    assert.equal(business.limit, '1000', 'X-RateLimit-Limit of the next request is the business limit')

    // Enterprise asks for its own limits.
    await plan.selectOption('enterprise')
    await card.getByLabel('Requests per minute').fill('7')
    await card.getByLabel('Requests per day').fill('700')
    await change.click()
    await textOf(dialog, /From business to enterprise \(7 per minute, 700 per day\)/)
    await dialog.getByRole('button', { name: 'Change plan' }).click()
    await textOf(card, /7 requests per minute, 700 per day/)
    assert.equal((await pets(base, project.key)).limit, '7')
    await closePages()
  })

  test('usage and bans: a key driven past its limit shows its 429s and its ban in Usage, and "Lift ban" in Keys', async () => {
    const { t, base } = suite
    const project = await t.project({ plan: 'free' })
    const { secret } = await t.key(project.slug, { name: 'batch-job' })
    const user = await createUser(t, { role: 'operator' })

    // Free: 60 a minute, then 429; 30 refusals later (the clock stands still) the key is banned.
    let requests = 0
    let limited = 0
    const codes: (string | undefined)[] = []
    for (;;) {
      const response = await pets(base, secret)
      requests++
      if (response.status === 429) limited++
      codes.push(response.code)
      if (response.code === 'api_key_banned') break
      assert.ok(requests < 200, 'banned within 200 requests')
    }
    for (let i = 0; i < 2; i++) {
      const response = await pets(base, secret)
      assert.equal(response.code, 'api_key_banned')
      requests++
      limited++
    }
    assert.equal(codes.filter((c) => c === undefined).length, 60, '60 admitted')
    assert.equal(codes.filter((c) => c === 'rate_limited').length, 30, 'then 30 refused while limited')
    assert.equal(requests, 93)
    assert.equal(limited, 33)

    const { page } = await newPage()
    // A shared link to a page: sign-in brings the user back to it.
    await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/usage`)
    const hour = page.getByRole('region', { name: 'Requests per minute, last hour' })
    await textOf(hour, /93 requests, 33 answered 429, 1 ban started\./)
    await textOf(hour, /Limit: 60 per minute\./)
    await hour.getByText('Show the numbers as a table').click()
    const table = hour.getByRole('table', { name: 'Requests per minute, last hour' })
    const cells = async (row: string) => (await table.getByRole('row', { name: new RegExp(`^${row}\\b`) }).getByRole('cell').allInnerTexts()).map((c) => c.trim())
    assert.deepEqual(await cells('Total'), ['93', '33', '1'], 'requests, 429s and bans in the table')
    const minute = new Date(t.clock.now()).toISOString().slice(11, 16)
    assert.deepEqual(await cells(`${minute} UTC`), ['93', '33', '1'], 'all in the current minute')
    assert.equal((await table.getByRole('row').all()).length, 62, 'a header, 60 minutes and the total')
    const week = page.getByRole('region', { name: 'Requests per day, last 7 days' })
    await textOf(week, /93 requests, 33 answered 429, 1 ban started\./)
    await screenshot(page, 'usage')
    await assertUsageFitsPhone(page, 'usage-phone')

    // The Keys page shows the ban, with "Lift ban" only on that key.
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'API keys' }).click()
    const row = page.getByRole('row', { name: /^batch-job\b/ })
    await textOf(row, /Banned until/)
    const lift = page.getByRole('button', { name: 'Lift ban of batch-job' })
    await lift.waitFor()
    assert.equal(await page.getByRole('button', { name: /^Lift ban/ }).count(), 1, 'only the banned key can have its ban lifted')
    await assertKeysTableFits(page, project.slug, 'keys-banned')
    await lift.click()
    await textOf(page.getByRole('status').filter({ hasText: 'lifted' }), /^The ban of the key batch-job is lifted\.$/)
    await textOf(row, /Active/)
    const after = await pets(base, secret)
    assert.equal(after.code, 'rate_limited', 'no longer banned: only limited until the minute ends')
    await closePages()
  })

  test("time: UTC on a 24-hour clock whatever the reader's time zone; empty charts say so", async () => {
    const { t, base } = suite
    const project = await t.project({ plan: 'pro' })
    const user = await createUser(t, { role: 'operator' })
    const listed = (await (await fetch(`${base}/admin/v1/projects/${project.slug}/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { createdAt: string }[]
    const createdAt = listed[0]?.createdAt ?? assert.fail('the project has a key')
    // A reader in Los Angeles, in the afternoon there or not: the page still speaks UTC.
    const { page } = await newPage({ timezoneId: 'America/Los_Angeles' })
    await signInThroughForm(page, user.email, user.password, `/projects/${project.slug}/keys`)
    const table = page.getByRole('table', { name: `Keys of ${project.slug}`, exact: true })
    const row = table.locator('tbody tr').first()
    await row.waitFor()
    // The column found by its heading, wherever it is among the row's cells (its header cell included).
    const column = (await table.locator('thead th').allInnerTexts()).map((text) => text.trim()).indexOf('Created')
    assert.ok(column >= 0, 'the keys table has a Created column')
    const created = (await textOf(row.locator('th, td').nth(column), /\S/)).trim()
    assert.equal(created, `${createdAt.slice(0, 10)} ${createdAt.slice(11, 16)} UTC`, 'Created: the UTC date and 24-hour time, saying UTC')

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Usage' }).click()
    const updated = (await textOf(page.getByText(/^Updated at/), /^Updated at/)).trim()
    const match = /^Updated at (\d{2}):(\d{2}):(\d{2}) UTC$/.exec(updated)
    assert.ok(match, `"${updated}": a 24-hour UTC time, saying UTC`)
    const shown = (Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])) * 1000
    const drift = Math.abs(shown - (Date.now() % 86_400_000))
    assert.ok(Math.min(drift, 86_400_000 - drift) < 120_000, `"${updated}" is the time now in UTC (${new Date().toISOString()})`)

    // No traffic yet: each chart says so, rather than an empty frame.
    const hour = page.getByRole('region', { name: 'Requests per minute, last hour' })
    await hour.locator('svg text', { hasText: 'No requests in the last hour yet' }).waitFor()
    await hour.locator('svg text', { hasText: 'No bans in the last hour' }).waitFor()
    const week = page.getByRole('region', { name: 'Requests per day, last 7 days' })
    await week.locator('svg text', { hasText: 'No requests in the last 7 days yet' }).waitFor()
    await textOf(hour, /Times in UTC/)
    await screenshot(page, 'usage-empty')
    await assertUsageFitsPhone(page, 'usage-empty-phone')
    await closePages()
  })

  test('domains without HTTPS configured: no "Pending" certificate nor https:// address; a free plan is told where the plan changes; no hint of a conflicting record that is not there', async () => {
    const { t, base } = suite
    const free = await t.project({ plan: 'free' })
    const pro = await t.project({ plan: 'pro' })
    const user = await createUser(t, { role: 'operator' })
    const { page } = await newPage()
    await signInThroughForm(page, user.email, user.password, `/projects/${free.slug}/domains`)
    const summary = page.locator('.project-summary')
    await textOf(summary, new RegExp(`Published at ${free.slug}\\.platform\\.test\\.`))
    assert.doesNotMatch(await summary.innerText(), /https:\/\//, 'no https:// address: this service has no certificates')

    // The free plan's refusal: an answer for the page, not a command line.
    await page.getByLabel('Domain name').fill('shop.example.com')
    await page.getByRole('button', { name: 'Add domain' }).click()
    const refusal = page.getByRole('region', { name: 'Add a domain' }).getByRole('alert')
    const refused = await textOf(refusal, /^Custom domains are available on plan pro and above; this project is on plan free\. An operator can change its plan on the Projects page\.$/)
    assert.doesNotMatch(refused, /`|adoption-store/, 'no command to run')
    assert.equal(await refusal.getByRole('link', { name: 'Projects' }).getAttribute('href'), '/dashboard/')
    await screenshot(page, 'domains-free-plan')

    // A pro project: the admin API says HTTPS is off, and the page shows what that means.
    const settings = (await (await fetch(`${base}/admin/v1/projects/${pro.slug}/domains`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).json()) as { https: boolean }
    assert.equal(settings.https, false, 'the admin API tells that certificates are not configured')
    await page.goto(`/dashboard/projects/${pro.slug}/domains`)
    await textOf(page.getByRole('complementary', { name: 'About custom domains' }), /HTTPS is not configured on this service/)
    await page.getByLabel('Domain name').fill('shop.example.com')
    await page.getByRole('button', { name: 'Add domain' }).click()
    const card = page.getByRole('region', { name: 'shop.example.com' })
    const certificate = card.locator('.state').filter({ has: page.getByRole('heading', { name: 'Certificate' }) })
    await textOf(certificate, /Not configured/)
    await textOf(certificate, /served over plain HTTP only/)
    assert.doesNotMatch(await card.innerText(), /Pending\s*$|Certificate\s+Pending|requested once the domain is verified/m, 'no certificate waiting for nothing')

    // Verify: no DNS server answers here, not even for the platform's own name: the service's
    // resolvers are down, which is not the domain failing. The page says so; the domain stays
    // pending, with no word of a conflicting record.
    await card.getByRole('button', { name: 'Verify shop.example.com' }).click()
    await textOf(page.getByRole('main').getByRole('alert'), /the service's DNS resolvers do not answer\. The domain keeps its state \(pending\)/, 30_000)
    await textOf(card, /Pending verification/)
    assert.doesNotMatch(await card.innerText(), /Verification failed|conflicting/i, 'not failed, and no conflicting record was found, so none is mentioned')
    await screenshot(page, 'domains-no-https')
    await page.setViewportSize(PHONE)
    assert.ok((await pageScrollWidth(page)) <= PHONE.width, 'the Domains page fits a phone')
    await screenshot(page, 'domains-no-https-phone')
    await closePages()
  })

  test('owners: only their projects, no plan controls; another project is not found in the page and 404 from the admin API', async () => {
    const { t, base } = suite
    const own = await t.project({ plan: 'pro' })
    const other = await t.project({ plan: 'pro' })
    const user = await createUser(t, { role: 'owner', projects: [own.slug] })
    const { page } = await newPage()
    await signInThroughForm(page, user.email, user.password)

    await page.getByRole('article', { name: own.slug }).waitFor()
    assert.equal(await page.getByRole('article').count(), 1, 'only the project the owner belongs to')
    assert.equal(await page.getByRole('article', { name: other.slug }).count(), 0)
    assert.equal(await page.getByRole('combobox').count(), 0, 'no plan select')
    assert.equal(await page.getByRole('button', { name: /Change plan/ }).count(), 0, 'no plan change')
    assert.equal(await page.getByRole('heading', { name: 'New project' }).count(), 0, 'no project creation')
    await textOf(page.getByRole('banner'), /\(owner\)/)
    await screenshot(page, 'owner-projects')

    // Their own project's pages work.
    await page.goto(`/dashboard/projects/${own.slug}/keys`)
    await page.getByRole('table', { name: `Keys of ${own.slug}` }).waitFor()

    // Another project's page: not found, as for a project that does not exist; nothing of it is shown.
    await page.goto(`/dashboard/projects/${other.slug}/keys`)
    await textOf(page.getByRole('alert'), new RegExp(`^No project with slug "${other.slug}"\\.$`))
    assert.equal(await page.getByRole('table').count(), 0, 'no keys listed')
    assert.equal(await page.getByRole('heading', { name: 'API keys' }).count(), 0)
    await screenshot(page, 'owner-other-project')
    await page.goto('/dashboard/projects/no-such-project/usage')
    await textOf(page.getByRole('alert'), /^No project with slug "no-such-project"\.$/)

    // The admin API, from the page with its session cookie (and the CSRF token for changes). One
    // evaluate per call: tsx names inner functions with a helper the page does not have.
    const csrfToken = await page.evaluate(async () => ((await (await fetch('/admin/v1/session')).json()) as { csrfToken: string }).csrfToken)
    const call = (method: string, url: string, body?: unknown) =>
      page.evaluate(
        async ({ method, url, body, csrfToken }) => {
          const response = await fetch(`/admin/v1${url}`, {
            method,
            headers: { 'x-csrf-token': csrfToken, ...(body !== undefined && { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          })
          const text = await response.text()
          return { status: response.status, code: text ? (JSON.parse(text) as { code?: string }).code : undefined }
        },
        { method, url, body, csrfToken },
      )
    const answers = {
      ownProject: await call('GET', `/projects/${own.slug}`),
      otherProject: await call('GET', `/projects/${other.slug}`),
      otherKeys: await call('GET', `/projects/${other.slug}/keys`),
      otherUsage: await call('GET', `/projects/${other.slug}/usage?range=hour`),
      otherDomains: await call('GET', `/projects/${other.slug}/domains`),
      otherNewKey: await call('POST', `/projects/${other.slug}/keys`, { name: 'intruder' }),
      ownPlan: await call('PUT', `/projects/${own.slug}/plan`, { plan: 'business' }),
      newProject: await call('POST', '/projects', { slug: 'owner-made', plan: 'free' }),
    }
    assert.deepEqual(answers.ownProject, { status: 200, code: undefined })
    for (const name of ['otherProject', 'otherKeys', 'otherUsage', 'otherDomains', 'otherNewKey'] as const) {
      assert.deepEqual(answers[name], { status: 404, code: 'not_found' }, name)
    }
    assert.deepEqual(answers.ownPlan, { status: 403, code: 'forbidden' })
    assert.deepEqual(answers.newProject, { status: 403, code: 'forbidden' })
    assert.equal((await pets(base, own.key)).limit, '300', 'the plan is unchanged')
    await closePages()
  })
})
