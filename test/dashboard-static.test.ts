import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { installErrorHandling } from '../src/http/error-handler.js'
import { DEFAULT_DASHBOARD_ROOT, installDashboard } from '../src/web/dashboard.scope.js'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Static files and their headers, served the same on both back ends (docs/decisions.md).
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * The dashboard's static files at /dashboard, as the app serves them: its security headers,
 * caching, client-side routes, and what answers before it is built. The built dashboard
 * (`npm run build`, or `npx vite build --config dashboard/vite.config.ts`) is needed.
 */

/** The test apps' MEDIA_BASE_URL, by default on PUBLIC_BASE_URL's origin: its photos are the thumbnails of the animal editor. */
const MEDIA_BASE_URL = 'http://localhost:8080/media'
const csp = (media: string) => `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: ${media}; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`
const CSP = csp('http://localhost:8080')

function assertSecurityHeaders(response: LightMyRequestResponse, where: string): void {
  assert.equal(response.headers['content-security-policy'], CSP, `${where}: Content-Security-Policy`)
  assert.equal(response.headers['x-content-type-options'], 'nosniff', `${where}: X-Content-Type-Options`)
  assert.equal(response.headers['x-frame-options'], 'DENY', `${where}: X-Frame-Options`)
  assert.equal(response.headers['referrer-policy'], 'no-referrer', `${where}: Referrer-Policy`)
}

function assertIndex(response: LightMyRequestResponse, where: string): void {
  assert.equal(response.statusCode, 200, where)
  assert.match(String(response.headers['content-type']), /^text\/html; charset=utf-8/, where)
  assert.equal(response.headers['cache-control'], 'no-store', `${where}: index.html is never cached`)
  assertSecurityHeaders(response, where)
}

