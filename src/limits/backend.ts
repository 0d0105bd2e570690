import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import { openRedis, type RedisSettings, withRedis } from '../redis/redis.js'
import { FailoverLimiterStore, type FailoverEvents } from './failover.store.js'
import { MemoryLimiterStore } from './memory.store.js'
import { RedisLimiterStore } from './redis.store.js'
import type { LimiterStore } from './store.js'

export interface LimiterBackend {
  store: LimiterStore
  /** The Redis store behind `store`, when REDIS_URL is set. */
  shared?: RedisLimiterStore | undefined
  /** 'memory', 'redis', or 'redis-degraded' while Redis is away. */
  status(): 'memory' | 'redis' | 'redis-degraded'
  /** The in-process store, when bans recorded in the database must be restored into it. */
  local: MemoryLimiterStore
}

/** The one place that chooses the limiter store: Redis when REDIS_URL is set, else in process. */
export async function createLimiterBackend(
  settings: RedisSettings,
  clock: Clock,
  log: FastifyBaseLogger,
  events: FailoverEvents,
): Promise<LimiterBackend> {
  const local = new MemoryLimiterStore(clock)
  if (!settings.redisUrl) return { store: local, local, status: () => 'memory' }
  const shared = new RedisLimiterStore(openRedis({ ...settings, redisUrl: settings.redisUrl }, 'requests'))
  const store = new FailoverLimiterStore(shared, local, log, events)
  await store.start()
  return { store, shared, local, status: () => (store.isDegraded ? 'redis-degraded' : 'redis') }
}

/**
 * The store as a process without a limiter of its own (a command) reaches it: a ban is lifted in
 * Redis, on a connection of its own, when Redis is configured. In-process stores re-read the ban's
 * record within a second.
 */
export function commandStore(settings: RedisSettings): Pick<LimiterStore, 'unban'> {
  return { unban: (keyId) => withRedis(settings, 'requests', (redis) => new RedisLimiterStore(redis).unban(keyId)) }
}
