/**
 * User management through the admin API, on a fresh database each (run on both back ends):
 * creating users with a one-time password and the forced choice of one's own at sign-in,
 * listing, disabling and enabling, deleting, resetting a password, an owner's projects, one's own
 * password; the rules (operators only, not oneself, never the last enabled operator); what each
 * change records in the audit log; and sessions ended at once on every instance sharing the
 * database. The authorization matrix (test/admin-authorization.test.ts) covers 401/403/CSRF.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, test } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { ONE_TIME_PASSWORD_TTL_MS, type User } from '../src/accounts/users.service.js'
import type { AuditEntry } from '../src/audit/audit.schemas.js'
import { admin, assertMatchesAdminContract, createAdminApp } from './helpers/admin.js'
import { asUser, createUser, type SignedInUser, signIn, signInRequest, TEST_PASSWORD, uniqueEmail } from './helpers/accounts.js'
import { ManualClock, type TestApp, type TestAppOptions } from './helpers/app.js'
import { captureLogs } from './helpers/logs.js'

type UserWithPassword = User & { password: string }

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0)
let apps: TestApp[] = []

async function app(options: TestAppOptions = {}): Promise<TestApp & { clock: ManualClock }> {
  const clock = new ManualClock(NOW)
  const t = await createAdminApp({ clock, ...options })
  apps.push(t)
  return Object.assign(t, { clock })
}

afterEach(async () => {
  await Promise.all(apps.map((t) => t.close()))
  apps = []
})

const codeOf = (response: LightMyRequestResponse) => response.json<{ code: string }>().code
const messageOf = (response: LightMyRequestResponse) => response.json<{ message: string }>().message

function expectError(response: LightMyRequestResponse, status: number, code: string, message?: RegExp): void {
  assert.equal(response.statusCode, status, response.body)
  assert.equal(codeOf(response), code, response.body)
  if (message) assert.match(messageOf(response), message)
}

async function users(t: TestApp): Promise<User[]> {
  const response = await admin(t, 'GET', '/users')
  assert.equal(response.statusCode, 200, response.body)
  return response.json<User[]>()
}

async function userOf(t: TestApp, email: string): Promise<User> {
  const user = (await users(t)).find((u) => u.email === email)
  assert.ok(user, `${email} is listed`)
  return user
}

async function auditOf(t: TestApp, query: string): Promise<AuditEntry[]> {
  const response = await admin(t, 'GET', `/audit${query}`)
  assert.equal(response.statusCode, 200, response.body)
  return response.json<AuditEntry[]>()
}

/** A project, an owner of it with their id, signed in. */
async function signedInOwner(t: TestApp) {
  const project = await t.project()
  const owner = await createUser(t, { role: 'owner', projects: [project.slug] })
  const session = await signIn(t, owner.email, owner.password)
  const { id } = await userOf(t, owner.email)
  return { project, owner, id, session }
}

