import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import type { UsageMinuteTable } from '../db/schema.js'

/** Rows per statement: five parameters each, well under every dialect's limit. */
const CHUNK = 500

/**
 * Adds counts to their rows: a row already written (by this instance earlier, or by another)
 * is incremented, not replaced, so every instance's counts add up.
 */
export async function addUsage(db: Db, all: readonly UsageMinuteTable[]): Promise<void> {
  // A project deleted since its requests were counted: its counts go with it (usage has no
  // foreign key, so nothing else would stop a row of a project that is no more).
  const ids = [...new Set(all.map((row) => row.project_id))]
  const existing = ids.length === 0 ? new Set<number>() : new Set((await db.selectFrom('projects').select('id').where('id', 'in', ids).execute()).map((row) => Number(row.id)))
  const rows = all.filter((row) => existing.has(Number(row.project_id)))
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('usage_minutes')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) =>
        oc.columns(['project_id', 'minute']).doUpdateSet((eb) => ({
          requests: eb('usage_minutes.requests', '+', eb.ref('excluded.requests')),
          limited: eb('usage_minutes.limited', '+', eb.ref('excluded.limited')),
          bans: eb('usage_minutes.bans', '+', eb.ref('excluded.bans')),
        })),
      )
      .execute()
  }
}

export async function deleteUsageBefore(db: Db, minute: string): Promise<void> {
  await db.deleteFrom('usage_minutes').where('minute', '<', minute).execute()
}

export interface UsageTotals {
  /** The bucket: the first `prefixLength` characters of the minutes it sums. */
  bucket: string
  requests: number
  limited: number
  bans: number
}

/**
 * A project's counts from `from` (inclusive) to `to` (exclusive), summed per bucket: the minutes
 * whose first `prefixLength` characters agree (16: the minute itself, 10: the UTC day).
 */
export async function sumUsage(db: Db, projectId: number, from: string, to: string, prefixLength: 10 | 16): Promise<UsageTotals[]> {
  const bucket = sql<string>`substr(minute, 1, ${sql.lit(prefixLength)})`
  const rows = await db
    .selectFrom('usage_minutes')
    .select((eb) => [
      bucket.as('bucket'),
      eb.fn.sum<number | string>('requests').as('requests'),
      eb.fn.sum<number | string>('limited').as('limited'),
      eb.fn.sum<number | string>('bans').as('bans'),
    ])
    .where('project_id', '=', projectId)
    .where('minute', '>=', from)
    .where('minute', '<', to)
    .groupBy(bucket)
    .execute()
  // PostgreSQL sums bigints as numeric, which arrives as text.
  return rows.map((row) => ({ bucket: row.bucket, requests: Number(row.requests), limited: Number(row.limited), bans: Number(row.bans) }))
}
