import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import type { UsageMinuteTable } from '../db/schema.js'
import { addUsage, deleteUsageBefore } from './usage.repository.js'

const MINUTE_MS = 60_000
const HOUR_MS = 3_600_000
/** How long rows are kept: the week the dashboard shows, plus a day. */
export const USAGE_RETENTION_MS = 8 * 24 * HOUR_MS
/** How often the counts are written. */
export const USAGE_FLUSH_INTERVAL_MS = 10_000

interface Counts {
  requests: number
  limited: number
  bans: number
}

/**
 * Counts `/v1` traffic per project and UTC minute in memory, and adds the counts to
 * `usage_minutes` every 10 seconds and at close. Counting is on the request path: after the
 * first request of a project in a minute, it is two Map lookups and an increment.
 */
export class UsageRecorder {
  /** Counts not yet written: by minute start (ms), then by project id. */
  private pending = new Map<number, Map<number, Counts>>()
  /** The minute being counted and its map, so most requests skip the outer lookup. */
  private minute = -1
  private current = new Map<number, Counts>()
  /** Flushes run one after the other: a flush returns once everything counted before it is written. */
  private writes: Promise<void> = Promise.resolve()
  private lastPurge = -Infinity
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    /** Where a failed flush is told: an outage (a database away, a full disk) once, not every 10 seconds. */
    private readonly failures: FailureLog,
  ) {}

  /** A `/v1` request of the project was answered; `limited` when with a 429. */
  request(projectId: number, limited: boolean): void {
    const counts = this.countsOf(projectId)
    counts.requests++
    if (limited) counts.limited++
  }

  /** A ban of one of the project's keys started. */
  ban(projectId: number): void {
    this.countsOf(projectId).bans++
  }

  /** Writes every count so far (after any flush already running), and deletes old rows at most once an hour. */
  flush(): Promise<void> {
    const write = this.writes.then(() => this.write())
    // A failed write keeps its counts for the next flush; the chain goes on.
    this.writes = write.catch(() => undefined)
    return write
  }

  /** Flushes every 10 seconds until `close`. */
  start(): void {
    if (this.timer) return
    this.timer = setInterval(() => {
      this.flush().catch((err: unknown) => this.failures.failed(err, 'usage flush failed: the counts are kept for the next one'))
    }, USAGE_FLUSH_INTERVAL_MS)
    this.timer.unref()
  }

  /** Stops the timer and writes what is left; a failure to write is logged, not thrown (the app is closing). */
  async close(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.flush().catch((err: unknown) => this.log.warn({ err }, 'usage counts not written at close'))
  }

  private countsOf(projectId: number): Counts {
    const now = this.clock.now()
    const minute = now - (now % MINUTE_MS)
    if (minute !== this.minute) {
      let counts = this.pending.get(minute)
      if (!counts) {
        counts = new Map()
        this.pending.set(minute, counts)
      }
      this.minute = minute
      this.current = counts
    }
    let counts = this.current.get(projectId)
    if (counts === undefined) {
      counts = { requests: 0, limited: 0, bans: 0 }
      this.current.set(projectId, counts)
    }
    return counts
  }

  private async write(): Promise<void> {
    const batch = this.pending
    this.pending = new Map()
    this.minute = -1
    const rows: UsageMinuteTable[] = []
    for (const [minute, projects] of batch) {
      const at = new Date(minute).toISOString()
      for (const [projectId, counts] of projects) rows.push({ project_id: projectId, minute: at, ...counts })
    }
    const now = this.clock.now()
    try {
      if (rows.length > 0) await addUsage(this.db, rows)
    } catch (err) {
      this.restore(batch, now)
      throw err
    }
    if (now - this.lastPurge >= HOUR_MS) {
      this.lastPurge = now
      await deleteUsageBefore(this.db, new Date(now - USAGE_RETENTION_MS).toISOString())
    }
  }

  /** Puts unwritten counts back, except those too old to be kept anyway. */
  private restore(batch: Map<number, Map<number, Counts>>, now: number): void {
    for (const [minute, projects] of batch) {
      if (minute < now - USAGE_RETENTION_MS) continue
      let into = this.pending.get(minute)
      if (!into) {
        into = new Map()
        this.pending.set(minute, into)
      }
      for (const [projectId, counts] of projects) {
        const existing = into.get(projectId)
        if (!existing) {
          into.set(projectId, counts)
          continue
        }
        existing.requests += counts.requests
        existing.limited += counts.limited
        existing.bans += counts.bans
      }
    }
  }
}
