import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { MERGE_PATCH } from '../http/json-body.js'
import { noSuchPet } from './pets.service.js'

/**
 * Trims the name before validation, so the 1..100 length rule applies to the name as stored; and
 * says why a change of `status` is refused, rather than only that the field is unknown.
 */
export async function prepareBody(request: FastifyRequest): Promise<void> {
  const body = request.body as { name?: unknown; status?: unknown } | null
  if (!body || typeof body !== 'object' || Array.isArray(body)) return
  if (typeof body.name === 'string') body.name = body.name.trim()
  if (request.method === 'PATCH' && 'status' in body) {
    throw new ApiError(
      'invalid_request',
      'Unknown field "status": an animal\'s status changes only through its adoption orders (place, approve, deliver, cancel); remove it.',
    )
  }
}

/**
 * The media types of a change of an animal (updatePet, updateAnimal): JSON Merge Patch (RFC 7396),
 * or plain JSON, which means the same here (neither field may be removed, so `null` is refused as
 * any wrong type is). A scope with such a route must `acceptMergePatch`.
 */
export const PET_CHANGES_MEDIA_TYPES = [MERGE_PATCH, 'application/json']

/** The answer for an animal that is not the caller's project's, or not at all. */
export function petNotFound(id: number): ApiError {
  return new ApiError('not_found', noSuchPet(id))
}
