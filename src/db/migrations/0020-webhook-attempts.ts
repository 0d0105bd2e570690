import type { Kysely } from 'kysely'
import { idColumn } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // Every attempt of a delivery, written in the transaction that records its outcome on the
  // delivery: what was sent (the headers, never a secret, and the body) and what came back.
  // Attempts go with their delivery (pruned, or its endpoint removed).
  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', ...idColumn(db))
    .addColumn('delivery_id', 'bigint', (col) => col.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempted_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('status', 'integer')
    .addColumn('duration_ms', 'integer', (col) => col.notNull())
    .addColumn('response_excerpt', 'text')
    .addColumn('error', 'text')
    .addColumn('request_headers', 'text')
    .addColumn('request_body', 'text')
    .execute()
  await db.schema.createIndex('webhook_attempts_delivery_idx').on('webhook_attempts').columns(['delivery_id', 'id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute()
}
