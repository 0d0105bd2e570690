/**
 * Contract fuzzing: requests drawn from the OpenAPI documents themselves (`/v1/openapi.json` and
 * `/admin/v1/openapi.json`, read from the app), sent through `inject` to a real app on the test
 * dialect, and every answer held to the documents:
 *
 * - never a 5xx (a 503 would only be right during shutdown, which no request here causes, and
 *   for a Verify of a domain while no DNS resolver answers, which none does here);
 * - a documented operation answers only statuses documented for it, with a body matching the
 *   documented schema (test/helpers/contract.ts for /v1, assertMatchesAdminContract for the admin
 *   API); other methods and unknown routes answer 404 or 405;
 * - every error is the `{ code, message, status }` envelope, `status` equal to the HTTP status.
 *
 * For each operation, path parameters, query strings, header parameters and JSON bodies are drawn
 * from its schemas, valid (edges often) and invalid (wrong types, out of range, unknown fields,
 * missing required ones, huge and control-laden strings, deep nesting, repeated query parameters),
 * with odd headers, content types and raw bodies. /v1 calls carry the key of an enterprise project
 * whose limits are never reached, the admin API the ADMIN_TOKEN bearer or a session cookie (with
 * or without its CSRF token); some carry none, a refused or a junk credential.
 *
 * FUZZ_RUNS sets the number of requests (over all operations; default 10,000), FUZZ_SEED replays
 * a run, FUZZ_ONLY=<operationId>[,…] runs some operations only (`stray` for unknown routes and
 * methods), FUZZ_PATH replays the path fast-check reports for one operation (with FUZZ_ONLY
 * naming it and FUZZ_SEED). See docs/reliability.md.
 */
import { commandLineChange } from '../src/audit/audit.js'
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import fc from 'fast-check'
import { generateApiKey } from '../src/auth/api-key.js'
import { createUser, signedIn, signIn, signInRequest, type SignedInUser, TEST_PASSWORD } from './helpers/accounts.js'
import { ADMIN_TOKEN, admin, assertMatchesAdminContract, createAdminApp } from './helpers/admin.js'
import { bearer, type TestApp } from './helpers/app.js'
import { assertMatchesContract, jsonOf, pathPattern, staticFirst } from './helpers/contract.js'
import { testDialect } from './helpers/databases.js'
import { type Auth, type DrawnRequest, type OperationModel, operationsOf, type RequestOptions, requestsFor, strayRequests } from './helpers/fuzz/requests.js'
import { SchemaArbitraries } from './helpers/fuzz/schema-arbitraries.js'

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31)
/** Requests over all operations: about 30 s on either dialect on a 2-core machine. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const ONLY = process.env.FUZZ_ONLY ? new Set(process.env.FUZZ_ONLY.split(',')) : undefined
const PATH = process.env.FUZZ_PATH
assert.ok(Number.isSafeInteger(SEED), `FUZZ_SEED must be an integer: ${process.env.FUZZ_SEED}`)
assert.ok(Number.isSafeInteger(RUNS) && RUNS > 0, `FUZZ_RUNS must be a positive integer: ${process.env.FUZZ_RUNS}`)
assert.ok(!PATH || ONLY?.size === 1, 'FUZZ_PATH is the path of one operation: name it with FUZZ_ONLY')

console.log(`# fuzz seed: ${SEED} (replay: FUZZ_SEED=${SEED} TEST_DIALECT=${testDialect} node --import tsx --test test/fuzz.test.ts), ${RUNS} requests`)

/**
 * Shares of the budget. Sign-in runs scrypt (a quarter of a second) for every well-formed
 * attempt until the address is throttled, and a sign-out with a live session costs a new
 * sign-in: both get less, as do the other operations that hash a password (creating a user,
 * checking one's current password, and a reset, which hashes for nearly every request drawn).
 * Unknown routes and methods get more, being many.
 */
const WEIGHTS: Record<string, number> = { signIn: 0.25, signOut: 0.25, createUser: 0.25, changeOwnPassword: 0.25, resetUserPassword: 0.1, stray: 2 }

