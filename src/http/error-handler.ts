import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isDatabaseUnavailable } from '../db/errors.js'
import type { DatabaseOutage } from '../db/outage.js'
import type { StorageFull } from '../db/storage-full.js'
import { ApiError, toApiError } from '../errors.js'
import { setDefaultResponseHeaders } from './caching.js'

/** The one place a failure becomes a response: `{ code, message, status }` as application/json. */
export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(error.toBody())
}

/** The watches that log an outage once, however many requests meet it. */
export interface OutageWatches {
  outage: Pick<DatabaseOutage, 'report'>
  storage: Pick<StorageFull, 'refused'>
}

export function installErrorHandling(app: FastifyInstance, limits: { bodyLimit: number }, watches?: OutageWatches): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // The service's own refusals first: they need no classifying.
    if (error instanceof ApiError) return sendError(reply, error)
    // An unavailable database, or a full storage, is logged once per outage, not once per request it fails.
    if (isDatabaseUnavailable(error)) watches?.outage.report(error)
    else watches?.storage.refused(error)
    const known = toApiError(error, limits)
    if (known) return sendError(reply, known)
    return sendError(reply, unexpected(error, request))
  })
  app.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)))
  // An unknown route answers 404 before its body is read: the not-found route would otherwise
  // parse a body it has no use for, and answer 400, 413 or 415 for it instead.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    if (request.is404) return done(notFound(request))
    done(null, payload)
  })
}

/**
 * For `frameworkErrors`: what Fastify rejects before routing (a malformed URL encoding, an
 * overlong path parameter) bypasses the error handler and the hooks, so it is answered here.
 */
export function frameworkErrorHandler(limits: { bodyLimit: number }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    reply.header('x-request-id', request.id)
    setDefaultResponseHeaders(reply)
    const known = toApiError(error, limits)
    return sendError(reply, known ?? unexpected(error, request))
  }
}

/** A bug or an unexpected failure: log everything, tell the client nothing internal. */
function unexpected(error: unknown, request: FastifyRequest): ApiError {
  request.log.error({ err: error }, 'unhandled error')
  return new ApiError('internal_error', `An unexpected error occurred. It was logged with request id ${request.id}; retry later or report it with that id.`)
}

export function notFound(request: FastifyRequest): ApiError {
  const path = request.url.split('?', 1)[0]
  return new ApiError('not_found', `No route ${request.method} ${path}. The API lives under /v1; see /v1/openapi.json.`)
}
