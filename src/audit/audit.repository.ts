import type { Insertable } from 'kysely'
import type { Db } from '../db/database.js'
import type { AuditEntryRow, AuditEntryTable } from '../db/schema.js'

export async function insertAuditEntry(db: Db, entry: Insertable<AuditEntryTable>): Promise<void> {
  await db.insertInto('audit_entries').values(entry).execute()
}

export interface AuditFilter {
  /** Only entries of these projects, or, with `userId`, made by that user; undefined: every entry. */
  visibleTo?: { projectIds: readonly number[]; userId: number } | undefined
  projectId?: number | undefined
  action?: string | undefined
  actorName?: string | undefined
  targetType?: string | undefined
  targetId?: string | undefined
  /** ISO-8601 bounds: at or after `since`, before `until`. */
  since?: string | undefined
  until?: string | undefined
  /** Only ids smaller than this (the cursor: newest first). */
  before?: number | undefined
  limit: number
}

/** Entries newest first, with the slug of their project. */
export async function listAuditEntries(db: Db, filter: AuditFilter): Promise<(AuditEntryRow & { project_slug: string | null })[]> {
  let query = db
    .selectFrom('audit_entries')
    .leftJoin('projects', 'projects.id', 'audit_entries.project_id')
    .selectAll('audit_entries')
    .select('projects.slug as project_slug')
  const { visibleTo } = filter
  if (visibleTo) {
    query = query.where((eb) =>
      eb.or([
        ...(visibleTo.projectIds.length > 0 ? [eb('audit_entries.project_id', 'in', visibleTo.projectIds)] : []),
        eb('audit_entries.actor_user_id', '=', visibleTo.userId),
      ]),
    )
  }
  if (filter.projectId !== undefined) query = query.where('audit_entries.project_id', '=', filter.projectId)
  if (filter.action !== undefined) query = query.where('audit_entries.action', '=', filter.action)
  if (filter.actorName !== undefined) query = query.where('audit_entries.actor_name', '=', filter.actorName)
  if (filter.targetType !== undefined) query = query.where('audit_entries.target_type', '=', filter.targetType)
  if (filter.targetId !== undefined) query = query.where('audit_entries.target_id', '=', filter.targetId)
  if (filter.since !== undefined) query = query.where('audit_entries.at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('audit_entries.at', '<', filter.until)
  if (filter.before !== undefined) query = query.where('audit_entries.id', '<', filter.before)
  return query.orderBy('audit_entries.id', 'desc').limit(filter.limit).execute()
}
