import type { Clock } from '../clock.js'
import { type BanPolicy, banLength, bindingWindow, type ConsumeRequest, type Decision, type LimiterStore, type WindowState } from './store.js'

interface Entry {
  value: number
  expiresAt: number
}

/**
 * The in-process store: exact for one instance, because a consume runs to completion without
 * yielding. Entries expire with their window and are swept in the background.
 */
export class MemoryLimiterStore implements LimiterStore {
  private readonly entries = new Map<string, Entry>()
  private readonly sweeper: NodeJS.Timeout

  constructor(private readonly clock: Clock) {
    this.sweeper = setInterval(() => this.sweep(), 30_000)
    this.sweeper.unref()
  }

  async consume({ subject, windows, ban }: ConsumeRequest): Promise<Decision> {
    const now = this.clock.now()
    const counters = windows.map((window) => {
      const index = Math.floor(now / window.lengthMs)
      const key = `rl:${subject}:${window.name}:${index}`
      return { window, key, count: this.get(key, now), resetAt: (index + 1) * window.lengthMs }
    })
    const states = (charged: number): WindowState[] =>
      counters.map(({ window, count, resetAt }) => ({
        name: window.name,
        limit: window.limit,
        lengthMs: window.lengthMs,
        remaining: Math.max(0, window.limit - count - charged),
        resetAt,
      }))

    if (ban) {
      const until = this.get(`ban:${ban.keyId}`, now)
      if (until > now) return { outcome: 'banned', now, windows: states(0), until, level: this.get(`ban:${ban.keyId}:level`, now), started: false }
    }
    if (counters.every(({ window, count }) => count < window.limit)) {
      for (const { key, count, resetAt } of counters) this.entries.set(key, { value: count + 1, expiresAt: resetAt })
      return { outcome: 'allowed', now, windows: states(1) }
    }
    if (!ban) return { outcome: 'limited', now, windows: states(0) }

    // Rejected: count it against the key in the window that rejected it.
    const binding = bindingWindow(states(0))
    const rejectionsKey = `ban:${ban.keyId}:rejected:${binding.name}:${binding.resetAt}`
    const rejections = this.get(rejectionsKey, now) + 1
    if (rejections <= ban.policy.afterRejections) {
      this.entries.set(rejectionsKey, { value: rejections, expiresAt: binding.resetAt })
      return { outcome: 'limited', now, windows: states(0) }
    }
    this.entries.delete(rejectionsKey)
    const previous = this.entries.get(`ban:${ban.keyId}:level`)
    const level = previous && previous.expiresAt > now ? previous.value + 1 : 0
    const until = now + banLength(ban.policy, level)
    this.entries.set(`ban:${ban.keyId}`, { value: until, expiresAt: until })
    this.entries.set(`ban:${ban.keyId}:level`, { value: level, expiresAt: until + ban.policy.repeatWithinMs })
    return { outcome: 'banned', now, windows: states(0), until, level, started: true }
  }

  async unban(keyId: string): Promise<void> {
    this.entries.delete(`ban:${keyId}`)
    this.entries.delete(`ban:${keyId}:level`)
  }

  /** Re-installs a ban recorded in the database, after a restart of this process. */
  restoreBan(keyId: string, ban: { until: number; level: number }, policy: BanPolicy): void {
    this.entries.set(`ban:${keyId}`, { value: ban.until, expiresAt: ban.until })
    this.entries.set(`ban:${keyId}:level`, { value: ban.level, expiresAt: ban.until + policy.repeatWithinMs })
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper)
  }

  /** How many entries are held; for tests of the sweeper. */
  get size(): number {
    return this.entries.size
  }

  sweep(now = this.clock.now()): void {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key)
  }

  private get(key: string, now: number): number {
    const entry = this.entries.get(key)
    return entry && entry.expiresAt > now ? entry.value : 0
  }
}
