import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN } from './helpers/admin.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'

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

export function sameHeaders(get: LightMyRequestResponse, head: LightMyRequestResponse, where: string): void {
  const without = (headers: LightMyRequestResponse['headers']) => {
    const { date: _date, 'x-request-id': _id, ...rest } = headers
    return rest
  }
  assert.deepEqual(without(head.headers), without(get.headers), `${where}: HEAD answers the GET's headers`)
}
