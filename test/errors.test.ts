import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { bearer, createTestApp, type TestApp } from './helpers/app.js'

/**
 * Every non-success is `{ code, message, status }` as application/json (the contract check in
 * `t.request` enforces the envelope on every response; these tests pin the code, the status
 * and a message that tells the client what to fix).
 */

let t: TestApp
let owner: { slug: string; id: number; key: string }

function assertError(response: LightMyRequestResponse, status: number, code: string, message: RegExp): { message: string } {
  assert.equal(response.statusCode, status, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  const body = response.json<{ code: string; message: string; status: number }>()
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'])
  assert.equal(body.code, code)
  assert.equal(body.status, status)
  assert.match(body.message, message)
  assert.ok(response.headers['x-request-id'], 'every error carries the request id')
  return body
}

async function countPets(): Promise<number> {
  const row = await t.database.db.selectFrom('pets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

function post(payload: string | undefined, contentType: string | undefined, extra: Partial<InjectOptions> = {}): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'POST',
    url: '/v1/pets',
    headers: { ...bearer(owner.key), ...(contentType !== undefined && { 'content-type': contentType }) },
    ...(payload !== undefined && { payload }),
    ...extra,
  })
}

describe('error envelope', () => {
  beforeEach(async () => {
    t = await createTestApp()
    owner = await t.project()
  })
  afterEach(async () => {
    await t.close()
  })

  describe('unknown routes: 404 not_found', () => {
    for (const [method, url] of [
      ['GET', '/nope'],
      ['GET', '/pets'],
      ['GET', '/v1'],
      ['GET', '/v1/nope'],
      ['POST', '/v1/pets/1/vaccinations'],
      ['GET', '/v2/pets'],
    ] as const) {
      test(`${method} ${url}`, async () => {
        const response = await t.request({ method, url, headers: bearer(owner.key) })
        const path = url
        assertError(response, 404, 'not_found', new RegExp(`^No route ${method} ${path.replace(/\//g, '\\/')}\\. The API lives under /v1; see /v1/openapi\\.json\\.$`))
      })
    }

    test('without a key too, and the query string is not echoed', async () => {
      const response = await t.request({ method: 'GET', url: `/v1/nope?api_key=${owner.key}&x=1` })
      const { message } = assertError(response, 404, 'not_found', /^No route GET \/v1\/nope\./)
      assert.ok(!message.includes('?'))
      assert.ok(!response.body.includes(owner.key))
    })
  })

  describe('wrong method on a known path: 405 method_not_allowed with Allow', () => {
    const cases: [method: InjectOptions['method'], url: string, allow: string[]][] = [
      ['DELETE', '/v1/pets', ['GET', 'HEAD', 'POST']],
      ['PUT', '/v1/pets', ['GET', 'HEAD', 'POST']],
      ['PATCH', '/v1/pets', ['GET', 'HEAD', 'POST']],
      ['OPTIONS', '/v1/pets', ['GET', 'HEAD', 'POST']],
      ['PUT', '/v1/pets/1', ['GET', 'HEAD', 'PATCH', 'DELETE']],
      ['POST', '/v1/pets/1', ['GET', 'HEAD', 'PATCH', 'DELETE']],
      ['POST', '/v1/openapi.json', ['GET', 'HEAD']],
      ['POST', '/healthz', ['GET', 'HEAD']],
      ['DELETE', '/readyz', ['GET', 'HEAD']],
    ]
    for (const [method, url, allow] of cases) {
      test(`${String(method)} ${url} -> Allow: ${allow.join(', ')}`, async () => {
        const response = await t.request({ method, url, headers: bearer(owner.key) })
        assertError(response, 405, 'method_not_allowed', new RegExp(`^${String(method)} is not allowed on this path; use ${allow.join(', ')}\\.$`))
        const header = String(response.headers.allow)
        assert.deepEqual(header.split(/\s*,\s*/).sort(), [...allow].sort())
      })
    }

    test('the Allow header lists only methods that work', async () => {
      const response = await t.request({ method: 'DELETE', url: '/v1/pets', headers: bearer(owner.key) })
      for (const method of String(response.headers.allow).split(/\s*,\s*/)) {
        const attempt = await t.request({
          method: method as InjectOptions['method'],
          url: '/v1/pets',
          headers: bearer(owner.key),
          ...(method === 'POST' && { payload: { name: 'Rex', categoryId: 1 } }),
        })
        assert.ok(attempt.statusCode < 300, `${method} /v1/pets answered ${attempt.statusCode}`)
      }
    })
  })

  describe('bodies that cannot be read: 400 invalid_request', () => {
    const cases: [name: string, payload: string | undefined, contentType: string | undefined, message: RegExp][] = [
      ['malformed JSON', '{"name": "Rex", "categoryId": ', 'application/json', /^The body cannot be parsed: it is not valid JSON \(.+\)\.$/],
      ['a trailing comma', '{"name": "Rex", "categoryId": 1,}', 'application/json', /not valid JSON/],
      ['an empty body with a JSON content type', '', 'application/json', /^The body is empty: send a JSON object\.$/],
      ['a blank body with a JSON content type', ' \n\t ', 'application/json', /^The body is empty: send a JSON object\.$/],
      ['no body at all', undefined, undefined, /^Body must be a JSON object\.$/],
      ['JSON null', 'null', 'application/json', /must be a JSON object/],
      [
        'a "__proto__" key',
        '{"name": "Rex", "categoryId": 1, "__proto__": {"admin": true}}',
        'application/json',
        /^The body cannot be parsed: it contains a forbidden "__proto__" or "constructor\.prototype" key\.$/,
      ],
      ['a nested "__proto__" key', '{"name": "Rex", "categoryId": 1, "x": {"__proto__": {"admin": true}}}', 'application/json', /forbidden "__proto__"/],
      [
        'a "constructor.prototype" key',
        '{"name": "Rex", "categoryId": 1, "constructor": {"prototype": {"admin": true}}}',
        'application/json',
        /forbidden "__proto__" or "constructor\.prototype" key/,
      ],
    ]
    for (const [name, payload, contentType, message] of cases) {
      test(name, async () => {
        const response = await post(payload, contentType)
        assertError(response, 400, 'invalid_request', message)
        assert.equal(await countPets(), 0, 'nothing was created')
        assert.equal(({} as Record<string, unknown>).admin, undefined, 'Object.prototype is untouched')
      })
    }

    test('a plain "constructor" field is an unknown field, not a parse error', async () => {
      const response = await post('{"name": "Rex", "categoryId": 1, "constructor": "x"}', 'application/json')
      assertError(response, 400, 'invalid_request', /^Unknown field "constructor": remove it\.$/)
    })

    test('a percent-encoding that does not decode in the path', async () => {
      const response = await t.request({ method: 'GET', url: '/v1/pets/%E0%A4%A', headers: { ...bearer(owner.key), 'x-request-id': 'bad-url-1' } })
      assertError(response, 400, 'invalid_request', /^The request is malformed: .*not a valid url component\.$/)
      assert.equal(response.headers['x-request-id'], 'bad-url-1')
    })

    test('a path parameter longer than 100 characters', async () => {
      const response = await t.request({ method: 'GET', url: `/v1/pets/${'1'.repeat(101)}`, headers: bearer(owner.key) })
      assertError(response, 400, 'invalid_request', /^A path parameter is too long: path parameters are at most 100 characters\.$/)
    })
  })

  describe('bodies that are not JSON: 415 unsupported_media_type', () => {
    const json = '{"name": "Rex", "categoryId": 1}'
    for (const [name, contentType, payload] of [
      ['text/plain', 'text/plain', json],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded', 'name=Rex&categoryId=1'],
      ['multipart/form-data', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nRex\r\n--x--\r\n'],
      ['text/json', 'text/json', json],
      ['application/jsonx (a look-alike)', 'application/jsonx', json],
      ['no content type with a body', undefined, json],
    ] as const) {
      test(name, async () => {
        const response = await post(payload, contentType)
        assertError(response, 415, 'unsupported_media_type', /^Send the body as JSON with the header Content-Type: application\/json\.$/)
        assert.equal(await countPets(), 0)
      })
    }

    for (const contentType of ['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset=UTF-8']) {
      test(`"${contentType}" is JSON`, async () => {
        const response = await post(json, contentType)
        assert.equal(response.statusCode, 201, response.body)
      })
    }
  })

  describe('5xx: the database handle closed under a running app', () => {
    test('500 internal_error naming the request id and nothing internal', async () => {
      await t.database.close()
      const responses = [
        await t.request({ method: 'GET', url: '/v1/pets', headers: { ...bearer(owner.key), 'x-request-id': 'trace-500-a' } }),
        await t.request({ method: 'POST', url: '/v1/pets', headers: { ...bearer(owner.key), 'x-request-id': 'trace-500-b' }, payload: { name: 'Rex', categoryId: 1 } }),
        await t.request({ method: 'GET', url: '/v1/pets/1', headers: bearer(owner.key) }),
      ]
      const leaks: (string | RegExp)[] = [
        'sqlite',
        'SQLite',
        'destroyed',
        'Kysely',
        'driver',
        'SELECT',
        'select ',
        'api_keys',
        // A stack frame ("    at fn (file:line)"), not the "at" inside a word such as "that".
        /(^|\s)at\s/,
        /\.(ts|js|db)\b/,
        'node_modules',
        'file:',
        t.config.dataDir,
        t.database.location,
      ]
      for (const response of responses) {
        const { message } = assertError(response, 500, 'internal_error', /^An unexpected error occurred\. It was logged with request id \S+; retry later or report it with that id\.$/)
        const id = String(response.headers['x-request-id'])
        assert.ok(message.includes(`request id ${id};`), `the message names the request id ${id}: ${message}`)
        for (const leak of leaks) {
          if (typeof leak === 'string') assert.ok(!message.includes(leak), `the message leaks "${leak}": ${message}`)
          else assert.doesNotMatch(message, leak)
        }
        assert.ok(!response.body.includes(owner.key))
      }
      assert.equal(responses[0]?.headers['x-request-id'], 'trace-500-a')
      assert.equal(responses[1]?.headers['x-request-id'], 'trace-500-b')
      assert.match(String(responses[2]?.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      // Teardown closes the app, which closes the handle a second time: that must not throw
      // (Kysely's destroy is idempotent), so afterEach's t.close() is left to prove it.
    })
  })

  describe('secrets are never echoed', () => {
    test('no error response carries the secret key (or its random part) in its body or headers', async () => {
      const secret = owner.key
      const random = secret.slice('as_live_'.length, 'as_live_'.length + 28)
      const typo = secret.slice(0, 10) + (secret[10] === 'x' ? 'y' : 'x') + secret.slice(11)
      const requests: InjectOptions[] = [
        { method: 'GET', url: `/v1/nope?api_key=${secret}`, headers: bearer(secret) },
        { method: 'GET', url: `/v1/pets?api_key=${secret}` },
        { method: 'GET', url: `/v1/pets?limit=0&access_token=${secret}`, headers: bearer(secret) },
        { method: 'GET', url: '/v1/pets', headers: bearer(typo) },
        { method: 'GET', url: '/v1/pets', headers: { authorization: `Basic ${secret}` } },
        { method: 'GET', url: '/v1/pets', headers: { authorization: `Bearer ${secret} extra` } },
        { method: 'GET', url: '/v1/pets', headers: bearer(`${secret}x`) },
        { method: 'DELETE', url: '/v1/pets', headers: bearer(secret) },
        { method: 'GET', url: '/v1/pets?limit=0', headers: bearer(secret) },
        { method: 'GET', url: '/v1/pets/abc', headers: bearer(secret) },
        { method: 'POST', url: '/v1/pets', headers: { ...bearer(secret), 'content-type': 'application/json' }, payload: '{' },
        { method: 'POST', url: '/v1/pets', headers: { ...bearer(secret), 'content-type': 'text/plain' }, payload: secret },
        { method: 'POST', url: '/v1/pets', headers: bearer(secret), payload: { name: 'Rex', categoryId: secret } },
        { method: 'POST', url: '/v1/pets', headers: { ...bearer(secret), 'idempotency-key': 'x'.repeat(300) }, payload: { name: 'Rex', categoryId: 1 } },
      ]
      const revoked = await t.key(owner.slug)
      assert.ok((await t.app.services.keys.revoke(revoked.id, commandLineChange())).ok)
      requests.push({ method: 'GET', url: '/v1/pets', headers: bearer(revoked.secret) })
      for (const request of requests) {
        const response = await t.request(request)
        assert.ok(response.statusCode >= 400, `${String(request.method)} ${String(request.url)} answered ${response.statusCode}`)
        const seen = response.body + JSON.stringify(response.headers)
        for (const text of [secret, random, typo, revoked.secret, revoked.secret.slice(8, 32)]) {
          assert.ok(!seen.includes(text), `${String(request.method)} ${String(request.url)} -> ${response.statusCode} echoes a key: ${seen}`)
        }
      }
    })
  })
})

describe('body size limit (BODY_LIMIT = 2048)', () => {
  beforeEach(async () => {
    t = await createTestApp({ config: { bodyLimit: 2048 } })
    owner = await t.project()
  })
  afterEach(async () => {
    await t.close()
  })

  /** A valid createPet body padded with whitespace to exactly `size` bytes. */
  function bodyOf(size: number): string {
    const json = '{"name": "Rex", "categoryId": 1}'
    return json.slice(0, -1) + ' '.repeat(size - json.length) + '}'
  }

  test('a body of exactly the limit is accepted', async () => {
    const payload = bodyOf(2048)
    assert.equal(Buffer.byteLength(payload), 2048)
    const response = await post(payload, 'application/json')
    assert.equal(response.statusCode, 201, response.body)
  })

  test('one byte over is 413 payload_too_large naming the limit', async () => {
    const payload = bodyOf(2049)
    const response = await post(payload, 'application/json')
    assertError(response, 413, 'payload_too_large', /^The body is larger than the limit of 2048 bytes\.$/)
    assert.equal(await countPets(), 0)
  })

  test('far over the limit, multi-byte characters counted as bytes', async () => {
    const payload = JSON.stringify({ name: 'Rex', categoryId: 1, note: '🐕'.repeat(600) })
    assert.ok(payload.length < 2048 && Buffer.byteLength(payload) > 2048, 'fewer characters than the limit, more bytes')
    const response = await post(payload, 'application/json')
    assertError(response, 413, 'payload_too_large', /2048 bytes/)
  })
})
