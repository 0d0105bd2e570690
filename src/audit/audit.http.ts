import type { FastifyRequest } from 'fastify'
import { anonymousChange, apiKeyChange, type Change } from './audit.js'

/** The change an admin request makes, as the audit log records it: who is calling, and the request id. */
export function changeOf(request: FastifyRequest): Change {
  const principal = request.adminPrincipal
  const actor =
    principal.userId === null || principal.email === null
      ? { kind: 'admin_token' as const, userId: null, name: 'ADMIN_TOKEN' }
      : { kind: 'user' as const, userId: principal.userId, name: principal.email }
  return { actor, requestId: request.id }
}

/** A write through /v1, as the audit log records it: the API key that made it (its id, never its secret). */
export function keyChangeOf(request: FastifyRequest): Change {
  return apiKeyChange(request.principal.keyId, request.id)
}

/** A write by someone who signed nothing (an enquiry on the adoption site, a failed sign-in). */
export function anonymousChangeOf(request: FastifyRequest): Change {
  return anonymousChange(request.id)
}
