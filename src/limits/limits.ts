import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { ApiError } from '../errors.js'
import { findApiKey } from '../keys/keys.repository.js'
import type { Principal } from '../keys/keys.service.js'
import { deleteBan, findBan, listActiveBans, recordBan } from './bans.repository.js'
import { FailoverLimiterStore, type FailoverEvents } from './failover.store.js'
import { BAN_POLICY, banLength, bindingWindow, DAY_MS, type Decision, type LimiterStore, MINUTE_MS, type StaleDecision, type Window } from './limiter.js'
import { MemoryLimiterStore } from './memory.store.js'
import { RedisLimiterStore } from './redis.store.js'

/**
 * Lifts a key's ban from outside the server (the CLI): deletes its record, which in-process
 * stores re-read within a second, and its Redis state when Redis is configured.
 */
export async function liftBan(db: Db, settings: LimiterSettings, keyId: string): Promise<{ ok: true; wasBanned: boolean } | { ok: false; message: string }> {
  if (!(await findApiKey(db, keyId))) return { ok: false, message: `No API key with id "${keyId}".` }
  const wasBanned = await deleteBan(db, keyId)
  if (settings.redisUrl) {
    const redis = new RedisLimiterStore(settings.redisUrl, { keyPrefix: settings.redisKeyPrefix, commandTimeoutMs: settings.redisTimeoutMs })
    try {
      await redis.connect()
      await redis.unban(keyId)
    } finally {
      await redis.close()
    }
  }
  return { ok: true, wasBanned }
}

/** Requests without a valid key are limited per client address, so keys cannot be guessed at speed. */
export const ADDRESS_LIMIT_PER_MINUTE = 60

export interface LimiterSettings {
  redisUrl: string | undefined
  redisKeyPrefix: string
  redisTimeoutMs: number
}

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
  settings: LimiterSettings,
  clock: Clock,
  log: FastifyBaseLogger,
  events: FailoverEvents,
): Promise<LimiterBackend> {
  const local = new MemoryLimiterStore(clock)
  if (!settings.redisUrl) return { store: local, local, status: () => 'memory' }
  const shared = new RedisLimiterStore(settings.redisUrl, { keyPrefix: settings.redisKeyPrefix, commandTimeoutMs: settings.redisTimeoutMs })
  const store = new FailoverLimiterStore(shared, local, log, events)
  await store.start()
  return { store, shared, local, status: () => (store.isDegraded ? 'redis-degraded' : 'redis') }
}

export interface RateLimiterEvents {
  /** A ban of one of the project's keys started, at this escalation level. */
  onBan(level: number, projectId: number): void
}

/** How often a banned key's record is re-read, to notice a ban lifted by the CLI. */
const BAN_RECHECK_MS = 1_000

/** Applies plans and bans to requests; keeps the database record of bans. */
export class RateLimiter {
  private readonly banChecks = new Map<string, number>()

  constructor(
    private readonly backend: LimiterBackend,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly events: RateLimiterEvents,
    /** Whether a key's decision also reads its cache generations (shared generations). */
    private readonly readsGenerations = false,
  ) {}

  /** After a restart, bans recorded in the database hold again in the in-process store. */
  async restoreBans(): Promise<void> {
    if (this.backend.status() !== 'memory') return
    for (const ban of await listActiveBans(this.db, new Date(this.clock.now()).toISOString())) {
      this.backend.local.restoreBan(ban.key_id, { until: Date.parse(ban.until), level: ban.level }, BAN_POLICY)
    }
  }

  /**
   * Charges one request of an authenticated key to its project's plan. A principal taken from
   * the cache may answer `stale` (shared generations): nothing is charged; resolve it again.
   */
  async forKey(principal: Principal): Promise<Decision | StaleDecision> {
    const request = {
      subject: `p:${principal.projectId}`,
      windows: [
        { name: 'minute', limit: principal.limits.perMinute, lengthMs: MINUTE_MS },
        { name: 'day', limit: principal.limits.perDay, lengthMs: DAY_MS },
      ] satisfies Window[],
      ban: { keyId: principal.keyId, policy: BAN_POLICY },
      generations: this.readsGenerations ? { projectId: principal.projectId, expectAuth: principal.cachedAt } : undefined,
    }
    const decision = await this.backend.store.consume(request)
    if (decision.outcome !== 'banned') return decision
    if (decision.started) {
      this.events.onBan(decision.level, principal.projectId)
      await recordBan(this.db, {
        key_id: principal.keyId,
        level: decision.level,
        banned_at: new Date(decision.until - banLength(BAN_POLICY, decision.level)).toISOString(),
        until: new Date(decision.until).toISOString(),
      })
      return decision
    }
    if (await this.liftedByOperator(principal.keyId, decision)) {
      await this.backend.store.unban(principal.keyId)
      return this.backend.store.consume(request)
    }
    return decision
  }

