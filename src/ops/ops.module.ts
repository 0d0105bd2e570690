import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { DatabaseHandle } from '../db/database.js'
import type { DatabaseOutage } from '../db/outage.js'
import { healthRoutes } from './health.routes.js'
import { Metrics } from './metrics.js'

export interface OpsDeps {
  database: DatabaseHandle
  outage: DatabaseOutage
  /** The limiter's store in use, for readiness: 'redis-degraded' while Redis is away. */
  limiter: { status(): 'memory' | 'redis' | 'redis-degraded' }
}

/** What operators watch, wired: the Prometheus metrics, and the liveness and readiness routes. */
export interface Ops {
  metrics: Metrics
  /** `/healthz` and `/readyz`. */
  routes: FastifyPluginAsyncTypebox
}

export function createOps({ database, outage, limiter }: OpsDeps): Ops {
  return { metrics: new Metrics(), routes: (app) => healthRoutes(app, { database, outage, limiter }) }
}
