import { type Kysely, sql } from 'kysely'
import { idColumn } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Who changed what: one row per change made through the admin API, the dashboard or the CLI,
  // written in the transaction of the change. No foreign keys: an entry outlives the user who
  // made it and the thing it names, so the actor's name and the target's id are copied in.
  await db.schema
    .createTable('audit_entries')
    .addColumn('id', ...idColumn(db))
    .addColumn('at', 'varchar(32)', (col) => col.notNull())
    .addColumn('actor_kind', 'varchar(16)', (col) => col.notNull())
    .addColumn('actor_user_id', 'bigint')
    .addColumn('actor_name', 'varchar(254)', (col) => col.notNull())
    .addColumn('action', 'varchar(64)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(32)', (col) => col.notNull())
    .addColumn('target_id', 'varchar(255)', (col) => col.notNull())
    .addColumn('project_id', 'bigint')
    .addColumn('request_id', 'varchar(128)')
    // JSON text: what changed, never a secret.
    .addColumn('details', 'text', (col) => col.notNull())
    .addCheckConstraint('audit_entries_actor_kind_check', sql`actor_kind in ('user', 'admin_token', 'cli', 'system')`)
    .execute()
  await db.schema.createIndex('audit_entries_project_idx').on('audit_entries').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('audit_entries_actor_idx').on('audit_entries').columns(['actor_user_id', 'id']).execute()

  // A disabled user cannot sign in, and their sessions are deleted when they are disabled.
  await db.schema.alterTable('users').addColumn('disabled_at', 'varchar(32)').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('disabled_at').execute()
  await db.schema.dropTable('audit_entries').execute()
}
