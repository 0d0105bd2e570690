/**
 * Who may call what on the admin API, through inject, for every operation of the admin OpenAPI
 * document (`/admin/v1/openapi.json`): the operations are read from the document, so a new one
 * fails this test until it has a row in REQUESTS. For each operation:
 *
 * - no credentials, a wrong bearer token, or an unknown session cookie: 401 `unauthorized`;
 * - an owner asking for a project they do not belong to: 404 `not_found` (as for no project);
 * - an owner calling an operator action: 403 `forbidden`; any other operation works for the
 *   owner of the project;
 * - a change made with the session cookie: 403 `csrf_failed` without X-CSRF-Token, with a wrong
 *   one and with another session's; with the session's own token it goes through (a read needs
 *   no token);
 * - a viewer (the read-only role): 403 `forbidden` on every change of the document, of their
 *   project or another's, but the self-service ones (VIEWER_SELF_SERVICE), and nothing recorded;
 *   a read answers as for an owner, but the reads for owners and operators only (NOT_FOR_VIEWERS). A change added later is refused to viewers unless it is
 *   listed there.
 *
 * Every response is checked against the admin document (status documented, body matching).
 *
 * And every change names the audit action it records (`x-audit-action`); made once more, it
 * leaves exactly that entry in the audit log, with its request id and actor, and no secret: not
 * the callers' passwords, the admin token, nor any secret an answer shows once (a new key, a new
 * user's or a reset one-time password, a webhook signing secret; SHOWS_SECRET lists the operations that must show one).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import sharp from 'sharp'
import type { LightMyRequestResponse } from 'fastify'
import { ADMIN_TOKEN, admin, assertMatchesAdminContract, createAdminApp } from './helpers/admin.js'
import { createUser, SESSION_COOKIE, signIn, type SignedInUser, TEST_PASSWORD } from './helpers/accounts.js'
import { bearer, type TestApp } from './helpers/app.js'
import { type ChallTestSrv, pebbleMissing, startChallTestSrv, stopAll } from './helpers/pebble.js'
import type { TestPlan } from '../scripts/test-plan.js'

// Who may call what is decided in the access rules, the same on both back ends; the admin calls'
// reads and writes are the admin files' subject on both (docs/decisions.md: the PostgreSQL leg,
// measured with V8 coverage, reached no line of src/ through this file that the others did not).
export const testPlan: TestPlan = { legs: 'sqlite' }

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

interface Operation {
  operationId: string
  method: Method
  /** As in the document: relative to /admin/v1, with `{param}`s. */
  path: string
  /** The operation's security requirements, as documented. */
  security: Record<string, string[]>[] | undefined
  /** The audit action a change records, as documented. */
  audit: string | undefined
}

/** A project with something behind every path parameter: a key, domains, a redirect, animals and orders, a user. */
interface Fixture {
  slug: string
  keyId: string
  /** An animal without orders; with two photos when an operation names them (`needsPhotos`). */
  petId: number
  photoIds: string[]
  /** A placed order, and an approved one. */
  placedOrderId: number
  approvedOrderId: number
  /** A domain of the project. */
  domain: string
  /** A domain that redirects to `domain`. */
  redirected: string
  /** A domain with no role yet: free to redirect. */
  spare: string
  /** A user: an owner of another project, made for the operations on `{userId}`. */
  userId: number
  /** A webhook endpoint of the project, and a delivery of its test event. */
  endpointId: string
  deliveryId: number
  /** A location without animals. */
  locationId: number
}

interface RequestSpec {
  /** What a caller allowed to do it gets. */
  success: number
  query?: string
  body?: (fixture: Fixture) => unknown
  /** A body of bytes instead, with its Content-Type. */
  raw?: { payload: Buffer; type: string }
  /** Path parameters that take another value than PARAMETERS gives them. */
  params?: Record<string, (fixture: Fixture) => string | number>
  /** The request names the fixture's photos (as `{photoId}` does): see needsPhotos. */
  photos?: true
}

/** The smallest photo: what uploads send. */
const TINY_PNG = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#808080' } }).png().toBuffer()

let counter = 0
const unique = (label: string) => `${label}-${process.pid}-${++counter}`

/**
 * A valid request for each operation, and the status it answers when allowed. An operation of the
 * document missing here fails the test: add it, with its place in OPERATOR_ONLY if it is one.
 */
