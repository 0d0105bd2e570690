import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.js'
import { MERGE_PATCH } from '../http/json-body.js'
import { errorResponses } from '../openapi/responses.js'
import { PET_FIELD_NAMES } from './pets.schemas.js'
import type { PetField, PetsQuery } from './pets.search.js'
import { noSuchPet, type PetsPage } from './pets.service.js'

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
 * any wrong type is). Such a route is registered with `withMergePatch`.
 */
export const PET_CHANGES_MEDIA_TYPES = [MERGE_PATCH, 'application/json']

/** The answer for an animal that is not the caller's project's, or not at all. */
export function petNotFound(id: number): ApiError {
  return new ApiError('not_found', noSuchPet(id))
}

/**
 * What a removal answers (deletePet, removeAnimal). No body is taken, but one sent is still read:
 * 413 and 415 as for any request with a body.
 */
export const REMOVAL_RESPONSES = { 204: { description: 'Removed', type: 'null' }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) }

export const TOTAL_COUNT_DOC = {
  'X-Total-Count': { type: 'integer', description: 'With `count=true`: how many animals match the filters, across every page' },
} as const

/** The fields `fields` names, every field for `*`; undefined when not sent. */
export function fieldsOf(fields: string | undefined): ReadonlySet<PetField> | undefined {
  if (fields === undefined) return undefined
  return new Set<PetField>(fields === '*' ? PET_FIELD_NAMES : (fields.split(',') as PetField[]))
}

/** A query as the response cache keys it: every parameter that shapes the answer, in a fixed order. */
export function queryKey(query: Record<string, unknown>): string {
  return JSON.stringify(Object.keys(query).sort().map((name) => [name, query[name]]))
}

/**
 * The `Link: <…>; rel="next"` header of a page: the same query with where the next page starts
 * (`after`, an id, for the default order; `cursor` otherwise). `limit` and `status` come first,
 * as in every list of this API.
 */
export function nextLink(path: string, query: PetsQuery, next: PetsPage['next']): string | undefined {
  if (next === undefined) return undefined
  const params = new URLSearchParams()
  const { limit = 20, status, ...rest } = query
  params.set('limit', String(limit))
  if (status !== undefined) params.set('status', status)
  for (const [name, value] of Object.entries(rest)) if (value !== undefined && name !== 'after' && name !== 'cursor') params.set(name, String(value))
  if ('after' in next) params.set('after', String(next.after))
  else params.set('cursor', next.cursor)
  return `<${path}?${params.toString()}>; rel="next"`
}
