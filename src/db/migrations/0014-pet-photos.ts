import type { Kysely } from 'kysely'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * Photos of animals.
 *
 * - `pet_photos`: one row per photo, written once every variant of it is stored (the row is what
 *   makes a photo visible and served); its `variants` (JSON) name the stored objects. A row goes
 *   with its animal.
 * - `pets.photos`: the animal's photos in order as its answers show them (JSON, without the base
 *   address), rewritten from `pet_photos` in the transaction of every photo change, so reading an
 *   animal costs no other query; null: none.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pet_photos')
    // Random (128 bits, base64url): part of every address of the photo's files.
    .addColumn('id', 'varchar(32)', (col) => col.primaryKey())
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('pet_id', 'bigint', (col) => col.notNull().references('pets.id').onDelete('cascade'))
    // 0 is the main photo.
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('width', 'integer', (col) => col.notNull())
    .addColumn('height', 'integer', (col) => col.notNull())
    // SHA-256 of the bytes uploaded (hex).
    .addColumn('hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('variants', 'text', (col) => col.notNull())
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('pet_photos_pet_idx').on('pet_photos').columns(['project_id', 'pet_id', 'position']).execute()
  // The removal of an animal finds its photos by this reference.
  await db.schema.createIndex('pet_photos_pet_id_idx').on('pet_photos').columns(['pet_id']).execute()
  await db.schema.alterTable('pets').addColumn('photos', 'text').execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pets').dropColumn('photos').execute()
  await db.schema.dropTable('pet_photos').execute()
}
