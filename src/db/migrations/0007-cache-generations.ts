import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/** What each trigger watches, and the scope it bumps: `auth` (keys, projects) or `data:<project id>`. */
const TRIGGERS = [
  { table: 'pets', event: 'INSERT', scope: `'data:' || NEW.project_id` },
  { table: 'pets', event: 'UPDATE', scope: `'data:' || NEW.project_id` },
  { table: 'pets', event: 'DELETE', scope: `'data:' || OLD.project_id` },
  { table: 'orders', event: 'INSERT', scope: `'data:' || NEW.project_id` },
  { table: 'orders', event: 'UPDATE', scope: `'data:' || NEW.project_id` },
  { table: 'orders', event: 'DELETE', scope: `'data:' || OLD.project_id` },
  // Who a key is and what its project may do; `last_used_at` changes nothing a cache holds.
  { table: 'api_keys', event: 'UPDATE OF project_id, hash, expires_at, revoked_at', scope: `'auth'` },
  { table: 'api_keys', event: 'DELETE', scope: `'auth'` },
  { table: 'projects', event: 'UPDATE', scope: `'auth'` },
  { table: 'projects', event: 'DELETE', scope: `'auth'` },
]

export async function up(db: Kysely<unknown>): Promise<void> {
  // The embedded store's generations (see src/cache/generations.ts): every write that can change
  // a cached answer bumps its scope here, in its own transaction, whoever writes (this service,
  // another process on the same file, the CLI). PostgreSQL deployments share generations through
  // Redis instead, so they have no table.
  if (isPostgres(db)) return
  await db.schema
    .createTable('cache_generations')
    .addColumn('scope', 'varchar(64)', (col) => col.primaryKey())
    .addColumn('value', 'bigint', (col) => col.notNull())
    .execute()
  for (const [i, { table, event, scope }] of TRIGGERS.entries()) {
    await sql
      .raw(
        `CREATE TRIGGER cache_generation_${table}_${i} AFTER ${event} ON ${table} BEGIN
           INSERT INTO cache_generations (scope, value) VALUES (${scope}, 1)
             ON CONFLICT (scope) DO UPDATE SET value = value + 1;
         END`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return
  for (const [i, { table }] of TRIGGERS.entries()) await sql.raw(`DROP TRIGGER cache_generation_${table}_${i}`).execute(db)
  await db.schema.dropTable('cache_generations').execute()
}
