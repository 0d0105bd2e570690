import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN } from './helpers/admin.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import { bodyOf } from './helpers/contract.js'
import { COMPRESSION_THRESHOLD } from '../src/http/compression.js'
import type { TestPlan } from '../scripts/test-plan.js'

// HTTP's own rules (caching, HEAD, compression), the same on both back ends (docs/decisions.md).
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * HTTP semantics every answer shares, whatever the route: caching and content-type sniffing
 * (`Cache-Control`, `X-Content-Type-Options`), HEAD on every GET resource, and compression.
 */

let t: TestApp
let key: string
let limitedKey: string

before(async () => {
  t = await createTestApp({ config: { adminToken: ADMIN_TOKEN } })
  key = (await t.project({ plan: 'enterprise', perMinute: 1e6, perDay: 1e6 })).key
  limitedKey = (await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })).key
  for (let i = 0; i < 3; i++) {
    const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `Pet ${i}`, categoryId: 1 } })
    assert.equal(created.statusCode, 201, created.body)
  }
})
after(async () => {
  await t.close()
})

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }

describe('Cache-Control and X-Content-Type-Options', () => {
  test('every /v1 and /admin/v1 answer, errors included, is no-store and nosniff', async () => {
    const requests: [InjectOptions, number][] = [
      [{ method: 'GET', url: '/v1/pets', headers: bearer(key) }, 200],
      [{ method: 'GET', url: '/v1/pets/1', headers: bearer(key) }, 200],
      [{ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1 } }, 201],
      [{ method: 'GET', url: '/v1/pets' }, 401],
      [{ method: 'GET', url: '/v1/pets?limit=0', headers: bearer(key) }, 400],
      [{ method: 'POST', url: '/v1/pets', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: '{' }, 400],
      [{ method: 'POST', url: '/v1/pets', headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: 'Rex' }, 415],
      [{ method: 'GET', url: '/v1/nope', headers: bearer(key) }, 404],
      [{ method: 'DELETE', url: '/v1/pets', headers: bearer(key) }, 405],
      [{ method: 'GET', url: `/v1/pets?status=${'a'.repeat(9000)}`, headers: bearer(key) }, 414],
      // A malformed path is refused before routing (Fastify's frameworkErrors).
      [{ method: 'GET', url: '/v1/pets/%zz', headers: bearer(key) }, 400],
      [{ method: 'GET', url: '/admin/v1/projects', headers: admin }, 200],
      [{ method: 'GET', url: '/admin/v1/projects' }, 401],
      [{ method: 'GET', url: '/admin/v1/nope', headers: admin }, 404],
    ]
    for (const [request, status] of requests) {
      const response = await t.request(request)
      const where = `${request.method} ${String(request.url).slice(0, 60)}`
      assert.equal(response.statusCode, status, `${where}: ${response.body}`)
      assert.equal(response.headers['cache-control'], 'no-store', `${where}: Cache-Control`)
      assert.equal(response.headers['x-content-type-options'], 'nosniff', `${where}: X-Content-Type-Options`)
    }
    // And a 429, rate limited then banned.
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(limitedKey) })).statusCode, 200)
    for (let i = 0; i < 32; i++) {
      const refused = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(limitedKey) })
      assert.equal(refused.statusCode, 429)
      assert.equal(refused.headers['cache-control'], 'no-store', `429 ${refused.json<{ code: string }>().code}`)
      assert.equal(refused.headers['x-content-type-options'], 'nosniff')
    }
  })

  test('/healthz, /readyz, /metrics and unknown routes outside the APIs are no-store and nosniff', async () => {
    for (const [url, status] of [['/healthz', 200], ['/readyz', 200], ['/metrics', 200], ['/nope', 404]] as const) {
      const response = await t.request({ method: 'GET', url })
      assert.equal(response.statusCode, status, url)
      assert.equal(response.headers['cache-control'], 'no-store', `${url}: Cache-Control`)
      assert.equal(response.headers['x-content-type-options'], 'nosniff', `${url}: X-Content-Type-Options`)
    }
  })

  for (const [url, headers] of [['/v1/openapi.json', {}], ['/admin/v1/openapi.json', admin]] as const) {
    test(`${url}: revalidated (no-cache) with an ETag; a matching If-None-Match is 304 without a body`, async () => {
      const first = await t.request({ method: 'GET', url, headers })
      assert.equal(first.statusCode, 200)
      assert.equal(first.headers['cache-control'], 'no-cache')
      assert.equal(first.headers['x-content-type-options'], 'nosniff')
      assert.match(String(first.headers['content-type']), /^application\/json/)
      const etag = String(first.headers.etag)
      assert.match(etag, /^W\/"[A-Za-z0-9_-]{16,}"$/)
      assert.deepEqual(JSON.parse(first.body), JSON.parse((await t.request({ method: 'GET', url, headers })).body))
      assert.equal((await t.request({ method: 'GET', url, headers })).headers.etag, etag, 'the same document, the same tag')

      for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
        const revalidated = await t.request({ method: 'GET', url, headers: { ...headers, 'if-none-match': ifNoneMatch } })
        assert.equal(revalidated.statusCode, 304, `If-None-Match: ${ifNoneMatch}`)
        assert.equal(revalidated.body, '')
        assert.equal(revalidated.headers.etag, etag)
        assert.equal(revalidated.headers['cache-control'], 'no-cache')
      }
      const changed = await t.request({ method: 'GET', url, headers: { ...headers, 'if-none-match': 'W/"stale"' } })
      assert.equal(changed.statusCode, 200)
      assert.deepEqual(JSON.parse(changed.body), JSON.parse(first.body))
    })
  }
})

