import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DatabaseHandle } from '../db/database.js'
import type { DatabaseOutage } from '../db/outage.js'
import { ApiError } from '../errors.js'

/** Liveness and readiness for load balancers and orchestrators; outside /v1, never rate limited. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ database: DatabaseHandle; outage: DatabaseOutage; limiter: { status(): 'memory' | 'redis' | 'redis-degraded' } }> = async (
  app,
  { database, outage, limiter },
) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))

  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await database.ping()
    } catch (error) {
      // Logged once per outage, however often the balancer asks.
      outage.report(error)
      throw new ApiError('service_unavailable', `Not ready: the ${database.dialect} database does not answer.`)
    }
    // Redis away is not a reason to take the instance out of service: limits hold per instance
    // meanwhile (the outage policy). It is reported, for alerting.
    const limits = limiter.status()
    return {
      status: limits === 'redis-degraded' ? 'degraded' : 'ready',
      checks: { database: 'ok', limiter: limits === 'redis-degraded' ? 'degraded: Redis unavailable, limits kept per instance' : limits },
    }
  })
}
