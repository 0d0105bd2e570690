import assert from 'node:assert/strict'
import { brotliDecompressSync } from 'node:zlib'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import sharp from 'sharp'
import { admin } from './helpers/admin.js'
import { bearer, type ManualClock, type TestApp } from './helpers/app.js'
import { addEndpoint, createWebhooksApp, deliveriesOf } from './helpers/webhooks.js'
import { ENQUIRY_LIMIT, FORM_COOKIE, MIN_FILL_MS, PAGE_SIZE } from '../src/site/site.routes.js'

/**
 * The adoption site: the pages a project's hosts serve (and /sites/<slug>/ on the API's host),
 * its listing and search, the animal's page, the enquiry form and its protections, the settings.
 */

const PLATFORM = 'platform.test'
const EVIL = '<script>alert(1)</script>'

let t: TestApp
let shelter: { slug: string; id: number; key: string }
let host: string
/** Each test posts from addresses of its own, so the per-address limit is only met where a test means it. */
let address = 0

beforeEach(async () => {
  t = await createWebhooksApp()
  shelter = await t.project({ plan: 'enterprise', perMinute: 100_000, perDay: 1_000_000 })
  host = `${shelter.slug}.${PLATFORM}`
})
afterEach(async () => {
  await t.close()
})

function nextAddress(): string {
  address++
  return `10.9.${Math.floor(address / 250)}.${(address % 250) + 1}`
}

async function addPet(body: Record<string, unknown>, project = shelter): Promise<number> {
  const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(project.key), payload: { categoryId: 1, status: 'available', ...body } })
  assert.equal(response.statusCode, 201, response.body)
  return response.json<{ id: number }>().id
}

async function addPhoto(petId: number, width: number, height: number): Promise<void> {
  const image = await sharp({ create: { width, height, channels: 3, background: '#2a6f97' } }).jpeg().toBuffer()
  const response = await t.request({ method: 'POST', url: `/v1/pets/${petId}/photos`, headers: { ...bearer(shelter.key), 'content-type': 'image/jpeg' }, payload: image })
  assert.equal(response.statusCode, 201, response.body)
}

function page(url: string, options: { host?: string; headers?: Record<string, string> } = {}): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers: { host: options.host ?? host, accept: 'text/html', ...options.headers } })
}

/** The names shown on a listing's cards, in order. */
function cardNames(body: string): string[] {
  return [...body.matchAll(/<li class="card">.*?<h2>(.*?)<\/h2>/gs)].map((match) => match[1]!)
}

function decode(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
}

/** Opens the animal's page as a browser would: its form token and the cookie the token is tied to. */
async function openForm(petId: number, cookie?: string): Promise<{ token: string; cookie: string; body: string }> {
  const response = await page(`/animals/${petId}`, cookie ? { headers: { cookie: `${FORM_COOKIE}=${cookie}` } } : {})
  assert.equal(response.statusCode, 200, response.body)
  const token = /name="token" value="([^"]+)"/.exec(response.body)?.[1]
  assert.ok(token, 'the page has the form')
  const set = /site_form=([^;]+)/.exec(String(response.headers['set-cookie'] ?? ''))?.[1]
  return { token, cookie: cookie ?? set!, body: response.body }
}

async function post(petId: number, fields: Record<string, string>, options: { cookie?: string; from?: string; wait?: boolean } = {}): Promise<LightMyRequestResponse> {
  if (options.wait !== false) (t.clock as ManualClock).advance(MIN_FILL_MS + 1000)
  return t.app.inject({
    method: 'POST',
    url: `/animals/${petId}/enquiry`,
    remoteAddress: options.from ?? nextAddress(),
    headers: { host, 'content-type': 'application/x-www-form-urlencoded', ...(options.cookie && { cookie: `${FORM_COOKIE}=${options.cookie}` }) },
    payload: new URLSearchParams(fields).toString(),
  })
}

