import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen once released: change the schema in a new migration.

/**
 * Migration 0011 made the embedded store bump the `auth` cache generation at every change of a
 * webhook endpoint or subscription, for the outbox's cache of each project's endpoints, which
 * was since removed (the outbox reads the subscribed endpoints with each event). Nothing cached
 * depends on them any more: each such change only emptied every instance's cached principals and
 * answers, of every project, and PostgreSQL deployments never did it. Its triggers go.
 */
const TRIGGERS = [
  { table: 'webhook_endpoints', event: 'INSERT' },
  { table: 'webhook_endpoints', event: 'UPDATE OF enabled' },
  { table: 'webhook_endpoints', event: 'DELETE' },
  { table: 'webhook_subscriptions', event: 'INSERT' },
  { table: 'webhook_subscriptions', event: 'DELETE' },
]

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return
  // Named as 0011 named them: by table and by place in its list.
  for (const [i, { table }] of TRIGGERS.entries()) await sql.raw(`DROP TRIGGER cache_generation_${table}_${i}`).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
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
