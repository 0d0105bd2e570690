import { type Kysely, sql } from 'kysely'
import { idColumn, isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/** Endpoint and subscription changes bump the `auth` generation, like key and plan changes (see src/webhooks/outbox.ts). */
const TRIGGERS = [
  { table: 'webhook_endpoints', event: 'INSERT' },
  { table: 'webhook_endpoints', event: 'UPDATE OF enabled' },
  { table: 'webhook_endpoints', event: 'DELETE' },
  { table: 'webhook_subscriptions', event: 'INSERT' },
  { table: 'webhook_subscriptions', event: 'DELETE' },
]

export async function up(db: Kysely<unknown>): Promise<void> {
  // A project's receivers of events. The signing secrets are sealed (src/secret-box.ts).
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id'))
    .addColumn('url', 'varchar(2048)', (col) => col.notNull())
    .addColumn('description', 'varchar(200)')
    .addColumn('enabled', 'integer', (col) => col.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('secret', 'text', (col) => col.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_until', 'varchar(32)')
    .addColumn('failing_since', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('webhook_endpoints_project_idx').on('webhook_endpoints').columns(['project_id', 'created_at']).execute()

  // The event types an endpoint receives; `*` stands for all of them.
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('endpoint_id', 'varchar(32)', (col) => col.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_type', 'varchar(64)', (col) => col.notNull())
    .addPrimaryKeyConstraint('webhook_subscriptions_pkey', ['endpoint_id', 'event_type'])
    .execute()

  // The outbox: one row per event, written in the transaction of the change it reports.
  // `dedupe_key` makes events that no row change carries (quotas, expiring keys) happen once.
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'varchar(40)', (col) => col.primaryKey())
    .addColumn('project_id', 'bigint', (col) => col.notNull())
    .addColumn('type', 'varchar(64)', (col) => col.notNull())
    .addColumn('data', 'text', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('dedupe_key', 'varchar(200)', (col) => col.unique())
    .execute()
  await db.schema.createIndex('webhook_events_created_idx').on('webhook_events').column('created_at').execute()

  // One row per event and endpoint: its schedule of attempts, its lease, and how the last one went.
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', ...idColumn(db))
    .addColumn('event_id', 'varchar(40)', (col) => col.notNull())
    .addColumn('endpoint_id', 'varchar(32)', (col) => col.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (col) => col.notNull())
    .addColumn('state', 'varchar(16)', (col) => col.notNull())
    .addColumn('manual', 'integer', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('next_attempt_at', 'varchar(32)')
    .addColumn('lease_holder', 'varchar(128)')
    .addColumn('lease_until', 'varchar(32)')
    .addColumn('last_attempt_at', 'varchar(32)')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_latency_ms', 'integer')
    .addColumn('response_excerpt', 'text')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('completed_at', 'varchar(32)')
    .addCheckConstraint('webhook_deliveries_state_check', sql`state in ('pending', 'succeeded', 'failed')`)
    .execute()
  await db.schema.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['state', 'next_attempt_at']).execute()
  await db.schema.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute()
  await db.schema.createIndex('webhook_deliveries_event_idx').on('webhook_deliveries').column('event_id').execute()

  if (isPostgres(db)) return
  for (const [i, { table, event }] of TRIGGERS.entries()) {
    await sql
      .raw(
        `CREATE TRIGGER cache_generation_${table}_${i} AFTER ${event} ON ${table} BEGIN
           INSERT INTO cache_generations (scope, value) VALUES ('auth', 1)
             ON CONFLICT (scope) DO UPDATE SET value = value + 1;
         END`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) for (const [i, { table }] of TRIGGERS.entries()) await sql.raw(`DROP TRIGGER cache_generation_${table}_${i}`).execute(db)
  await db.schema.dropTable('webhook_deliveries').execute()
  await db.schema.dropTable('webhook_events').execute()
  await db.schema.dropTable('webhook_subscriptions').execute()
  await db.schema.dropTable('webhook_endpoints').execute()
}