async function orders(): Promise<{ id: number; petId: number; status: string; enquiry?: Record<string, string> }[]> {
  const response = await admin(t, 'GET', `/projects/${shelter.slug}/orders?limit=100`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json()
}

describe('where the site is served', () => {
  test("a project's host serves its listing at / (the index stays for JSON clients); the API's host at /sites/<slug>/", async () => {
    await addPet({ name: 'Biscuit' })
    const listing = await page('/')
    assert.equal(listing.statusCode, 200)
    assert.match(String(listing.headers['content-type']), /^text\/html/)
    assert.deepEqual(cardNames(listing.body), ['Biscuit'])
    // A script that asks for JSON (or anything) keeps the index it always had.
    const index = await t.app.inject({ method: 'GET', url: '/', headers: { host } })
    assert.equal(index.json<{ api: string }>().api, '/v1')
    const plain = await t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.equal(plain.json<{ dashboard: string }>().dashboard, '/dashboard/', 'the API host keeps its index')

    const preview = await t.app.inject({ method: 'GET', url: `/sites/${shelter.slug}/` })
    assert.equal(preview.statusCode, 200)
    assert.deepEqual(cardNames(preview.body), ['Biscuit'])
    assert.match(preview.body, new RegExp(`href="/sites/${shelter.slug}/animals/\\d+"`))
    assert.equal((await t.app.inject({ method: 'GET', url: '/sites/no-such-project/' })).statusCode, 404)
    // On a project's host, /sites/ is nobody's.
    assert.equal((await page(`/sites/${shelter.slug}/`)).statusCode, 404)
    // The API on the same host answers as before.
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host, ...bearer(shelter.key) } })).statusCode, 200)
    assert.equal((await t.app.inject({ method: 'GET', url: '/animals/1' })).statusCode, 404, 'no site pages on the API host root')
  })

  test("a project's host serves its own animals only", async () => {
    const other = await t.project()
    await addPet({ name: 'Mine' })
    const theirs = await addPet({ name: 'Theirs' }, other)
    assert.deepEqual(cardNames((await page('/')).body), ['Mine'])
    const foreign = await page(`/animals/${theirs}`)
    assert.equal(foreign.statusCode, 404)
    assert.doesNotMatch(foreign.body, /Theirs/)
    assert.equal((await post(theirs, { name: 'A', email: 'a@example.org' })).statusCode, 404)
    assert.deepEqual(await orders(), [])
  })
})

describe('the listing', () => {
  test('shows available animals only, with filters, search and pages', async () => {
    const luna = await addPet({ name: 'Luna', sex: 'female', age: 'young', size: 'medium', goodWith: { children: 'yes', cats: 'no' }, breeds: { primary: 'Labrador Retriever' } })
    await addPet({ name: 'Tom', categoryId: 2, sex: 'male', age: 'senior', size: 'small', description: 'A calm chocolate tabby' })
    await addPet({ name: 'Gone', status: 'sold' })
    const pending = await addPet({ name: 'Waiting' })
    assert.equal((await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(shelter.key), payload: { petId: pending } })).statusCode, 201)

    const all = await page('/')
    assert.deepEqual(cardNames(all.body), ['Luna', 'Tom'])
    assert.match(all.body, /2 animals waiting for a home/)
    const lunaCard = all.body.slice(all.body.indexOf(`/animals/${luna}`))
    assert.match(lunaCard.slice(0, 400), /Dog · Labrador Retriever.*Young · Female · Medium/s)

    const cases: [string, string[]][] = [
      ['?categoryId=2', ['Tom']],
      ['?sex=female', ['Luna']],
      ['?age=senior', ['Tom']],
      ['?size=medium', ['Luna']],
      ['?goodWithChildren=yes', ['Luna']],
      ['?goodWithCats=yes', []],
      ['?q=chocol', ['Tom']],
      ['?q=labrador&sex=female', ['Luna']],
      ['?q=Waiting', []],
    ]
    for (const [query, names] of cases) {
      const response = await page(`/${query}`)
      assert.equal(response.statusCode, 200, query)
      assert.deepEqual(cardNames(response.body), names, query)
    }
    // The form shows the search it ran.
    const searched = await page('/?q=chocol&sex=female&goodWithDogs=yes')
    assert.match(searched.body, /name="q" type="search" maxlength="200" value="chocol"/)
    assert.match(searched.body, /<option value="female" selected>/)
    assert.match(searched.body, /name="goodWithDogs" value="yes" checked/)
    // A search the service refuses is said so, not a 500.
    const refused = await page('/?q=%21%21')
    assert.equal(refused.statusCode, 200)
    assert.match(refused.body, /cannot be run/)
  })

  test(`pages of ${PAGE_SIZE} with links that keep the filters`, async () => {
    for (let i = 1; i <= PAGE_SIZE + 2; i++) await addPet({ name: `Cat ${String(i).padStart(2, '0')}`, categoryId: 2 })
    await addPet({ name: 'Dog' })
    const first = await page('/?categoryId=2')
    assert.equal(cardNames(first.body).length, PAGE_SIZE)
    const next = /<a href="([^"]+)" rel="next">/.exec(first.body)?.[1]
    assert.ok(next, 'a next link')
    assert.match(decode(next), /categoryId=2/)
    const second = await page(decode(next))
    assert.deepEqual(cardNames(second.body), [`Cat ${PAGE_SIZE + 1}`, `Cat ${PAGE_SIZE + 2}`])
    assert.doesNotMatch(second.body, /rel="next"/)
    assert.match(second.body, /First page/)
  })

  test('revalidates with an ETag that moves with the animals, and is compressed', async () => {
    for (let i = 0; i < 10; i++) await addPet({ name: `Pet ${i}`, description: 'x'.repeat(200) })
    const first = await page('/', { headers: { 'accept-encoding': 'br' } })
    assert.equal(first.headers['content-encoding'], 'br')
    assert.match(brotliDecompressSync(first.rawPayload).toString(), /Pet 9/)
    assert.equal(first.headers['cache-control'], 'public, no-cache')
    const etag = String(first.headers.etag)
    assert.equal((await page('/', { headers: { 'if-none-match': etag } })).statusCode, 304)
    await addPet({ name: 'Newcomer' })
    const changed = await page('/', { headers: { 'if-none-match': etag } })
    assert.equal(changed.statusCode, 200)
    assert.match(changed.body, /Newcomer/)
  })

  test('every img has its width, height and srcset; cards past the first ones load lazily', async () => {
    const ids = []
    for (let i = 0; i < 6; i++) ids.push(await addPet({ name: `Photo ${i}` }))
    for (const id of ids) await addPhoto(id, 800, 600)
    const body = (await page('/')).body
    const images = [...body.matchAll(/<img [^>]*>/g)].map((match) => match[0])
    assert.equal(images.length, 6)
    for (const img of images) {
      assert.match(img, /width="800" height="600"/)
      assert.match(img, /srcset="[^"]+ 100w, /)
    }
    assert.deepEqual(
      images.map((img) => img.includes('loading="lazy"')),
      [false, false, false, false, true, true],
    )
  })
})

