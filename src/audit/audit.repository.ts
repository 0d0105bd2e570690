import { type Insertable, type RawBuilder, sql } from 'kysely'
import type { Db } from '../db/database.js'
import { prepare, type Statement } from '../db/prepared.js'
import type { ActorKind, AuditEntryRow, AuditEntryTable } from '../db/schema.js'

export async function insertAuditEntry(db: Db, entry: Insertable<AuditEntryTable>): Promise<void> {
  await db.insertInto('audit_entries').values(entry).execute()
}

/**
 * SQLite's batched path (an animal added through /v1 in the group commit): the entry of the
 * animal the statement before it inserted. Its id is the largest of `pets`: ids are AUTOINCREMENT
 * (always above every id given before) and the batch is the only writer while it runs; unlike
 * `last_insert_rowid()` it stays right whatever other statements (the event's) run in between.
 */
const insertEntryOfInsertedPet = prepare(
  (db, at: string, actorKind: ActorKind, actorName: string, actorKeyId: string | null, action: string, projectId: number, requestId: string | null, details: string) =>
    db
      .insertInto('audit_entries')
      .columns(PET_ENTRY_COLUMNS)
      .expression(
        db
          .selectFrom('pets')
          .where('project_id', '=', projectId)
          .select(petEntryValues({ at, actorKind, actorName, actorKeyId, action, projectId, requestId, details }, sql<string>`cast(max(id) as text)`)),
      ),
)

/** The columns of an animal's audit entry written by an `insert … select` (see petEntryValues). */
export const PET_ENTRY_COLUMNS = ['at', 'actor_kind', 'actor_user_id', 'actor_name', 'actor_key_id', 'action', 'target_type', 'target_id', 'project_id', 'request_id', 'details'] as const

/**
 * The values of an animal's audit entry, in the order of PET_ENTRY_COLUMNS, for a statement that
 * inserts the animal and selects its id as `targetId` (here for SQLite's batch, and in the pets
 * repository for PostgreSQL's one-statement create). Each value may be a prepared placeholder.
 */
export function petEntryValues(
  entry: { at: string; actorKind: ActorKind; actorName: string; actorKeyId: string | null; action: string; projectId: number; requestId: string | null; details: string },
  targetId: RawBuilder<string>,
) {
  return [
    sql<string>`${entry.at}`.as('at'),
    sql<ActorKind>`${entry.actorKind}`.as('actor_kind'),
    sql<null>`null`.as('actor_user_id'),
    sql<string>`${entry.actorName}`.as('actor_name'),
    sql<string | null>`${entry.actorKeyId}`.as('actor_key_id'),
    sql<string>`${entry.action}`.as('action'),
    sql<string>`'pet'`.as('target_type'),
    targetId.as('target_id'),
    sql<number>`${entry.projectId}`.as('project_id'),
    sql<string | null>`${entry.requestId}`.as('request_id'),
    sql<string>`${entry.details}`.as('details'),
  ]
}

/** The statement of an entry for the animal just inserted before it in the same batch (see `insertEntryOfInsertedPet`); undefined where `db` does not batch. */
export function entryOfInsertedPetStatement(db: Db, entry: Omit<Insertable<AuditEntryTable>, 'target_type' | 'target_id' | 'actor_user_id'> & { project_id: number }): Statement | undefined {
  return insertEntryOfInsertedPet.statement(db, entry.at, entry.actor_kind, entry.actor_name, entry.actor_key_id ?? null, entry.action, entry.project_id, entry.request_id ?? null, entry.details)
}

export interface AuditFilter {
  /** Only entries of these projects, or, with `userId`, made by that user; undefined: every entry. */
  visibleTo?: { projectIds: readonly number[]; userId: number } | undefined
  projectId?: number | undefined
  action?: string | undefined
  actorName?: string | undefined
  actorKind?: ActorKind | undefined
  /** Only writes made with this API key (its public id). */
  keyId?: string | undefined
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
  if (filter.actorKind !== undefined) query = query.where('audit_entries.actor_kind', '=', filter.actorKind)
  if (filter.keyId !== undefined) query = query.where('audit_entries.actor_key_id', '=', filter.keyId)
  if (filter.targetType !== undefined) query = query.where('audit_entries.target_type', '=', filter.targetType)
  if (filter.targetId !== undefined) query = query.where('audit_entries.target_id', '=', filter.targetId)
  if (filter.since !== undefined) query = query.where('audit_entries.at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('audit_entries.at', '<', filter.until)
  if (filter.before !== undefined) query = query.where('audit_entries.id', '<', filter.before)
  return query.orderBy('audit_entries.id', 'desc').limit(filter.limit).execute()
}
