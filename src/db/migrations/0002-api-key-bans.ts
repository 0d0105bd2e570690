import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The record of each key's latest ban, for operators and for restoring in-process bans after a
  // restart. Enforcement happens in the limiter store.
  await db.schema
    .createTable('api_key_bans')
    .addColumn('key_id', 'varchar(32)', (col) => col.primaryKey().references('api_keys.id').onDelete('cascade'))
    .addColumn('level', 'integer', (col) => col.notNull())
    .addColumn('banned_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('until', 'varchar(32)', (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_key_bans').execute()
}
