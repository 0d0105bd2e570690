import type { Kysely } from 'kysely'
import { idColumn } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', ...idColumn(db))
    .addColumn('slug', 'varchar(63)', (col) => col.notNull().unique())
    .addColumn('plan', 'varchar(16)', (col) => col.notNull())
    .addColumn('per_minute', 'integer')
    .addColumn('per_day', 'integer')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('prefix', 'varchar(32)', (col) => col.notNull())
    .addColumn('hash', 'char(64)', (col) => col.notNull().unique())
    .addColumn('name', 'varchar(100)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('last_used_at', 'varchar(32)')
    .addColumn('expires_at', 'varchar(32)')
    .addColumn('revoked_at', 'varchar(32)')
    .execute()
  await db.schema.createIndex('api_keys_project_idx').on('api_keys').column('project_id').execute()

  await db.schema
    .createTable('pets')
    .addColumn('id', ...idColumn(db))
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    .addColumn('category_id', 'bigint', (col) => col.notNull())
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  // Serves both list shapes: by project in id order, and by project and status in id order.
  await db.schema.createIndex('pets_project_id_idx').on('pets').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('pets_project_status_id_idx').on('pets').columns(['project_id', 'status', 'id']).execute()

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', (col) => col.notNull())
    .addColumn('request_hash', 'char(64)', (col) => col.notNull())
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['project_id', 'key'])
    .execute()
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['idempotency_keys', 'pets', 'api_keys', 'projects']) {
    await db.schema.dropTable(table).execute()
  }
}