describe("the animal's page", () => {
  test('shows every photo, the profile, the location, Open Graph and JSON-LD', async () => {
    const location = await admin(t, 'POST', `/projects/${shelter.slug}/locations`, { name: 'North shelter', address: { line1: '1 Elm Street', city: 'Springfield', country: 'US' } })
    assert.equal(location.statusCode, 201, location.body)
    const id = await addPet({
      name: 'Luna',
      description: 'Loves walks.\nSleeps a lot.',
      adoptionFee: { amount: 15000, currency: 'USD' },
      goodWith: { children: 'yes', dogs: 'no' },
      attributes: { vaccinated: true },
      locationId: location.json<{ id: number }>().id,
      tags: ['calm'],
    })
    await addPhoto(id, 1200, 900)
    await addPhoto(id, 600, 800)
    const response = await page(`/animals/${id}`)
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['cache-control'], 'private, no-store')
    const { body } = response
    assert.equal((body.match(/<h1>/g) ?? []).length, 1)
    assert.match(body, /<h1>Luna<\/h1>/)
    const images = [...body.matchAll(/<img [^>]*>/g)].map((match) => match[0])
    assert.equal(images.length, 2)
    assert.match(images[0]!, /width="1200" height="900"/)
    assert.doesNotMatch(images[0]!, /loading="lazy"/)
    assert.match(images[1]!, /width="600" height="800".*loading="lazy"/)
    for (const fact of ['Adoption fee', '\\$150\\.00', 'Good with children', 'Vaccinated', 'North shelter — 1 Elm Street, Springfield, US', 'calm', 'Loves walks.\nSleeps a lot.']) {
      assert.match(body, new RegExp(fact))
    }
    assert.match(body, /<meta property="og:title" content="Luna · /)
    assert.match(body, /<meta property="og:image" content="[^"]+\.jpg"><meta property="og:image:width" content="1200">/)
    const ld = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(body)![1]!)
    assert.equal(ld.name, 'Luna')
    assert.equal(ld.offers.price, '150')
    assert.equal(ld.offers.priceCurrency, 'USD')
    assert.equal(ld.image.length, 2)
    assert.equal((await page('/animals/999999')).statusCode, 404)
    assert.equal((await page('/animals/abc')).statusCode, 404)
  })
})