  /** Charges one request without a valid key to the client's address. */
  async forAddress(address: string): Promise<Decision> {
    // No generations asked, so never stale.
    return this.backend.store.consume({
      subject: `ip:${address}`,
      windows: [{ name: 'minute', limit: ADDRESS_LIMIT_PER_MINUTE, lengthMs: MINUTE_MS }],
    }) as Promise<Decision>
  }

  /** Lifts a ban everywhere: the record, and the store every instance reads. */
  async unban(keyId: string): Promise<boolean> {
    const recorded = await deleteBan(this.db, keyId)
    await this.backend.store.unban(keyId)
    return recorded
  }

  /**
   * A ban held in this process is lifted by the CLI deleting its record (it cannot reach into
   * the server), so a banned key's record is re-read at most once a second. Bans in Redis are
   * lifted in Redis by the CLI itself.
   */
  private async liftedByOperator(keyId: string, ban: Extract<Decision, { outcome: 'banned' }>): Promise<boolean> {
    if (this.backend.status() === 'redis') return false
    const last = this.banChecks.get(keyId)
    if (last !== undefined && ban.now - last < BAN_RECHECK_MS) return false
    if (this.banChecks.size > 10_000) this.banChecks.clear()
    this.banChecks.set(keyId, ban.now)
    const record = await findBan(this.db, keyId)
    return !record || Date.parse(record.until) <= ban.now
  }
}

/**
 * The rate-limit headers of a decision: the binding window, and both windows in the IETF draft
 * form. During a ban nothing is admitted until the ban ends, whatever the windows hold: every
 * window then reports no request left until the end of the ban, so a client that waits for the
 * announced reset never retries into the ban. The policy (`RateLimit-Policy`) does not change.
 */
export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const binding = bindingWindow(decision.windows)
  const seconds = (at: number) => Math.max(0, Math.ceil((at - decision.now) / 1000))
  const policy = decision.windows.map((w) => `"${w.name}";q=${w.limit};w=${w.lengthMs / 1000}`).join(', ')
  if (decision.outcome === 'banned') {
    const untilBanEnds = seconds(decision.until)
    return {
      'x-ratelimit-limit': String(binding.limit),
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil(decision.until / 1000)),
      'ratelimit-policy': policy,
      ratelimit: decision.windows.map((w) => `"${w.name}";r=0;t=${untilBanEnds}`).join(', '),
    }
  }
  return {
    'x-ratelimit-limit': String(binding.limit),
    'x-ratelimit-remaining': String(binding.remaining),
    'x-ratelimit-reset': String(Math.ceil(binding.resetAt / 1000)),
    'ratelimit-policy': policy,
    ratelimit: decision.windows.map((w) => `"${w.name}";r=${w.remaining};t=${seconds(w.resetAt)}`).join(', '),
  }
}

/** The 429 for a refused decision, or nothing when the request may proceed. */
export function refusal(decision: Decision, who: { plan: string } | 'address'): ApiError | undefined {
  if (decision.outcome === 'allowed') return undefined
  if (decision.outcome === 'banned') {
    const retryAfter = Math.max(1, Math.ceil((decision.until - decision.now) / 1000))
    return new ApiError(
      'api_key_banned',
      `This API key is banned until ${isoTime(decision.until)} for sending too many requests while rate limited. Retry after ${retryAfter} s, and back off after a 429.`,
      { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '0' },
    )
  }
  const binding = bindingWindow(decision.windows)
  const retryAfter = Math.max(1, Math.ceil((binding.resetAt - decision.now) / 1000))
  const per = `${thousands(binding.limit)} requests per ${binding.name}`
  const message =
    who === 'address'
      ? `Too many requests without a valid API key from your address: at most ${per}. Retry after ${retryAfter} s.`
      : `Rate limit exceeded: the ${who.plan} plan allows ${per} for this project${binding.name === 'day' ? ' (the day resets at 00:00 UTC)' : ''}. Retry after ${retryAfter} s; requests sent while limited can get the key temporarily banned.`
  return new ApiError('rate_limited', message, { 'retry-after': String(retryAfter), 'x-ratelimit-remaining': '0' })
}

/** 1000000 → "1,000,000", as `toLocaleString('en-US')` writes a count, at a tenth of its cost. */
export function thousands(count: number): string {
  const digits = String(count)
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1)
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`
  return out
}

/** The ISO form of a ban's end: every refusal of a banned key names the same instant, so the last one is kept. */
let lastIso = { at: Number.NaN, text: '' }
function isoTime(at: number): string {
  if (lastIso.at !== at) lastIso = { at, text: new Date(at).toISOString() }
  return lastIso.text
}
