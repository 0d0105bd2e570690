import { hash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { ProjectRow, UserRole } from '../db/schema.js'
import { ApiError } from '../errors.js'

export const ADMIN_REALM = 'Bearer realm="adoption-store-admin"'
/** The dashboard's session cookie, set by signIn. */
export const SESSION_COOKIE = 'adoption_session'

/**
 * Who is calling the admin API. Operators see and change every project; owners see only the
 * projects they are members of, and cannot call operator actions (plans, new projects); viewers
 * (volunteers, auditors) are members like owners and change nothing (see readOnly).
 * The ADMIN_TOKEN bearer is an operator without an account.
 */
export type AdminPrincipal =
  | { role: 'operator'; userId: number | null; email: string | null }
  | { role: 'owner' | 'viewer'; userId: number; email: string; projectIds: ReadonlySet<number> }

/** A request's live session, as the admin scope's authentication finds it. */
export interface SignedIn {
  sessionId: string
  csrfToken: string
  user: { id: number; email: string; role: UserRole }
  principal: AdminPrincipal
}

/** Opens the session a cookie's token stands for (the sessions service). */
export interface SessionLookup {
  authenticate(token: string): Promise<SignedIn | undefined>
}

/** Whether two secrets are equal, compared as digests in constant time: not even the length is revealed. */
export function sameSecret(sent: string, expected: string): boolean {
  return timingSafeEqual(hash('sha256', sent, 'buffer'), hash('sha256', expected, 'buffer'))
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
  if (!sameSecret(value, token)) {
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
 * A viewer's change: 403 `forbidden`, whatever the operation. Checked by the admin scope for every
 * state-changing route but the self-service ones (`config.selfService`: signing out, one's own
 * password), so an operation added later is read-only for viewers without having to say so.
 */
export function refuseViewer(principal: AdminPrincipal): void {
  if (principal.role === 'viewer') {
    throw new ApiError('forbidden', 'Your role is viewer, which is read-only: you may see your projects but not change them. Ask an operator or an owner.')
  }
}

/** An `onRequest` hook for operator actions: checked before the body is read, so an owner learns nothing from validation. */
export async function operatorOnly(request: FastifyRequest): Promise<void> {
  requireOperator(request)
}

/**
 * An `onRequest` hook for what only owners and operators may read (a project's whole data, with its
 * members' emails): a viewer gets 403 `forbidden`.
 */
export async function ownersAndOperators(request: FastifyRequest): Promise<void> {
  if (request.adminPrincipal.role === 'viewer') {
    throw new ApiError('forbidden', 'Your role is viewer, which may not export a project (the archive holds its members\' emails and its enquirers\' details): ask an owner or an operator.')
  }
}
