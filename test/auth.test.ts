import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, test } from 'node:test'
import sharp from 'sharp'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { API_KEY_SECURITY as SECURITY_SCHEME } from '../src/openapi/security.js'
import type { Environment } from '../src/config.js'
import { generateApiKey, parseApiKey, REALM } from '../src/auth/api-key.js'
import { bearer, createTestApp, ManualClock, type TestApp } from './helpers/app.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Who is calling, for every operation: the key's parsing and checks are the same on both back
// ends, and its lookup is every API file's first step on both (docs/decisions.md: measured with
// V8 coverage, this file reached no line of src/ in the PostgreSQL leg that the others did not).
export const testPlan: TestPlan = { legs: 'sqlite' }

/**
 * One suite, run against every protected operation of the OpenAPI document. A new protected
 * route without a fixture below fails this file: it cannot escape the authentication tests.
 */

interface Operation {
  operationId: string
  method: string
  /** As in the document: relative to /v1, with `{param}` placeholders. */
  path: string
}

interface DocumentedOperation extends Operation {
  security: Record<string, string[]>[]
}

interface Context {
  t: TestApp
  /** A pet of the project whose key the request uses, ordered and pending. */
  petId: number
  /** An available pet of that project, free to order. */
  availablePetId: number
  /** A pet of that project without orders, free to remove. */
  removablePetId: number
  /** Orders of that project, one placed and one approved. */
  placedOrderId: number
  approvedOrderId: number
  /** Made only for an operation whose fixture names photos (`photos`): each upload is an image job. */
  photos?: Photos
}

interface Photos {
  /** A pet with two photos, to list and order. */
  petId: number
  ids: [string, string]
  /** A photo of the context's `petId`, free to remove. */
  removableId: string
}

interface Fixture {
  /** Path parameters of a request that succeeds with a valid key. */
  params?: (context: Context) => Record<string, string | number>
  body?: object | ((context: Context) => object)
  /** A body of bytes instead, with its Content-Type. */
  raw?: { payload: Buffer; type: string }
  /** The status of that request with a valid key. */
  success: number
  /** Its request names existing photos: the context has some made (`photosOf`). */
  photos?: true
}

/** The smallest photo: what uploads send. */
const TINY_PNG = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#808080' } }).png().toBuffer()

/** How to build a valid request for each protected operation, keyed by operationId. */
const FIXTURES: Record<string, Fixture> = {
  listPets: { success: 200 },
  createPet: { body: { name: 'Rex', categoryId: 1 }, success: 201 },
  getPet: { params: ({ petId }) => ({ petId }), success: 200 },
  updatePet: { params: ({ petId }) => ({ petId }), body: { name: 'Mimi' }, success: 200 },
  deletePet: { params: ({ removablePetId }) => ({ petId: removablePetId }), success: 204 },
  uploadPetPhoto: { params: ({ availablePetId }) => ({ petId: availablePetId }), raw: { payload: TINY_PNG, type: 'image/png' }, success: 201 },
  listPetPhotos: { photos: true, params: (context) => ({ petId: photosOf(context).petId }), success: 200 },
  orderPetPhotos: { photos: true, params: (context) => ({ petId: photosOf(context).petId }), body: (context) => ({ ids: [...photosOf(context).ids].reverse() }), success: 200 },
  deletePetPhoto: { photos: true, params: (context) => ({ petId: context.petId, photoId: photosOf(context).removableId }), success: 204 },
  listPetChanges: { success: 200 },
  listCategories: { success: 200 },
  listBreeds: { params: () => ({ categoryId: 1 }), success: 200 },
  listLocations: { success: 200 },
  listOrders: { success: 200 },
  placeOrder: { body: ({ availablePetId }) => ({ petId: availablePetId }), success: 201 },
  getOrder: { params: ({ placedOrderId }) => ({ orderId: placedOrderId }), success: 200 },
  approveOrder: { params: ({ placedOrderId }) => ({ orderId: placedOrderId }), success: 200 },
  deliverOrder: { params: ({ approvedOrderId }) => ({ orderId: approvedOrderId }), success: 200 },
  cancelOrder: { params: ({ placedOrderId }) => ({ orderId: placedOrderId }), success: 200 },
}

/** Operations documented without a security requirement on purpose (none today). */
const PUBLIC_OPERATIONS = new Set<string>()

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

interface OpenApiDoc {
  paths: Record<string, Record<string, { operationId?: string; security?: Record<string, string[]>[] }>>
  components: { securitySchemes: Record<string, { type: string; scheme?: string }> }
}

