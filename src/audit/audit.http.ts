import type { FastifyRequest } from 'fastify'
import type { Change } from './audit.js'

/** The change an admin request makes, as the audit log records it: who is calling, and the request id. */
export function changeOf(request: FastifyRequest): Change {
  const principal = request.adminPrincipal
  const actor =
    principal.userId === null || principal.email === null
      ? { kind: 'admin_token' as const, userId: null, name: 'ADMIN_TOKEN' }
      : { kind: 'user' as const, userId: principal.userId, name: principal.email }
  return { actor, requestId: request.id }
}
