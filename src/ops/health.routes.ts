import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DatabaseHandle } from '../db/database.js'
import { ApiError } from '../errors.js'

/** Liveness and readiness for load balancers and orchestrators; outside /v1, never rate limited. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ database: DatabaseHandle }> = async (app, { database }) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))

  app.get('/readyz', { schema: { hide: true } }, async (request) => {
    try {
      await database.ping()
    } catch (err) {
      request.log.warn({ err }, 'readiness: database unreachable')
      throw new ApiError('service_unavailable', `Not ready: the ${database.dialect} database does not answer.`)
    }
    return { status: 'ready', checks: { database: 'ok' } }
  })
}
