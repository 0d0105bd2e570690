import { Type } from 'typebox'
import type { FastifyReply } from 'fastify'
import { ERROR_CATALOG, type ErrorCode, type Failure, orThrow } from '../errors.js'

/** OpenAPI response headers, keyed by name; each lands in `responses.<status>.headers`. */
export type HeaderDocs = Record<string, { type: 'string' | 'integer'; description: string }>

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid; the message names the field and the fix',
  401: 'Missing or invalid API key',
  404: 'The requested resource could not be found',
  409: 'Conflict with the current state; see the code',
  410: 'The operation has been removed',
  413: 'The body is larger than the limit',
  414: 'The URL (path and query string) is longer than 8 KiB; refused before anything else, without rate-limit headers',
  415: 'The body is not application/json',
  422: 'The request cannot be processed as sent; see the code',
  429: 'Too many requests; wait for Retry-After seconds',
  500: 'Unexpected error; logged with the request id',
  503: 'Temporarily unavailable; retry later',
}

const ERROR_HEADERS: Record<number, HeaderDocs> = {
  401: {
    'WWW-Authenticate': { type: 'string', description: 'Bearer challenge (RFC 6750); `error="invalid_token"` when a key was sent but refused' },
  },
  429: {
    'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying (at least 1); then back off exponentially' },
  },
  503: {
    'Retry-After': {
      type: 'integer',
      description: "Seconds to wait before retrying: 1 while the database cannot be reached or the instance shuts down, 30 while the service's storage is full (writes only)",
    },
  },
}

const errorResponsesMade = new Map<string, Readonly<Record<number, object>>>()

/**
 * The documented error responses of an operation, with the codes each status can carry. Made once
 * per list of statuses, and frozen: every route of every app shares them, so that its serializers
 * are found again by their schemas' identity (src/http/serialization.ts).
 */
export function errorResponses(...statuses: number[]): Readonly<Record<number, object>> {
  const key = statuses.join()
  let responses = errorResponsesMade.get(key)
  if (!responses) {
    responses = Object.freeze(
      Object.fromEntries(
        statuses.map((status) => {
          const codes = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((code) => ERROR_CATALOG[code].status === status)
          const description = `${ERROR_DESCRIPTIONS[status] ?? 'Error'} (code: ${codes.join(' or ')})`
          return [status, Object.freeze({ description, headers: ERROR_HEADERS[status] ?? {}, ...Type.Ref('Error') })]
        }),
      ),
    )
    errorResponsesMade.set(key, responses)
  }
  return responses
}

/** Answers 204 once the operation succeeded; its expected failure is thrown as its catalog error. */
export async function sendNoContent(reply: FastifyReply, operation: Promise<{ ok: true } | Failure>): Promise<FastifyReply> {
  orThrow(await operation)
  return reply.code(204).send(null)
}

/** The documented answer of an operation that answers 204 with no body. */
export function noContent(description: string): Record<204, object> {
  return { 204: { description, type: 'null' } }
}
