import type { FastifyBaseLogger } from 'fastify'
import type { Db } from '../db/database.js'
import { openRedis, type RedisConnection, type RedisSettings, withRedis } from '../redis/redis.js'
import { readGeneration } from './domains.repository.js'

/**
 * How an instance learns that routing data (domains, redirects, certificates) changed anywhere:
 * every change bumps a generation number in the database, in the same transaction, and then
 * announces it. Caches compare the generation before they answer.
 */
export interface RoutingChanges {
  /** The current generation: a cache built at another generation is stale. */
  generation(): Promise<number>
  /** Tells every instance, after the change is committed. */
  announce(generation: number): Promise<void>
  close(): Promise<void>
}

/** Without Redis: the generation is read from the database, one primary-key read per routed request. */
export class DatabaseRoutingChanges implements RoutingChanges {
  constructor(private readonly db: Db) {}
  generation(): Promise<number> {
    return readGeneration(this.db)
  }
  async announce(): Promise<void> {}
  async close(): Promise<void> {}
}

/** How often the Redis variant re-reads the generation anyway, in case an announcement was lost. */
const RESYNC_MS = 5_000

/** The channel routing changes are announced on. */
const CHANNEL = 'domains:routing'

/**
 * With Redis: announcements are published on a channel every instance subscribes to, so a
 * routed request costs no database read. While the subscription is down (Redis away, or not yet
 * resynchronised) the generation is read from the database instead, so a change never goes
 * unnoticed; a periodic re-read covers a lost announcement.
 */
export class RedisRoutingChanges implements RoutingChanges {
  private readonly subscriber: RedisConnection
  private readonly publisher: RedisConnection
  private readonly channel: string
  /** The generation known from the subscription; undefined while it cannot be trusted. */
  private known: number | undefined
  private resync: NodeJS.Timeout | undefined
  private closed = false

  constructor(
    private readonly db: Db,
    settings: RedisSettings & { redisUrl: string },
    private readonly log: FastifyBaseLogger,
  ) {
    this.subscriber = openRedis(settings, 'subscribe')
    this.publisher = openRedis(settings, 'publish')
    this.channel = this.publisher.key(CHANNEL)
    const subscription = this.subscriber.client
    subscription.on('message', (_channel: string, message: string) => {
      const generation = Number(message)
      if (this.known !== undefined && Number.isSafeInteger(generation)) this.known = Math.max(this.known, generation)
    })
    subscription.on('close', () => {
      this.known = undefined
    })
    subscription.on('ready', () => void this.synchronise())
  }

  async start(): Promise<void> {
    await Promise.all([this.subscriber.connect(), this.publisher.connect()]).catch((err: unknown) => {
      this.log.warn({ err }, 'domains: Redis unavailable; routing changes are read from the database until it returns')
    })
    this.resync = setInterval(() => void this.synchronise(), RESYNC_MS)
    this.resync.unref()
  }

  /** Subscribes (again), then reads the generation: nothing committed before is missed. */
  private async synchronise(): Promise<void> {
    if (this.closed || this.subscriber.client.status !== 'ready') return
    try {
      await this.subscriber.client.subscribe(this.channel)
      const generation = await readGeneration(this.db)
      if (this.subscriber.client.status === 'ready') this.known = Math.max(this.known ?? 0, generation)
    } catch (err) {
      this.known = undefined
      this.log.warn({ err }, 'domains: could not resynchronise routing changes')
    }
  }

  async generation(): Promise<number> {
    return this.known ?? readGeneration(this.db)
  }

  async announce(generation: number): Promise<void> {
    if (this.known !== undefined) this.known = Math.max(this.known, generation)
    await this.publisher.client.publish(this.channel, String(generation)).catch((err: unknown) => {
      this.log.warn({ err }, 'domains: could not announce a routing change; other instances see it within seconds')
    })
  }

  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.resync)
    this.subscriber.close()
    this.publisher.close()
  }
}

/** The one place that chooses how changes travel: Redis when configured, else the database. */
export async function createRoutingChanges(db: Db, settings: RedisSettings, log: FastifyBaseLogger): Promise<RoutingChanges> {
  if (!settings.redisUrl) return new DatabaseRoutingChanges(db)
  const changes = new RedisRoutingChanges(db, { ...settings, redisUrl: settings.redisUrl }, log)
  await changes.start()
  return changes
}

/**
 * For a process without a subscription (a command): the generation is read from the database, and
 * each announcement is published on a connection of its own, when Redis is configured.
 */
export class AnnouncedRoutingChanges implements RoutingChanges {
  constructor(
    private readonly db: Db,
    private readonly settings: RedisSettings,
  ) {}

  generation(): Promise<number> {
    return readGeneration(this.db)
  }

  async announce(generation: number): Promise<void> {
    await withRedis(this.settings, 'announce', async (redis) => {
      await redis.client.publish(redis.key(CHANNEL), String(generation))
    }).catch(() => {
      // The servers re-read the generation within seconds anyway.
    })
  }

  async close(): Promise<void> {}
}
