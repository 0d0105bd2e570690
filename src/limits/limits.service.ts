import { type Change, recordChange } from '../audit/audit.js'
import type { Principal } from '../auth/authenticator.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow } from '../db/schema.js'
import { findApiKey } from '../keys/keys.repository.js'
import type { LimiterBackend, LimiterSettings } from './backend.js'
import { deleteBan, findBan, listActiveBans, recordBan } from './bans.repository.js'
import { RedisLimiterStore } from './redis.store.js'
import { BAN_POLICY, banLength, DAY_MS, type Decision, MINUTE_MS, type StaleDecision, type Window } from './store.js'

/** Requests without a valid key are limited per client address, so keys cannot be guessed at speed. */
export const ADDRESS_LIMIT_PER_MINUTE = 60

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

  /** Before the first request: bans recorded in the database hold again after a restart. */
  async start(): Promise<void> {
    await this.restoreBans()
  }

  /** Closes the store (Redis' connection). */
  async close(): Promise<void> {
    await this.backend.store.close()
  }

  /** The store in use, for readiness checks: 'redis-degraded' while Redis is away. */
  status(): ReturnType<LimiterBackend['status']> {
    return this.backend.status()
  }

  /** After a restart, bans recorded in the database hold again in the in-process store. */
  private async restoreBans(): Promise<void> {
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

  /** Lifts a key's ban everywhere: the record (with its audit entry), and the store every instance reads. */
  async unban(key: ApiKeyRow, change: Change): Promise<boolean> {
    const recorded = await forgetBan(this.db, this.clock, key, change)
    await this.backend.store.unban(key.id)
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
 * Lifts a key's ban from outside the server (the CLI): deletes its record, which in-process
 * stores re-read within a second, and its Redis state when Redis is configured.
 */
export async function liftBan(
  db: Db,
  clock: Clock,
  settings: LimiterSettings,
  keyId: string,
  change: Change,
): Promise<{ ok: true; wasBanned: boolean } | { ok: false; message: string }> {
  const key = await findApiKey(db, keyId)
  if (!key) return { ok: false, message: `No API key with id "${keyId}".` }
  const wasBanned = await forgetBan(db, clock, key, change)
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

/** Deletes a key's ban record and records the lift, in one transaction; answers whether a ban was recorded. */
async function forgetBan(db: Db, clock: Clock, key: ApiKeyRow, change: Change): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const wasBanned = await deleteBan(trx, key.id)
    await recordChange(trx, clock, change, { action: 'key.ban_lifted', target: { type: 'key', id: key.id }, projectId: key.project_id, details: { wasBanned } })
    return wasBanned
  })
}