async function readDocument(): Promise<OpenApiDoc> {
  const t = await createTestApp()
  try {
    return structuredClone(t.app.swagger()) as unknown as OpenApiDoc
  } finally {
    await t.close()
  }
}

const doc = await readDocument()
const allOperations: DocumentedOperation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([method, operation]) => ({ operationId: operation.operationId ?? `${method} ${path}`, method, path, security: operation.security ?? [] })),
)
const protectedOperations: DocumentedOperation[] = allOperations.filter((operation) => operation.security.length > 0)

/** The context's photos; a fixture that uses them without saying so (`photos: true`) fails here. */
function photosOf(context: Context): Photos {
  return context.photos ?? assert.fail('This fixture names photos: give it `photos: true` in FIXTURES, so that its context has them.')
}

/**
 * Animals and orders in the states the fixtures need, made through the API with the given key;
 * photos too when `operations` include one whose fixture names them.
 */
async function prepareContext(t: TestApp, key: string, operations: readonly Operation[]): Promise<Context> {
  const created = async (url: string, payload: object) => {
    const response = await t.request({ method: 'POST', url, headers: bearer(key), payload })
    assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body)
    return response.json<{ id: number }>().id
  }
  const petId = await created('/v1/pets', { name: 'Mia', categoryId: 2 })
  const secondPet = await created('/v1/pets', { name: 'Max', categoryId: 2 })
  const availablePetId = await created('/v1/pets', { name: 'Rex', categoryId: 2 })
  const removablePetId = await created('/v1/pets', { name: 'Bo', categoryId: 2 })
  const placedOrderId = await created('/v1/store/orders', { petId })
  const approvedOrderId = await created('/v1/store/orders', { petId: secondPet })
  await created(`/v1/store/orders/${approvedOrderId}/approve`, {})
  const photo = async (pet: number) => {
    const response = await t.request({ method: 'POST', url: `/v1/pets/${pet}/photos`, headers: { ...bearer(key), 'content-type': 'image/png' }, payload: TINY_PNG })
    assert.equal(response.statusCode, 201, response.body)
    return response.json<{ id: string }>().id
  }
  const context: Context = { t, petId, availablePetId, removablePetId, placedOrderId, approvedOrderId }
  if (operations.some((operation) => FIXTURES[operation.operationId]?.photos)) {
    const photoPetId = await created('/v1/pets', { name: 'Pix', categoryId: 2 })
    context.photos = { petId: photoPetId, ids: [await photo(photoPetId), await photo(photoPetId)], removableId: await photo(petId) }
  }
  return context
}

function requestFor(operation: Operation, context: Context, headers: Record<string, string>, query = ''): InjectOptions {
  const fixture = FIXTURES[operation.operationId]
  if (!fixture) assert.fail(`No fixture for the protected operation ${operation.operationId}: add one to FIXTURES in test/auth.test.ts.`)
  const params = fixture.params?.(context) ?? {}
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) assert.fail(`The fixture of ${operation.operationId} has no value for the path parameter "${name}".`)
    return encodeURIComponent(String(value))
  })
  return {
    method: operation.method.toUpperCase() as InjectOptions['method'],
    url: `/v1${path}${query}`,
    headers: fixture.raw ? { ...headers, 'content-type': fixture.raw.type } : headers,
    ...(fixture.body && { payload: typeof fixture.body === 'function' ? fixture.body(context) : fixture.body }),
    ...(fixture.raw && { payload: fixture.raw.payload }),
  }
}

describe('the protected operations of the OpenAPI document', () => {
  test('there are some, and every documented operation is protected unless listed as public', () => {
    assert.ok(protectedOperations.length >= 3, `only ${protectedOperations.length} protected operations found`)
    const unprotected = allOperations.filter((operation) => operation.security.length === 0 && !PUBLIC_OPERATIONS.has(operation.operationId))
    assert.deepEqual(
      unprotected.map((operation) => operation.operationId),
      [],
      'documented operations without a security requirement: put them in the authenticated scope, or list them in PUBLIC_OPERATIONS',
    )
  })

  test('every protected operation has a fixture, and every fixture an operation', () => {
    const ids = protectedOperations.map((operation) => operation.operationId)
    assert.deepEqual(
      ids.filter((id) => !(id in FIXTURES)),
      [],
      'protected operations without a fixture: add them to FIXTURES',
    )
    assert.deepEqual(
      Object.keys(FIXTURES).filter((id) => !ids.includes(id)),
      [],
      'fixtures of operations that are not (or no longer) protected',
    )
  })

  test('they require the bearer scheme, which is documented as HTTP bearer', () => {
    for (const operation of protectedOperations) {
      assert.deepEqual(operation.security, [{ [SECURITY_SCHEME]: [] }], operation.operationId)
    }
    assert.deepEqual(
      { type: doc.components.securitySchemes[SECURITY_SCHEME]?.type, scheme: doc.components.securitySchemes[SECURITY_SCHEME]?.scheme },
      { type: 'http', scheme: 'bearer' },
    )
  })
})

