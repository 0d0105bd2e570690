import type { FastifyBaseLogger } from 'fastify'
import type { ConsumeRequest, Decision, LimiterStore, StaleDecision } from './store.js'
import type { MemoryLimiterStore } from './memory.store.js'
import type { RedisLimiterStore } from './redis.store.js'

export interface FailoverEvents {
  /** A command to the shared store failed or timed out. */
  onError(): void
  /** Switched to the in-process store (true) or back to the shared one (false). */
  onFallback(active: boolean): void
}

/**
 * The Redis outage policy: when Redis fails or does not answer within its command timeout,
 * requests are limited by this instance's in-process store (so each instance still holds the
 * plan limit), and Redis is probed in the background until it answers again.
 * Authentication is not involved: it never fails open.
 */
export class FailoverLimiterStore implements LimiterStore {
  private degraded = false
  private probe: NodeJS.Timeout | undefined

  constructor(
    private readonly shared: RedisLimiterStore,
    private readonly local: MemoryLimiterStore,
    private readonly log: FastifyBaseLogger,
    private readonly events: FailoverEvents,
    private readonly probeEveryMs = 500,
  ) {}

  /** Whether requests are being limited per instance because Redis is away. */
  get isDegraded(): boolean {
    return this.degraded
  }

  async start(): Promise<void> {
    try {
      await this.shared.connect()
    } catch (err) {
      this.fallBack(err)
    }
  }

  async consume(request: ConsumeRequest): Promise<Decision | StaleDecision> {
    if (this.degraded) return this.local.consume(request)
    try {
      return await this.shared.consume(request)
    } catch (err) {
      this.fallBack(err)
      return this.local.consume(request)
    }
  }

  async unban(keyId: string): Promise<void> {
    await this.local.unban(keyId)
    await this.shared.unban(keyId)
  }

  async close(): Promise<void> {
    clearInterval(this.probe)
    await this.local.close()
    await this.shared.close()
  }

  private fallBack(err: unknown): void {
    this.events.onError()
    if (this.degraded) return
    this.degraded = true
    this.events.onFallback(true)
    // Once per outage.
    this.log.warn({ err }, 'Redis unavailable: rate limits fall back to this instance until it answers again')
    this.probe = setInterval(() => {
      this.shared.ping().then(
        () => this.recover(),
        () => undefined,
      )
    }, this.probeEveryMs)
    this.probe.unref()
  }

  private recover(): void {
    if (!this.degraded) return
    clearInterval(this.probe)
    this.probe = undefined
    this.degraded = false
    this.events.onFallback(false)
    this.log.info('Redis answers again: rate limits are shared across instances again')
  }
}
