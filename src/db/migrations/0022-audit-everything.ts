import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

const KINDS_BEFORE = ['user', 'admin_token', 'cli', 'system']
const KINDS_AFTER = [...KINDS_BEFORE, 'api_key', 'anonymous']

/**
 * The audit log records every change of data: writes through the public API by an API key
 * (`api_key`, with the key's public id in `actor_key_id`) or by an anonymous visitor of the
 * adoption site (`anonymous`), besides the admin's changes. The list filters by actor kind and by
 * key, newest first, so both have an index ending in the id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await rebuild(db, KINDS_AFTER, true)
  await db.schema.createIndex('audit_entries_actor_kind_idx').on('audit_entries').columns(['actor_kind', 'id']).execute()
  await db.schema.createIndex('audit_entries_actor_key_idx').on('audit_entries').columns(['actor_key_id', 'id']).execute()
}

/** The older schema has no place for the new kinds: their entries are deleted. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_entries_actor_key_idx').execute()
  await db.schema.dropIndex('audit_entries_actor_kind_idx').execute()
  await sql`delete from audit_entries where actor_kind in ('api_key', 'anonymous')`.execute(db)
  await rebuild(db, KINDS_BEFORE, false)
}

async function rebuild(db: Kysely<unknown>, kinds: string[], withKey: boolean): Promise<void> {
  const check = sql`actor_kind in (${sql.join(kinds.map((kind) => sql.lit(kind)))})`
  if (isPostgres(db)) {
    await sql`alter table audit_entries drop constraint audit_entries_actor_kind_check`.execute(db)
    await sql`alter table audit_entries add constraint audit_entries_actor_kind_check check (${check})`.execute(db)
    if (withKey) await sql`alter table audit_entries add column actor_key_id varchar(64)`.execute(db)
    else await sql`alter table audit_entries drop column actor_key_id`.execute(db)
    return
  }
  // SQLite cannot change a CHECK constraint: the table is rebuilt, every row kept with its id.
  // No table references audit_entries, and it has no triggers; its indexes are made again.
  const { rows } = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'audit_entries'`.execute(db)
  await sql`
    create table audit_entries_rebuilt (
      id integer not null primary key autoincrement,
      at varchar(32) not null,
      actor_kind varchar(16) not null,
      actor_user_id bigint,
      actor_name varchar(254) not null,
      action varchar(64) not null,
      target_type varchar(32) not null,
      target_id varchar(255) not null,
      project_id bigint,
      request_id varchar(128),
      details text not null,
      ${withKey ? sql`actor_key_id varchar(64),` : sql``}
      constraint audit_entries_actor_kind_check check (${check})
    )`.execute(db)
  const columns = sql`id, at, actor_kind, actor_user_id, actor_name, action, target_type, target_id, project_id, request_id, details`
  await sql`insert into audit_entries_rebuilt (${columns}) select ${columns} from audit_entries`.execute(db)
  await sql`drop table audit_entries`.execute(db)
  await sql`alter table audit_entries_rebuilt rename to audit_entries`.execute(db)
  // AUTOINCREMENT: the ids of entries are never given again.
  if (rows[0]) await sql`update sqlite_sequence set seq = max(seq, ${rows[0].seq}) where name = 'audit_entries'`.execute(db)
  await db.schema.createIndex('audit_entries_project_idx').on('audit_entries').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('audit_entries_actor_idx').on('audit_entries').columns(['actor_user_id', 'id']).execute()
}
