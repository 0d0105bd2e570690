import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // The usage rollup: per project and UTC minute, the /v1 requests answered, their 429s and the
  // bans started. Every instance adds its counts to the row (see src/usage); rows older than 8
  // days are deleted. No foreign key: a count never blocks anything, and the rows age out.
  await db.schema
    .createTable('usage_minutes')
    .addColumn('project_id', 'bigint', (col) => col.notNull())
    // The minute's start, `Date#toISOString` form (`2026-11-22T12:34:00.000Z`): sorts as text.
    .addColumn('minute', 'varchar(32)', (col) => col.notNull())
    .addColumn('requests', 'bigint', (col) => col.notNull())
    .addColumn('limited', 'bigint', (col) => col.notNull())
    .addColumn('bans', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('usage_minutes_pk', ['project_id', 'minute'])
    .execute()
  // For deleting old rows across every project.
  await db.schema.createIndex('usage_minutes_minute_idx').on('usage_minutes').column('minute').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('usage_minutes').execute()
}
