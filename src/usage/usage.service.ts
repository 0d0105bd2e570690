import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { ProjectRow } from '../db/schema.js'
import { limitsOf, type PlanLimits } from '../limits/plans.js'
import type { UsageRecorder } from './usage.recorder.js'
import { sumUsage } from './usage.repository.js'
import type { USAGE_RANGES } from './usage.schemas.js'

export type UsageRange = (typeof USAGE_RANGES)[number]

export interface UsagePoint {
  /** The bucket's start. */
  at: string
  requests: number
  limited: number
  bans: number
}

export interface Usage {
  range: UsageRange
  bucketSeconds: number
  limits: PlanLimits
  points: UsagePoint[]
}

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000

/** `hour`: 60 one-minute buckets ending with the current minute; `week`: 7 UTC days ending today. */
const RANGES: Record<UsageRange, { bucketMs: number; buckets: number; prefixLength: 10 | 16 }> = {
  hour: { bucketMs: MINUTE_MS, buckets: 60, prefixLength: 16 },
  week: { bucketMs: DAY_MS, buckets: 7, prefixLength: 10 },
}

/** A project's traffic, as the dashboard's charts show it. */
export class UsageService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly recorder: UsageRecorder,
  ) {}

  /** A project's usage over a range, oldest bucket first, every bucket present (zeros included). */
  async get(project: ProjectRow, range: UsageRange): Promise<Usage> {
    // This instance's counts are written first, so the answer includes its latest requests. A
    // flush that fails (a full disk) keeps them for the next one, which reports it: this read
    // answers with what is stored, as every read does while writes are refused.
    await this.recorder.flush().catch(() => undefined)
    const { bucketMs, buckets, prefixLength } = RANGES[range]
    const now = this.clock.now()
    const last = now - (now % bucketMs)
    const first = last - (buckets - 1) * bucketMs
    const totals = await sumUsage(this.db, project.id, new Date(first).toISOString(), new Date(last + bucketMs).toISOString(), prefixLength)
    const byBucket = new Map(totals.map((total) => [total.bucket, total]))
    const points: UsagePoint[] = []
    for (let at = first; at <= last; at += bucketMs) {
      const iso = new Date(at).toISOString()
      const total = byBucket.get(iso.slice(0, prefixLength))
      points.push({ at: iso, requests: total?.requests ?? 0, limited: total?.limited ?? 0, bans: total?.bans ?? 0 })
    }
    return { range, bucketSeconds: bucketMs / 1000, limits: limitsOf(project), points }
  }
}
