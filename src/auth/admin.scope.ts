import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ProjectRow } from '../db/schema.js'
import { ApiError } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { ADMIN_SECURITY, SESSION_SECURITY } from '../openapi/security.js'
import { ADMIN_REALM, type AdminPrincipal, canSee, refuseViewer, sameSecret, SESSION_COOKIE, type SessionLookup, type SignedIn, tokenPrincipal } from './admin-access.js'

/** The methods that change state: made with the session cookie, they need the CSRF token. */
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admin scope's authentication, before any admin handler runs. */
    adminPrincipal: AdminPrincipal
    /** On routes with a `:slug` parameter: the project, once the caller may see it. */
    adminProject: ProjectRow
    /** The session of an admin request authenticated by the session cookie; undefined for the bearer. */
    adminSession: SignedIn | undefined
  }
  interface FastifyContextConfig {
    /** An admin route that needs no principal (sign-in): the scope's authentication skips it. */
    public?: boolean
    /** A change of one's own session or account (sign-out, password) that a read-only viewer may make too. */
    selfService?: boolean
  }
}

const UNAUTHORIZED = {
  401: { ...errorResponses(401)[401], description: 'No live session cookie and no valid ADMIN_TOKEN bearer: sign in (code: unauthorized)' },
}
const NO_SESSION = {
  401: { ...errorResponses(401)[401], description: 'No live session cookie: sign in. The ADMIN_TOKEN bearer is not a session and gets this too (code: unauthorized)' },
}
/** What every change but the self-service ones says of viewers in its 403, after its own words. */
const VIEWER_REFUSED = 'A viewer (a read-only role) gets this for every change, with code forbidden.'
const EITHER_CREDENTIAL: readonly Record<string, readonly string[]>[] = [{ [ADMIN_SECURITY]: [] }, { [SESSION_SECURITY]: [] }]

/**
 * Makes the admin scope authenticated. Who calls: the ADMIN_TOKEN bearer, else the user of a live
 * session cookie. A browser never sends the bearer on its own, so only cookie requests can be
 * forged from another site: their changes must carry the session's CSRF token. Routes with
 * `config.public` (sign-in) need no credential.
 */
export function authenticateAdmin(scope: FastifyInstance, token: string | undefined, sessions: SessionLookup): void {
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
      // change (csrf_failed, and forbidden for a viewer), with the admin API's own words for the 401.
      response: {
        ...(route.schema?.response as object | undefined),
        ...(changes && forbidden(route.schema?.response, route.config?.selfService)),
        ...(sessionOnly ? NO_SESSION : UNAUTHORIZED),
      },
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
    const session = cookieToken ? await sessions.authenticate(cookieToken) : undefined
    if (!session) {
      const message = cookieToken
        ? 'Your session has expired or was signed out: sign in again with POST /admin/v1/session.'
        : 'Not signed in: sign in with POST /admin/v1/session, or send the header "Authorization: Bearer <ADMIN_TOKEN>".'
      throw new ApiError('unauthorized', message, { 'www-authenticate': ADMIN_REALM })
    }
    if (STATE_CHANGING.has(request.method)) {
      checkCsrf(request.headers['x-csrf-token'], session.csrfToken)
      // Before the body is read and the project looked up: a viewer learns nothing from validation.
      if (!request.routeOptions.config.selfService) refuseViewer(session.principal)
    }
    request.adminSession = session
    request.adminPrincipal = session.principal
  })
}

/**
 * On every admin route with a `:slug` parameter, resolves the project and checks the caller may
 * see it. An owner asking for another project gets the same 404 as for a project that does not
 * exist: nothing tells them it does.
 */
export function resolveProjects(scope: FastifyInstance, findProject: (slug: string) => Promise<ProjectRow | undefined>): void {
  scope.addHook('preHandler', async (request) => {
    const slug = (request.params as { slug?: unknown } | undefined)?.slug
    if (typeof slug !== 'string') return
    const project = await findProject(slug)
    if (!project || !canSee(request.adminPrincipal, project)) throw new ApiError('not_found', `No project with slug "${slug}".`)
    request.adminProject = project
  })
}

/** A change's 403: its own (or the catalog's), which for all but self-service changes also tells viewers they are refused. */
function forbidden(response: unknown, selfService: boolean | undefined): Record<number, object> {
  const own = ((response as Record<number, object> | undefined)?.[403] ?? errorResponses(403)[403]!) as { description?: string }
  if (selfService) return { 403: own }
  let refused = viewerRefused.get(own)
  if (!refused) viewerRefused.set(own, (refused = { ...own, description: `${own.description ?? 'Forbidden'}. ${VIEWER_REFUSED}` }))
  return { 403: refused }
}

/** Each 403's schema with the viewer's refusal, made once: the apps of a process share it, and with it its serializer. */
const viewerRefused = new WeakMap<object, object>()

/** The header must equal the session's token; compared in constant time. */
function checkCsrf(sent: string | string[] | undefined, expected: string): void {
  if (typeof sent !== 'string' || sent === '') {
    throw new ApiError('csrf_failed', "A change made with the session cookie needs the header X-CSRF-Token: send the session's csrfToken (from sign-in or GET /admin/v1/session).")
  }
  if (!sameSecret(sent, expected)) {
    throw new ApiError('csrf_failed', "The X-CSRF-Token header is not this session's token: send the csrfToken from sign-in or GET /admin/v1/session.")
  }
}
