import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * The shelter's adoption site.
 *
 * - `orders.enquiry_*`: who asked to adopt through the site's enquiry form (name, email and/or
 *   phone, message). All null for orders placed through the API, as before.
 * - `site_settings`: a project's site, one row per project once its owner changed anything
 *   (no row: published, with the defaults). `primary_color` is `#rrggbb`.
 * - `site_keys`: the secret the site's form tokens are signed with, one row for the whole
 *   service, written by the first instance that needs it, so every instance signs alike.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orders').addColumn('enquiry_name', 'text').execute()
  await db.schema.alterTable('orders').addColumn('enquiry_email', 'text').execute()
  await db.schema.alterTable('orders').addColumn('enquiry_phone', 'text').execute()
  await db.schema.alterTable('orders').addColumn('enquiry_message', 'text').execute()
  await db.schema
    .createTable('site_settings')
    .addColumn('project_id', 'bigint', (col) => col.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('published', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('display_name', 'text')
    .addColumn('logo_url', 'text')
    .addColumn('primary_color', 'varchar(7)')
    .addColumn('about', 'text')
    .addColumn('contact_email', 'text')
    .addColumn('contact_phone', 'text')
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema
    .createTable('site_keys')
    .addColumn('id', 'integer', (col) => col.primaryKey())
    .addColumn('secret', 'varchar(64)', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('site_keys').execute()
  await db.schema.dropTable('site_settings').execute()
  for (const column of ['enquiry_message', 'enquiry_phone', 'enquiry_email', 'enquiry_name']) await db.schema.alterTable('orders').dropColumn(column).execute()
}
