import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ProjectRow } from '../db/schema.js'
import { ApiError } from '../errors.js'

export const ADMIN_REALM = 'Bearer realm="adoption-store-admin"'
/** The admin document's security schemes: the ADMIN_TOKEN bearer, and the session cookie. */
export const ADMIN_SECURITY = 'adminToken'
export const SESSION_SECURITY = 'sessionCookie'

/**
 * Who is calling the admin API. Operators see and change every project; owners see only the
 * projects they are members of, and cannot call operator actions (plans, new projects).
 * The ADMIN_TOKEN bearer is an operator without an account.
 */
export type AdminPrincipal =
  | { role: 'operator'; userId: number | null; email: string | null }
  | { role: 'owner'; userId: number; email: string; projectIds: ReadonlySet<number> }

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admin scope's authentication, before any admin handler runs. */
    adminPrincipal: AdminPrincipal
    /** On routes with a `:slug` parameter: the project, once the caller may see it. */
    adminProject: ProjectRow
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

/** The principal of an `Authorization: Bearer <ADMIN_TOKEN>` request; undefined without that header. */
export function tokenPrincipal(request: FastifyRequest, token: string | undefined): AdminPrincipal | undefined {
  const header = request.headers.authorization
  if (header === undefined) return undefined
  const [scheme = '', value = '', ...rest] = header.trim().split(/[ \t]+/)
  if (scheme.toLowerCase() !== 'bearer' || !value || rest.length > 0) {
    throw new ApiError('unauthorized', 'Malformed admin token: send it as the header "Authorization: Bearer <ADMIN_TOKEN>".', { 'www-authenticate': ADMIN_REALM })
  }
  if (token === undefined) {
    throw new ApiError('unauthorized', 'The admin token is disabled on this instance (ADMIN_TOKEN is not set): sign in instead.', { 'www-authenticate': `${ADMIN_REALM}, error="invalid_token"` })
  }
  // Compared as digests, in constant time: the token's length is not revealed either.
  if (!timingSafeEqual(digest(value), digest(token))) {
    throw new ApiError('unauthorized', 'The admin token is not the configured ADMIN_TOKEN.', { 'www-authenticate': `${ADMIN_REALM}, error="invalid_token"` })
  }
  return { role: 'operator', userId: null, email: null }
}

/** Finds a project by its slug (ProjectsService.find); undefined when there is none. */
export type ProjectLookup = (slug: string) => Promise<ProjectRow | undefined>

/** Whether the principal may see the project. */
export function canSee(principal: AdminPrincipal, project: Pick<ProjectRow, 'id'>): boolean {
  return principal.role === 'operator' || principal.projectIds.has(project.id)
}

/** Operator actions: an owner gets 403 `forbidden`. */
export function requireOperator(request: FastifyRequest): void {
  if (request.adminPrincipal.role !== 'operator') throw new ApiError('forbidden', 'Only operators may do this; ask an operator of this service.')
}

/**
 * On every admin route with a `:slug` parameter, resolves the project and checks the caller may
 * see it. An owner asking for another project gets the same 404 as for a project that does not
 * exist: nothing tells them it does.
 */
export function resolveProjects(scope: FastifyInstance, findProject: ProjectLookup): void {
  scope.addHook('preHandler', async (request) => {
    const slug = (request.params as { slug?: unknown } | undefined)?.slug
    if (typeof slug !== 'string') return
    const project = await findProject(slug)
    if (!project || !canSee(request.adminPrincipal, project)) throw new ApiError('not_found', `No project with slug "${slug}".`)
    request.adminProject = project
  })
}
