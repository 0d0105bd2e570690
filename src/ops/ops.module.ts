import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { DatabaseHandle } from '../db/database.js'
import { DatabaseOutage } from '../db/outage.js'
import { probeDirectory, StorageFull } from '../db/storage-full.js'
import { healthRoutes } from './health.routes.js'
import { Metrics } from './metrics.js'

export interface OpsDeps {
  database: DatabaseHandle
  log: FastifyBaseLogger
  /** Where files are written (DATA_DIR): probed for room while the file storage is full. */
  dataDir: string
  /** The limiter's store in use, for readiness: 'redis-degraded' while Redis is away. */
  limiter: { status(): 'memory' | 'redis' | 'redis-degraded' }
}

/**
 * What operators watch, wired: the Prometheus metrics, the watches of a database outage and of a
 * full storage (each logged once, however many requests and background passes meet it), and the
 * liveness and readiness routes.
 */
export interface Ops {
  metrics: Metrics
  outage: DatabaseOutage
  storage: StorageFull
  /** `/healthz` and `/readyz`. */
  routes: FastifyPluginAsyncTypebox
}

export function createOps({ database, log, dataDir, limiter }: OpsDeps): Ops {
  const metrics = new Metrics()
  const storage = new StorageFull({
    probes: { database: () => database.probeRoom(), files: () => probeDirectory(dataDir) },
    log,
    observer: metrics.storageObserver,
  })
  const outage = new DatabaseOutage(() => database.ping(), log, storage)
  return { metrics, outage, storage, routes: (app) => healthRoutes(app, { database, outage, storage, limiter }) }
}
