/**
 * The defects contract fuzzing found (test/fuzz.test.ts), each pinned by the smallest request
 * that showed it. Every response is checked against the documents as in the fuzz test: the public
 * one by `t.request`, the admin one by `assertMatchesAdminContract`.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, assertMatchesAdminContract } from './helpers/admin.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'

let t: TestApp
let key: string

function assertError(response: LightMyRequestResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  const body = response.json<{ code: string; message: string; status: number }>()
  assert.equal(body.code, code, response.body)
  assert.equal(body.status, status)
  if (message) assert.match(body.message, message)
}

/** An admin request, checked against both documents' rules. */
async function adminRequest(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse> {
  const response = await t.request({ ...options, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...options.headers } })
  await assertMatchesAdminContract(t.app, String(options.method), options.url, response)
  return response
}

describe('defects found by contract fuzzing', () => {
  let slug: string

  before(async () => {
    // Host routing on, as in the fuzz test: it adds answers of its own.
    t = await createTestApp({ config: { adminToken: ADMIN_TOKEN, platformDomain: 'platform.test', platformDnsTarget: 'edge.platform.test' } })
    await t.app.domains.worker.stop()
    ;({ key, slug } = await t.project({ plan: 'pro' }))
  })
  after(async () => {
    await t?.close()
  })

  describe('a body sent to an operation that takes none is read: its 400, 413 and 415 are documented', () => {
    test('POST /v1/store/orders/{orderId}/approve with a text/plain body: 415, documented', async () => {
      const response = await t.request({ method: 'POST', url: '/v1/store/orders/1/approve', headers: { ...bearer(key), 'content-type': 'text/plain' }, payload: 'approve' })
      assertError(response, 415, 'unsupported_media_type')
    })

    test('POST /v1/store/orders/{orderId}/cancel with a body over the limit: 413, documented', async () => {
      const payload = JSON.stringify({ note: 'x'.repeat(t.config.bodyLimit) })
      const response = await t.request({ method: 'POST', url: '/v1/store/orders/1/cancel', headers: { ...bearer(key), 'content-type': 'application/json' }, payload })
      assertError(response, 413, 'payload_too_large')
    })

    test('DELETE /admin/v1/session with a body and no content type: 415, documented', async () => {
      const response = await adminRequest({ method: 'DELETE', url: '/admin/v1/session', payload: '[]' })
      assertError(response, 415, 'unsupported_media_type')
    })

    test('DELETE /admin/v1/session with malformed JSON: 400, documented', async () => {
      const response = await adminRequest({ method: 'DELETE', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: '{' })
      assertError(response, 400, 'invalid_request', /not valid JSON/)
    })

    for (const [method, path] of [
      ['DELETE', '/keys/key_x'],
      ['DELETE', '/keys/key_x/ban'],
      ['DELETE', '/domains/shop.example.com'],
      ['POST', '/domains/shop.example.com/verify'],
      ['DELETE', '/domains/redirects/www.example.com'],
    ] as const) {
      test(`${method} /admin/v1/projects/{slug}${path} with a text/plain body: 415, documented`, async () => {
        const response = await adminRequest({ method, url: `/admin/v1/projects/${slug}${path}`, headers: { 'content-type': 'text/plain' }, payload: 'x' })
        assertError(response, 415, 'unsupported_media_type')
      })
    }
  })

  describe('an unknown route answers 404 before reading the body, not the body\'s 400, 413 or 415', () => {
    test('PUT /admin/v1/projects/./domains/primary (the dot segment is resolved away) with an empty Content-Type: 404', async () => {
      const response = await adminRequest({ method: 'PUT', url: '/admin/v1/projects/./domains/primary', headers: { 'content-type': '' }, payload: '{"name":null}' })
      assertError(response, 404, 'not_found', /^No route PUT \/admin\/v1\/projects\/domains\/primary\./)
    })

    test('POST /v1/nope with malformed JSON: 404', async () => {
      const response = await t.request({ method: 'POST', url: '/v1/nope', headers: { ...bearer(key), 'content-type': 'application/json' }, payload: '{' })
      assertError(response, 404, 'not_found')
    })

    test('POST /nope with a body over the limit: 404', async () => {
      const response = await t.request({ method: 'POST', url: '/nope', headers: { 'content-type': 'application/json' }, payload: 'x'.repeat(t.config.bodyLimit + 1) })
      assertError(response, 404, 'not_found')
    })
  })

  test('GET /admin/v1/session on an unknown host (host routing on): 404 unknown_host, documented', async () => {
    const response = await adminRequest({ method: 'GET', url: '/admin/v1/session', headers: { host: '!' } })
    assertError(response, 404, 'unknown_host')
  })

  describe('a NUL character in any string is 400 on every dialect (PostgreSQL cannot compare one: it was a 500 there)', () => {
    test('GET /admin/v1/projects/%00', async () => {
      const response = await adminRequest({ method: 'GET', url: '/admin/v1/projects/%00' })
      assertError(response, 400, 'invalid_request', /^Path parameter "slug" must not contain the NUL character \(U\+0000\)\.$/)
    })

    test('DELETE /admin/v1/projects/{slug}/domains/a%00b', async () => {
      const response = await adminRequest({ method: 'DELETE', url: `/admin/v1/projects/${slug}/domains/a%00b` })
      assertError(response, 400, 'invalid_request', /^Path parameter "name" must not contain the NUL character/)
    })

    test('POST /admin/v1/projects with a NUL in the slug', async () => {
      const response = await adminRequest({ method: 'POST', url: '/admin/v1/projects', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ slug: 'a\u0000', plan: 'free' }) })
      assertError(response, 400, 'invalid_request', /^Body field "slug" must not contain the NUL character/)
    })

    test('POST /admin/v1/session with a NUL in the email', async () => {
      const payload = JSON.stringify({ email: 'ops\u0000@example.com', password: 'correct horse battery staple' })
      const response = await adminRequest({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload, remoteAddress: '10.251.0.1' })
      assertError(response, 400, 'invalid_request', /^Body field "email" must not contain the NUL character/)
    })
  })

  describe("sign-in's body is validated as every other body (it was left to Fastify's default Ajv, which coerced and dropped fields)", () => {
    test('an unknown field: 400', async () => {
      const payload = JSON.stringify({ email: 'ops@example.com', password: 'x', remember: true })
      const response = await adminRequest({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload, remoteAddress: '10.251.0.2' })
      assertError(response, 400, 'invalid_request', /^Unknown field "remember": remove it\.$/)
    })

    test('a number for the email: 400, not the text "12345"', async () => {
      const payload = JSON.stringify({ email: 12345, password: 'x' })
      const response = await adminRequest({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload, remoteAddress: '10.251.0.3' })
      assertError(response, 400, 'invalid_request', /^Body field "email" must be a string\.$/)
    })
  })

  describe('text that trimming leaves empty is refused, not stored empty against the documented minimum length', () => {
    test('a location whose address part is only spaces: 400 naming it, nothing added', async () => {
      const payload = JSON.stringify({ name: 'shop.fuzz-2402-0.test', address: { postalCode: '                    ' } })
      const url = `/admin/v1/projects/${slug}/locations`
      const response = await adminRequest({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload })
      assertError(response, 400, 'invalid_request', /^Body field "address\.postalCode" is empty once its surrounding spaces are trimmed/)
      assert.deepEqual((await adminRequest({ method: 'GET', url })).json(), [])
    })

    test('an animal whose description or breed is only spaces: 400 naming it', async () => {
      for (const [fields, name] of [
        [{ description: '   ' }, 'description'],
        [{ breeds: { primary: '    ' } }, 'breeds.primary'],
        [{ attributes: { specialNeeds: true, specialNeedsNote: '  ' } }, 'attributes.specialNeedsNote'],
      ] as const) {
        const response = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: 'Rex', categoryId: 1, ...fields } })
        assertError(response, 400, 'invalid_request', new RegExp(`^Field "${name.replace('.', '\\.')}" is empty once its surrounding spaces are trimmed`))
      }
    })
  })
})
