import type { RedisConnection } from '../redis/redis.js'
import type { BanPolicy, ConsumeRequest, Decision, LimiterStore, StaleDecision, WindowState } from './store.js'

/**
 * The limiter's shared store: one round trip of the CONSUME script (src/redis/redis.ts) per
 * request, on a `requests` connection, so N instances admit exactly the limit.
 */
export class RedisLimiterStore implements LimiterStore {
  /** `redis`: a `requests` connection, which this store closes. */
  constructor(readonly redis: RedisConnection) {}

  async connect(): Promise<void> {
    await this.redis.connect()
  }

  async ping(): Promise<void> {
    await this.redis.client.ping()
  }

  async consume({ subject, windows, ban, generations }: ConsumeRequest): Promise<Decision | StaleDecision> {
    const policy: BanPolicy | undefined = ban?.policy
    const args = [
      generations?.expectAuth ?? '',
      generations?.projectId ?? 0,
      windows.length,
      ...windows.flatMap((w) => [w.name, w.limit, w.lengthMs]),
      ...(policy ? [policy.afterRejections, policy.baseMs, policy.maxMs, policy.repeatWithinMs] : []),
    ]
    const reply = await this.redis.consume([this.redis.key(`rl:${subject}`), ban ? this.banKey(ban.keyId) : '', generations ? this.redis.key('gen:') : ''], args)
    const [outcome, now, until, level] = reply as [number, number, number, number]
    const states: WindowState[] = windows.map((window, i) => ({
      name: window.name,
      limit: window.limit,
      lengthMs: window.lengthMs,
      // After a charge the script answers the new count, which includes this request.
      remaining: Math.max(0, window.limit - (reply[4 + i] ?? 0)),
      resetAt: reply[4 + windows.length + i] ?? 0,
    }))
    const tokens = generations ? { auth: String(reply[4 + 2 * windows.length]), data: String(reply[5 + 2 * windows.length]) } : undefined
    if (outcome === 0) return { outcome: 'allowed', now, windows: states, tokens }
    if (outcome === 1) return { outcome: 'limited', now, windows: states, tokens }
    if (outcome === 4) return { outcome: 'stale', now, windows: states, tokens: tokens! }
    return { outcome: 'banned', now, windows: states, until, level, started: outcome === 3, tokens }
  }

  async unban(keyId: string): Promise<void> {
    await this.redis.client.del(this.banKey(keyId), `${this.banKey(keyId)}:level`)
  }

  async close(): Promise<void> {
    this.redis.close()
  }

  private banKey(keyId: string): string {
    return this.redis.key(`ban:${keyId}`)
  }
}
