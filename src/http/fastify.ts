import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Config } from '../config.js'
import { answerClientError } from './client-errors.js'
import { frameworkErrorHandler } from './error-handler.js'
import { RequestLogController } from './logging.js'
import { requestId } from './request-id.js'
import { buildSerializer } from './serialization.js'
import { buildValidator } from './validation.js'

/** Pino options or an instance; `false` for none; absent for JSON logs at `config.logLevel`. */
export type LoggerOption = FastifyServerOptions['loggerInstance'] | false

/**
 * An answer given before Fastify sees a request, for the hottest read of public, immutable bytes
 * (a photo's file already in memory): true when it answered, false to leave the request to the
 * app. It answers exactly what the app's route would, headers included, or does not answer.
 */
export type EarlyAnswer = (request: IncomingMessage, response: ServerResponse) => boolean

/** Where the app sets its early answer once its features are built: the server exists before them. */
export interface EarlyAnswers {
  answer?: EarlyAnswer | undefined
}

/** The Fastify instance every route lives on, with the service's HTTP policies set at construction. */
export function createFastify(config: Config, logger: LoggerOption | undefined, early: EarlyAnswers = {}): FastifyInstance {
  const app = Fastify({
    ...(logger === undefined
      ? { logger: { level: config.logLevel, redact: ['req.headers.authorization'] } }
      : logger === false
        ? { logger: false }
        : { loggerInstance: logger }),
    bodyLimit: config.bodyLimit,
    // HEAD answers every GET route (RFC 9110): the GET's hooks, status and headers, no body. The
    // OpenAPI documents leave HEAD out (@fastify/swagger's default).
    exposeHeadRoutes: true,
    requestIdHeader: false,
    genReqId: requestId,
    logController: new RequestLogController(),
    // Answered by the shutdown refusal (lifecycle.ts) in the API's own error envelope instead.
    return503OnClosing: false,
    // One validator compiler for every scope (see buildValidator); each response serializer
    // compiled once per distinct schema (see buildSerializer).
    schemaController: { compilersFactory: { buildValidator, buildSerializer } },
    // Errors raised before routing, in the same envelope.
    frameworkErrors: frameworkErrorHandler(config),
    // And what the HTTP server refuses before a request exists (too slow, headers too large).
    clientErrorHandler: answerClientError,
    // A hop count is accepted at run time, though Fastify's types omit it.
    trustProxy: config.trustProxy as boolean | string,
    // Node's server, as Fastify would make it (its limits are set in server.ts), asking the early
    // answer first. `inject` and the HTTPS listener route straight to the app.
    serverFactory: (handler) =>
      createServer((request, response) => {
        if (!early.answer?.(request, response)) handler(request, response)
      }),
  }).withTypeProvider<TypeBoxTypeProvider>()
  // Once shutdown begins, every request goes through the app, which turns it away.
  app.addHook('preClose', async () => {
    early.answer = undefined
  })
  return app
}