const REQUESTS: Record<string, RequestSpec> = {
  signIn: { success: 200 },
  getSession: { success: 200 },
  signOut: { success: 204 },
  listProjects: { success: 200 },
  createProject: { success: 201, body: () => ({ slug: unique('authz'), plan: 'free' }) },
  getProject: { success: 200 },
  setProjectPlan: { success: 200, body: () => ({ plan: 'business' }) },
  setProjectWebhookPrivateNetworks: { success: 200, body: () => ({ allowed: true }) },
  deleteProject: { success: 200 },
  exportProject: { success: 200 },
  listApiKeys: { success: 200 },
  createApiKey: { success: 201, body: () => ({ name: 'matrix' }) },
  revokeApiKey: { success: 200 },
  liftApiKeyBan: { success: 204 },
  getUsage: { success: 200, query: 'range=hour' },
  listDomains: { success: 200 },
  listAuditEntries: { success: 200 },
  addDomain: { success: 201, body: () => ({ name: `new.${unique('customer')}.test` }) },
  getDomain: { success: 200 },
  removeDomain: { success: 204 },
  verifyDomain: { success: 200 },
  setPrimaryDomain: { success: 200, body: (f) => ({ name: f.domain }) },
  addRedirect: { success: 200, body: (f) => ({ from: f.spare, to: f.domain }) },
  removeRedirect: { success: 200 },
  listUsers: { success: 200 },
  createUser: { success: 201, body: (f) => ({ email: `${unique('created')}@example.test`, role: 'owner', projects: [f.slug] }) },
  getUser: { success: 200 },
  disableUser: { success: 200 },
  enableUser: { success: 200 },
  deleteUser: { success: 204 },
  resetUserPassword: { success: 200 },
  setUserProjects: { success: 200, body: (f) => ({ projects: [f.slug] }) },
  // Every caller's password is TEST_PASSWORD, and stays it: the same password again is a change too.
  changeOwnPassword: { success: 204, body: () => ({ currentPassword: TEST_PASSWORD, newPassword: TEST_PASSWORD }) },
  listAnimals: { success: 200, query: 'status=available&name=free' },
  addAnimal: { success: 201, body: () => ({ name: 'Matrix', categoryId: 1 }) },
  getAnimal: { success: 200 },
  updateAnimal: { success: 200, body: () => ({ name: 'Renamed' }) },
  removeAnimal: { success: 204 },
  addAnimalPhoto: { success: 201, raw: { payload: TINY_PNG, type: 'image/png' } },
  listAnimalPhotos: { success: 200 },
  orderAnimalPhotos: { success: 200, body: (f) => ({ ids: [...f.photoIds].reverse() }), photos: true },
  removeAnimalPhoto: { success: 204 },
  listAdoptionOrders: { success: 200, query: 'status=placed' },
  approveAdoptionOrder: { success: 200 },
  deliverAdoptionOrder: { success: 200, params: { orderId: (f) => f.approvedOrderId } },
  cancelAdoptionOrder: { success: 200 },
  listWebhookEndpoints: { success: 200 },
  createWebhookEndpoint: { success: 201, body: () => ({ url: 'https://hooks.example.test/in', types: ['pet.created'] }) },
  getWebhookEndpoint: { success: 200 },
  updateWebhookEndpoint: { success: 200, body: () => ({ description: 'matrix', enabled: false }) },
  deleteWebhookEndpoint: { success: 204 },
  rotateWebhookSecret: { success: 200, body: () => ({ overlapHours: 1 }) },
  listWebhookDeliveries: { success: 200 },
  listWebhookDeliveryAttempts: { success: 200 },
  redeliverWebhook: { success: 202 },
  sendWebhookTestEvent: { success: 202 },
  recoverWebhookDeliveries: { success: 202, body: () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }) },
  replayWebhookEvents: { success: 202, body: () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }) },
  listWebhookEvents: { success: 200, query: 'type=pet.created' },
  listProjectLocations: { success: 200 },
  addLocation: { success: 201, body: () => ({ name: 'Matrix site', coordinates: { latitude: 1, longitude: 2 } }) },
  getLocation: { success: 200 },
  updateLocation: { success: 200, body: () => ({ name: 'Renamed site' }) },
  removeLocation: { success: 204 },
  listProjectCategories: { success: 200 },
  listProjectBreeds: { success: 200 },
  setCategory: { success: 200, body: () => ({ name: 'Hound', breeds: ['Matrix'] }) },
  removeCategory: { success: 204 },
  getSiteSettings: { success: 200 },
  updateSiteSettings: { success: 200, body: () => ({ displayName: 'Matrix shelter' }) },
}

