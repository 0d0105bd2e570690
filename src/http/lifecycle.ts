import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { ApiError } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { setDefaultResponseHeaders } from './caching.js'
import { installCompression } from './compression.js'
import { installErrorHandling, type OutageWatches } from './error-handler.js'
import { answerHeadLikeGet } from './head.js'
import { installJsonBodyParser } from './json-body.js'
import { checkUrlLength } from './request-limits.js'

/** Set by Node on the response to a connection's last allowed request; not in its types. */
type LastOnConnection = { maxRequestsOnConnectionReached?: boolean }

/** A part of the app with work of its own to start and stop: a timer, a connection, a pool. */
export interface Part {
  start?(): void | Promise<void>
  close?(): void | Promise<void>
}

/**
 * What every request goes through before and after its route, installed before any route:
 * compression and HEAD (both equip each route as it is added), the error envelope, JSON bodies
 * only, the request id and default headers, the URL length limit and the shutdown refusal.
 */
export async function installRequestPipeline(app: FastifyInstance, config: Config, watches: OutageWatches): Promise<void> {
  await installCompression(app)
  answerHeadLikeGet(app)
  // Any operation may be refused for the length of its URL (414, checked below): each says so.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide || !route.schema?.response) return
    route.schema = { ...route.schema, response: { ...(route.schema.response as object), ...errorResponses(414) } }
  })
  installErrorHandling(app, config, watches)
  // Only JSON bodies: anything else is 415, not a string that fails validation.
  installJsonBodyParser(app)

  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  // The hooks every request runs are callback-style where they do not wait: no promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    setDefaultResponseHeaders(reply)
    // The first check of all: an overlong URL is refused whatever route it matched, before any work.
    const tooLong = checkUrlLength(request.url)
    if (tooLong) return done(tooLong)
    // Requests still arriving on open connections during shutdown are turned away, politely.
    if (!closing) return done()
    done(new ApiError('service_unavailable', 'This instance is shutting down: retry the request, another instance will answer.', { 'retry-after': '1' }))
  })
  // A request in flight when shutdown began ends its keep-alive connection with its answer: an
  // idle connection left open would hold `close()` (and the process) until the keep-alive timeout.
  // So does the last request a connection may carry (maxRequestsPerSocket): Node only announces
  // `Connection: close` then, and would keep the socket open for a client that ignores it.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing || (reply.raw as LastOnConnection).maxRequestsOnConnectionReached) reply.header('connection', 'close')
    done(null, payload)
  })
}

/**
 * Starts the parts when the app is ready and closes them, in the order given, when it closes:
 * whatever writes to the database (the last usage counts) before the database itself.
 */
export function runParts(app: FastifyInstance, parts: readonly Part[]): void {
  app.addHook('onReady', async () => {
    for (const part of parts) await part.start?.()
  })
  app.addHook('onClose', async () => {
    for (const part of parts) await part.close?.()
  })
}
