import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { RedisSettings } from '../redis/redis.js'
import { createLimiterBackend, type LimiterBackend } from './backend.js'
import type { FailoverEvents } from './failover.store.js'
import { type RateLimiterDeps, RateLimiter } from './limits.service.js'

export interface LimitsDeps extends Omit<RateLimiterDeps, 'backend'> {
  /** REDIS_URL chooses the store: Redis, else this process. */
  config: RedisSettings
  clock: Clock
  log: FastifyBaseLogger
  /** Told when Redis fails and when it answers again. */
  failover: FailoverEvents
}

/** Rate limits, wired: the store chosen from configuration, and the limiter that counts and decides on it. */
export interface Limits {
  backend: LimiterBackend
  limiter: RateLimiter
}

export async function createLimits({ config, clock, log, failover, ...limiter }: LimitsDeps): Promise<Limits> {
  const backend = await createLimiterBackend(config, clock, log, failover)
  return { backend, limiter: new RateLimiter({ ...limiter, backend, log }) }
}