/** Operator actions: an owner gets 403 even for their own project. */
const OPERATOR_ONLY = new Set([
  'createProject',
  'setProjectPlan',
  'setProjectWebhookPrivateNetworks',
  'deleteProject',
  'listUsers',
  'createUser',
  'getUser',
  'disableUser',
  'enableUser',
  'deleteUser',
  'resetUserPassword',
  'setUserProjects',
])
/** The operations that show a secret once: the audit log must hold none of them. */
const SHOWS_SECRET = new Set(['createApiKey', 'createUser', 'resetUserPassword', 'createWebhookEndpoint', 'rotateWebhookSecret'])
/** The reads refused to viewers (403 \`forbidden\`, before the project is looked up): a project's whole data holds its members' emails. */
const NOT_FOR_VIEWERS = new Set(['exportProject'])
/** The only changes a viewer may make: their own session and password. */
const VIEWER_SELF_SERVICE = new Set(['signOut', 'changeOwnPassword'])
/** The one operation without a principal: it is how a session is obtained. */
const PUBLIC = new Set(['signIn'])
const STATE_CHANGING = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE'])

/** The value each path parameter takes in a fixture. */
const PARAMETERS: Record<string, (fixture: Fixture) => string | number> = {
  slug: (f) => f.slug,
  id: (f) => f.keyId,
  name: (f) => f.domain,
  from: (f) => f.redirected,
  userId: (f) => String(f.userId),
  petId: (f) => f.petId,
  photoId: (f) => f.photoIds[0]!,
  orderId: (f) => f.placedOrderId,
  endpointId: (f) => f.endpointId,
  deliveryId: (f) => String(f.deliveryId),
  locationId: (f) => f.locationId,
  // The fixture names category 1 (Dog) for itself, so that removing its name works.
  categoryId: () => 1,
}

/**
 * Whether the operation's request names the fixture's photos. Only then are photos made for a
 * fixture that is its own: each upload is an image job, and most operations have no use for one.
 */
function needsPhotos(operation: Operation): boolean {
  return operation.path.includes('{photoId}') || REQUESTS[operation.operationId]?.photos === true
}

