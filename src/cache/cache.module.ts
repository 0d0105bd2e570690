import type { FastifyBaseLogger } from 'fastify'
import type { Config } from '../config.js'
import type { DatabaseHandle } from '../db/database.js'
import type { LimiterBackend } from '../limits/backend.js'
import { createGenerations, type Generations } from './generations.js'
import { type CacheCounters, ResponseCache } from './response-cache.js'

export interface CacheDeps {
  config: Pick<Config, 'responseCacheBytes'>
  database: DatabaseHandle
  /** The limiter's store: shared generations travel on its Redis connection, and are not trusted while it is away. */
  limiter: LimiterBackend
  log: FastifyBaseLogger
  counters: CacheCounters
}

/** What an instance keeps and when it is still true: the generations, and the pages cached under them. */
export interface Cache {
  generations: Generations
  responses: ResponseCache
}

export async function createCache({ config, database, limiter, log, counters }: CacheDeps): Promise<Cache> {
  const generations = await createGenerations(database, limiter, log)
  return { generations, responses: new ResponseCache(generations, config.responseCacheBytes, counters) }
}
