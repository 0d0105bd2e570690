import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DatabaseHandle } from '../db/database.js'
import type { DatabaseOutage } from '../db/outage.js'
import type { StorageFull } from '../db/storage-full.js'
import { ApiError, STORAGE_FULL_RETRY_AFTER_S } from '../errors.js'

/** Liveness and readiness for load balancers and orchestrators; outside /v1, never rate limited. */
export const healthRoutes: FastifyPluginAsyncTypebox<{
  database: DatabaseHandle
  outage: DatabaseOutage
  storage: Pick<StorageFull, 'full'>
  limiter: { status(): 'memory' | 'redis' | 'redis-degraded' }
}> = async (app, { database, outage, storage, limiter }) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }))

  app.get('/readyz', { schema: { hide: true } }, async () => {
    try {
      await database.ping()
    } catch (error) {
      // Logged once per outage, however often the balancer asks.
      outage.report(error)
      throw new ApiError('service_unavailable', `Not ready: the ${database.dialect} database does not answer.`)
    }
    // A full storage takes no write until there is room (found by the watch's probe, which runs
    // without traffic): the instance is not ready, though it still answers reads.
    const full = storage.full()
    if (full.length > 0) {
      const what = full.map((name) => (name === 'database' ? "the database's storage" : 'the file storage')).join(' and ')
      throw new ApiError('service_unavailable', `Not ready: ${what} ${full.length > 1 ? 'are' : 'is'} full, so writes are refused until there is room; reads still answer.`, { 'retry-after': String(STORAGE_FULL_RETRY_AFTER_S) })
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
