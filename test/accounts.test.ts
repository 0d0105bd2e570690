/**
 * Accounts through the HTTP boundary: sign-in, the session cookie and its CSRF token, sign-out,
 * expiry, throttling, and what owners may see, on a fresh database each.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { afterEach, describe, test } from 'node:test'
import { Validator } from '@seriousme/openapi-schema-validator'
import { sql } from 'kysely'
import type { Session } from '../src/accounts/sessions.service.js'
import { hashPassword, verifyPassword } from '../src/accounts/passwords.js'
import type { Config } from '../src/config.js'
import { ADMIN_TOKEN, admin, createAdminApp } from './helpers/admin.js'
import { createUser as createAccount, asUser, SESSION_COOKIE, type SignedInUser, signIn, signInRequest, TEST_PASSWORD, uniqueEmail } from './helpers/accounts.js'
import { bearer, type ManualClock, type TestApp } from './helpers/app.js'
import { dialects, withDatabase } from './helpers/databases.js'
import { migratorOf } from '../src/db/database.js'
import { insertProject } from '../src/projects/projects.repository.js'

let apps: TestApp[] = []

/** An app with an admin token and custom domains configured (nothing here asks DNS). */
async function app(config: Partial<Config> = {}): Promise<TestApp> {
  const t = await createAdminApp({ config })
  apps.push(t)
  return t
}

/** An app as `app()` makes it, with one new account, signed in. */
async function signedInApp(): Promise<{ t: TestApp; signedIn: SignedInUser }> {
  const t = await app()
  const user = await createAccount(t)
  return { t, signedIn: await signIn(t, user.email, user.password) }
}

const clockOf = (t: TestApp) => t.clock as ManualClock
const cookieOf = (response: { cookies: { name: string; value: string }[] }) => response.cookies.find((c) => c.name === SESSION_COOKIE)

afterEach(async () => {
  await Promise.all(apps.map((t) => t.close()))
  apps = []
})

