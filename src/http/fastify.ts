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

/** The Fastify instance every route lives on, with the service's HTTP policies set at construction. */
export function createFastify(config: Config, logger: LoggerOption | undefined): FastifyInstance {
  return Fastify({
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
  }).withTypeProvider<TypeBoxTypeProvider>()
}