/** `POST /admin/v1/session` with a new password, as the dashboard sends it after a one-time password. */
async function signInWithNewPassword(t: TestApp, email: string, password: string, newPassword: string): Promise<LightMyRequestResponse> {
  const response = await t.request({
    method: 'POST',
    url: '/admin/v1/session',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password, newPassword }),
    remoteAddress: `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
  })
  await assertMatchesAdminContract(t.app, 'POST', '/admin/v1/session', response)
  return response
}

/** Whether a session still opens: GET /session with its cookie. */
async function alive(t: TestApp, user: SignedInUser): Promise<boolean> {
  const response = await asUser(t, user, 'GET', '/session')
  assert.ok(response.statusCode === 200 || response.statusCode === 401, response.body)
  return response.statusCode === 200
}

describe('creating users, and the one-time password', () => {
  test('createUser answers the user with a one-time password, this once; it opens no session until its user chooses their own', async () => {
    const t = await app()
    const project = await t.project()
    const email = uniqueEmail('Ann').toUpperCase()
    const created = await admin(t, 'POST', '/users', { email, role: 'owner', projects: [project.slug, project.slug] })
    assert.equal(created.statusCode, 201, created.body)
    assert.equal(created.headers['cache-control'], 'no-store')
    const user = created.json<UserWithPassword>()
    assert.equal(created.headers.location, `/admin/v1/users/${user.id}`)
    assert.match(user.password, /^[A-Za-z0-9_-]{24}$/)
    assert.deepEqual(
      { ...user, id: 0, password: '' },
      {
        id: 0,
        email: email.toLowerCase(),
        role: 'owner',
        projects: [project.slug],
        state: 'enabled',
        disabledAt: null,
        createdAt: new Date(NOW).toISOString(),
        lastSignedInAt: null,
        oneTimePasswordExpiresAt: new Date(NOW + ONE_TIME_PASSWORD_TTL_MS).toISOString(),
        password: '',
      },
    )
    const got = await admin(t, 'GET', `/users/${user.id}`)
    assert.equal(got.statusCode, 200, got.body)
    const listed: Partial<UserWithPassword> = { ...user }
    delete listed.password
    assert.deepEqual(got.json(), listed, 'the password is shown only in the answer that made it')

    // The one-time password works only to choose one's own.
    const forced = await signInRequest(t, user.email, user.password)
    expectError(forced, 403, 'password_change_required', /one-time password: choose your own \(12 to 1024 characters\)/)
    assert.equal(forced.cookies.length, 0, 'no session')
    expectError(await signInWithNewPassword(t, user.email, user.password, user.password), 400, 'invalid_request', /not the one-time password/)
    expectError(await signInWithNewPassword(t, user.email, user.password, 'too short'), 400, 'invalid_request', /newPassword/)
    expectError(await signInWithNewPassword(t, user.email, 'not the password', 'my very own pass phrase'), 401, 'unauthorized', /^Wrong email or password\.$/)
    const chosen = await signInWithNewPassword(t, user.email, user.password, 'my very own pass phrase')
    assert.equal(chosen.statusCode, 200, chosen.body)
    assert.ok(chosen.cookies.some((c) => c.name === 'adoption_session'))

    // From now on: the one-time password is refused, one's own opens sessions.
    expectError(await signInRequest(t, user.email, user.password), 401, 'unauthorized', /^Wrong email or password\.$/)
    assert.equal((await signInRequest(t, user.email, 'my very own pass phrase')).statusCode, 200)
    expectError(await signInWithNewPassword(t, user.email, 'my very own pass phrase', 'yet another pass phrase'), 400, 'invalid_request', /account\/password/)
    const after = await userOf(t, user.email)
    assert.equal(after.oneTimePasswordExpiresAt, null)
    assert.equal(after.lastSignedInAt, new Date(NOW).toISOString())

    // Newest first; the two wrong passwords (before and after choosing one's own) are failed sign-ins.
    const entries = await auditOf(t, `?targetType=user&targetId=${user.id}`)
    assert.deepEqual(
      entries.map((e) => e.action),
      ['session.signed_in', 'session.sign_in_failed', 'session.signed_in', 'user.password_changed', 'session.sign_in_failed', 'user.created'],
    )
    assert.deepEqual(entries[5]?.details, { email: user.email, role: 'owner', projects: [project.slug], oneTimePassword: true })
    assert.deepEqual(entries[3]?.details, { email: user.email, oneTimePasswordReplaced: true })
    assert.equal(entries[3]?.requestId, entries[2]?.requestId, 'the password and the session of one sign-in, in one request')
    const log = JSON.stringify(await auditOf(t, '?limit=100'))
    for (const secret of [user.password, 'my very own pass phrase']) assert.ok(!log.includes(secret), 'no password in the audit log')
  })

  test('a one-time password expires after 7 days; a reset gives a new one', async () => {
    const t = await app()
    const { password, email, id } = (await admin(t, 'POST', '/users', { email: uniqueEmail('late'), role: 'operator' })).json<UserWithPassword>()
    t.clock.advance(ONE_TIME_PASSWORD_TTL_MS)
    expectError(await signInRequest(t, email, password), 401, 'unauthorized', /one-time password expired at .*: ask an operator for a new one/)
    expectError(await signInWithNewPassword(t, email, password, 'my very own pass phrase'), 401, 'unauthorized', /expired/)
    const reset = await admin(t, 'POST', `/users/${id}/password-reset`)
    assert.equal(reset.statusCode, 200, reset.body)
    const fresh = reset.json<UserWithPassword>()
    assert.notEqual(fresh.password, password)
    assert.equal(fresh.oneTimePasswordExpiresAt, new Date(t.clock.now() + ONE_TIME_PASSWORD_TTL_MS).toISOString())
    assert.equal((await signInWithNewPassword(t, email, fresh.password, 'my very own pass phrase')).statusCode, 200)
  })

  test('createUser refuses a taken email (whatever its case), an owner without projects, an operator with some, an unknown project, a bad email or role, and records nothing', async () => {
    const t = await app()
    const project = await t.project()
    const existing = await createUser(t, { role: 'operator' })
    const count = (await auditOf(t, '?limit=100')).length
    expectError(await admin(t, 'POST', '/users', { email: existing.email.toUpperCase(), role: 'operator' }), 409, 'email_taken', /already exists/)
    expectError(await admin(t, 'POST', '/users', { email: uniqueEmail(), role: 'owner' }), 400, 'invalid_request', /An owner needs at least one project/)
    expectError(await admin(t, 'POST', '/users', { email: uniqueEmail(), role: 'owner', projects: [] }), 400, 'invalid_request', /An owner needs at least one project/)
    expectError(await admin(t, 'POST', '/users', { email: uniqueEmail(), role: 'operator', projects: [project.slug] }), 400, 'invalid_request', /Operators see every project/)
    expectError(await admin(t, 'POST', '/users', { email: uniqueEmail(), role: 'owner', projects: ['no-such-project'] }), 404, 'not_found', /No project with slug "no-such-project"/)
    expectError(await admin(t, 'POST', '/users', { email: 'not an email', role: 'operator' }), 400, 'invalid_request', /Invalid email/)
    expectError(await admin(t, 'POST', '/users', { email: uniqueEmail(), role: 'admin' }), 400, 'invalid_request', /role/)
    expectError(await admin(t, 'POST', '/users', { email: uniqueEmail(), role: 'operator', password: 'chosen by the operator' }), 400, 'invalid_request', /Unknown field "password"/)
    assert.equal((await auditOf(t, '?limit=100')).length, count, 'refused changes record nothing')
    assert.equal((await users(t)).length, 1)
  })

  test('two creations of one email at once: one user, and a 409 for the other', async () => {
    const t = await app()
    const email = uniqueEmail('twice')
    const answers = await Promise.all([0, 1].map(() => admin(t, 'POST', '/users', { email, role: 'operator' })))
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [201, 409], answers.map((a) => a.body).join('\n'))
    assert.equal((await users(t)).filter((u) => u.email === email).length, 1)
  })

  test('getUser: 404 for an unknown id, 400 for one that is not a positive whole number', async () => {
    const t = await app()
    expectError(await admin(t, 'GET', '/users/999999'), 404, 'not_found', /^No user with id 999999\.$/)
    for (const id of ['abc', '0', '1.5', '01']) expectError(await admin(t, 'GET', `/users/${id}`), 400, 'invalid_request', /userId/)
  })

  test('no password, one-time or chosen, is ever logged', async () => {
    const logs = captureLogs()
    const t = await app({ logger: logs.logger })
    const created = (await admin(t, 'POST', '/users', { email: uniqueEmail('logged'), role: 'operator' })).json<UserWithPassword>()
    await signInRequest(t, created.email, created.password)
    assert.equal((await signInWithNewPassword(t, created.email, created.password, 'a pass phrase to keep quiet')).statusCode, 200)
    const reset = (await admin(t, 'POST', `/users/${created.id}/password-reset`)).json<UserWithPassword>()
    const signedIn = await signInWithNewPassword(t, created.email, reset.password, 'another quiet pass phrase')
    assert.equal(signedIn.statusCode, 200)
    const session = signedIn.cookies.find((c) => c.name === 'adoption_session')!.value
    const csrf = signedIn.json<{ csrfToken: string }>().csrfToken
    const changed = await asUser(t, { headers: { cookie: `adoption_session=${session}`, 'x-csrf-token': csrf } }, 'PUT', '/account/password', {
      currentPassword: 'another quiet pass phrase',
      newPassword: 'the last quiet pass phrase',
    })
    assert.equal(changed.statusCode, 204, changed.body)
    assert.ok(logs.lines().length > 5, 'the requests were logged')
    for (const secret of [created.password, reset.password, 'a pass phrase to keep quiet', 'another quiet pass phrase', 'the last quiet pass phrase', session]) {
      assert.ok(!logs.text.includes(secret), `the log holds a secret (${secret.slice(0, 6)}…)`)
    }
  })
})

describe('disabling, enabling and deleting users', () => {
  test('disable: the sessions end at once and sign-in gets the same 401 as a wrong password; enable: the old password works again', async () => {
    const t = await app()
    const { project, owner, id, session: first } = await signedInOwner(t)
    const second = await signIn(t, owner.email, owner.password)

    const disabled = await admin(t, 'POST', `/users/${id}/disable`)
    assert.equal(disabled.statusCode, 200, disabled.body)
    assert.deepEqual(
      { state: disabled.json<User>().state, disabledAt: disabled.json<User>().disabledAt },
      { state: 'disabled', disabledAt: new Date(NOW).toISOString() },
    )
    assert.equal(await alive(t, first), false)
    assert.equal(await alive(t, second), false)
    const refused = await signInRequest(t, owner.email, owner.password)
    const wrong = await signInRequest(t, owner.email, 'not the password')
    assert.equal(refused.statusCode, 401)
    assert.deepEqual(refused.json(), wrong.json(), 'a disabled user gets the answer of a wrong password')
    assert.equal(await t.database.db.selectFrom('sessions').select('id').where('user_id', '=', id).executeTakeFirst(), undefined, 'no session row left')

    // Twice: nothing changes, and it is still recorded.
    t.clock.advance(60_000)
    const again = await admin(t, 'POST', `/users/${id}/disable`)
    assert.equal(again.json<User>().disabledAt, new Date(NOW).toISOString(), 'disabled since the first time')

    const enabled = await admin(t, 'POST', `/users/${id}/enable`)
    assert.equal(enabled.statusCode, 200, enabled.body)
    assert.deepEqual({ state: enabled.json<User>().state, disabledAt: enabled.json<User>().disabledAt }, { state: 'enabled', disabledAt: null })
    assert.equal((await signInRequest(t, owner.email, owner.password, '10.200.0.1')).statusCode, 200)
    assert.equal((await admin(t, 'POST', `/users/${id}/enable`)).statusCode, 200, 'enabling an enabled user')

    const entries = await auditOf(t, `?targetType=user&targetId=${id}`)
    const changes = entries.filter((e) => e.action.startsWith('user.'))
    assert.deepEqual(
      changes.map((e) => [e.action, e.details]),
      [
        ['user.enabled', { email: owner.email, alreadyEnabled: true }],
        ['user.enabled', { email: owner.email, alreadyEnabled: false }],
        ['user.disabled', { email: owner.email, alreadyDisabled: true, sessionsEnded: 0 }],
        ['user.disabled', { email: owner.email, alreadyDisabled: false, sessionsEnded: 2 }],
        ['user.created', { email: owner.email, role: 'owner', projects: [project.slug], oneTimePassword: false }],
      ],
    )
    assert.ok(changes.slice(0, 4).every((e) => e.actor.kind === 'admin_token' && e.requestId), 'actor and request id')
  })

  test('delete: the sessions end, the user is gone, the audit log keeps their email', async () => {
    const t = await app()
    const { project, owner, id, session } = await signedInOwner(t)
    const deleted = await admin(t, 'DELETE', `/users/${id}`)
    assert.equal(deleted.statusCode, 204, deleted.body)
    assert.equal(await alive(t, session), false)
    expectError(await signInRequest(t, owner.email, owner.password), 401, 'unauthorized', /^Wrong email or password\.$/)
    assert.ok(!(await users(t)).some((u) => u.id === id))
    expectError(await admin(t, 'DELETE', `/users/${id}`), 404, 'not_found')
    expectError(await admin(t, 'POST', `/users/${id}/enable`), 404, 'not_found')
    const [entry] = await auditOf(t, `?action=user.deleted&targetId=${id}`)
    assert.deepEqual(entry?.details, { email: owner.email, role: 'owner', projects: [project.slug], sessionsEnded: 1 })
    // The same email can be given to a new account, which is another user.
    const again = await admin(t, 'POST', '/users', { email: owner.email, role: 'operator' })
    assert.equal(again.statusCode, 201, again.body)
    assert.notEqual(again.json<User>().id, id)
  })

  test('an operator cannot disable, delete or reset their own account; another operator can', async () => {
    const t = await app()
    const [ada, bob] = [await createUser(t, { role: 'operator' }), await createUser(t, { role: 'operator' })]
    const adaSession = await signIn(t, ada.email, ada.password)
    const adaId = (await userOf(t, ada.email)).id
    expectError(await asUser(t, adaSession, 'POST', `/users/${adaId}/disable`), 403, 'own_account', /You cannot disable your own account/)
    expectError(await asUser(t, adaSession, 'DELETE', `/users/${adaId}`), 403, 'own_account', /You cannot delete your own account/)
    expectError(await asUser(t, adaSession, 'POST', `/users/${adaId}/password-reset`), 403, 'own_account', /Account page/)
    assert.equal(await alive(t, adaSession), true, 'nothing happened to it')
    const bobSession = await signIn(t, bob.email, bob.password)
    const disabled = await asUser(t, bobSession, 'POST', `/users/${adaId}/disable`)
    assert.equal(disabled.statusCode, 200, disabled.body)
    assert.equal(await alive(t, adaSession), false)
  })

  test('the last enabled operator cannot be disabled or deleted, by the admin token either; a disabled operator does not count', async () => {
    const t = await app()
    const ada = await createUser(t, { role: 'operator' })
    const bob = await createUser(t, { role: 'operator' })
    const [adaId, bobId] = [(await userOf(t, ada.email)).id, (await userOf(t, bob.email)).id]
    assert.equal((await admin(t, 'POST', `/users/${bobId}/disable`)).statusCode, 200)
    expectError(await admin(t, 'POST', `/users/${adaId}/disable`), 409, 'last_operator', /is the last enabled operator: enable or create another operator before you disable this one/)
    expectError(await admin(t, 'DELETE', `/users/${adaId}`), 409, 'last_operator', /before you delete this one/)
    // A disabled operator can go; the last enabled one can still have its password reset.
    assert.equal((await admin(t, 'DELETE', `/users/${bobId}`)).statusCode, 204)
    assert.equal((await admin(t, 'POST', `/users/${adaId}/password-reset`)).statusCode, 200)
    assert.equal((await userOf(t, ada.email)).state, 'enabled')
  })

  test('two operators disabling each other at once: one of them stays enabled', async () => {
    const t = await app()
    const sibling = await t.sibling()
    try {
      const [ada, bob] = [await createUser(t, { role: 'operator' }), await createUser(t, { role: 'operator' })]
      const [adaSession, bobSession] = [await signIn(t, ada.email, ada.password), await signIn(t, bob.email, bob.password)]
      const [adaId, bobId] = [(await userOf(t, ada.email)).id, (await userOf(t, bob.email)).id]
      // Through two instances sharing the database, as two operators behind a load balancer.
      const answers = await Promise.all([asUser(t, adaSession, 'POST', `/users/${bobId}/disable`), asUser(sibling, bobSession, 'POST', `/users/${adaId}/disable`)])
      // One is disabled. The other disable is refused as the last operator's, or, when the first
      // committed before the second's session was checked, finds its operator signed out already.
      const statuses = answers.map((a) => a.statusCode).sort()
      assert.ok(statuses[0] === 200 && (statuses[1] === 401 || statuses[1] === 409), answers.map((a) => a.body).join('\n'))
      const refused = answers.find((a) => a.statusCode !== 200)!
      assert.equal(codeOf(refused), refused.statusCode === 409 ? 'last_operator' : 'unauthorized')
      assert.equal((await users(t)).filter((u) => u.role === 'operator' && u.state === 'enabled').length, 1)
    } finally {
      await sibling.close()
    }
  })
})

describe('resetting a password', () => {
  test('the old password stops working, the sessions end, and the one-time password is shown once and recorded nowhere', async () => {
    const t = await app()
    const { owner, id, session } = await signedInOwner(t)
    const reset = await admin(t, 'POST', `/users/${id}/password-reset`)
    assert.equal(reset.statusCode, 200, reset.body)
    assert.equal(reset.headers['cache-control'], 'no-store')
    const { password } = reset.json<UserWithPassword>()
    assert.match(password, /^[A-Za-z0-9_-]{24}$/)
    assert.equal(await alive(t, session), false)
    expectError(await signInRequest(t, owner.email, owner.password), 401, 'unauthorized')
    expectError(await signInRequest(t, owner.email, password), 403, 'password_change_required')
    assert.equal((await signInWithNewPassword(t, owner.email, password, 'chosen after the reset')).statusCode, 200)

    const [entry] = await auditOf(t, `?action=user.password_reset&targetId=${id}`)
    assert.deepEqual(entry?.details, { email: owner.email, oneTimePasswordExpiresAt: new Date(NOW + ONE_TIME_PASSWORD_TTL_MS).toISOString(), sessionsEnded: 1 })
    assert.ok(!JSON.stringify(await auditOf(t, '?limit=100')).includes(password))
    const row = await t.database.db.selectFrom('users').select('password_hash').where('id', '=', id).executeTakeFirstOrThrow()
    assert.ok(!row.password_hash.includes(password) && row.password_hash.startsWith('$scrypt$'), 'stored as a hash only')
  })

  test('a reset forgives the failed sign-ins that locked the email out', async () => {
    const t = await app()
    const user = await createUser(t, { role: 'operator' })
    for (let i = 0; i < 5; i++) await signInRequest(t, user.email, `guess ${i}`, `10.60.0.${i}`)
    expectError(await signInRequest(t, user.email, user.password, '10.60.1.1'), 429, 'rate_limited')
    const { id } = await userOf(t, user.email)
    const { password } = (await admin(t, 'POST', `/users/${id}/password-reset`)).json<UserWithPassword>()
    assert.equal((await signInWithNewPassword(t, user.email, password, 'back in after the reset')).statusCode, 200)
  })
})

describe("an owner's projects", () => {
  test('setUserProjects replaces them; the open session sees the new set at its next request', async () => {
    const t = await app()
    const [a, b, c] = [await t.project(), await t.project(), await t.project()]
    const owner = await createUser(t, { role: 'owner', projects: [a.slug] })
    const session = await signIn(t, owner.email, owner.password)
    const { id } = await userOf(t, owner.email)
    assert.equal((await asUser(t, session, 'GET', `/projects/${b.slug}`)).statusCode, 404)

    const changed = await admin(t, 'PUT', `/users/${id}/projects`, { projects: [c.slug, b.slug, b.slug] })
    assert.equal(changed.statusCode, 200, changed.body)
    assert.deepEqual(changed.json<User>().projects, [b.slug, c.slug].sort())
    assert.equal((await asUser(t, session, 'GET', `/projects/${b.slug}`)).statusCode, 200, 'a project given')
    expectError(await asUser(t, session, 'GET', `/projects/${a.slug}`), 404, 'not_found')
    assert.deepEqual((await asUser(t, session, 'GET', '/session')).json<{ user: { projects: string[] } }>().user.projects, [b.slug, c.slug].sort())
    const [entry] = await auditOf(t, `?action=user.projects_changed&targetId=${id}`)
    assert.deepEqual(entry?.details, { email: owner.email, from: [a.slug], to: [b.slug, c.slug].sort() })
  })

  test('refused for an operator, for no project and for an unknown one; nothing changes', async () => {
    const t = await app()
    const project = await t.project()
    const operator = await createUser(t, { role: 'operator' })
    const owner = await createUser(t, { role: 'owner', projects: [project.slug] })
    const [operatorId, ownerId] = [(await userOf(t, operator.email)).id, (await userOf(t, owner.email)).id]
    expectError(await admin(t, 'PUT', `/users/${operatorId}/projects`, { projects: [project.slug] }), 400, 'invalid_request', /is an operator, who sees every project/)
    expectError(await admin(t, 'PUT', `/users/${ownerId}/projects`, { projects: [] }), 400, 'invalid_request', /projects/)
    expectError(await admin(t, 'PUT', `/users/${ownerId}/projects`, { projects: ['no-such-project'] }), 404, 'not_found', /no-such-project/)
    expectError(await admin(t, 'PUT', '/users/999999/projects', { projects: [project.slug] }), 404, 'not_found', /No user with id 999999/)
    assert.deepEqual((await userOf(t, owner.email)).projects, [project.slug])
    assert.equal((await auditOf(t, '?action=user.projects_changed')).length, 0)
  })
})

describe('changing one\'s own password', () => {
  test('the current password is checked; the other sessions end and this one stays; the new password works', async () => {
    const t = await app()
    const { owner, session: here } = await signedInOwner(t)
    const elsewhere = await signIn(t, owner.email, owner.password)
    const changed = await asUser(t, here, 'PUT', '/account/password', { currentPassword: owner.password, newPassword: 'a brand new pass phrase' })
    assert.equal(changed.statusCode, 204, changed.body)
    assert.equal(changed.headers['cache-control'], 'no-store')
    assert.equal(await alive(t, here), true, 'this session stays')
    assert.equal(await alive(t, elsewhere), false, 'the other one ended')
    expectError(await signInRequest(t, owner.email, owner.password), 401, 'unauthorized')
    assert.equal((await signInRequest(t, owner.email, 'a brand new pass phrase', '10.61.0.1')).statusCode, 200)
    const [entry] = await auditOf(t, '?action=user.password_changed')
    assert.deepEqual(entry?.actor, { kind: 'user', name: owner.email })
    assert.deepEqual(entry?.details, { email: owner.email, otherSessionsEnded: 1 })
    assert.equal(entry?.requestId, changed.headers['x-request-id'])
  })

  test('a wrong current password is 403 and counts as a failed sign-in: after 5, 429; a short new one is 400; the admin token has no password', async () => {
    const t = await app()
    const user = await createUser(t, { role: 'operator' })
    const session = await signIn(t, user.email, user.password)
    expectError(await asUser(t, session, 'PUT', '/account/password', { currentPassword: user.password, newPassword: 'short' }), 400, 'invalid_request', /newPassword/)
    expectError(await asUser(t, session, 'PUT', '/account/password', { currentPassword: user.password }), 400, 'invalid_request', /newPassword/)
    for (let i = 0; i < 5; i++) {
      expectError(await asUser(t, session, 'PUT', '/account/password', { currentPassword: `guess ${i}`, newPassword: 'a brand new pass phrase' }), 403, 'wrong_password', /current password is not right/)
    }
    const throttled = await asUser(t, session, 'PUT', '/account/password', { currentPassword: user.password, newPassword: 'a brand new pass phrase' })
    expectError(throttled, 429, 'rate_limited', /failed sign-ins for this email/)
    assert.ok(Number(throttled.headers['retry-after']) >= 1)
    expectError(await signInRequest(t, user.email, user.password, '10.62.0.1'), 429, 'rate_limited')
    assert.equal(await alive(t, session), true, 'the session itself stays')
    assert.equal((await auditOf(t, '?action=user.password_changed')).length, 0)
    t.clock.advance(15 * 60_000)
    assert.equal((await asUser(t, session, 'PUT', '/account/password', { currentPassword: user.password, newPassword: 'a brand new pass phrase' })).statusCode, 204)

    expectError(await admin(t, 'PUT', '/account/password', { currentPassword: 'x', newPassword: 'a brand new pass phrase' }), 401, 'unauthorized', /not a session cookie/)
  })

  test('the same password again is accepted: a way to end every other session', async () => {
    const t = await app()
    const user = await createUser(t, { role: 'operator' })
    const [here, elsewhere] = [await signIn(t, user.email, user.password), await signIn(t, user.email, user.password)]
    assert.equal((await asUser(t, here, 'PUT', '/account/password', { currentPassword: TEST_PASSWORD, newPassword: TEST_PASSWORD })).statusCode, 204)
    assert.equal(await alive(t, elsewhere), false)
    assert.equal(await alive(t, here), true)
  })
})

describe('sessions end at once on every instance', () => {
  for (const [what, act] of [
    ['disabling', (t: TestApp, id: number) => admin(t, 'POST', `/users/${id}/disable`)],
    ['deleting', (t: TestApp, id: number) => admin(t, 'DELETE', `/users/${id}`)],
    ['resetting the password of', (t: TestApp, id: number) => admin(t, 'POST', `/users/${id}/password-reset`)],
  ] as const) {
    test(`${what} a user on one instance ends their sessions on the other at its next request`, async () => {
      const a = await app()
      const b = await a.sibling()
      try {
        const { project, id, session } = await signedInOwner(a)
        // Both instances have served the session (anything they could keep is warm).
        assert.equal(await alive(a, session), true)
        assert.equal(await alive(b, session), true)
        assert.equal((await asUser(a, session, 'GET', `/projects/${project.slug}/keys`)).statusCode, 200)

        const done = await act(b, id)
        assert.ok(done.statusCode === 200 || done.statusCode === 204, done.body)
        const refused = await asUser(a, session, 'GET', `/projects/${project.slug}/keys`)
        expectError(refused, 401, 'unauthorized', /session has expired or was signed out/)
        assert.equal(await alive(a, session), false)
        assert.equal(await alive(b, session), false)
      } finally {
        await b.close()
      }
    })
  }
})
