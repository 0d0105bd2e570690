import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { SESSION_COOKIE, type SignedIn } from '../auth/admin-access.js'
import { ApiError, type Failure, orThrow } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { SESSION_SECURITY } from '../openapi/security.js'
import { PasswordChangeSchema, SessionSchema, SignInSchema } from './accounts.schemas.js'
import { SESSION_TTL_MS, type SessionsService, type Throttled } from './sessions.service.js'

const SESSION = { tags: ['session'] } as const
/** The session's own operations take the cookie only: the ADMIN_TOKEN bearer is not a session (see signedIn). */
const COOKIE_ONLY = [{ [SESSION_SECURITY]: [] }]
const NO_STORE = { 'Cache-Control': { type: 'string', description: '`no-store`: session answers are never cached' } } as const

/** The cookie's attributes: script cannot read it, no other site sends it, `Secure` over HTTPS. */
function cookieOptions(request: FastifyRequest) {
  return { path: '/', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https' } as const
}

function signedIn(request: FastifyRequest): SignedIn {
  // The ADMIN_TOKEN bearer is an operator, but not a session.
  if (!request.adminSession) throw new ApiError('unauthorized', 'Not signed in: this request carries the admin token, not a session cookie. Sign in with POST /admin/v1/session.')
  return request.adminSession
}

/** Sign-in, the current session, sign-out and one's own password, for the dashboard (admin API, `/admin/v1`). */
export const sessionsRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService }> = async (app, { sessions }) => {
  // Errors included: nothing about a session is kept by a cache.
  app.addHook('onSend', async (_request, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store')
  })

  app.post(
    '/session',
    {
      // The one admin operation without a principal: it is how one is obtained.
      config: { public: true },
      schema: {
        ...SESSION,
        operationId: 'signIn',
        'x-audit-action': 'session.signed_in',
        summary: 'Sign in',
        description: `Checks the email and password and opens a session of 12 hours: the answer sets the cookie \`adoption_session\` (HttpOnly, SameSite=Strict, Secure over HTTPS) and carries the \`csrfToken\` that state changes made with the cookie must send as \`X-CSRF-Token\`. A wrong password, an unknown email and a disabled user get the same 401. A one-time password (from createUser or resetUserPassword) opens no session: it answers 403 \`password_change_required\` until the same sign-in also sends \`newPassword\`, the user's own, which replaces it (recorded as \`user.password_changed\` too); an expired one is 401. At most 5 failed sign-ins per email per 15 minutes and 20 attempts per client address per minute; beyond, 429 with Retry-After.`,
        body: SignInSchema,
        response: {
          200: {
            description: 'Signed in',
            headers: { 'Set-Cookie': { type: 'string', description: 'The session cookie, `adoption_session`' }, ...NO_STORE },
            ...SessionSchema,
          },
          ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { email, password, newPassword } = request.body
      const result = throttledOrThrow(await sessions.signIn(email, password, request.ip, request.id, newPassword))
      reply.setCookie(SESSION_COOKIE, result.token, { ...cookieOptions(request), expires: result.expiresAt, maxAge: SESSION_TTL_MS / 1000 })
      return result.session
    },
  )

  app.get(
    '/session',
    {
      schema: {
        ...SESSION,
        operationId: 'getSession',
        security: COOKIE_ONLY,
        summary: 'The current session',
        description: 'The signed-in user, their projects and the CSRF token of the session. 401 when the session cookie is missing, unknown or expired, and for the ADMIN_TOKEN bearer, which is not a session.',
        response: { 200: { description: 'The session', headers: NO_STORE, ...SessionSchema }, ...errorResponses(401, 500, 503) },
      },
    },
    async (request) => sessions.describe(signedIn(request)),
  )

  app.delete(
    '/session',
    {
      // Self-service: a viewer, who may change nothing else, may sign out.
      config: { selfService: true },
      schema: {
        ...SESSION,
        operationId: 'signOut',
        'x-audit-action': 'session.signed_out',
        security: COOKIE_ONLY,
        summary: 'Sign out',
        description: 'Ends the session on the server and clears the cookie. Needs the `X-CSRF-Token` header, as every change made with the cookie. The ADMIN_TOKEN bearer has no session to end: 401.',
        response: {
          204: { description: 'Signed out', headers: { 'Set-Cookie': { type: 'string', description: 'Clears `adoption_session`' }, ...NO_STORE }, type: 'null' },
          // No body is taken, but one sent is still read: 400 (not JSON), 413 and 415 as for any change.
          ...errorResponses(400, 401, 403, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      await sessions.signOut(signedIn(request), request.id)
      return reply.clearCookie(SESSION_COOKIE, cookieOptions(request)).code(204).send(null)
    },
  )

  app.put(
    '/account/password',
    {
      // Self-service: a viewer keeps their own password.
      config: { selfService: true },
      schema: {
        tags: ['account'],
        operationId: 'changeOwnPassword',
        'x-audit-action': 'user.password_changed',
        security: COOKIE_ONLY,
        summary: 'Change your password',
        description:
          "The signed-in user's own password, operators', owners' and viewers' alike: `currentPassword` must be right (403 `wrong_password`; a wrong one counts as a failed sign-in of the email, so after 5 in 15 minutes this answers 429 too), `newPassword` has 12 to 1024 characters. Every other session of the user ends at once; this one stays. The ADMIN_TOKEN bearer has no password: 401.",
        body: PasswordChangeSchema,
        response: {
          204: { description: 'Changed', headers: NO_STORE, type: 'null' },
          ...errorResponses(400, 401, 403, 413, 415, 429, 500, 503),
        },
      },
    },
    async (request, reply) => {
      throttledOrThrow(await sessions.changeOwnPassword(signedIn(request), request.body, request.id))
      return reply.code(204).send(null)
    },
  )
}

/** A service's result; a refusal of the sign-in throttle carries its Retry-After. */
function throttledOrThrow<R extends { ok: true } | Failure>(result: R | Throttled): Exclude<R, Failure> {
  if (!result.ok && result.error === 'rate_limited' && 'retryAfterSeconds' in result) {
    throw new ApiError('rate_limited', result.message, { 'retry-after': String(result.retryAfterSeconds) })
  }
  return orThrow(result as R)
}
