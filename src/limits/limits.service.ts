import { type Change, recordChange } from '../audit/audit.js'
import type { Principal } from '../auth/authenticator.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow } from '../db/schema.js'
import { findApiKey } from '../keys/keys.repository.js'
import type { Outbox } from '../webhooks/outbox.js'
import { type RedisSettings, withRedis } from '../redis/redis.js'
import type { LimiterBackend } from './backend.js'
import { deleteBan, findBan, listActiveBans, recordBan } from './bans.repository.js'
import { RedisLimiterStore } from './redis.store.js'
import { BAN_POLICY, banLength, DAY_MS, type Decision, MINUTE_MS, type StaleDecision, type Window, type WindowState } from './store.js'

/** Requests without a valid key are limited per client address, so keys cannot be guessed at speed. */
export const ADDRESS_LIMIT_PER_MINUTE = 60

export interface RateLimiterEvents {
  /** A ban of one of the project's keys started, at this escalation level. */
  onBan(level: number, projectId: number): void
}

/** How often a banned key's record is re-read, to notice a ban lifted by the CLI. */
const BAN_RECHECK_MS = 1_000
/** `quota.warning` is sent when this share of the day's limit is used. */
export const QUOTA_WARNING_SHARE = 0.8

/** Applies plans and bans to requests; keeps the database record of bans. */
export class RateLimiter {
  private readonly banChecks = new Map<string, number>()
  /** The quota events this instance wrote (or found written) today: each is tried once per instance. */
  private readonly quotaNotices = new Set<string>()
  private quotaDay = -1

  constructor(
    private readonly backend: LimiterBackend,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly events: RateLimiterEvents,
    private readonly outbox: Outbox,
    /** Whether a key's decision also reads its cache generations (shared generations). */
    private readonly readsGenerations = false,
    private readonly log?: { warn(object: object, message: string): void },
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
    if (decision.outcome === 'allowed' || decision.outcome === 'limited') this.noticeQuota(principal, decision.windows)
    if (decision.outcome !== 'banned') return decision
    if (decision.started) {
      this.events.onBan(decision.level, principal.projectId)
      const ban = {
        key_id: principal.keyId,
        level: decision.level,
        banned_at: new Date(decision.until - banLength(BAN_POLICY, decision.level)).toISOString(),
        until: new Date(decision.until).toISOString(),
      }
      await this.db.transaction().execute(async (trx) => {
        await recordBan(trx, ban)
        await this.outbox.write(trx, principal.projectId, 'ban.started', { keyId: ban.key_id, level: ban.level, bannedAt: ban.banned_at, until: ban.until })
      })
      return decision
    }
    if (await this.liftedByOperator(principal.keyId, decision)) {
      await this.backend.store.unban(principal.keyId)
      return this.backend.store.consume(request)
    }
    return decision
  }

  /**
   * `quota.warning` at 80 % of the day's limit and `quota.exhausted` at 100 %, once per project and
   * UTC day across instances (the events' dedupe keys), once per instance before that (a set).
   * Only requests past the threshold look, and they do not wait for the write.
   */
  private noticeQuota(principal: Principal, windows: readonly WindowState[]): void {
    const day = windows.find((window) => window.name === 'day')
    if (!day) return
    const used = day.limit - day.remaining
    if (used < Math.ceil(day.limit * QUOTA_WARNING_SHARE)) return
    const type = day.remaining === 0 ? 'quota.exhausted' : 'quota.warning'
    const dayIndex = Math.floor((day.resetAt - 1) / DAY_MS)
    if (dayIndex !== this.quotaDay) {
      this.quotaDay = dayIndex
      this.quotaNotices.clear()
    }
    const dedupeKey = `${type}:${principal.projectId}:${new Date(dayIndex * DAY_MS).toISOString().slice(0, 10)}`
    if (this.quotaNotices.has(dedupeKey)) return
    this.quotaNotices.add(dedupeKey)
    const data = { project: principal.projectSlug, window: 'day', limit: day.limit, used, resetAt: new Date(day.resetAt).toISOString() }
    void this.db
      .transaction()
      .execute((trx) => this.outbox.write(trx, principal.projectId, type, data, dedupeKey))
      .catch((err: unknown) => {
        this.quotaNotices.delete(dedupeKey)
        this.log?.warn({ err, projectId: principal.projectId }, `${type} event not written`)
      })
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
    const recorded = await forgetBan(this.db, this.clock, this.outbox, key, change)
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
  outbox: Outbox,
  settings: RedisSettings,
  keyId: string,
  change: Change,
): Promise<{ ok: true; wasBanned: boolean } | { ok: false; message: string }> {
  const key = await findApiKey(db, keyId)
  if (!key) return { ok: false, message: `No API key with id "${keyId}".` }
  const wasBanned = await forgetBan(db, clock, outbox, key, change)
  await withRedis(settings, 'requests', (redis) => new RedisLimiterStore(redis).unban(keyId))
  return { ok: true, wasBanned }
}

/** Deletes a key's ban record and records the lift, in one transaction; answers whether a ban was recorded. */
async function forgetBan(db: Db, clock: Clock, outbox: Outbox, key: ApiKeyRow, change: Change): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const wasBanned = await deleteBan(trx, key.id)
    await recordChange(trx, clock, change, { action: 'key.ban_lifted', target: { type: 'key', id: key.id }, projectId: key.project_id, details: { wasBanned } })
    if (wasBanned) await outbox.write(trx, key.project_id, 'ban.lifted', { keyId: key.id, liftedAt: new Date(clock.now()).toISOString() })
    return wasBanned
  })
}
