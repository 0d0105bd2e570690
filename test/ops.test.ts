import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, test } from 'node:test'
import { setImmediate as nextTurn } from 'node:timers/promises'
import v8 from 'node:v8'
import vm from 'node:vm'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

let t: TestApp
let owner: { slug: string; id: number; key: string }

beforeEach(async () => {
  t = await createTestApp()
  owner = await t.project()
})
afterEach(async () => {
  await t.close()
})

describe('health', () => {
  test('/healthz is 200 without a key', async () => {
    const response = await t.request({ method: 'GET', url: '/healthz' })
    assert.equal(response.statusCode, 200)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    assert.deepEqual(response.json(), { status: 'ok' })
  })

  test('/readyz is 200 with the database ok', async () => {
    const response = await t.request({ method: 'GET', url: '/readyz' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), { status: 'ready', checks: { database: 'ok', limiter: 'memory' } })
  })

  test('/readyz is 503 service_unavailable once the database handle is closed; /healthz stays 200', async () => {
    await t.database.close()
    const response = await t.request({ method: 'GET', url: '/readyz' })
    assert.equal(response.statusCode, 503, response.body)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    const body = response.json<{ code: string; message: string; status: number }>()
    assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
    assert.equal(body.code, 'service_unavailable')
    assert.equal(body.status, 503)
    assert.match(body.message, /^Not ready: the \w+ database does not answer\.$/)
    assert.equal((await t.request({ method: 'GET', url: '/healthz' })).statusCode, 200, 'liveness does not depend on the database')
    // afterEach closes the handle a second time through app.close(); that must not throw.
  })
})

describe('GET /', () => {
  test('names the API, its document, the reference, the dashboard and health, each of which answers', async () => {
    const response = await t.request({ method: 'GET', url: '/' })
    assert.equal(response.statusCode, 200, response.body)
    assert.match(String(response.headers['content-type']), /^application\/json/)
    const links = response.json<Record<string, string>>()
    assert.deepEqual(Object.keys(links).sort(), ['api', 'dashboard', 'docs', 'health', 'name', 'openapi'])
    const reachable = { openapi: 200, docs: 200, health: 200, api: 404 }
    for (const [name, status] of Object.entries(reachable)) {
      const followed = await t.request({ method: 'GET', url: links[name]!, headers: bearer(owner.key) })
      // /v1 itself is a prefix, not an operation: a JSON 404 that points at the document.
      assert.equal(followed.statusCode, status, `${name} → ${links[name]}: ${followed.body.slice(0, 200)}`)
    }
    const dashboard = await t.request({ method: 'GET', url: links.dashboard! })
    assert.ok([200, 503].includes(dashboard.statusCode), `the dashboard answers (503 only until it is built): ${dashboard.statusCode}`)
    assert.match(String(dashboard.headers['content-type']), /^(text\/html|application\/json)/)
  })
})

