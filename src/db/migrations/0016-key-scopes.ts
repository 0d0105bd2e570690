import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * What a key may do. `scopes`: the scopes it was given, space-separated (as OAuth writes them);
 * null for a key of full access, which every key made before this migration is. `publishable`
 * (0 or 1): a key meant for web pages, read-only, answered with CORS headers for its
 * `allowed_origins` (space-separated exact origins; null for other keys).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('scopes', 'varchar(255)').execute()
  await db.schema.alterTable('api_keys').addColumn('publishable', 'integer', (col) => col.notNull().defaultTo(0)).execute()
  await db.schema.alterTable('api_keys').addColumn('allowed_origins', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').dropColumn('allowed_origins').execute()
  await db.schema.alterTable('api_keys').dropColumn('publishable').execute()
  await db.schema.alterTable('api_keys').dropColumn('scopes').execute()
}