describe('escaping', () => {
  test('script in every field, branding included, comes out as text', async () => {
    const location = await admin(t, 'POST', `/projects/${shelter.slug}/locations`, { name: EVIL, address: { line1: EVIL, city: '"><img src=x onerror=alert(1)>', country: 'US' } })
    assert.equal(location.statusCode, 201, location.body)
    const branded = await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { displayName: EVIL, about: `</script>${EVIL}`, logoUrl: 'https://example.org/logo.png"onerror="alert(1)' })
    assert.equal(branded.statusCode, 400, 'a logo address with a quote is refused')
    assert.equal((await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { displayName: EVIL, about: `</script>${EVIL}`, contactEmail: 'a@example.org' })).statusCode, 200)
    const id = await addPet({
      name: EVIL,
      description: `</script><script>alert(2)</script>`,
      tags: [`<b onmouseover=alert(3)>`],
      breeds: { primary: `"'><svg onload=alert(4)>` },
      locationId: location.json<{ id: number }>().id,
    })
    const listing = (await page('/')).body
    const animal = await openForm(id)
    const cookie = animal.cookie
    ;(t.clock as ManualClock).advance(1)
    // The enquiry's values come back in the form when it is refused (here: sent too fast).
    const refused = await post(id, { token: animal.token, name: EVIL, email: `"><script>alert(5)</script>`, message: `</textarea>${EVIL}` }, { cookie, wait: false })
    assert.equal(refused.statusCode, 422)
    for (const [name, body] of [
      ['listing', listing],
      ['animal', animal.body],
      ['refused enquiry', refused.body],
    ] as const) {
      // The only script element is the JSON-LD one, and nothing of the values became markup.
      const scripts = [...body.matchAll(/<script[^>]*>/g)].map((match) => match[0])
      assert.ok(scripts.every((tag) => tag === '<script type="application/ld+json">'), `${name}: ${scripts}`)
      assert.doesNotMatch(body, /<(svg|img src=x|b onmouseover)/, name)
      assert.doesNotMatch(body, /<\/textarea><script/, name)
      assert.match(body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, name)
    }
    // In the JSON-LD, < is \u003c: the element cannot be closed from inside.
    const ld = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(animal.body)![1]!
    assert.doesNotMatch(ld, /</)
    assert.equal(JSON.parse(ld).description, `</script><script>alert(2)</script>`)
    assert.match(refused.body, /value="&quot;&gt;&lt;script&gt;alert\(5\)&lt;\/script&gt;"/)
  })
})