const BARE = REALM
const INVALID_TOKEN = `${REALM}, error="invalid_token"`

interface Refusal {
  name: string
  /** Prepares the Authorization header (or its absence) against the running app. */
  headers(setup: Setup): Promise<Record<string, string>> | Record<string, string>
  challenge: string
  message: RegExp
}

interface Setup {
  t: TestApp
  clock: ManualClock
  owner: { slug: string; id: number; key: string }
}

/** Stores a key's hash as if it had been created, so only its environment can refuse it. */
async function storeKey(t: TestApp, projectId: number, environment: Environment): Promise<string> {
  const { secret, hash, prefix } = generateApiKey(environment)
  await t.database.db
    .insertInto('api_keys')
    .values({
      id: `key_stored${hash.slice(0, 8)}`,
      project_id: projectId,
      prefix,
      hash,
      name: null,
      created_at: new Date(t.clock.now()).toISOString(),
      last_used_at: null,
      expires_at: null,
      revoked_at: null,
      scopes: null,
      publishable: 0,
      allowed_origins: null,
    })
    .execute()
  return secret
}

/** The key with one character of its random part changed: it fails its checksum. */
function mistype(key: string): string {
  const at = 'as_live_'.length + 5
  const typo = key[at] === 'x' ? 'y' : 'x'
  const mistyped = key.slice(0, at) + typo + key.slice(at + 1)
  assert.deepEqual(parseApiKey(mistyped, 'production'), { ok: false, reason: 'checksum' }, 'precondition: the typo breaks the checksum')
  return mistyped
}

/** The headers of a new key of the owner's that expires in a minute, once the clock moved `thenAdvanceMs`. */
function keyExpiringInAMinute({ thenAdvanceMs }: { thenAdvanceMs: number }): Refusal['headers'] {
  return async ({ t, clock, owner }) => {
    const key = await t.key(owner.slug, { expiresInMs: 60_000 })
    clock.advance(thenAdvanceMs)
    return bearer(key.secret)
  }
}

const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z'

const REFUSALS: Refusal[] = [
  {
    name: 'no Authorization header',
    headers: () => ({}),
    challenge: BARE,
    message: /^Missing API key: send it as the header "Authorization: Bearer <API key>"\.$/,
  },
  {
    name: 'another scheme (Basic)',
    headers: () => ({ authorization: 'Basic dXNlcjpwYXNz' }),
    challenge: BARE,
    message: /must use the Bearer scheme: send it as the header "Authorization: Bearer <API key>"/,
  },
  {
    name: 'the bare key without a scheme',
    headers: ({ owner }) => ({ authorization: owner.key }),
    challenge: BARE,
    message: /must use the Bearer scheme/,
  },
  {
    name: '"Bearer" with no token',
    headers: () => ({ authorization: 'Bearer' }),
    challenge: BARE,
    message: /^Missing API key: send it as the header "Authorization: Bearer <API key>"\.$/,
  },
  {
    name: '"Bearer " with only spaces after it',
    headers: () => ({ authorization: 'Bearer   ' }),
    challenge: BARE,
    message: /^Missing API key/,
  },
  {
    name: 'a malformed token',
    headers: () => ({ authorization: 'Bearer not-an-api-key' }),
    challenge: INVALID_TOKEN,
    message: /malformed: keys look like as_live_<28 letters and digits>_<6 letters and digits>/,
  },
  {
    name: 'a key cut short',
    headers: ({ owner }) => bearer(owner.key.slice(0, -1)),
    challenge: INVALID_TOKEN,
    message: /malformed/,
  },
  {
    name: 'a valid key with one character changed',
    headers: ({ owner }) => bearer(mistype(owner.key)),
    challenge: INVALID_TOKEN,
    message: /fails its checksum: it was mistyped or cut short/,
  },
  {
    name: 'a staging key on the production app (even one stored in the database)',
    headers: async ({ t, owner }) => bearer(await storeKey(t, owner.id, 'staging')),
    challenge: INVALID_TOKEN,
    message: /is a staging key \(as_test_…\), but this is the production environment: use a production key \(as_live_…\)/,
  },
  {
    name: 'a well-formed unknown key',
    headers: () => bearer(generateApiKey('production').secret),
    challenge: INVALID_TOKEN,
    message: /not recognised/,
  },
  {
    name: 'a revoked key',
    headers: async ({ t, clock, owner }) => {
      const key = await t.key(owner.slug)
      const revoked = await t.app.services.keys.revoke(key.id, commandLineChange())
      assert.ok(revoked.ok)
      clock.advance(1000)
      return bearer(key.secret)
    },
    challenge: INVALID_TOKEN,
    message: new RegExp(`^The API key was revoked at ${ISO}\\. Create a new key\\.$`),
  },
  {
    name: 'an expired key',
    headers: keyExpiringInAMinute({ thenAdvanceMs: 60_001 }),
    challenge: INVALID_TOKEN,
    message: new RegExp(`^The API key expired at ${ISO}\\. Create a new key\\.$`),
  },
  {
    name: 'a key at the very instant it expires',
    headers: keyExpiringInAMinute({ thenAdvanceMs: 60_000 }),
    challenge: INVALID_TOKEN,
    message: /expired at/,
  },
]