describe('X-Request-Id', () => {
  test('a sane client id is echoed on success and on error responses', async () => {
    const requests = [
      { method: 'GET', url: '/healthz' },
      { method: 'GET', url: '/v1/pets', headers: bearer(owner.key) },
      { method: 'POST', url: '/v1/pets', headers: bearer(owner.key), payload: { name: 'Rex', categoryId: 1 } },
      { method: 'GET', url: '/v1/pets' },
      { method: 'GET', url: '/v1/nope' },
      { method: 'DELETE', url: '/v1/pets' },
      { method: 'GET', url: '/v1/pets/0', headers: bearer(owner.key) },
      { method: 'POST', url: '/v1/pets', headers: { ...bearer(owner.key), 'content-type': 'application/json' }, payload: '{' },
      { method: 'POST', url: '/v1/pets', headers: { ...bearer(owner.key), 'content-type': 'text/plain' }, payload: 'Rex' },
    ] as const
    const statuses: number[] = []
    for (const request of requests) {
      const response = await t.request({ ...request, headers: { ...('headers' in request && request.headers), 'x-request-id': 'abc-123' } })
      statuses.push(response.statusCode)
      assert.equal(response.headers['x-request-id'], 'abc-123', `${request.method} ${request.url} -> ${response.statusCode}`)
    }
    assert.deepEqual(statuses, [200, 200, 201, 401, 404, 405, 400, 400, 415])
  })

  test('ids of up to 128 letters, digits and . _ : - are kept', async () => {
    for (const id of ['a', 'A.b_c:d-e', '0f8fad5b-d9cb-469f-a165-70867728950e', 'x'.repeat(128)]) {
      const response = await t.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': id } })
      assert.equal(response.headers['x-request-id'], id)
    }
  })

  test('a missing id is generated: a UUID, different per request', async () => {
    const ids = new Set<string>()
    for (let i = 0; i < 5; i++) {
      const response = await t.request({ method: 'GET', url: i % 2 ? '/healthz' : '/v1/nope' })
      const id = String(response.headers['x-request-id'])
      assert.match(id, UUID)
      ids.add(id)
    }
    assert.equal(ids.size, 5)
  })

  for (const [name, id] of [
    ['with spaces', 'abc 123'],
    ['200 characters', 'x'.repeat(200)],
    ['129 characters', 'x'.repeat(129)],
    ['an empty string', ''],
    ['markup', '<script>alert(1)</script>'],
    ['a slash', 'a/b'],
    ['a comma, as when the header is sent twice', 'abc, def'],
    ['non-ASCII letters', 'überprüfung'],
  ] as const) {
    test(`an unsafe id (${name}) is replaced by a generated one`, async () => {
      for (const request of [{ url: '/healthz' }, { url: '/v1/pets' }]) {
        const response = await t.request({ method: 'GET', ...request, headers: { 'x-request-id': id } })
        assert.match(String(response.headers['x-request-id']), UUID, `${request.url}: ${String(response.headers['x-request-id'])}`)
        assert.ok(!response.body.includes(id) || id === '', 'the unsafe id is not echoed in the body')
      }
    })
  }
})