// Verify asks DNS: a DNS server that answers for the platform's target (pebble-challtestsrv), else
// the service's resolvers are down and Verify is rightly a 503 with nothing recorded.
describe('admin API authorization, for every operation of the admin document', { skip: pebbleMissing }, () => {
  let t: TestApp
  let dns: ChallTestSrv
  let operations: Operation[]
  let operatorAccount: { email: string; password: string }
  let ownerAccount: { email: string; password: string }
  let viewerAccount: { email: string; password: string }
  /** The viewer's project: made before them, and only read (their changes are refused). */
  let viewerFixture: Fixture
  /** Projects the owner belongs to, made on demand (membership is set when the user is created). */
  const ownerProjects: string[] = []

  before(async () => {
    dns = await startChallTestSrv()
    await dns.addA('edge.platform.test', ['127.0.0.1'])
    t = await createAdminApp({ config: { webhookEncryptionKey: 'ab'.repeat(32), dnsResolvers: [dns.dnsServer] } })
    // Deliveries stay due: nothing is sent anywhere.
    await t.app.services.webhooks.worker.close()
    const doc = (await admin(t, 'GET', '/openapi.json')).json<{
      paths: Record<string, Record<string, { operationId: string; security?: Operation['security']; 'x-audit-action'?: string }>>
    }>()
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        operationId: operation.operationId,
        method: method.toUpperCase() as Method,
        path,
        security: operation.security,
        audit: operation['x-audit-action'],
      })),
    )
    // Enough projects for the owner's own fixtures, made before the owner so they are theirs.
    for (let i = 0; i < operations.length; i++) ownerProjects.push((await fixture(undefined, { photos: false })).slug)
    operatorAccount = await createUser(t, { role: 'operator' })
    ownerAccount = await createUser(t, { role: 'owner', projects: ownerProjects })
    viewerFixture = await fixture()
    viewerAccount = await createUser(t, { role: 'viewer', projects: [viewerFixture.slug] })
  })
  after(async () => {
    await t?.close()
    await stopAll()
  })

  /**
   * A fixture; with a user only for an operation on `{userId}` (hashing a password takes a
   * while), with photos for one that names them, or for any operation when none is given.
   */
  async function fixture(operation?: Operation, { photos = operation === undefined || needsPhotos(operation) } = {}): Promise<Fixture> {
    const project = await t.project({ plan: 'pro' })
    const key = await t.key(project.slug, { name: 'fixture' })
    const apex = `${unique('customer')}.test`
    const [domain, redirected, spare] = [`shop.${apex}`, `www.${apex}`, `api.${apex}`]
    for (const name of [domain, redirected, spare]) {
      const added = await admin(t, 'POST', `/projects/${project.slug}/domains`, { name })
      assert.equal(added.statusCode, 201, added.body)
    }
    const redirect = await admin(t, 'POST', `/projects/${project.slug}/domains/redirects`, { from: redirected, to: domain })
    assert.equal(redirect.statusCode, 200, redirect.body)
    let userId = 0
    if (operation?.path.includes('{userId}')) {
      // An owner of another project: setUserProjects to this one is a change (one that changes nothing records nothing).
      const user = await createUser(t, { role: 'owner', projects: [(await t.project()).slug] })
      const listed = (await admin(t, 'GET', '/users')).json<{ id: number; email: string }[]>()
      userId = listed.find((u) => u.email === user.email)?.id ?? assert.fail(`${user.email} is listed`)
    }
    // Animals through the admin API; orders through /v1, with the project's key.
    const post = async (url: string, body: object, headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` }) => {
      const response = await t.request({ method: 'POST', url, headers, payload: body })
      assert.ok(response.statusCode === 201 || response.statusCode === 200, response.body)
      return response.json<{ id: number }>().id
    }
    const animal = (name: string) => post(`/admin/v1/projects/${project.slug}/animals`, { name, categoryId: 1 })
    const order = async (name: string) => post('/v1/store/orders', { petId: await animal(name) }, bearer(project.key))
    const petId = await animal('free')
    const photoIds = photos ? [await photoOf(project.slug, petId), await photoOf(project.slug, petId)] : []
    const placedOrderId = await order('placed')
    const approvedOrderId = await order('approved')
    await post(`/admin/v1/projects/${project.slug}/orders/${approvedOrderId}/approve`, {})
    const locationId = await post(`/admin/v1/projects/${project.slug}/locations`, { name: 'Fixture site' })
    const named = await t.request({ method: 'PUT', url: `/admin/v1/projects/${project.slug}/categories/1`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { name: 'Doggo' } })
    assert.equal(named.statusCode, 200, named.body)
    return { slug: project.slug, keyId: key.id, domain, redirected, spare, userId, petId, photoIds, placedOrderId, approvedOrderId, locationId, ...(await webhookOf(project.slug)) }
  }

  /** A photo of the animal, added through the admin API. */
  async function photoOf(slug: string, petId: number): Promise<string> {
    const response = await t.request({
      method: 'POST',
      url: `/admin/v1/projects/${slug}/animals/${petId}/photos`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/png' },
      payload: TINY_PNG,
    })
    assert.equal(response.statusCode, 201, response.body)
    return response.json<{ id: string }>().id
  }

  /** A webhook endpoint of the project with the delivery of a test event. */
  async function webhookOf(slug: string): Promise<{ endpointId: string; deliveryId: number }> {
    const added = await admin(t, 'POST', `/projects/${slug}/webhooks`, { url: 'https://hooks.example.test/in', types: ['*'] })
    assert.equal(added.statusCode, 201, added.body)
    const endpointId = added.json<{ id: string }>().id
    const sent = await admin(t, 'POST', `/projects/${slug}/webhooks/${endpointId}/test`)
    assert.equal(sent.statusCode, 202, sent.body)
    return { endpointId, deliveryId: sent.json<{ id: number }>().id }
  }

  /** Fixtures of projects the owner belongs to, one per use. */
  let ownerFixtures: Fixture[] | undefined
  async function ownersFixture(operation: Operation): Promise<Fixture> {
    if (!ownerFixtures) {
      // Rebuild the Fixture shape from the projects made in `before`: their keys and domains.
      ownerFixtures = []
      for (const slug of ownerProjects) ownerFixtures.push(await describeFixture(slug))
    }
    const next = ownerFixtures.shift()
    assert.ok(next, 'an owner fixture is left')
    if (needsPhotos(operation)) next.photoIds = [await photoOf(next.slug, next.petId), await photoOf(next.slug, next.petId)]
    return next
  }

  /** Reads back the fixture of a project made by `fixture()`. */
  async function describeFixture(slug: string): Promise<Fixture> {
    const keys = (await admin(t, 'GET', `/projects/${slug}/keys`)).json<{ id: string; name: string | null }[]>()
    const settings = (await admin(t, 'GET', `/projects/${slug}/domains`)).json<{ domains: { name: string; redirect: { to: string } | null }[] }>()
    const keyId = keys.find((k) => k.name === 'fixture')?.id
    const redirected = settings.domains.find((d) => d.redirect)?.name
    const domain = settings.domains.find((d) => d.name.startsWith('shop.'))?.name
    const spare = settings.domains.find((d) => d.name.startsWith('api.'))?.name
    const petId = (await admin(t, 'GET', `/projects/${slug}/animals?name=free`)).json<{ id: number }[]>()[0]?.id
    const placedOrderId = (await admin(t, 'GET', `/projects/${slug}/orders?status=placed`)).json<{ id: number }[]>()[0]?.id
    const approvedOrderId = (await admin(t, 'GET', `/projects/${slug}/orders?status=approved`)).json<{ id: number }[]>()[0]?.id
    const locationId = (await admin(t, 'GET', `/projects/${slug}/locations`)).json<{ id: number }[]>()[0]?.id
    const photoIds = petId === undefined ? [] : (await admin(t, 'GET', `/projects/${slug}/animals/${petId}/photos`)).json<{ id: string }[]>().map((photo) => photo.id)
    assert.ok(keyId && redirected && domain && spare && petId && placedOrderId && approvedOrderId && locationId, `fixture of ${slug}`)
    // Owners may call no operation on a user: any user will do, here the operator.
    const users = (await admin(t, 'GET', '/users')).json<{ id: number; email: string }[]>()
    const userId = users.find((u) => u.email === operatorAccount.email)?.id ?? assert.fail('the operator is listed')
    return { slug, keyId, domain, redirected, spare, userId, petId, photoIds, placedOrderId, approvedOrderId, locationId, ...(await webhookOf(slug)) }
  }

  function urlOf(operation: Operation, f: Fixture): string {
    const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = REQUESTS[operation.operationId]?.params?.[name] ?? PARAMETERS[name]
      assert.ok(value, `${operation.operationId}: no fixture value for the path parameter {${name}}: add it to PARAMETERS`)
      return encodeURIComponent(String(value(f)))
    })
    const query = REQUESTS[operation.operationId]?.query
    return `/admin/v1${path}${query ? `?${query}` : ''}`
  }

  /** One call, its answer checked against the admin document. */
  async function send(operation: Operation, f: Fixture, headers: Record<string, string>): Promise<LightMyRequestResponse> {
    const url = urlOf(operation, f)
    const body = REQUESTS[operation.operationId]?.body?.(f)
    const raw = REQUESTS[operation.operationId]?.raw
    const response = await t.request({
      method: operation.method,
      url,
      headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }), ...(raw && { 'content-type': raw.type }) },
      ...(body !== undefined && { payload: JSON.stringify(body) }),
      ...(raw && { payload: raw.payload }),
    })
    await assertMatchesAdminContract(t.app, operation.method, url, response)
    return response
  }

  function expect(response: LightMyRequestResponse, status: number, code: string | undefined, what: string): void {
    assert.equal(response.statusCode, status, `${what}: ${response.body}`)
    if (code) assert.equal(response.json<{ code: string }>().code, code, what)
  }

  /** A live session: signed in again when the last operation ended it (signOut). */
  const sessions = new Map<string, SignedInUser>()
  async function session(account: { email: string; password: string }): Promise<SignedInUser> {
    const current = sessions.get(account.email)
    if (current) {
      const alive = await t.request({ method: 'GET', url: '/admin/v1/session', headers: { cookie: current.headers.cookie } })
      if (alive.statusCode === 200) return current
    }
    const fresh = await signIn(t, account.email, account.password)
    sessions.set(account.email, fresh)
    return fresh
  }

  test('the matrix has a row for every operation of the admin document, and no other', () => {
    const documented = operations.map((o) => o.operationId).sort()
    assert.equal(new Set(documented).size, documented.length, 'operationIds are unique')
    assert.deepEqual(Object.keys(REQUESTS).sort(), documented, 'REQUESTS lists exactly the documented operations')
    for (const id of [...OPERATOR_ONLY, ...PUBLIC]) assert.ok(documented.includes(id), `${id} is documented`)
    assert.ok(operations.length >= 20, `${operations.length} operations`)
  })

  test('every operation: 401 without credentials, 404 for another\'s project, 403 for owners on operator actions, CSRF on cookie changes', async (context) => {
    for (const operation of operations) {
      await context.test(`${operation.method} ${operation.path} (${operation.operationId})`, async () => {
        const spec = REQUESTS[operation.operationId]
        assert.ok(spec, `${operation.operationId} has no row in REQUESTS: add one (and to OPERATOR_ONLY if only operators may call it)`)
        const projectRoute = operation.path.includes('{slug}')
        const changes = STATE_CHANGING.has(operation.method)

        if (PUBLIC.has(operation.operationId)) {
          await checkSignIn(operation)
          return
        }

        // No principal at all.
        const other = await fixture(operation)
        expect(await send(operation, other, {}), 401, 'unauthorized', 'no credentials')
        expect(await send(operation, other, { authorization: 'Bearer not-the-admin-token-0123456789abcdef' }), 401, 'unauthorized', 'a wrong bearer token')
        expect(await send(operation, other, { cookie: `${SESSION_COOKIE}=${'x'.repeat(43)}` }), 401, 'unauthorized', 'an unknown session cookie')

        // An owner: not of `other`.
        const owner = await session(ownerAccount)
        if (OPERATOR_ONLY.has(operation.operationId)) {
          expect(await send(operation, other, owner.headers), 403, 'forbidden', 'an owner, on an operator action (another project)')
        } else if (projectRoute) {
          expect(await send(operation, other, owner.headers), 404, 'not_found', "an owner, on another's project")
        }
        const own = await ownersFixture(operation)
        if (OPERATOR_ONLY.has(operation.operationId)) {
          expect(await send(operation, own, (await session(ownerAccount)).headers), 403, 'forbidden', 'an owner, on an operator action (their project)')
        } else {
          expect(await send(operation, own, (await session(ownerAccount)).headers), spec.success, undefined, 'an owner, on their project')
        }

        // The session cookie: a change needs the session's own CSRF token.
        const operator = await session(operatorAccount)
        const target = await fixture(operation)
        if (changes) {
          const cookie = operator.headers.cookie
          expect(await send(operation, target, { cookie }), 403, 'csrf_failed', 'the cookie without X-CSRF-Token')
          expect(await send(operation, target, { cookie, 'x-csrf-token': 'x'.repeat(43) }), 403, 'csrf_failed', 'a wrong X-CSRF-Token')
          const owners = (await session(ownerAccount)).session.csrfToken
          expect(await send(operation, target, { cookie, 'x-csrf-token': owners }), 403, 'csrf_failed', "another session's X-CSRF-Token")
          expect(await send(operation, target, { cookie, 'x-csrf-token': '' }), 403, 'csrf_failed', 'an empty X-CSRF-Token')
          const allowed = await send(operation, target, (await session(operatorAccount)).headers)
          assert.ok(allowed.statusCode !== 401 && allowed.statusCode !== 403, `with the right token: ${allowed.statusCode} ${allowed.body}`)
          expect(allowed, spec.success, undefined, 'an operator with the right token')
        } else {
          expect(await send(operation, target, { cookie: operator.headers.cookie }), spec.success, undefined, 'a read with the cookie, no token needed')
        }
      })
    }
  })

  test("a viewer: 403 forbidden on every change but their own session and password, and on the export, of any project; reads as an owner's", async (context) => {
    const changes = operations.filter((o) => STATE_CHANGING.has(o.method) && !PUBLIC.has(o.operationId)).map((o) => o.operationId)
    for (const id of VIEWER_SELF_SERVICE) assert.ok(changes.includes(id), `${id} is a documented change`)
    const other = await fixture()
    const newestBefore = (await auditEntries({ limit: 1 }))[0]?.id ?? 0
    for (const operation of operations) {
      if (PUBLIC.has(operation.operationId)) continue
      await context.test(`${operation.method} ${operation.path} (${operation.operationId})`, async () => {
        const spec = REQUESTS[operation.operationId]
        assert.ok(spec, `${operation.operationId} has no row in REQUESTS`)
        const viewer = async () => (await session(viewerAccount)).headers
        if (STATE_CHANGING.has(operation.method)) {
          if (VIEWER_SELF_SERVICE.has(operation.operationId)) {
            expect(await send(operation, viewerFixture, await viewer()), spec.success, undefined, 'a viewer, on their own session or password')
            return
          }
          for (const [f, whose] of [[viewerFixture, 'their project'], [other, "another's project"]] as const) {
            const response = await send(operation, f, await viewer())
            expect(response, 403, 'forbidden', `a viewer's change (${whose})`)
            assert.match(response.json<{ message: string }>().message, /viewer/, 'the message names the role')
          }
        } else if (OPERATOR_ONLY.has(operation.operationId)) {
          expect(await send(operation, viewerFixture, await viewer()), 403, 'forbidden', 'a viewer, on an operator action')
        } else if (NOT_FOR_VIEWERS.has(operation.operationId)) {
          for (const [f, whose] of [[viewerFixture, 'their project'], [other, "another's project"]] as const) {
            const response = await send(operation, f, await viewer())
            expect(response, 403, 'forbidden', `a viewer, on a read for owners and operators (${whose})`)
            assert.match(response.json<{ message: string }>().message, /viewer/, 'the message names the role')
          }
        } else {
          expect(await send(operation, viewerFixture, await viewer()), spec.success, undefined, 'a viewer, reading their project')
          if (operation.path.includes('{slug}')) expect(await send(operation, other, await viewer()), 404, 'not_found', "a viewer, reading another's project")
        }
      })
    }
    // Refused, the changes left nothing behind: the viewer's only entries are their own session's and password's.
    const mine = (await auditEntries({ after: newestBefore })).filter((entry) => entry.actor.name === viewerAccount.email)
    assert.deepEqual([...new Set(mine.map((entry) => entry.action))].sort(), ['session.signed_in', 'session.signed_out', 'user.password_changed'])
  })

  test('every operation states its credentials, and the document tells the truth about the admin token', async (context) => {
    for (const operation of operations) {
      await context.test(`${operation.method} ${operation.path} (${operation.operationId})`, async () => {
        const spec = REQUESTS[operation.operationId]
        assert.ok(spec, `${operation.operationId} has no row in REQUESTS`)
        assert.ok(Array.isArray(operation.security), `${operation.operationId} states its security requirement (an empty list when it needs none)`)
        if (PUBLIC.has(operation.operationId)) {
          assert.deepEqual(operation.security, [], `${operation.operationId} needs no credential`)
          return
        }
        const schemes = operation.security.flatMap((requirement) => Object.keys(requirement))
        assert.ok(schemes.includes('sessionCookie'), `${operation.operationId}: every protected operation takes the session cookie`)
        const response = await send(operation, await fixture(operation), { authorization: `Bearer ${ADMIN_TOKEN}` })
        if (schemes.includes('adminToken')) expect(response, spec.success, undefined, 'the admin token, which the document lists')
        else expect(response, 401, 'unauthorized', 'the admin token, which the document does not list')
      })
    }
  })

  test('every change records its audit entry: the documented action, its request id, its actor, and no secret', async (context) => {
    const secrets: string[] = [operatorAccount.password, ownerAccount.password, ADMIN_TOKEN]
    const revealed = new Set<string>()
    for (const operation of operations.filter((o) => STATE_CHANGING.has(o.method))) {
      await context.test(`${operation.method} ${operation.path} (${operation.operationId})`, async () => {
        assert.ok(operation.audit, `${operation.operationId} changes state but its document names no x-audit-action`)
        let response: LightMyRequestResponse
        // Every entry the change records is newer than the log's newest entry before it.
        const target = PUBLIC.has(operation.operationId) ? undefined : await fixture(operation)
        const newestBefore = (await auditEntries({ limit: 1 }))[0]?.id ?? 0
        if (!target) {
          response = await t.request({
            method: 'POST',
            url: `/admin/v1${operation.path}`,
            headers: { 'content-type': 'application/json' },
            payload: JSON.stringify({ email: operatorAccount.email, password: operatorAccount.password }),
            remoteAddress: `10.8.0.${(++counter % 250) + 1}`,
          })
        } else {
          response = await send(operation, target, (await session(operatorAccount)).headers)
        }
        expect(response, REQUESTS[operation.operationId]?.success ?? 0, undefined, 'the change, by an operator')
        // A secret shown once (a key, a one-time password) must not be in the log either.
        const shown = response.body ? response.json<{ key?: unknown; password?: unknown; secret?: unknown }>() : {}
        for (const value of [shown.key, shown.password, shown.secret]) {
          if (typeof value !== 'string') continue
          secrets.push(value)
          revealed.add(operation.operationId)
        }

        const requestId = response.headers['x-request-id']
        assert.ok(typeof requestId === 'string' && requestId, 'the answer carries its request id')
        const entries = await auditEntries({ after: newestBefore })
        const mine = entries.filter((entry) => entry.requestId === requestId)
        assert.equal(mine.length, 1, `one entry for request ${requestId}: ${JSON.stringify(mine)}`)
        const [entry] = mine
        assert.equal(entry?.action, operation.audit, 'the documented action')
        assert.deepEqual(entry?.actor, { kind: 'user', name: operatorAccount.email }, 'the signed-in operator')
        assert.ok(Date.parse(entry?.at ?? '') > 0, 'a time')
      })
    }
    assert.deepEqual([...revealed].sort(), [...SHOWS_SECRET].sort(), 'the secrets looked for are those the operations show')
    const log = JSON.stringify(await auditEntries())
    for (const secret of secrets) assert.ok(!log.includes(secret), `the audit log holds no secret (${secret.slice(0, 8)}…)`)
  })

  interface AuditEntry {
    id: number
    requestId: string | null
    action: string
    actor: { kind: string; name: string }
    at: string
  }

  /**
   * The audit log, newest first, page after page: all of it, its newest `limit` entries, or the
   * entries recorded `after` the one with that id (ids ascend in the order changes are recorded).
   */
  async function auditEntries({ limit, after = 0 }: { limit?: number; after?: number } = {}): Promise<AuditEntry[]> {
    const all: AuditEntry[] = []
    let url: string | undefined = `/audit?limit=${limit ?? 100}`
    while (url) {
      const page = await admin(t, 'GET', url)
      assert.equal(page.statusCode, 200, page.body)
      const entries = page.json<AuditEntry[]>()
      const newer = entries.filter((entry) => entry.id > after)
      all.push(...newer)
      if (limit !== undefined || newer.length < entries.length) break
      const next = /<\/admin\/v1([^>]+)>; rel="next"/.exec(String(page.headers.link ?? ''))
      url = next?.[1]
    }
    return all
  }

  /** Sign-in needs no principal and no CSRF token; it answers 401 for wrong credentials only. */
  async function checkSignIn(operation: Operation): Promise<void> {
    const url = `/admin/v1${operation.path}`
    const post = async (body: unknown, headers: Record<string, string> = {}, remoteAddress = `10.9.0.${(++counter % 250) + 1}`) => {
      const response = await t.request({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body), remoteAddress })
      await assertMatchesAdminContract(t.app, 'POST', url, response)
      return response
    }
    expect(await post({ email: operatorAccount.email, password: 'not the password' }), 401, 'unauthorized', 'sign-in with a wrong password')
    expect(await post({ email: operatorAccount.email, password: operatorAccount.password }), 200, undefined, 'sign-in without any credentials')
    // A cookie of a live session does not make sign-in a change that needs the token.
    const live = await session(operatorAccount)
    expect(await post({ email: ownerAccount.email, password: ownerAccount.password }, { cookie: live.headers.cookie }), 200, undefined, 'sign-in with a cookie and no token')
  }
})