async function countPets(t: TestApp): Promise<number> {
  const row = await t.database.db.selectFrom('pets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

function assertUnauthorized(response: LightMyRequestResponse, challenge: string, message: RegExp, where: string): void {
  assert.equal(response.statusCode, 401, `${where}: ${response.body}`)
  assert.match(String(response.headers['content-type']), /^application\/json/, where)
  const body = response.json<{ code: string; message: string; status: number }>()
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message', 'status'], where)
  assert.equal(body.code, 'unauthorized', where)
  assert.equal(body.status, 401, where)
  assert.match(body.message, message, where)
  assert.equal(response.headers['www-authenticate'], challenge, where)
}

/** The rate-limit headers every /v1 response carries, consistent with each other. */
export function assertRateLimitHeaders(response: LightMyRequestResponse, expected: { limit: number; remaining?: number }, where: string): void {
  const h = response.headers
  assert.equal(h['x-ratelimit-limit'], String(expected.limit), `${where}: X-RateLimit-Limit`)
  if (expected.remaining !== undefined) assert.equal(h['x-ratelimit-remaining'], String(expected.remaining), `${where}: X-RateLimit-Remaining`)
  assert.match(String(h['x-ratelimit-reset']), /^\d{10}$/, `${where}: X-RateLimit-Reset is Unix seconds`)
  assert.match(String(h['ratelimit-policy']), /^"minute";q=\d+;w=60(, "day";q=\d+;w=86400)?$/, `${where}: RateLimit-Policy`)
  assert.match(String(h.ratelimit), /^"minute";r=\d+;t=\d+(, "day";r=\d+;t=\d+)?$/, `${where}: RateLimit`)
}

for (const operation of protectedOperations) {
  describe(`authentication of ${operation.operationId} (${operation.method.toUpperCase()} /v1${operation.path})`, () => {
    // One app for the operation; each test has projects, animals and orders of its own, and
    // starts in windows of its own: the clock moves past every minute window the last test used.
    const clock = new ManualClock()
    let t: TestApp
    let setup: Setup
    let context: Context
    let slugs: string[]

    before(async () => {
      t = await createTestApp({ clock })
    })
    after(async () => {
      await t.close()
    })
    beforeEach(async () => {
      clock.advance(2 * 60_000)
      const owner = await t.project()
      const other = await t.project()
      slugs = [owner.slug, other.slug]
      context = await prepareContext(t, owner.key, [operation])
      setup = { t, clock, owner }
    })

    test('a valid key works', async () => {
      const response = await setup.t.request(requestFor(operation, context, bearer(setup.owner.key)))
      assert.equal(response.statusCode, FIXTURES[operation.operationId]?.success, response.body)
      assert.equal(response.headers['www-authenticate'], undefined)
    })

    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      test(`the scheme word is case-insensitive: "${scheme}"`, async () => {
        const response = await setup.t.request(requestFor(operation, context, { authorization: `${scheme} ${setup.owner.key}` }))
        assert.equal(response.statusCode, FIXTURES[operation.operationId]?.success, response.body)
      })
    }

    for (const refusal of REFUSALS) {
      test(`401 for ${refusal.name}`, async () => {
        const headers = await refusal.headers(setup)
        const before = await countPets(setup.t)
        const response = await setup.t.request(requestFor(operation, context, headers))
        assertUnauthorized(response, refusal.challenge, refusal.message, refusal.name)
        const { message } = response.json<{ message: string }>()
        for (const slug of slugs) assert.ok(!message.includes(slug), `the message names the project ${slug}: ${message}`)
        const token = headers.authorization?.split(/\s+/)[1]
        if (token) assert.ok(!response.body.includes(token), 'the refused key is echoed back')
        assert.equal(await countPets(setup.t), before, 'the operation did not run')
      })
    }

    test('rate-limit headers on success and on 401; 429 with Retry-After past the plan limit', async () => {
      const { t, owner } = setup
      const ok = await t.request(requestFor(operation, context, bearer(owner.key)))
      assertRateLimitHeaders(ok, { limit: 60 }, 'success')
      const refused = await t.request(requestFor(operation, context, {}))
      assert.equal(refused.statusCode, 401)
      assertRateLimitHeaders(refused, { limit: 60, remaining: 59 }, '401, charged to the address')

      const changed = await t.app.services.projects.setPlan(owner.slug, { plan: 'enterprise', perMinute: 5, perDay: 1_000 }, commandLineChange())
      assert.ok(changed.ok)
      let response = ok
      for (let i = 0; i < 10 && response.statusCode !== 429; i++) response = await t.request(requestFor(operation, context, bearer(owner.key)))
      assert.equal(response.statusCode, 429, response.body)
      assert.equal(response.json().code, 'rate_limited')
      assert.match(response.json().message, /enterprise plan allows 5 requests per minute/)
      assert.match(String(response.headers['retry-after']), /^[1-9]\d*$/)
      assertRateLimitHeaders(response, { limit: 5, remaining: 0 }, '429')
    })

    test('requests without a valid key are limited to 60 a minute per address', async () => {
      const { t } = setup
      for (let i = 0; i < 60; i++) {
        const response = await t.request(requestFor(operation, context, bearer(generateApiKey('production').secret)))
        assert.equal(response.statusCode, 401)
        assert.equal(response.headers['x-ratelimit-remaining'], String(59 - i))
      }
      const limited = await t.request(requestFor(operation, context, bearer(generateApiKey('production').secret)))
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.json().code, 'rate_limited')
      assert.match(limited.json().message, /without a valid API key from your address: at most 60 requests per minute/)
      // A valid key is counted by its project instead, and still works.
      const valid = await t.request(requestFor(operation, context, bearer(setup.owner.key)))
      assert.equal(valid.statusCode, FIXTURES[operation.operationId]?.success)
    })

    for (const parameter of ['api_key', 'access_token']) {
      test(`a valid key in the query string (?${parameter}=) is never accepted`, async () => {
        const key = setup.owner.key
        const alone = await setup.t.request(requestFor(operation, context, {}, `?${parameter}=${key}`))
        assertUnauthorized(alone, BARE, /^Missing API key/, 'query only')
        assert.ok(!alone.body.includes(key))
        // Nor as a fallback for a refused header.
        const fallback = await setup.t.request(requestFor(operation, context, bearer(generateApiKey('production').secret), `?${parameter}=${key}`))
        assertUnauthorized(fallback, INVALID_TOKEN, /not recognised/, 'query plus unknown header key')
      })
    }
  })
}