describe('the enquiry form', () => {
  test('places an order with who asked: in the admin API and as an order.placed event', async () => {
    const endpoint = await addEndpoint(t, shelter.slug, 'https://127.0.0.1:9/hook', ['order.placed'])
    const id = await addPet({ name: 'Luna' })
    const form = await openForm(id)
    const response = await post(id, { token: form.token, name: ' Ada Lovelace ', email: 'ada@example.org', phone: '+44 20 7946 0000', message: 'We have a garden.\nAnd time.', website: '' }, { cookie: form.cookie })
    assert.equal(response.statusCode, 200, response.body)
    assert.match(response.body, /Your enquiry about Luna was sent/)
    const [order] = await orders()
    assert.equal(order?.petId, id)
    assert.equal(order?.status, 'placed')
    assert.deepEqual(order?.enquiry, { name: 'Ada Lovelace', email: 'ada@example.org', phone: '+44 20 7946 0000', message: 'We have a garden.\nAnd time.' })
    assert.deepEqual(
      (await deliveriesOf(t, shelter.slug, endpoint.id)).map((delivery) => delivery.eventType),
      ['order.placed'],
    )
    // The animal is pending now: the listing drops it, its page has no form, a second enquiry places nothing.
    assert.deepEqual(cardNames((await page('/')).body), [])
    const again = await page(`/animals/${id}`)
    assert.doesNotMatch(again.body, /name="token"/)
    assert.match(again.body, /no longer available/)
    const late = await post(id, { token: form.token, name: 'Bob', email: 'bob@example.org' }, { cookie: form.cookie })
    assert.equal(late.statusCode, 409)
    assert.match(late.body, /Luna has an adoption pending, so no enquiry was sent/)
    assert.equal((await orders()).length, 1)
    // An order placed through the API carries no enquiry.
    const other = await addPet({ name: 'Tom' })
    assert.equal((await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(shelter.key), payload: { petId: other } })).statusCode, 201)
    assert.equal((await orders()).find((o) => o.petId === other)?.enquiry, undefined)
    // The audit log has both placements: the enquiry's by an anonymous visitor (with no name or
    // contact of theirs), the API's by its key; the refused enquiry left none.
    const audit = await admin(t, 'GET', `/audit?project=${shelter.slug}&action=order.placed`)
    assert.equal(audit.statusCode, 200, audit.body)
    const entries = audit.json<{ actor: { kind: string; name: string; keyId?: string }; target: { id: string }; details: Record<string, unknown>; requestId: string }[]>()
    assert.deepEqual(
      entries.map(({ actor, target, details }) => ({ actor: actor.kind, order: Number(target.id), details })),
      [
        { actor: 'api_key', order: (await orders()).find((o) => o.petId === other)!.id, details: { petId: other, enquiry: false } },
        { actor: 'anonymous', order: order!.id, details: { petId: id, enquiry: true } },
      ],
    )
    assert.deepEqual(entries[1]!.actor, { kind: 'anonymous', name: 'anonymous' })
    assert.equal(entries[1]!.requestId, response.headers['x-request-id'])
  })

  test('missing or wrong fields re-render the form with accessible messages (422), and place nothing', async () => {
    const id = await addPet({ name: 'Luna' })
    const form = await openForm(id)
    const cases: [Record<string, string>, Record<string, RegExp>][] = [
      [{}, { name: /Enter your name/, email: /Enter an email address or a phone number/ }],
      [{ name: 'x'.repeat(10 * 1024), email: 'a@example.org' }, { name: /at most 200 characters/ }],
      [{ name: 'Ada', email: 'not-an-email' }, { email: /like name@example\.com/ }],
      [{ name: 'Ada', phone: 'call me' }, { phone: /digits/ }],
      [{ name: 'Ada', email: 'a@example.org', message: 'm'.repeat(5001) }, { message: /at most 5,000/ }],
    ]
    for (const [fields, expected] of cases) {
      const response = await post(id, { token: form.token, ...fields }, { cookie: form.cookie })
      assert.equal(response.statusCode, 422, JSON.stringify(fields).slice(0, 80))
      assert.match(response.body, /<div class="errors" id="enquiry-errors" role="alert"/)
      for (const [field, message] of Object.entries(expected)) {
        assert.match(response.body, new RegExp(`<span class="error" id="${field}-error">[^<]*${message.source}`))
        assert.match(response.body, new RegExp(`<input id="e-${field}" name="${field}" aria-describedby="[^"]*${field}-error" aria-invalid="true"|<textarea id="e-${field}"[^>]*aria-invalid="true"`))
        assert.match(response.body, new RegExp(`<li><a href="#e-${field}">`))
      }
      assert.match(response.body, /<label for="e-name">Your name<\/label>/)
    }
    assert.equal((await orders()).length, 0)
  })

  test('a forged, missing or foreign token is 403; the honeypot and a too fast post place nothing', async () => {
    const id = await addPet({ name: 'Luna' })
    const other = await addPet({ name: 'Tom' })
    const form = await openForm(id)
    const fields = { name: 'Ada', email: 'ada@example.org' }
    const forged = `${Date.now()}.${'A'.repeat(43)}`
    const refusals: [string, LightMyRequestResponse][] = [
      ['forged', await post(id, { ...fields, token: forged }, { cookie: form.cookie })],
      ['missing', await post(id, fields, { cookie: form.cookie })],
      ['without the cookie', await post(id, { ...fields, token: form.token })],
      ['with another cookie', await post(id, { ...fields, token: form.token }, { cookie: 'another-visitors-cookie' })],
      ["of another animal's form", await post(other, { ...fields, token: form.token }, { cookie: form.cookie })],
    ]
    for (const [name, response] of refusals) {
      assert.equal(response.statusCode, 403, name)
      assert.match(response.body, /could not be checked/, name)
      assert.match(String(response.headers['content-type']), /^text\/html/)
    }
    ;(t.clock as ManualClock).advance(3 * 60 * 60_000)
    const expired = await post(id, { ...fields, token: form.token }, { cookie: form.cookie })
    assert.equal(expired.statusCode, 403)
    assert.match(expired.body, /expired/)

    const fresh = await openForm(id, form.cookie)
    const honeypot = await post(id, { ...fields, token: fresh.token, website: 'http://spam.example' }, { cookie: form.cookie })
    assert.equal(honeypot.statusCode, 400)
    const quick = await openForm(id, form.cookie)
    const tooFast = await post(id, { ...fields, token: quick.token }, { cookie: form.cookie, wait: false })
    assert.equal(tooFast.statusCode, 422)
    assert.match(tooFast.body, /very quick: please check your details and send the form again/)
    assert.match(tooFast.body, /value="Ada"/)
    assert.equal((await orders()).length, 0)
    // The form it answers carries a new token, which works once the person takes their time.
    const retoken = /name="token" value="([^"]+)"/.exec(tooFast.body)![1]!
    assert.equal((await post(id, { ...fields, token: retoken }, { cookie: form.cookie })).statusCode, 200)
    assert.equal((await orders()).length, 1)
  })

  test(`a flood from one address is refused after ${ENQUIRY_LIMIT.limit} posts (429, Retry-After); other addresses still post`, async () => {
    const id = await addPet({ name: 'Luna' })
    const form = await openForm(id)
    const from = nextAddress()
    const statuses = []
    for (let i = 0; i < ENQUIRY_LIMIT.limit + 2; i++) statuses.push((await post(id, { token: form.token, name: '' }, { cookie: form.cookie, from, wait: false })).statusCode)
    assert.deepEqual(statuses, [...Array(ENQUIRY_LIMIT.limit).fill(422), 429, 429])
    const refused = await post(id, { token: form.token, name: 'Ada', email: 'ada@example.org' }, { cookie: form.cookie, from })
    assert.equal(refused.statusCode, 429)
    assert.ok(Number(refused.headers['retry-after']) > 0)
    assert.match(refused.body, /Too many enquiries/)
    assert.equal((await orders()).length, 0)
    assert.equal((await post(id, { token: form.token, name: 'Ada', email: 'ada@example.org' }, { cookie: form.cookie })).statusCode, 200)
  })
})

