import { type Kysely, sql } from 'kysely'
import { idColumn } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // People who sign in to the dashboard. The email is stored lowercase (the service normalises
  // it), so the unique constraint is case-insensitive in effect; the password only as a scrypt hash.
  await db.schema
    .createTable('users')
    .addColumn('id', ...idColumn(db))
    .addColumn('email', 'varchar(254)', (col) => col.notNull().unique())
    .addColumn('password_hash', 'varchar(255)', (col) => col.notNull())
    .addColumn('role', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addCheckConstraint('users_role_check', sql`role in ('operator', 'owner')`)
    .execute()

  // The projects an owner belongs to (operators see every project and have no rows here).
  await db.schema
    .createTable('user_projects')
    .addColumn('user_id', 'bigint', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_projects_pk', ['user_id', 'project_id'])
    .execute()
  await db.schema.createIndex('user_projects_project_idx').on('user_projects').column('project_id').execute()

  // Sign-in sessions: `id` is the SHA-256 (hex) of the cookie's random token, never the token.
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'char(64)', (col) => col.primaryKey())
    .addColumn('user_id', 'bigint', (col) => col.notNull().references('users.id').onDelete('cascade'))
    .addColumn('csrf_token', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute()
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute()

  // Sign-in throttling counters, shared by every instance: `key` is the SHA-256 (hex) of the
  // subject (an email or a client address) and its time window, so neither is stored in clear.
  await db.schema
    .createTable('sign_in_counters')
    .addColumn('key', 'char(64)', (col) => col.primaryKey())
    .addColumn('count', 'integer', (col) => col.notNull())
    .addColumn('expires_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('sign_in_counters_expires_idx').on('sign_in_counters').column('expires_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['sign_in_counters', 'sessions', 'user_projects', 'users']) {
    await db.schema.dropTable(table).execute()
  }
}
