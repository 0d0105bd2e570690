import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * Whether a project's webhook endpoints may reach the networks the operator allows
 * (WEBHOOK_ALLOWED_NETWORKS): an operator's grant, per project; none has it at first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('webhook_private_networks', 'integer', (col) => col.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').dropColumn('webhook_private_networks').execute()
}
