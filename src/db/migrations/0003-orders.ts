import type { Kysely } from 'kysely'
import { idColumn } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', ...idColumn(db))
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('pet_id', 'bigint', (col) => col.notNull().references('pets.id').onDelete('cascade'))
    .addColumn('status', 'varchar(16)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('orders_project_id_idx').on('orders').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('orders_project_status_id_idx').on('orders').columns(['project_id', 'status', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('orders').execute()
}