/** What a request to no operation may answer, whatever else it carries. */
const UNKNOWN_ROUTE_STATUSES = [400, 401, 403, 404, 405, 414, 429]

/** The address every fuzzed sign-in comes from: after 20 attempts a minute it is throttled (429, no scrypt). */
const SIGN_IN_ADDRESS = '10.250.0.1'

describe(`contract fuzzing (seed ${SEED})`, () => {
  let t: TestApp
  let key: string
  let operations: OperationModel[]
  let arbitraries: Map<string, fc.Arbitrary<DrawnRequest>>
  const accounts: Record<'operator' | 'owner', { email: string; password: string }> = {} as never
  /** The owner's projects, for an owner made again (see session). */
  let ownerProjects: string[] = []
  const sessions = new Map<'operator' | 'owner', SignedInUser>()
  let requests = 0
  /** Statuses answered, per property: printed at the end, to show how deep the requests reach. */
  const answered = new Map<string, Map<number, number>>()
  let current = ''

  before(async () => {
    t = await createAdminApp()

    // The /v1 caller: limits no run reaches. Its project is not among the admin fixtures, so no
    // fuzzed admin call revokes its key or changes its plan.
    key = (await t.project({ plan: 'enterprise', perMinute: 1e9, perDay: 1e9 })).key
    const revoked = await t.key((await t.project()).slug, { name: 'revoked' })
    const revocation = await t.app.services.keys.revoke(revoked.id, commandLineChange())
    assert.ok(revocation.ok)
    const refusedCredentials = [revoked.secret, generateApiKey('staging').secret, generateApiKey('production').secret, ADMIN_TOKEN.slice(0, -1)]

    // Something behind the ids of /v1: animals in every status, orders in every status.
    const petIds: number[] = []
    for (const status of ['available', 'available', 'available', 'available', 'available', 'pending', 'sold'] as const) {
      const created = await t.request({ method: 'POST', url: '/v1/pets', headers: bearer(key), payload: { name: `fixture ${status}`, categoryId: 1, status } })
      assert.equal(created.statusCode, 201, created.body)
      petIds.push(created.json<{ id: number }>().id)
    }
    const orderIds: number[] = []
    for (const [i, moves] of [[], ['approve'], ['approve', 'deliver'], ['cancel']].entries()) {
      const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(key), payload: { petId: petIds[i] } })
      assert.equal(placed.statusCode, 201, placed.body)
      const id = placed.json<{ id: number }>().id
      for (const move of moves) assert.equal((await t.request({ method: 'POST', url: `/v1/store/orders/${id}/${move}`, headers: bearer(key) })).statusCode, 200)
      orderIds.push(id)
    }

    // Admin fixtures: pro projects with a key, domains and a redirect; an owner of half of them.
    const slugs: string[] = []
    const keyIds: string[] = []
    const domains: string[] = []
    const redirected: string[] = []
    const adminPetIds: number[] = []
    const adminOrderIds: number[] = []
    for (let i = 0; i < 4; i++) {
      const project = await t.project({ plan: 'pro' })
      slugs.push(project.slug)
      keyIds.push((await t.key(project.slug, { name: 'fixture' })).id)
      const apex = `fuzz-${process.pid}-${i}.test`
      for (const name of [`shop.${apex}`, `www.${apex}`, `api.${apex}`]) {
        const added = await admin(t, 'POST', `/projects/${project.slug}/domains`, { name })
        assert.equal(added.statusCode, 201, added.body)
      }
      const redirect = await admin(t, 'POST', `/projects/${project.slug}/domains/redirects`, { from: `www.${apex}`, to: `shop.${apex}` })
      assert.equal(redirect.statusCode, 200, redirect.body)
      domains.push(`shop.${apex}`, `api.${apex}`)
      redirected.push(`www.${apex}`)
      // Animals, and orders of some (placed through /v1 with the project's key), behind the admin ids.
      for (const [j, moves] of [[], ['approve'], null].entries()) {
        const added = await admin(t, 'POST', `/projects/${project.slug}/animals`, { name: `fixture ${j}`, categoryId: 1 })
        assert.equal(added.statusCode, 201, added.body)
        adminPetIds.push(added.json<{ id: number }>().id)
        if (!moves) continue
        const placed = await t.request({ method: 'POST', url: '/v1/store/orders', headers: bearer(project.key), payload: { petId: adminPetIds.at(-1) } })
        assert.equal(placed.statusCode, 201, placed.body)
        adminOrderIds.push(placed.json<{ id: number }>().id)
        for (const move of moves) assert.equal((await admin(t, 'POST', `/projects/${project.slug}/orders/${adminOrderIds.at(-1)}/${move}`)).statusCode, 200)
      }
    }
    // Users the user operations act on, made first: the smallest ids, which integers are often drawn near.
    const userIds: number[] = []
    for (let i = 0; i < 3; i++) {
      const target = await createUser(t, { role: 'owner', projects: slugs.slice(2) })
      userIds.push((await admin(t, 'GET', '/users')).json<{ id: number; email: string }[]>().find((u) => u.email === target.email)!.id)
    }
    ownerProjects = slugs.slice(0, 2)
    accounts.operator = await createUser(t, { role: 'operator' })
    accounts.owner = await createUser(t, { role: 'owner', projects: ownerProjects })
    // Sign-in is fuzzed with this account's email, never with those of the sessions above: five
    // failures would lock an email out for 15 minutes.
    const signInAccount = await createUser(t, { role: 'operator' })

    const domainName = fc.oneof(
      { arbitrary: fc.constantFrom(...domains, ...redirected), weight: 3 },
      fc.domain(),
      fc.constantFrom('bücher.example', 'BÜCHER.example', 'xn--bcher-kva.example', 'shop.example.', '*.example.com', 'example', 'localhost', '127.0.0.1', '[::1]', 'a..b', '-a.example', 'a-.example', `${'a'.repeat(64)}.example`, `${'a.'.repeat(130)}example`, 'x.platform.test', 'platform.test', 'https://shop.example/', 'shop.example:443', 'shop.example/path'),
    )
    const publicDoc = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json<unknown>()
    const adminDoc = (await admin(t, 'GET', '/openapi.json')).json<unknown>()
    const schemas = {
      public: new SchemaArbitraries(publicDoc, {
        petId: fc.constantFrom(...petIds),
        orderId: fc.constantFrom(...orderIds),
      }),
      admin: new SchemaArbitraries(adminDoc, {
        // Fixtures' slugs, and free ones in the slug syntax (1-63 lowercase letters, digits, inner hyphens).
        slug: fc.oneof({ arbitrary: fc.constantFrom(...slugs), weight: 3 }, fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/)),
        id: fc.constantFrom(...keyIds),
        petId: fc.constantFrom(...adminPetIds),
        orderId: fc.constantFrom(...adminOrderIds),
        name: domainName,
        from: fc.oneof(fc.constantFrom(...redirected), domainName),
        to: domainName,
        email: fc.oneof(fc.constant(signInAccount.email), fc.constant(signInAccount.email.toUpperCase()), fc.emailAddress()),
        userId: fc.constantFrom(...userIds),
        projects: fc.constantFrom(slugs.slice(2), slugs, ['no-such-project']),
        currentPassword: fc.constantFrom(TEST_PASSWORD, 'not the password'),
        password: fc.constantFrom(TEST_PASSWORD, `${TEST_PASSWORD} `, ''),
      }),
    }
    operations = [...operationsOf(publicDoc, 'public', '/v1'), ...operationsOf(adminDoc, 'admin', '/admin/v1')]
    assert.ok(operations.length >= 29, `${operations.length} operations in the documents`)

    const options: RequestOptions = { refusedCredentials, bodyLimit: t.config.bodyLimit }
    arbitraries = new Map(
      operations.map((operation) => [
        operation.operationId,
        requestsFor(operation, schemas[operation.api], operation.operationId === 'signIn' ? { ...options, remoteAddress: SIGN_IN_ADDRESS } : options),
      ]),
    )
    arbitraries.set('stray', strayRequests(operations, schemas, options))
  })

  after(async () => {
    await t?.close()
  })

  /**
   * A live session of the role, signed in again after a fuzzed sign-out ended it. Fuzzed changes
   * may have changed the account meanwhile (its password changed, its failed current passwords
   * throttling its email, disabled or deleted by an id drawn): then a new account of the role.
   */
  async function session(role: 'operator' | 'owner'): Promise<SignedInUser> {
    let live = sessions.get(role)
    if (!live) {
      const again = await signInRequest(t, accounts[role].email, accounts[role].password, `10.251.0.${(requests % 250) + 1}`)
      if (again.statusCode === 200) live = signedIn(again)
      else {
        accounts[role] = await createUser(t, { role, projects: role === 'owner' ? ownerProjects : [] })
        live = await signIn(t, accounts[role].email, accounts[role].password)
      }
      sessions.set(role, live)
    }
    return live
  }

  async function authHeaders(auth: Auth): Promise<Record<string, string>> {
    switch (auth.kind) {
      case 'key':
        return bearer(key)
      case 'admin-token':
        return bearer(ADMIN_TOKEN)
      case 'session': {
        const { headers } = await session(auth.role)
        const csrf = { own: headers['x-csrf-token'], none: undefined, wrong: 'x'.repeat(43), empty: '' }[auth.csrf]
        return { cookie: headers.cookie, ...(csrf !== undefined && { 'x-csrf-token': csrf }) }
      }
      case 'none':
        return {}
      case 'authorization':
        return { authorization: auth.value }
      case 'cookie':
        return { cookie: auth.value }
    }
  }

  /**
   * The operation the router gives a URL and method, as find-my-way does: static segments win
   * over parameters, and a parameter may be empty (`/projects//keys`: a 400 for `slug`).
   * HEAD is the GET operation (answered without a body). Undefined for another method on a
   * known path and for unknown paths.
   */
  function routeOf(requested: string, url: string): OperationModel | undefined {
    const method = requested === 'HEAD' ? 'GET' : requested
    const pathname = new URL(url, 'http://localhost').pathname
    const candidates = operations
      .filter((o) => pathname.startsWith(`${o.prefix}/`) && pathPattern(o.path, { emptyParameters: true }).test(pathname.slice(o.prefix.length)))
      .sort((a, b) => staticFirst(a.path, b.path))
    const best = candidates[0]
    return best && candidates.find((o) => o.path === best.path && o.method === method)
  }

  /** Sends one drawn request and holds its answer to the documents; a failure names the request. */
  async function check(drawn: DrawnRequest): Promise<void> {
    const options: InjectOptions = {
      method: drawn.method as InjectOptions['method'],
      url: drawn.url,
      headers: { ...drawn.headers, ...(await authHeaders(drawn.auth)) },
      remoteAddress: drawn.remoteAddress,
      ...(drawn.payload !== undefined && { payload: drawn.payload }),
    }
    let response: LightMyRequestResponse | undefined
    try {
      requests++
      response = await t.app.inject(options)
      const status = response.statusCode
      const counts = answered.get(current) ?? new Map<number, number>()
      answered.set(current, counts.set(status, (counts.get(status) ?? 0) + 1))
      const operation = routeOf(drawn.method, drawn.url)
      // The one 5xx that is right here: no DNS server answers this app (DNS_RESOLVERS), so a
      // Verify of an existing domain finds the service's resolvers down, its documented 503.
      const resolversDown = status === 503 && operation?.operationId === 'verifyDomain' && /DNS resolvers do not answer/.test(response.body)
      assert.ok(status < 500 || resolversDown, `a ${status}: the service must answer bad input with a 4xx`)
      if (operation) {
        assert.ok(operation.statuses.includes(String(status)), `${drawn.method} ${operation.path} -> ${status}: status ${status} is not documented for ${operation.operationId}`)
      } else if (/^\/(v1|admin\/v1)(\/|$)/.test(new URL(drawn.url, 'http://localhost').pathname)) {
        // Another method or an unknown path, in one of the APIs (the dashboard, health and metrics
        // answer as they do): 404 or 405 once the scope's own checks passed, which come first
        // (the admin API's credentials and CSRF token, /v1's rate limit).
        assert.ok(UNKNOWN_ROUTE_STATUSES.includes(status), `an unknown route or method answered ${status}, not ${UNKNOWN_ROUTE_STATUSES.join('/')}`)
      }
      // Every answer against the documents; a HEAD's as its GET's, without a body.
      assertMatchesContract(t.app, options, response)
      if (operation?.api === 'admin') await assertMatchesAdminContract(t.app, drawn.method, drawn.url, response)
      if (status >= 400 && drawn.method !== 'HEAD') assert.equal(jsonOf<{ status: unknown }>(response).status, status, "the envelope's status is the HTTP status")
      if (drawn.auth.kind === 'session' && drawn.method === 'DELETE' && status === 204 && operation?.operationId === 'signOut') sessions.delete(drawn.auth.role)
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${describeExchange(drawn, options, response)}`, { cause: error })
    }
  }

  test(`every operation of both documents, ${RUNS} requests in all`, async (context) => {
    // Removals last, so the fixtures they remove are there for the other operations first.
    const removals = new Set(operations.filter((o) => o.method === 'DELETE').map((o) => o.operationId))
    const names = [...arbitraries.keys()]
      .filter((name) => !ONLY || ONLY.has(name))
      .sort((a, b) => Number(removals.has(a)) - Number(removals.has(b)))
    assert.ok(names.length > 0, `FUZZ_ONLY=${process.env.FUZZ_ONLY} names no operation; known: ${[...arbitraries.keys()].join(', ')}`)
    const weight = (name: string) => WEIGHTS[name] ?? 1
    const total = names.reduce((sum, name) => sum + weight(name), 0)
    const started = performance.now()
    for (const name of names) {
      const numRuns = Math.ceil((RUNS * weight(name)) / total)
      await context.test(`${name}: ${numRuns} requests`, async () => {
        current = name
        const arbitrary = arbitraries.get(name)!
        await fc.assert(
          fc.asyncProperty(arbitrary, (drawn) => check(drawn)),
          { seed: SEED, numRuns, includeErrorInReport: true, ...(PATH && { path: PATH }) },
        )
      })
    }
    for (const [name, counts] of answered) {
      const statuses = [...counts].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`)
      context.diagnostic(`${name}: ${statuses.join(' ')}`)
    }
    const seconds = (performance.now() - started) / 1000
    context.diagnostic(`fuzz: ${requests} requests in ${seconds.toFixed(1)} s on ${testDialect} (seed ${SEED})`)
  })
})

function clip(text: string, max = 1_500): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`
}

/** The request as sent and the answer, for a failure message: enough to replay it with curl. */
function describeExchange(drawn: DrawnRequest, options: InjectOptions, response: LightMyRequestResponse | undefined): string {
  const payload = options.payload
  const body =
    payload === undefined
      ? '(none)'
      : Buffer.isBuffer(payload)
        ? `${payload.length} bytes, hex ${clip(payload.toString('hex'), 400)}`
        : clip(JSON.stringify(payload))
  return [
    `request (${drawn.note}, auth ${JSON.stringify(drawn.auth)}):`,
    `  ${String(options.method)} ${clip(String(options.url), 2_000)}`,
    `  headers: ${clip(JSON.stringify(options.headers))}`,
    `  body: ${body}`,
    `  remote address: ${options.remoteAddress}`,
    response
      ? `response: ${response.statusCode} ${String(response.headers['content-type'] ?? '')} ${clip(response.body)}`
      : 'response: none (inject threw)',
  ].join('\n')
}