describe('the built dashboard at /dashboard', () => {
  let t: TestApp
  let index: string

  before(async () => {
    const file = path.join(DEFAULT_DASHBOARD_ROOT, 'index.html')
    assert.ok(fs.existsSync(file), `${file} is missing: build the dashboard first (npm run build, or npx vite build --config dashboard/vite.config.ts)`)
    index = fs.readFileSync(file, 'utf8')
    t = await createTestApp()
  })
  after(async () => {
    await t?.close()
  })

  test('index.html: at /dashboard and /dashboard/, no-store, with the strict headers, no inline script or style', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/?from=link']) {
      const response = await t.request({ method: 'GET', url })
      assertIndex(response, `GET ${url}`)
      assert.equal(response.body, index)
    }
    assert.match(index, /<script type="module" crossorigin src="\/dashboard\/assets\/index-[\w-]+\.js"><\/script>/)
    assert.match(index, /<link rel="stylesheet" crossorigin href="\/dashboard\/assets\/index-[\w-]+\.css">/)
    // The CSP allows neither: every script and style is a file.
    assert.doesNotMatch(index, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
    assert.doesNotMatch(index, /<style|\sstyle=/, 'no inline style')
  })

  test('every other /dashboard path is a client-side route: index.html (history fallback)', async () => {
    for (const url of ['/dashboard/sign-in', '/dashboard/projects/acme/keys', '/dashboard/projects/acme/domains?x=1', '/dashboard/no/such/page']) {
      assertIndex(await t.request({ method: 'GET', url }), `GET ${url}`)
    }
    const head = await t.app.inject({ method: 'HEAD', url: '/dashboard/projects/acme/usage' })
    assert.equal(head.statusCode, 200)
    assert.equal(head.headers['cache-control'], 'no-store')
    assert.equal(head.body, '')
  })

  test('hashed assets: immutable for a year, with their type and the security headers; HEAD too', async () => {
    const assets = [...index.matchAll(/\/dashboard\/assets\/[\w.-]+\.(?:js|css)/g)].map((match) => match[0])
    assert.equal(assets.length, 2, 'one script, one stylesheet')
    for (const url of assets) {
      const response = await t.request({ method: 'GET', url })
      assert.equal(response.statusCode, 200, url)
      assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable', url)
      assert.match(String(response.headers['content-type']), url.endsWith('.js') ? /^(text|application)\/javascript/ : /^text\/css/, url)
      assertSecurityHeaders(response, url)
      assert.ok(response.rawPayload.length > 0)

      const head = await t.app.inject({ method: 'HEAD', url })
      assert.equal(head.statusCode, 200, `HEAD ${url}`)
      assert.equal(head.headers['cache-control'], 'public, max-age=31536000, immutable')
      assert.equal(head.headers['content-length'], String(response.rawPayload.length))
      assert.equal(head.body, '')
    }
  })

  test('a missing asset is a JSON 404 (GET and HEAD), never index.html', async () => {
    for (const url of ['/dashboard/assets/index-00000000.js', '/dashboard/assets/', '/dashboard/assets/.env', '/dashboard/assets/%2e%2e%2fpackage.json']) {
      const response = await t.request({ method: 'GET', url })
      assert.equal(response.statusCode, 404, url)
      assert.equal(response.json<{ code: string }>().code, 'not_found', url)
      assert.notEqual(response.headers['cache-control'], 'public, max-age=31536000, immutable', `${url}: a 404 is not cached for a year`)
      assertSecurityHeaders(response, url)
    }
    const head = await t.app.inject({ method: 'HEAD', url: '/dashboard/assets/index-00000000.js' })
    assert.equal(head.statusCode, 404)
    assert.equal(head.body, '')
    assertSecurityHeaders(head, 'HEAD of a missing asset')
  })

  test('other methods are 405 with Allow', async () => {
    for (const url of ['/dashboard', '/dashboard/projects', '/dashboard/assets/x.js']) {
      const response = await t.request({ method: 'POST', url, payload: {} })
      assert.equal(response.statusCode, 405, url)
      assert.deepEqual(String(response.headers.allow).split(', ').sort(), ['GET', 'HEAD'], url)
    }
  })

  test('the dashboard is in neither OpenAPI document', async () => {
    const paths = (doc: unknown) => Object.keys((doc as { paths: Record<string, unknown> }).paths)
    assert.deepEqual(paths(t.app.swagger()).filter((p) => p.includes('dashboard')), [])
    const token = 'a'.repeat(40)
    const admin = await createTestApp({ config: { adminToken: token } })
    try {
      const doc = await admin.request({ method: 'GET', url: '/admin/v1/openapi.json', headers: bearer(token) })
      assert.equal(doc.statusCode, 200)
      assert.deepEqual(paths(doc.json()).filter((p) => p.includes('dashboard')), [])
    } finally {
      await admin.close()
    }
  })

  test("images also from the photos' origin: a CDN's when MEDIA_BASE_URL names one", async () => {
    const cdn = await createTestApp({ config: { mediaBaseUrl: 'https://cdn.example.test/adoption/media' } })
    try {
      const response = await cdn.request({ method: 'GET', url: '/dashboard/' })
      assert.equal(response.headers['content-security-policy'], csp('https://cdn.example.test'))
    } finally {
      await cdn.close()
    }
  })

  test("not on a project's host: the operator's surfaces stay on the API's own hosts", async () => {
    const routed = await createTestApp({ config: { platformDomain: 'apps.example.test' } })
    try {
      const { slug } = await routed.project({ plan: 'pro' })
      const response = await routed.request({ method: 'GET', url: '/dashboard/', headers: { host: `${slug}.apps.example.test` } })
      assert.equal(response.statusCode, 404)
      assert.equal(response.json<{ code: string }>().code, 'not_found')
      assertIndex(await routed.request({ method: 'GET', url: '/dashboard/', headers: { host: 'localhost' } }), 'on the API host')
    } finally {
      await routed.close()
    }
  })
})

describe('the dashboard before it is built', () => {
  let app: FastifyInstance
  let root: string

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'adoption-store-dashboard-'))
    app = Fastify({ logger: false, exposeHeadRoutes: false })
    installErrorHandling(app, { bodyLimit: 1024 })
    await installDashboard(app, { root, mediaBaseUrl: MEDIA_BASE_URL })
    await app.ready()
  })
  after(async () => {
    await app?.close()
    fs.rmSync(root, { recursive: true, force: true })
  })

  test('answers 503 in the error envelope, saying to run npm run build, with the security headers', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/projects/acme/keys', '/dashboard/assets/index-abc.js']) {
      const response = await app.inject({ method: 'GET', url })
      assert.equal(response.statusCode, 503, url)
      assert.match(String(response.headers['content-type']), /^application\/json/)
      const body = response.json<{ code: string; message: string; status: number }>()
      assert.equal(body.code, 'service_unavailable')
      assert.equal(body.status, 503)
      assert.match(body.message, /npm run build/)
      assertSecurityHeaders(response, url)
    }
  })

  test('serves the build as soon as it appears, without a restart', async () => {
    fs.mkdirSync(path.join(root, 'assets'))
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>built</title><script type="module" src="/dashboard/assets/index-abc.js"></script>')
    fs.writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)\n')
    const response = await app.inject({ method: 'GET', url: '/dashboard/sign-in' })
    assertIndex(response, 'after the build')
    assert.match(response.body, /<title>built<\/title>/)
    const asset = await app.inject({ method: 'GET', url: '/dashboard/assets/index-abc.js' })
    assert.equal(asset.statusCode, 200)
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')
    assert.equal(asset.body, 'console.log(1)\n')
  })
})