describe('the site settings', () => {
  test('the admin API reads and patches them; an unpublished site 404s while the API answers', async () => {
    const id = await addPet({ name: 'Luna' })
    assert.deepEqual((await admin(t, 'GET', `/projects/${shelter.slug}/site`)).json(), { published: true })
    const changed = await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { displayName: 'Springfield Rescue', primaryColor: '#ffdd00', contactPhone: '+1 555 0100', about: 'Since 1999.' })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(changed.json(), { published: true, displayName: 'Springfield Rescue', primaryColor: '#ffdd00', contactPhone: '+1 555 0100', about: 'Since 1999.' })
    const branded = (await page('/')).body
    assert.match(branded, /<title>Springfield Rescue<\/title>/)
    // White text would be unreadable on yellow: the text on the brand colour is dark.
    assert.match(branded, /--b:#ffdd00;--on:#111/)
    assert.match(branded, /<a href="tel:\+15550100">\+1 555 0100<\/a>/)
    for (const body of [{ primaryColor: 'red' }, { primaryColor: '#12345' }, { logoUrl: 'javascript:alert(1)' }, { logoUrl: 'http://example.org/logo.png' }, { contactEmail: 'nobody' }, { published: 'no' }, { unknown: 1 }]) {
      assert.equal((await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, body)).statusCode, 400, JSON.stringify(body))
    }
    assert.equal((await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { about: null })).json<{ about?: string }>().about, undefined)

    assert.equal((await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { published: false })).statusCode, 200)
    const root = await page('/')
    assert.equal(root.json<{ api: string }>().api, '/v1', '/ is the index again')
    for (const url of [`/animals/${id}`, '/embed']) assert.equal((await page(url)).statusCode, 404, url)
    assert.equal((await t.app.inject({ method: 'GET', url: `/sites/${shelter.slug}/` })).statusCode, 404)
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: { host, ...bearer(shelter.key) } })).statusCode, 200)
    const audit = await admin(t, 'GET', `/audit?project=${shelter.slug}&action=site.updated`)
    assert.equal(audit.statusCode, 200, audit.body)
    assert.equal(audit.json<unknown[]>().length, 3, 'the changes that were made, not the refused ones')
  })

  test('/embed is the listing without the header and footer, framable by any site', async () => {
    await addPet({ name: 'Luna' })
    await admin(t, 'PATCH', `/projects/${shelter.slug}/site`, { displayName: 'Springfield Rescue', about: 'Since 1999.' })
    const embed = await page('/embed')
    assert.equal(embed.statusCode, 200)
    assert.deepEqual(cardNames(embed.body), ['Luna'])
    assert.doesNotMatch(embed.body, /<header|<footer/)
    assert.match(embed.body, /<base target="_blank">/)
    assert.match(String(embed.headers['content-security-policy']), /frame-ancestors \*/)
    assert.match(String((await page('/')).headers['content-security-policy']), /frame-ancestors 'self'/)
    assert.match(embed.body, /action="\/embed"/, 'its search stays in the frame')
  })
})