describe('the staging environment', () => {
  let t: TestApp
  let owner: { slug: string; id: number; key: string }
  let context: Context

  beforeEach(async () => {
    t = await createTestApp({ config: { environment: 'staging' } })
    owner = await t.project()
    context = await prepareContext(t, owner.key, protectedOperations)
  })
  afterEach(async () => {
    await t.close()
  })

  test('issues as_test_ keys and accepts them on every protected operation', async () => {
    assert.match(owner.key, /^as_test_[0-9A-Za-z]{28}_[0-9A-Za-z]{6}$/)
    for (const operation of protectedOperations) {
      const response = await t.request(requestFor(operation, context, bearer(owner.key)))
      assert.equal(response.statusCode, FIXTURES[operation.operationId]?.success, `${operation.operationId}: ${response.body}`)
    }
  })

  test('refuses as_live_ keys on every protected operation, even one stored in the database', async () => {
    const live = await storeKey(t, owner.id, 'production')
    for (const operation of protectedOperations) {
      const response = await t.request(requestFor(operation, context, bearer(live)))
      assertUnauthorized(
        response,
        INVALID_TOKEN,
        /is a production key \(as_live_…\), but this is the staging environment: use a staging key \(as_test_…\)/,
        operation.operationId,
      )
    }
  })

  test('describes staging keys when a key is malformed', async () => {
    const response = await t.request({ method: 'GET', url: '/v1/pets', headers: bearer('nonsense') })
    assertUnauthorized(response, INVALID_TOKEN, /keys look like as_test_</, 'malformed on staging')
  })
})
