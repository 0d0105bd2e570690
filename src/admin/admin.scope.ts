import { createHash, timingSafeEqual } from 'node:crypto'
import cookie from '@fastify/cookie'
import swagger from '@fastify/swagger'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AccountsService, SignedIn } from '../accounts/accounts.service.js'
import { SESSION_COOKIE, sessionsRoutes } from '../accounts/sessions.routes.js'
import { ApiError, ERROR_CATALOG } from '../errors.js'
import { revalidatedJson } from '../http/caching.js'
import { notFound, sendError } from '../http/error-handler.js'
import { trackMethods } from '../http/method-not-allowed.js'
import { API_CONTACT_AND_LICENSE, API_VERSION, referToSharedBody, withBodyExamples, withoutUnusedSchemas } from '../openapi/openapi.js'
import { errorResponses } from '../openapi/responses.js'
import { ADMIN_REALM, ADMIN_SECURITY, type ProjectLookup, resolveProjects, SESSION_SECURITY, tokenPrincipal } from './access.js'

export const ADMIN_PREFIX = '/admin/v1'
/** The methods that change state: made with the session cookie, they need the CSRF token. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

declare module 'fastify' {
  interface FastifyInstance {
    /** The admin API's own OpenAPI document (the public one describes /v1 only). */
    adminSwagger(): Record<string, unknown>
  }
  interface FastifyRequest {
    /** The session of an admin request authenticated by the session cookie; undefined for the bearer. */
    adminSession: SignedIn | undefined
  }
  interface FastifyContextConfig {
    /** An admin route that needs no principal (sign-in): the scope's authentication skips it. */
    public?: boolean
  }
}

/**
 * The operator's HTTP API under `/admin/v1`: an encapsulated scope of its own, outside /v1 and
 * its rate limits, documented in its own OpenAPI document at `/admin/v1/openapi.json`. Every
 * route but sign-in needs a principal: the `Authorization: Bearer <ADMIN_TOKEN>` operator, or a
 * user signed in with the session cookie (sessions.routes.ts, registered here with the cookie
 * parser, which only this scope uses).
 */
