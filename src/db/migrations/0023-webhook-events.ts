import type { Kysely } from 'kysely'

// Frozen once released: change the schema in a new migration.

export async function up(db: Kysely<unknown>): Promise<void> {
  // A project's event list, newest first, and its filters by time (GET …/events, replay).
  await db.schema.createIndex('webhook_events_project_idx').on('webhook_events').columns(['project_id', 'created_at', 'id']).execute()
  // Recovery and replay ask, per event, whether the endpoint has a delivery of it already.
  await db.schema.createIndex('webhook_deliveries_event_endpoint_idx').on('webhook_deliveries').columns(['event_id', 'endpoint_id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_endpoint_idx').execute()
  await db.schema.dropIndex('webhook_events_project_idx').execute()
}