describe('HEAD', () => {
  /** GET and HEAD of each URL, as one client would send them: same status and headers, no body for HEAD. */
  async function compare(url: string, headers: Record<string, string>): Promise<{ get: LightMyRequestResponse; head: LightMyRequestResponse }> {
    const get = await t.app.inject({ method: 'GET', url, headers })
    const head = await t.request({ method: 'HEAD', url, headers })
    const where = `HEAD ${url} (${headers['accept-encoding'] ?? 'no Accept-Encoding'})`
    assert.equal(head.statusCode, get.statusCode, `${where}: the GET's status`)
    assert.equal(head.body, '', `${where}: no body`)
    assert.deepEqual(comparable(head.headers), comparable(get.headers), `${where}: the GET's headers`)
    if (get.headers['x-ratelimit-remaining'] !== undefined) {
      // Charged like the GET: one request more.
      assert.equal(Number(head.headers['x-ratelimit-remaining']), Number(get.headers['x-ratelimit-remaining']) - 1, `${where}: charged`)
    }
    return { get, head }
  }
  /**
   * What may differ between two answers a moment apart: the date, the request id, the counters.
   * And the framing of a body sent in chunks (a compressed stream of unknown length), which a
   * HEAD, having no body, does not have: Node never frames one.
   */
  function comparable(headers: LightMyRequestResponse['headers']) {
    const varying = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'transfer-encoding'])
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)))
  }

  test('every GET of both documents, and the unlisted ones, answers HEAD with its status and headers, compressed or not', async () => {
    const { slug } = await t.project({ plan: 'pro' })
    const order = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload: { petId: 1 } })
    assert.equal(order.statusCode, 201, order.body)
    const values: Record<string, string> = { petId: '1', orderId: String(order.json<{ id: number }>().id), slug, name: 'shop.example.com', id: 'key_0000000000000000' }
    const urls: [string, Record<string, string>][] = [['/v1/openapi.json', {}], ['/admin/v1/openapi.json', admin], ['/healthz', {}], ['/readyz', {}]]
    for (const [prefix, docUrl, headers] of [['/v1', '/v1/openapi.json', bearer(key)], ['/admin/v1', '/admin/v1/openapi.json', admin]] as const) {
      const doc = (await t.app.inject({ method: 'GET', url: docUrl, headers: admin })).json<{ paths: Record<string, Record<string, unknown>> }>()
      for (const [path, item] of Object.entries(doc.paths)) {
        assert.equal(item.head, undefined, `${prefix}${path}: HEAD is not an operation of the document`)
        if (!item.get) continue
        urls.push([`${prefix}${path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? 'x')}`, headers])
      }
    }
    assert.ok(urls.length >= 14, `GET resources found: ${urls.map(([url]) => url).join(' ')}`)
    const statuses = new Set<number>()
    let compressed = 0
    for (const [url, headers] of urls) {
      for (const encoding of [undefined, 'gzip, br', 'gzip']) {
        const { get } = await compare(url, { ...headers, ...(encoding && { 'accept-encoding': encoding }) })
        statuses.add(get.statusCode)
        if (get.headers['content-encoding']) compressed++
      }
    }
    assert.ok(statuses.has(200) && statuses.has(404), `answers compared: ${[...statuses].join(', ')}`)
    assert.ok(compressed >= 4, 'compressed answers compared too')
  })

  test('a page the compression plugin compresses: HEAD announces the same coding and the compressed length', async () => {
    const shelter = await t.project({ plan: 'enterprise', perMinute: 1e6, perDay: 1e6 })
    for (let i = 0; i < 100; i++) {
      const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(shelter.key), payload: { name: `Animal number ${i}`, categoryId: 3 } })
      assert.equal(created.statusCode, 201)
    }
    for (const encoding of ['gzip, br', 'gzip']) {
      const { get, head } = await compare('/v1/pets?limit=100', { ...bearer(shelter.key), 'accept-encoding': encoding })
      assert.ok(get.headers['content-encoding'], `${encoding}: the page is compressed`)
      assert.equal(Number(head.headers['content-length']), get.rawPayload.length, `${encoding}: the compressed length`)
    }
  })

  test('HEAD is authenticated and rate limited as the GET: 401 without a key, 429 past the limit, then a ban', async () => {
    const anonymous = await compare('/v1/pets', {})
    assert.equal(anonymous.head.statusCode, 401)
    assert.match(String(anonymous.head.headers['www-authenticate']), /^Bearer realm="adoption-store"/)

    const tight = await t.project({ plan: 'enterprise', perMinute: 2, perDay: 1000 })
    const first = await t.request({ method: 'HEAD', url: '/v1/pets', headers: bearer(tight.key) })
    assert.equal(first.statusCode, 200)
    assert.equal(first.headers['x-ratelimit-remaining'], '1')
    assert.match(String(first.headers['content-length']), /^\d+$/, 'the length of the GET body')
    assert.equal((await t.request({ method: 'GET', url: '/v1/pets', headers: bearer(tight.key) })).headers['x-ratelimit-remaining'], '0')
    const refused = await t.request({ method: 'HEAD', url: '/v1/pets', headers: bearer(tight.key) })
    assert.equal(refused.statusCode, 429)
    assert.equal(refused.body, '')
    assert.ok(Number(refused.headers['retry-after']) >= 1)
    for (let i = 0; i < 31; i++) await t.request({ method: 'HEAD', url: '/v1/pets', headers: bearer(tight.key) })
    const banned = await t.app.inject({ method: 'GET', url: '/v1/pets', headers: bearer(tight.key) })
    assert.equal(banned.json<{ code: string }>().code, 'api_key_banned', 'refused HEADs count toward a ban, as GETs do')
  })

  test('Allow lists HEAD wherever GET is allowed, and only there', async () => {
    const wrong = await t.request({ method: 'DELETE', url: '/v1/pets', headers: bearer(key) })
    assert.equal(wrong.statusCode, 405)
    assert.deepEqual(String(wrong.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST'])
    const wrongAdmin = await t.request({ method: 'PATCH', url: '/admin/v1/projects', headers: admin })
    assert.deepEqual(String(wrongAdmin.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST'])
    const postOnly = await t.request({ method: 'HEAD', url: '/v1/store/orders/1/approve', headers: bearer(key) })
    assert.equal(postOnly.statusCode, 405)
    assert.equal(postOnly.headers.allow, 'POST')
  })
})

describe('compression', () => {
  const get = (url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers })

  test('the OpenAPI document: brotli or gzip as Accept-Encoding prefers, with Vary; the same document decoded', async () => {
    const plain = await get('/v1/openapi.json', {})
    assert.equal(plain.headers['content-encoding'], undefined)
    assert.equal(plain.headers.vary, 'accept-encoding', 'a cache must tell the codings apart, even for this answer')
    for (const [accept, coding] of [['gzip, br', 'br'], ['gzip', 'gzip'], ['br;q=0.5, gzip', 'gzip'], ['x-gzip', 'gzip'], ['*', 'br'], ['br;q=0, *;q=0.1', 'gzip'], ['gzip;q=0, br;q=0', undefined], ['identity', undefined], ['compress', undefined]] as const) {
      const response = await get('/v1/openapi.json', { 'accept-encoding': accept })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-encoding'], coding, `Accept-Encoding: ${accept}`)
      assert.equal(response.headers.vary, 'accept-encoding', `Accept-Encoding: ${accept}`)
      assert.equal(bodyOf(response), plain.body, `Accept-Encoding: ${accept}: the same document`)
      if (coding) assert.ok(response.rawPayload.length < plain.rawPayload.length / 4, `${coding}: ${response.rawPayload.length} of ${plain.rawPayload.length} bytes`)
    }
  })

  test('a page of 100 animals and /metrics are compressed; the same content decoded', async () => {
    for (let i = 0; i < 100; i++) {
      const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `Animal ${i}`, categoryId: 2 } })
      assert.equal(created.statusCode, 201)
    }
    const plain = await get('/v1/pets?limit=100', bearer(key))
    const compressed = await t.request({ method: 'GET', url: '/v1/pets?limit=100', headers: { ...bearer(key), 'accept-encoding': 'gzip' } })
    assert.equal(compressed.headers['content-encoding'], 'gzip')
    assert.match(String(compressed.headers.vary), /accept-encoding/)
    assert.equal(bodyOf(compressed), plain.body)
    assert.ok(plain.rawPayload.length > COMPRESSION_THRESHOLD && compressed.rawPayload.length < plain.rawPayload.length / 2)
    const metrics = await get('/metrics', { 'accept-encoding': 'gzip, br' })
    assert.equal(metrics.headers['content-encoding'], 'br')
    assert.match(bodyOf(metrics), /^# HELP /m)
  })

  test(`small answers (under ${COMPRESSION_THRESHOLD} bytes) are sent as they are, with their length: a default page, one animal, 401, 404, 429`, async () => {
    const tight = await t.project({ plan: 'enterprise', perMinute: 1, perDay: 1000 })
    await get('/v1/pets', bearer(tight.key))
    const requests: [string, Record<string, string>, number][] = [
      ['/v1/pets/1', bearer(key), 200],
      ['/v1/pets?limit=1', bearer(key), 200],
      ['/v1/pets', bearer(key), 200],
      ['/v1/pets', {}, 401],
      ['/v1/nope', bearer(key), 404],
      ['/v1/pets', bearer(tight.key), 429],
      ['/healthz', {}, 200],
    ]
    for (const [url, headers, status] of requests) {
      const response = await t.request({ method: 'GET', url, headers: { ...headers, 'accept-encoding': 'gzip, br' } })
      assert.equal(response.statusCode, status, url)
      assert.equal(response.headers['content-encoding'], undefined, `${url}: not compressed`)
      assert.equal(Number(response.headers['content-length']), response.rawPayload.length, `${url}: Content-Length`)
      assert.ok(response.rawPayload.length < COMPRESSION_THRESHOLD)
    }
  })
})