export async function registerAdminApi(
  app: FastifyInstance,
  {
    adminToken,
    findProject,
    accounts,
    hostRouting = false,
  }: {
    adminToken: string | undefined
    /** The project of a route's `:slug`, checked against the caller's access before its handler. */
    findProject: ProjectLookup
    accounts: AccountsService
    /** Host routing is on (PLATFORM_DOMAIN): a request on another host than the API's own is refused with 404 first. */
    hostRouting?: boolean
  },
  routes: (scope: FastifyInstance) => Promise<void>,
): Promise<void> {
  await app.register(
    async (admin) => {
      await admin.register(swagger, {
        decorator: 'adminSwagger',
        openapi: {
          openapi: '3.1.0',
          info: {
            title: 'Adoption Store admin API',
            version: API_VERSION,
            ...API_CONTACT_AND_LICENSE,
            description: [
              "The operator's API: custom domains of projects.",
              '',
              'Every operation but signIn needs one of two credentials: `Authorization: Bearer <ADMIN_TOKEN>` (an operator), or the session cookie `adoption_session` that signIn sets (a user: an operator, or an owner who sees only their projects). getSession and signOut are about a session, so they take the cookie only: the bearer is not a session and gets 401. A change (POST, PUT, PATCH, DELETE) made with the cookie must also send the header `X-CSRF-Token` with the session\'s `csrfToken`, or it is refused with 403 `csrf_failed`; the bearer needs none.',
              '',
              'The admin API is outside the rate limits of `/v1`: only signIn answers 429, when too many sign-ins failed for an email or came from one address.',
              '',
              'Query parameters an operation does not list are ignored; JSON bodies are strict: an unknown field is a 400 naming it.',
              '',
              'Errors are `application/json` with `{ code, message, status }`; the codes are those of the public API:',
              '',
              '| code | status | meaning |',
              '|---|---|---|',
              ...Object.entries(ERROR_CATALOG).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`),
            ].join('\n'),
          },
          servers: [{ url: ADMIN_PREFIX, description: 'This service' }],
          tags: [
            { name: 'session', description: 'Signing in to the dashboard: the session cookie and its CSRF token' },
            { name: 'projects', description: 'Projects, their plans and the limits in force' },
            { name: 'keys', description: "A project's API keys: create (the secret is shown once), revoke, lift a ban" },
            { name: 'usage', description: "A project's traffic: requests, 429s and bans, per minute and per day" },
            { name: 'domains', description: 'Custom domains: DNS verification, certificates, primary domain and redirects' },
          ],
          components: {
            securitySchemes: {
              [ADMIN_SECURITY]: { type: 'http', scheme: 'bearer', description: 'The operator token, ADMIN_TOKEN' },
              [SESSION_SECURITY]: {
                type: 'apiKey',
                in: 'cookie',
                name: SESSION_COOKIE,
                description: 'The session cookie set by signIn (12 hours). Changes made with it need the header `X-CSRF-Token`.',
              },
            },
          },
        },
        refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
        transform: ({ schema, url }) => ({ schema: referToSharedBody(schema), url: url.startsWith(ADMIN_PREFIX) ? url.slice(ADMIN_PREFIX.length) : url }),
        // The public API's shapes (Pet, Order…) are visible in this scope but are not the admin API's.
        transformObject: (document) => ('openapiObject' in document ? withBodyExamples(withoutUnusedSchemas(document.openapiObject)) : document.swaggerObject),
      })
      const finishMethods = trackMethods(admin)
      // Host routing answers before this scope: 404 on an unknown host or a project's (where the
      // admin API is not served). Every operation says so, as every /v1 one does.
      if (hostRouting) {
        admin.addHook('onRoute', (route) => {
          if (route.schema?.hide) return
          route.schema = { ...route.schema, response: { ...errorResponses(404), ...(route.schema?.response as object | undefined) } }
        })
      }
      admin.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)))
      await admin.register(cookie)
      authenticate(admin, adminToken, accounts)
      resolveProjects(admin, findProject)
      admin.get('/openapi.json', { schema: { hide: true } }, revalidatedJson(() => admin.adminSwagger()))
      await admin.register(sessionsRoutes, { accounts })
      await routes(admin)
      finishMethods()
    },
    { prefix: ADMIN_PREFIX },
  )
}

const UNAUTHORIZED = {
  401: { ...errorResponses(401)[401], description: 'No live session cookie and no valid ADMIN_TOKEN bearer: sign in (code: unauthorized)' },
}
const NO_SESSION = {
  401: { ...errorResponses(401)[401], description: 'No live session cookie: sign in. The ADMIN_TOKEN bearer is not a session and gets this too (code: unauthorized)' },
}
const EITHER_CREDENTIAL: readonly Record<string, readonly string[]>[] = [{ [ADMIN_SECURITY]: [] }, { [SESSION_SECURITY]: [] }]

/**
 * Who calls: the ADMIN_TOKEN bearer, else the user of a live session cookie. A browser never sends
 * the bearer on its own, so only cookie requests can be forged from another site: their changes
 * must carry the session's CSRF token.
 */
function authenticate(scope: FastifyInstance, token: string | undefined, accounts: AccountsService): void {
  scope.decorateRequest('adminSession', undefined)
  scope.addHook('onRoute', (route) => {
    if (route.schema?.hide) return
    // Sign-in needs no credential, and its document says so (an empty requirement), rather than
    // leaving the reader to guess.
    if (route.config?.public) {
      route.schema = { ...route.schema, security: [] }
      return
    }
    const changes = [route.method].flat().some((method) => STATE_CHANGING.has(method))
    // A route may narrow the credentials (the session's own routes take the cookie only).
    const security = route.schema?.security ?? EITHER_CREDENTIAL
    const sessionOnly = security.every((requirement) => Object.keys(requirement).every((name) => name === SESSION_SECURITY))
    route.schema = {
      ...route.schema,
      security,
      // Every protected operation documents what authentication can answer: 401, and 403 for a
      // change (csrf_failed), with the admin API's own words for the 401.
      response: { ...(changes && errorResponses(403)), ...(route.schema?.response as object | undefined), ...(sessionOnly ? NO_SESSION : UNAUTHORIZED) },
    }
  })
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.routeOptions.config.public) return
    const principal = tokenPrincipal(request, token)
    if (principal) {
      request.adminPrincipal = principal
      return
    }
    const cookieToken = request.cookies[SESSION_COOKIE]
    const session = cookieToken ? await accounts.authenticate(cookieToken) : undefined
    if (!session) {
      const message = cookieToken
        ? 'Your session has expired or was signed out: sign in again with POST /admin/v1/session.'
        : 'Not signed in: sign in with POST /admin/v1/session, or send the header "Authorization: Bearer <ADMIN_TOKEN>".'
      throw new ApiError('unauthorized', message, { 'www-authenticate': ADMIN_REALM })
    }
    if (STATE_CHANGING.has(request.method)) checkCsrf(request.headers['x-csrf-token'], session.csrfToken)
    request.adminSession = session
    request.adminPrincipal = session.principal
  })
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

/** The header must equal the session's token; compared as digests, in constant time. */
function checkCsrf(sent: string | string[] | undefined, expected: string): void {
  if (typeof sent !== 'string' || sent === '') {
    throw new ApiError('csrf_failed', "A change made with the session cookie needs the header X-CSRF-Token: send the session's csrfToken (from sign-in or GET /admin/v1/session).")
  }
  if (!timingSafeEqual(digest(sent), digest(expected))) {
    throw new ApiError('csrf_failed', "The X-CSRF-Token header is not this session's token: send the csrfToken from sign-in or GET /admin/v1/session.")
  }
}