describe('passwords', () => {
  test('scrypt hashes describe their parameters, use a fresh salt, and verify only the right password', async () => {
    const first = await hashPassword('a password of some length')
    const second = await hashPassword('a password of some length')
    assert.match(first, /^\$scrypt\$ln=15,r=8,p=3\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    assert.notEqual(first, second, 'a random salt each time')
    assert.equal(await verifyPassword('a password of some length', first), true)
    assert.equal(await verifyPassword('a password of some length!', first), false)
    assert.equal(await verifyPassword('anything', 'not-a-hash'), false)
    assert.equal(await verifyPassword('anything', '$scrypt$ln=40,r=8,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), false, 'absurd costs are refused')
  })
})

describe('sign-in sessions', () => {
  test('sign-in answers the session and sets an HttpOnly, SameSite=Strict cookie, not Secure over plain HTTP', async () => {
    const t = await app()
    const project = await t.project()
    const user = await createAccount(t, { role: 'operator' })
    const response = await signInRequest(t, user.email.toUpperCase(), user.password)
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['cache-control'], 'no-store')
    const session = response.json<Session>()
    assert.deepEqual(session.user, { email: user.email, role: 'operator', projects: [project.slug] })
    assert.match(session.csrfToken, /^[A-Za-z0-9_-]{43}$/)

    const cookie = cookieOf(response)
    assert.ok(cookie)
    assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/)
    const header = String(response.headers['set-cookie'])
    assert.match(header, /; HttpOnly/)
    assert.match(header, /; SameSite=Strict/)
    assert.match(header, /; Path=\//)
    assert.match(header, /; Max-Age=43200/)
    assert.doesNotMatch(header, /Secure/)
    // The proxy's X-Forwarded-Proto is not believed without TRUST_PROXY.
    const forwarded = await t.request({
      method: 'POST',
      url: '/admin/v1/session',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      payload: JSON.stringify({ email: user.email, password: user.password }),
    })
    assert.doesNotMatch(String(forwarded.headers['set-cookie']), /Secure/)
  })

  test("the session says which of the operator's features are configured: custom domains with PLATFORM_DOMAIN, webhooks with WEBHOOK_ENCRYPTION_KEY, private networks with WEBHOOK_ALLOWED_NETWORKS", async () => {
    for (const [config, features] of [
      [{ platformDomain: undefined, webhookEncryptionKey: undefined }, { customDomains: false, webhooks: false, webhookPrivateNetworks: false }],
      [{ webhookEncryptionKey: 'a'.repeat(64), webhookAllowedNetworks: ['10.0.0.0/8'] }, { customDomains: true, webhooks: true, webhookPrivateNetworks: true }],
      // Without a key of their own, webhook secrets are sealed with the certificates' key.
      [{ webhookEncryptionKey: undefined, certificateEncryptionKey: 'b'.repeat(64) }, { customDomains: true, webhooks: true, webhookPrivateNetworks: false }],
    ] as const) {
      const t = await app(config)
      const user = await createAccount(t)
      const signedIn = await signInRequest(t, user.email, user.password)
      assert.deepEqual(signedIn.json<Session>().features, features)
      const cookie = cookieOf(signedIn)!
      const again = await t.request({ method: 'GET', url: '/admin/v1/session', headers: { cookie: `${SESSION_COOKIE}=${cookie.value}` } })
      assert.deepEqual(again.json<Session>().features, features)
      // What the session says is what the operations do.
      const project = await t.project()
      const domains = await admin(t, 'GET', `/projects/${project.slug}/domains`)
      assert.equal(domains.statusCode, features.customDomains ? 200 : 404, domains.body)
      const endpoint = await admin(t, 'POST', `/projects/${project.slug}/webhooks`, { url: 'https://hooks.example.com/in', types: ['pet.created'] })
      assert.equal(endpoint.statusCode, features.webhooks ? 201 : 503, endpoint.body)
    }
  })

  test('behind a trusted proxy that received HTTPS, the cookie is Secure', async () => {
    const t = await app({ trustProxy: true })
    const user = await createAccount(t)
    const response = await t.request({
      method: 'POST',
      url: '/admin/v1/session',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      payload: JSON.stringify({ email: user.email, password: user.password }),
    })
    assert.equal(response.statusCode, 200, response.body)
    assert.match(String(response.headers['set-cookie']), /; Secure/)
  })

  test('a wrong password and an unknown email get the same 401, and no cookie', async () => {
    const t = await app()
    const user = await createAccount(t)
    const wrong = await signInRequest(t, user.email, 'not the password')
    const unknown = await signInRequest(t, uniqueEmail('nobody'), TEST_PASSWORD)
    for (const response of [wrong, unknown]) {
      assert.equal(response.statusCode, 401)
      assert.equal(cookieOf(response), undefined)
      assert.equal(response.headers['cache-control'], 'no-store')
    }
    assert.deepEqual(wrong.json(), unknown.json())
    assert.deepEqual(wrong.json(), { code: 'unauthorized', message: 'Wrong email or password.', status: 401 })
  })

  test('sign-in validates its body', async () => {
    const t = await app()
    const response = await t.request({ method: 'POST', url: '/admin/v1/session', headers: { 'content-type': 'application/json' }, payload: '{"email":"a@b.c"}' })
    assert.equal(response.statusCode, 400)
    assert.match(response.json<{ message: string }>().message, /password/)
  })

  test('GET /session answers the signed-in user with the same CSRF token; the database keeps only the SHA-256 of the token', async () => {
    const { t, signedIn } = await signedInApp()
    const response = await asUser(t, signedIn, 'GET', '/session')
    assert.equal(response.statusCode, 200, response.body)
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.deepEqual(response.json(), signedIn.session)

    const rows = await t.database.db.selectFrom('sessions').selectAll().execute()
    assert.equal(rows.length, 1)
    assert.equal(rows[0]!.id, createHash('sha256').update(signedIn.token).digest('hex'))
    assert.ok(!JSON.stringify(rows).includes(signedIn.token))
  })

  test('without a cookie or a bearer the admin API is 401, saying to sign in or send the token; a bearer has no session', async () => {
    const t = await app()
    const project = await t.project({ plan: 'pro' })
    const response = await t.request({ method: 'GET', url: `/admin/v1/projects/${project.slug}/domains` })
    assert.equal(response.statusCode, 401)
    assert.match(response.json<{ message: string }>().message, /sign in with POST \/admin\/v1\/session, or send the header "Authorization: Bearer <ADMIN_TOKEN>"/)
    const unknownCookie = await t.request({ method: 'GET', url: '/admin/v1/session', headers: { cookie: `${SESSION_COOKIE}=nonsense` } })
    assert.equal(unknownCookie.statusCode, 401)
    assert.match(unknownCookie.json<{ message: string }>().message, /sign in again/)
    const bearerSession = await admin(t, 'GET', '/session')
    assert.equal(bearerSession.statusCode, 401)
  })

  test('sign-out ends the session and clears the cookie; the cookie then gets 401', async () => {
    const { t, signedIn } = await signedInApp()
    const out = await asUser(t, signedIn, 'DELETE', '/session')
    assert.equal(out.statusCode, 204, out.body)
    assert.equal(out.headers['cache-control'], 'no-store')
    const cleared = cookieOf(out) as { value: string; maxAge?: number; expires?: Date } | undefined
    assert.ok(cleared)
    assert.equal(cleared.value, '')
    assert.ok(cleared.expires && cleared.expires.getTime() <= Date.now(), 'the cookie expires at once')
    assert.equal((await asUser(t, signedIn, 'GET', '/session')).statusCode, 401)
    assert.equal(await t.database.db.selectFrom('sessions').selectAll().executeTakeFirst(), undefined)
  })

  test('a session lasts 12 hours', async () => {
    const { t, signedIn } = await signedInApp()
    clockOf(t).advance(12 * 3_600_000 - 1_000)
    assert.equal((await asUser(t, signedIn, 'GET', '/session')).statusCode, 200)
    clockOf(t).advance(1_000)
    const expired = await asUser(t, signedIn, 'GET', '/session')
    assert.equal(expired.statusCode, 401)
    assert.match(expired.json<{ message: string }>().message, /expired/)
  })

  test('passwords appear in no answer and nowhere in the database', async () => {
    const t = await app()
    const password = 'a very particular password 4711'
    const user = await createAccount(t, { password })
    const signedIn = await signIn(t, user.email, password)
    assert.ok(!JSON.stringify(signedIn.session).includes(password))
    const session = await asUser(t, signedIn, 'GET', '/session')
    assert.ok(!session.body.includes(password))
    const users = await t.database.db.selectFrom('users').selectAll().execute()
    assert.match(users[0]!.password_hash, /^\$scrypt\$/)
    for (const table of ['users', 'sessions', 'user_projects', 'sign_in_counters'] as const) {
      const rows = await sql`select * from ${sql.table(table)}`.execute(t.database.db)
      assert.ok(!JSON.stringify(rows.rows).includes(password), `${table} holds the password`)
    }
  })
})

describe('CSRF', () => {
  test('a change made with the cookie needs the session\'s X-CSRF-Token; reads do not', async () => {
    const t = await app()
    const project = await t.project({ plan: 'pro' })
    const user = await createAccount(t)
    const signedIn = await signIn(t, user.email, user.password)
    const cookieOnly = { headers: { cookie: signedIn.headers.cookie } }

    const missing = await asUser(t, cookieOnly, 'DELETE', '/session')
    assert.equal(missing.statusCode, 403)
    assert.equal(missing.json<{ code: string }>().code, 'csrf_failed')
    assert.match(missing.json<{ message: string }>().message, /X-CSRF-Token/)
    const wrong = await asUser(t, { headers: { ...signedIn.headers, 'x-csrf-token': 'x'.repeat(43) } }, 'POST', `/projects/${project.slug}/domains`, { name: 'shop.csrf.test' })
    assert.equal(wrong.statusCode, 403)
    assert.equal(wrong.json<{ code: string }>().code, 'csrf_failed')
    // Another session's token is no better.
    const other = await signIn(t, user.email, user.password)
    const crossed = await asUser(t, { headers: { ...signedIn.headers, 'x-csrf-token': other.session.csrfToken } }, 'DELETE', '/session')
    assert.equal(crossed.statusCode, 403)

    assert.equal((await asUser(t, cookieOnly, 'GET', `/projects/${project.slug}/domains`)).statusCode, 200, 'a read needs no token')
    const added = await asUser(t, signedIn, 'POST', `/projects/${project.slug}/domains`, { name: 'shop.csrf.test' })
    assert.equal(added.statusCode, 201, added.body)
    assert.equal((await asUser(t, signedIn, 'DELETE', '/session')).statusCode, 204)
  })

  test('the ADMIN_TOKEN bearer needs no CSRF token', async () => {
    const t = await app()
    const project = await t.project({ plan: 'pro' })
    const added = await admin(t, 'POST', `/projects/${project.slug}/domains`, { name: 'shop.bearer.test' })
    assert.equal(added.statusCode, 201, added.body)
  })
})

describe('sign-in throttling', () => {
  test('after 5 failures for an email in 15 minutes, even the right password is 429 until the window ends', async () => {
    const t = await app()
    const user = await createAccount(t)
    // Successful sign-ins use up nothing.
    for (let i = 0; i < 6; i++) await signIn(t, user.email, user.password)
    for (let i = 0; i < 5; i++) assert.equal((await signInRequest(t, user.email, `wrong ${i}`, `10.1.0.${i}`)).statusCode, 401)
    const refused = await signInRequest(t, user.email, user.password, '10.1.1.1')
    assert.equal(refused.statusCode, 429)
    assert.equal(refused.json<{ code: string }>().code, 'rate_limited')
    const retryAfter = Number(refused.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 15 * 60, `Retry-After ${retryAfter}`)
    assert.match(refused.json<{ message: string }>().message, /failed sign-ins for this email/)
    // An unknown email is throttled the same way: the 429 tells nothing about accounts.
    const nobody = uniqueEmail('nobody')
    for (let i = 0; i < 5; i++) assert.equal((await signInRequest(t, nobody, 'guess', `10.2.0.${i}`)).statusCode, 401)
    assert.equal((await signInRequest(t, nobody, 'guess', '10.2.1.1')).statusCode, 429)

    clockOf(t).advance(retryAfter * 1000)
    assert.equal((await signInRequest(t, user.email, user.password, '10.1.1.2')).statusCode, 200)
  })

  test('20 attempts per client address per minute; other addresses are not affected', async () => {
    const t = await app()
    const user = await createAccount(t)
    for (let i = 0; i < 20; i++) {
      const response = await signInRequest(t, uniqueEmail('guess'), 'guess', '10.3.0.1')
      assert.equal(response.statusCode, 401)
    }
    const refused = await signInRequest(t, user.email, user.password, '10.3.0.1')
    assert.equal(refused.statusCode, 429)
    assert.match(refused.json<{ message: string }>().message, /from your address/)
    const retryAfter = Number(refused.headers['retry-after'])
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
    assert.equal((await signInRequest(t, user.email, user.password, '10.3.0.2')).statusCode, 200)
    clockOf(t).advance(retryAfter * 1000)
    assert.equal((await signInRequest(t, user.email, user.password, '10.3.0.1')).statusCode, 200)
  })
})

describe('owners', () => {
  test("an owner sees their own project's domains and gets 404 for another project's, as for none", async () => {
    const t = await app()
    const own = await t.project({ plan: 'pro' })
    const other = await t.project({ plan: 'pro' })
    const user = await createAccount(t, { role: 'owner', projects: [own.slug] })
    const owner = await signIn(t, user.email, user.password)
    assert.deepEqual(owner.session.user, { email: user.email, role: 'owner', projects: [own.slug] })

    assert.equal((await asUser(t, owner, 'GET', `/projects/${own.slug}/domains`)).statusCode, 200)
    const hidden = await asUser(t, owner, 'GET', `/projects/${other.slug}/domains`)
    const missing = await asUser(t, owner, 'GET', '/projects/no-such-project/domains')
    assert.equal(hidden.statusCode, 404)
    assert.equal(missing.statusCode, 404)
    assert.equal(hidden.json<{ message: string }>().message, `No project with slug "${other.slug}".`)
    const added = await asUser(t, owner, 'POST', `/projects/${other.slug}/domains`, { name: 'shop.owner.test' })
    assert.equal(added.statusCode, 404)
  })
})

describe('admin API access', () => {
  test('without ADMIN_TOKEN the bearer is refused as disabled, and users still sign in', async () => {
    const t = await app({ adminToken: undefined })
    const project = await t.project({ plan: 'pro' })
    const response = await t.request({ method: 'GET', url: `/admin/v1/projects/${project.slug}/domains`, headers: bearer(ADMIN_TOKEN) })
    assert.equal(response.statusCode, 401)
    assert.match(response.json<{ message: string }>().message, /ADMIN_TOKEN is not set/)
    const user = await createAccount(t)
    // Not through signIn: its contract check reads the admin document with the (absent) token.
    const signedIn = await t.request({
      method: 'POST',
      url: '/admin/v1/session',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ email: user.email, password: user.password }),
    })
    assert.equal(signedIn.statusCode, 200, signedIn.body)
    const headers = { cookie: `${SESSION_COOKIE}=${cookieOf(signedIn)!.value}` }
    const listed = await t.request({ method: 'GET', url: `/admin/v1/projects/${project.slug}/domains`, headers })
    assert.equal(listed.statusCode, 200, listed.body)
  })

  test('the admin document describes both credentials; sign-in needs none', async () => {
    const t = await app()
    type Doc = {
      components: { securitySchemes: Record<string, Record<string, string>> }
      paths: Record<string, Record<string, { operationId: string; security?: unknown[]; responses: Record<string, unknown> }>>
    }
    const doc = (await admin(t, 'GET', '/openapi.json')).json<Doc>()
    assert.deepEqual(doc.components.securitySchemes.sessionCookie, {
      type: 'apiKey',
      in: 'cookie',
      name: SESSION_COOKIE,
      description: doc.components.securitySchemes.sessionCookie!.description,
    })
    assert.equal(doc.components.securitySchemes.adminToken!.scheme, 'bearer')
    const session = doc.paths['/session']!
    assert.equal(session.post!.operationId, 'signIn')
    assert.deepEqual(session.post!.security, [])
    // The session's own operations refuse the bearer (it is not a session), and say so.
    assert.deepEqual(session.get!.security, [{ sessionCookie: [] }])
    assert.deepEqual(session.delete!.security, [{ sessionCookie: [] }])
    assert.ok(session.delete!.responses['403'], 'csrf_failed is documented on changes')
    const listDomains = doc.paths['/projects/{slug}/domains']!.get!
    assert.deepEqual(listDomains.security, [{ adminToken: [] }, { sessionCookie: [] }])
    const valid = await new Validator().validate(structuredClone(doc) as unknown as Parameters<Validator['validate']>[0])
    assert.ok(valid.valid, JSON.stringify(valid.errors))
  })
})

