import type { Principal } from '../auth/authenticator.js'
import type { LimiterBackend } from './backend.js'
import { BAN_POLICY, banLength, DAY_MS, type Decision, MINUTE_MS, type StaleDecision, type Window, type WindowState } from './store.js'

/** Requests without a valid key are limited per client address, so keys cannot be guessed at speed. */
export const ADDRESS_LIMIT_PER_MINUTE = 60

export interface RateLimiterEvents {
  /** A ban of one of the project's keys started, at this escalation level. */
  onBan(level: number, projectId: number): void
}

/** A ban the limiter started; times in milliseconds since the epoch. */
export interface StartedBan {
  keyId: string
  projectId: number
  level: number
  bannedAt: number
  until: number
}

/**
 * Where bans are kept (the keys feature's bans service): the limiter decides them, and tells
 * this of each it starts; it reads back what operators lifted.
 */
export interface BanRecords {
  /** A ban started: recorded for operators and restarts. */
  started(ban: StartedBan): Promise<void>
  /** The bans on record that still run. */
  running(): Promise<{ keyId: string; level: number; until: number }[]>
  /** When a key's ban on record ends; undefined when it has none (lifted by an operator). */
  until(keyId: string): Promise<number | undefined>
}

/** A project used a share of its day's limit: `quota.warning` at 80 %, `quota.exhausted` at 100 %. */
export interface QuotaNotice {
  projectId: number
  type: 'quota.warning' | 'quota.exhausted'
  data: { project: string; window: 'day'; limit: number; used: number; resetAt: string }
  /** One notice of a type per project and UTC day, across instances. */
  dedupeKey: string
}

export interface RateLimiterDeps {
  backend: LimiterBackend
  events: RateLimiterEvents
  bans: BanRecords
  /** Sends a quota notice (the webhook outbox); a failure is logged, and the next request past the threshold tries again. */
  quotaReached(notice: QuotaNotice): Promise<unknown>
  /** Whether a key's decision also reads its cache generations (they are shared in Redis). */
  readsGenerations(): boolean
  log?: { warn(object: object, message: string): void }
}

/** How often a banned key's record is re-read, to notice a ban lifted by the CLI. */
const BAN_RECHECK_MS = 1_000
/** `quota.warning` is sent when this share of the day's limit is used. */
export const QUOTA_WARNING_SHARE = 0.8

/**
 * Counts requests and decides: charges them to plans, starts bans of keys that keep calling while
 * limited, and notices quotas reached. What follows a decision (a ban's record, an event) is
 * told to its deps.
 */
export class RateLimiter {
  private readonly banChecks = new Map<string, number>()
  /** The quota events this instance wrote (or found written) today: each is tried once per instance. */
  private readonly quotaNotices = new Set<string>()
  private quotaDay = -1
  private readonly backend: LimiterBackend

  constructor(private readonly deps: RateLimiterDeps) {
    this.backend = deps.backend
  }

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
    for (const ban of await this.deps.bans.running()) {
      this.backend.local.restoreBan(ban.keyId, { until: ban.until, level: ban.level }, BAN_POLICY)
    }
  }

  /**
   * Charges one request of an authenticated key to its project's plan. A principal taken from
   * the cache may answer `stale` (shared generations): nothing is charged; resolve it again.
   *
   * Publishable keys (in web pages, read by anyone) share a budget of their own, per project and
   * as large as the plan's: a page's visitors, or someone who copied its key, cannot use up the
   * quota of the project's servers, and more publishable keys do not make more requests.
   */
  async forKey(principal: Principal): Promise<Decision | StaleDecision> {
    const request = {
      subject: principal.publishable ? `pk:${principal.projectId}` : `p:${principal.projectId}`,
      windows: [
        { name: 'minute', limit: principal.limits.perMinute, lengthMs: MINUTE_MS },
        { name: 'day', limit: principal.limits.perDay, lengthMs: DAY_MS },
      ] satisfies Window[],
      ban: { keyId: principal.keyId, policy: BAN_POLICY },
      generations: this.deps.readsGenerations() ? { projectId: principal.projectId, expectAuth: principal.cachedAt } : undefined,
    }
    const decision = await this.backend.store.consume(request)
    // The quota events are about the project's own budget: the publishable keys' is not it.
    if ((decision.outcome === 'allowed' || decision.outcome === 'limited') && !principal.publishable) this.noticeQuota(principal, decision.windows)
    if (decision.outcome !== 'banned') return decision
    if (decision.started) {
      this.deps.events.onBan(decision.level, principal.projectId)
      const bannedAt = decision.until - banLength(BAN_POLICY, decision.level)
      await this.deps.bans.started({ keyId: principal.keyId, projectId: principal.projectId, level: decision.level, bannedAt, until: decision.until })
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
    const data = { project: principal.projectSlug, window: 'day' as const, limit: day.limit, used, resetAt: new Date(day.resetAt).toISOString() }
    void this.deps.quotaReached({ projectId: principal.projectId, type, data, dedupeKey }).catch((err: unknown) => {
      this.quotaNotices.delete(dedupeKey)
      this.deps.log?.warn({ err, projectId: principal.projectId }, `${type} event not written`)
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
    const until = await this.deps.bans.until(keyId)
    return until === undefined || until <= ban.now
  }
}