describe('OpenAPI document and documentation', () => {
  test('/v1/openapi.json is public JSON, OpenAPI 3.1.0, the document the app describes itself with', async () => {
    for (const headers of [{}, { authorization: 'Bearer nonsense' }]) {
      const response = await t.request({ method: 'GET', url: '/v1/openapi.json', headers })
      assert.equal(response.statusCode, 200, response.body)
      assert.match(String(response.headers['content-type']), /^application\/json/)
      const doc = response.json<{ openapi: string; servers: { url: string }[]; paths: Record<string, unknown> }>()
      assert.equal(doc.openapi, '3.1.0')
      assert.deepEqual(doc, JSON.parse(JSON.stringify(t.app.swagger())))
      assert.ok(doc.servers.length > 0 && doc.servers.every((server) => server.url.endsWith('/v1')))
      assert.ok(Object.keys(doc.paths).length > 0 && Object.keys(doc.paths).every((path) => !path.startsWith('/v1')))
    }
  })

  test('/docs serves HTML whose scripts and stylesheets are served by the app itself', async () => {
    const page = await t.request({ method: 'GET', url: '/docs' })
    assert.equal(page.statusCode, 200)
    assert.match(String(page.headers['content-type']), /^text\/html/)
    const html = page.body
    const references = [...html.matchAll(/<(script|link)\b[^>]*?\b(src|href)="([^"]+)"/g)].map((match) => ({ tag: match[1], url: match[3] ?? '' }))
    assert.ok(references.some((reference) => reference.tag === 'script'), 'the page loads scripts')
    assert.ok(references.some((reference) => reference.tag === 'link' && /\.css$/.test(reference.url)), 'the page loads a stylesheet')
    for (const { url } of references) {
      const resolved = new URL(url, 'http://localhost/docs/')
      assert.equal(resolved.host, 'localhost', `${url} is on another host`)
      const asset = await t.request({ method: 'GET', url: resolved.pathname })
      assert.equal(asset.statusCode, 200, `${resolved.pathname}: ${asset.statusCode}`)
      assert.ok(asset.rawPayload.length > 0, `${resolved.pathname} is empty`)
      if (url.endsWith('.js')) assert.match(String(asset.headers['content-type']), /javascript/)
      if (url.endsWith('.css')) assert.match(String(asset.headers['content-type']), /^text\/css/)
    }
  })

  test('/docs references no external host: no CDN', async () => {
    const html = (await t.request({ method: 'GET', url: '/docs' })).body
    const absolute = [...html.matchAll(/(?:https?:)?\/\/[^\s"'<>)]+/g)].map((match) => match[0])
    const external = absolute.filter((url) => new URL(url, 'http://localhost').host !== 'localhost')
    assert.deepEqual(external, [])
  })

  test('the document the documentation page loads is the same document', async () => {
    const response = await t.request({ method: 'GET', url: '/docs/json' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json(), JSON.parse(JSON.stringify(t.app.swagger())))
  })
})

describe('shutdown', () => {
  test('a request arriving while app.close() is in progress is 503 service_unavailable, in the envelope', async () => {
    // `inject` refuses to run once close() has begun (FST_ERR_REOPENED_CLOSE_SERVER), so the
    // request is driven through the app's own router from a plain node:http server, as a
    // request on an already open keep-alive connection would be during the drain.
    const server = http.createServer((req, res) => t.app.routing(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      // Hold the app's close in its last step (closing the database) to be sure it is under way.
      let reached!: () => void
      let release!: () => void
      const closeReached = new Promise<void>((resolve) => (reached = resolve))
      const held = new Promise<void>((resolve) => (release = resolve))
      const closeDatabase = t.database.close
      Object.assign(t.database, {
        close: async () => {
          reached()
          await held
          await closeDatabase()
        },
      })
      let closed = false
      const closing = t.app.close().then(() => (closed = true))
      await closeReached

      for (const [path, headers] of [
        ['/v1/pets', bearer(owner.key)],
        ['/healthz', { 'x-request-id': 'abc-123' }],
      ] as const) {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers })
        assert.equal(closed, false, 'close() is still in progress')
        assert.equal(response.status, 503, path)
        assert.match(String(response.headers.get('content-type')), /^application\/json/)
        assert.equal(response.headers.get('connection'), 'close')
        const body = (await response.json()) as Record<string, unknown>
        assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
        assert.equal(body.code, 'service_unavailable')
        assert.equal(body.status, 503)
        assert.match(String(body.message), /shutting down: retry the request/)
        if ('x-request-id' in headers) assert.equal(response.headers.get('x-request-id'), 'abc-123')
        else assert.match(String(response.headers.get('x-request-id')), UUID)
      }
      release()
      await closing
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('metrics', () => {
  test('/metrics serves the process metrics once and the app\'s own, for every app of the process', async () => {
    const second = await createTestApp()
    try {
      for (const app of [t, second]) {
        await app.request({ method: 'GET', url: '/healthz' })
        const text = (await app.request({ method: 'GET', url: '/metrics' })).body
        for (const family of ['adoption_store_process_cpu_user_seconds_total', 'adoption_store_nodejs_gc_duration_seconds', 'adoption_store_http_requests_total']) {
          assert.equal(text.split('\n').filter((line) => line === `# TYPE ${family} ${family.endsWith('_total') ? 'counter' : 'histogram'}`).length, 1, family)
        }
        assert.match(text, /^adoption_store_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m)
      }
    } finally {
      await second.close()
    }
  })

  test('a closed app is not kept alive by the process (its metrics collectors included)', async () => {
    v8.setFlagsFromString('--expose-gc')
    const gc = vm.runInNewContext('gc') as () => void
    const closed = await (async () => {
      const other = await createTestApp()
      await other.request({ method: 'GET', url: '/metrics' })
      await other.close()
      return new WeakRef(other.app)
    })()
    for (let round = 0; round < 10 && closed.deref() !== undefined; round++) {
      await nextTurn()
      gc()
    }
    assert.equal(closed.deref(), undefined, 'the closed app was collected')
  })
})