describe('migration 0021: the viewer role', () => {
  for (const dialect of dialects) {
    test(`${dialect.name}: users, their sessions and memberships outlive it; viewers can be stored after it and are removed by its down`, async () => {
      await withDatabase(
        dialect,
        async ({ db }) => {
          const at = '2026-01-01T00:00:00.000Z'
          const project = await insertProject(db, { slug: 'kept', plan: 'free', perMinute: null, perDay: null, createdAt: at })
          const user = (role: string, email: string) => sql<{ id: number }>`insert into users (email, password_hash, role, created_at) values (${email}, 'hash', ${role}, ${at}) returning id`.execute(db)
          const ownerId = Number((await user('owner', 'owner@example.test')).rows[0]!.id)
          const removed = Number((await user('operator', 'gone@example.test')).rows[0]!.id)
          await sql`delete from users where id = ${removed}`.execute(db)
          await sql`insert into user_projects (user_id, project_id) values (${ownerId}, ${project.id})`.execute(db)
          await sql`insert into sessions (id, user_id, csrf_token, created_at, expires_at) values (${'a'.repeat(64)}, ${ownerId}, 'csrf', ${at}, ${at})`.execute(db)
          await assert.rejects(user('viewer', 'early@example.test'), 'no viewer before the migration')

          assert.equal((await migratorOf(db).migrateToLatest()).error, undefined)
          const count = async (table: string) => Number((await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where user_id = ${ownerId}`.execute(db)).rows[0]!.n)
          assert.equal(await count('sessions'), 1, "the owner's session is kept")
          assert.equal(await count('user_projects'), 1, "the owner's membership is kept")
          const viewerId = Number((await user('viewer', 'viewer@example.test')).rows[0]!.id)
          assert.ok(viewerId > removed, 'the id of a deleted user is not given again')
          await assert.rejects(user('admin', 'nobody@example.test'), 'other roles are still refused')
          await sql`insert into user_projects (user_id, project_id) values (${viewerId}, ${project.id})`.execute(db)
          await assert.rejects(sql`insert into user_projects (user_id, project_id) values (${viewerId + 100}, ${project.id})`.execute(db), 'memberships still need their user')

          assert.equal((await migratorOf(db).migrateTo('0018-site-cache-generation')).error, undefined)
          const roles = (await sql<{ role: string }>`select role from users order by id`.execute(db)).rows.map((row) => row.role)
          assert.deepEqual(roles, ['owner'], 'down removes the viewers, and keeps the others')
          assert.equal(await count('sessions'), 1)
          await assert.rejects(user('viewer', 'late@example.test'), 'no viewer after the down')
        },
        { upTo: '0018-site-cache-generation' },
      )
    })
  }
})
