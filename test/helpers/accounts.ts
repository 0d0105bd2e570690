import { commandLineChange } from '../../src/audit/audit.js'
import assert from 'node:assert/strict'
import type { LightMyRequestResponse } from 'fastify'
import type { Session } from '../../src/accounts/sessions.service.js'
import type { UserRole } from '../../src/db/schema.js'
import { assertMatchesAdminContract } from './admin.js'
import type { TestApp } from './app.js'

export const SESSION_COOKIE = 'adoption_session'
/** The password of users made by `createUser` unless told otherwise. */
export const TEST_PASSWORD = 'correct horse battery staple'

let counter = 0

export function uniqueEmail(label = 'user'): string {
  return `${label}-${process.pid}-${++counter}@example.test`
}

/** A user, created through the app's own users service, as `adoption-store users create` does; an owner needs `projects` (slugs). */
export async function createUser(
  t: TestApp,
  options: { role?: UserRole; projects?: string[]; email?: string; password?: string } = {},
): Promise<{ email: string; password: string }> {
  const { role = 'operator', projects = [], email = uniqueEmail(role), password = TEST_PASSWORD } = options
  const created = await t.app.services.accounts.createUser({ email, role, projects, password }, commandLineChange())
  if (!created.ok) throw new Error(created.message)
  return { email: created.user.email, password }
}

export interface SignedInUser {
  /** The `Session` answer of sign-in. */
  session: Session
  /** The cookie's value (the session token). */
  token: string
  /** What every request of this user sends: the cookie and the CSRF token. */
  headers: { cookie: string; 'x-csrf-token': string }
}

let addresses = 0

/**
 * Signs in through `POST /admin/v1/session` and fails the test unless that works. Each call comes
 * from an address of its own unless `remoteAddress` is given, so that tests signing in many times
 * stay clear of the 20 attempts per address and minute (the test clock stands still).
 */
export async function signIn(t: TestApp, email: string, password: string, options: { remoteAddress?: string } = {}): Promise<SignedInUser> {
  const n = ++addresses
  return signedIn(await signInRequest(t, email, password, options.remoteAddress ?? `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`))
}

/** The session a sign-in's answer opened; fails the test unless it opened one. */
export function signedIn(response: LightMyRequestResponse): SignedInUser {
  assert.equal(response.statusCode, 200, response.body)
  const cookie = response.cookies.find((c) => c.name === SESSION_COOKIE)
  assert.ok(cookie, 'sign-in sets the session cookie')
  const session = response.json<Session>()
  return { session, token: cookie.value, headers: { cookie: `${SESSION_COOKIE}=${cookie.value}`, 'x-csrf-token': session.csrfToken } }
}

/** `POST /admin/v1/session`, whatever it answers, checked against the admin document. */
export async function signInRequest(t: TestApp, email: string, password: string, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> {
  const response = await t.request({
    method: 'POST',
    url: '/admin/v1/session',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ email, password }),
    remoteAddress,
  })
  await assertMatchesAdminContract(t.app, 'POST', '/admin/v1/session', response)
  return response
}

/** Calls the admin API as a signed-in user (cookie and CSRF token), checked against the admin document. */
export async function asUser(
  t: TestApp,
  user: { headers: Record<string, string> },
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  const response = await t.request({
    method,
    url: `/admin/v1${url}`,
    headers: { ...user.headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { payload: JSON.stringify(body) }),
  })
  await assertMatchesAdminContract(t.app, method, `/admin/v1${url}`, response)
  return response
}
