import { type Kysely, sql } from 'kysely'
import { idColumn, isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * Animal profiles, categories, locations, search and the change feed.
 *
 * - `pets.profile` holds the profile as the API shows it (JSON); the columns beside it are what
 *   filters, sorts and the full-text search read, written from the profile by the service.
 * - `categories`: a project's own category names (and breeds), over the default set in code.
 * - `locations`: a project's places, with coordinates for distance searches.
 * - `pet_changes`: the change feed, one row per animal at its latest change (a removal leaves a
 *   tombstone), written by triggers on `pets` in the writing transaction, whoever writes. Its
 *   order is `(txid, seq)`: on PostgreSQL the writing transaction's id, so that a reader returns
 *   only changes of transactions older than every transaction still running (see
 *   src/pets/pet-changes.repository.ts); SQLite has one writer at a time, so `seq` alone is the
 *   commit order there and `txid` is 0.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = isPostgres(db)

  await db.schema
    .createTable('locations')
    .addColumn('id', ...idColumn(db))
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    // JSON: the address as the API shows it.
    .addColumn('address', 'text')
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .execute()
  await db.schema.createIndex('locations_project_idx').on('locations').columns(['project_id', 'id']).execute()

  const columns: [string, string][] = [
    ['updated_at', 'varchar(32)'],
    ['profile', 'text'],
    ['external_id', 'varchar(64)'],
    ['sex', 'varchar(16)'],
    ['age_group', 'varchar(16)'],
    ['size', 'varchar(16)'],
    ['coat', 'varchar(16)'],
    ['good_with_children', 'varchar(8)'],
    ['good_with_dogs', 'varchar(8)'],
    ['good_with_cats', 'varchar(8)'],
    ['spayed_neutered', 'integer'],
    ['house_trained', 'integer'],
    ['vaccinated', 'integer'],
    ['microchipped', 'integer'],
    ['special_needs', 'integer'],
    ['breed_primary_key', 'varchar(100)'],
    ['breed_secondary_key', 'varchar(100)'],
    ['tags_key', 'text'],
    ['search_text', 'text'],
  ]
  for (const [name, type] of columns) await db.schema.alterTable('pets').addColumn(name, sql.raw(type)).execute()
  // A location with animals cannot be removed; an animal cannot point at a location that is gone.
  await db.schema.alterTable('pets').addColumn('location_id', 'bigint', (col) => col.references('locations.id')).execute()
  // Rows written before: their last change is their creation, and their search text is their name.
  await sql`update pets set updated_at = created_at, name_folded = coalesce(name_folded, lower(name))`.execute(db)
  await backfillSearchText(db)

  await db.schema.createIndex('pets_project_external_id_idx').on('pets').columns(['project_id', 'external_id']).unique().execute()
  await db.schema.createIndex('pets_project_created_idx').on('pets').columns(['project_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('pets_project_updated_idx').on('pets').columns(['project_id', 'updated_at', 'id']).execute()
  await db.schema.createIndex('pets_project_name_idx').on('pets').columns(['project_id', 'name_folded', 'id']).execute()
  await db.schema.createIndex('pets_project_category_idx').on('pets').columns(['project_id', 'category_id', 'id']).execute()
  // The distance search (the locations within the radius) and the reference's check on removal.
  await db.schema.createIndex('pets_location_idx').on('pets').columns(['location_id', 'id']).execute()
  await db.schema.createIndex('pets_project_breed_idx').on('pets').columns(['project_id', 'breed_primary_key', 'id']).execute()

  await db.schema
    .createTable('categories')
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('id', 'bigint', (col) => col.notNull())
    .addColumn('name', 'varchar(100)', (col) => col.notNull())
    // JSON array of breed names added to the category's own list.
    .addColumn('breeds', 'text')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('updated_at', 'varchar(32)', (col) => col.notNull())
    .addPrimaryKeyConstraint('categories_pkey', ['project_id', 'id'])
    .execute()

  await db.schema
    .createTable('pet_changes')
    .addColumn('project_id', 'bigint', (col) => col.notNull())
    .addColumn('pet_id', 'bigint', (col) => col.notNull())
    .addColumn('txid', 'bigint', (col) => col.notNull())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('removed', 'integer', (col) => col.notNull())
    .addColumn('changed_at', 'varchar(32)', (col) => col.notNull())
    .addPrimaryKeyConstraint('pet_changes_pkey', ['project_id', 'pet_id'])
    .execute()
  await db.schema.createIndex('pet_changes_order_idx').on('pet_changes').columns(['project_id', 'txid', 'seq']).execute()

  if (postgres) await upPostgres(db)
  else await upSqlite(db)
}

/** Every animal's search text is its name until the service writes its profile. */
async function backfillSearchText(db: Kysely<unknown>): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; name: string }>`select id, name from pets where id > ${after} order by id limit 500`.execute(db)
    for (const { id, name } of rows) await sql`update pets set search_text = ${searchTokens(name)} where id = ${id}`.execute(db)
    const last = rows[rows.length - 1]
    if (!last) return
    after = Number(last.id)
  }
}

/** The normalisation of src/pets/search-text.ts as it was when this migration was written (frozen with it). */
function searchTokens(text: string): string {
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.map((token) => token.slice(0, 64))
      .join(' ') ?? ''
  )
}

const SQLITE_NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`

async function upSqlite(db: Kysely<unknown>): Promise<void> {
  // Full-text search over `pets.search_text` (already folded by the service into plain tokens).
  await sql`create virtual table pets_fts using fts5(search_text, content='pets', content_rowid='id', tokenize='unicode61 remove_diacritics 0')`.execute(db)
  await sql`insert into pets_fts(pets_fts) values ('rebuild')`.execute(db)
  await sql
    .raw(
      `create trigger pets_fts_insert after insert on pets begin
         insert into pets_fts (rowid, search_text) values (new.id, new.search_text);
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pets_fts_delete after delete on pets begin
         insert into pets_fts (pets_fts, rowid, search_text) values ('delete', old.id, old.search_text);
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pets_fts_update after update of search_text on pets begin
         insert into pets_fts (pets_fts, rowid, search_text) values ('delete', old.id, old.search_text);
         insert into pets_fts (rowid, search_text) values (new.id, new.search_text);
       end`,
    )
    .execute(db)

  // The change feed: the next `seq` of the project, under SQLite's single writer.
  const next = (project: string) => `coalesce((select max(seq) from pet_changes where project_id = ${project} and txid = 0), 0) + 1`
  const upsert = `on conflict (project_id, pet_id) do update set seq = excluded.seq, removed = excluded.removed, changed_at = excluded.changed_at`
  await sql
    .raw(
      `create trigger pet_changes_insert after insert on pets begin
         insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
         values (new.project_id, new.id, 0, ${next('new.project_id')}, 0, coalesce(new.updated_at, new.created_at)) ${upsert};
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pet_changes_update after update on pets begin
         insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
         values (new.project_id, new.id, 0, ${next('new.project_id')}, 0, coalesce(new.updated_at, ${SQLITE_NOW})) ${upsert};
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pet_changes_delete after delete on pets begin
         insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
         values (old.project_id, old.id, 0, ${next('old.project_id')}, 1, ${SQLITE_NOW}) ${upsert};
       end`,
    )
    .execute(db)
  // Today's animals, each as changed at its creation, in id order.
  await sql`
    insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
    select project_id, id, 0, row_number() over (partition by project_id order by id), 0, created_at from pets where true`.execute(db)

  // Categories and locations shape cached answers (the names of categories, the distances of animals).
  for (const table of ['categories', 'locations']) {
    for (const [event, row] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const) {
      await sql
        .raw(
          `create trigger cache_generation_${table}_${event} after ${event} on ${table} begin
             insert into cache_generations (scope, value) values ('data:' || ${row}.project_id, 1)
               on conflict (scope) do update set value = value + 1;
           end`,
        )
        .execute(db)
    }
  }
}

async function upPostgres(db: Kysely<unknown>): Promise<void> {
  // The same tokens as SQLite's FTS5 table: the service folds the text; 'simple' only splits it.
  await sql`create index pets_search_idx on pets using gin (to_tsvector('simple'::regconfig, coalesce(search_text, '')))`.execute(db)

  await sql`create sequence pet_changes_seq as bigint`.execute(db)
  // The transaction id orders the feed: a reader returns only changes of transactions older than
  // every one still running, so a change that commits late is never skipped.
  await sql
    .raw(
      `create function record_pet_change() returns trigger language plpgsql as $$
       begin
         if tg_op = 'DELETE' then
           insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
           values (old.project_id, old.id, pg_current_xact_id()::text::bigint, nextval('pet_changes_seq'), 1,
                   to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           on conflict (project_id, pet_id) do update set txid = excluded.txid, seq = excluded.seq, removed = 1, changed_at = excluded.changed_at;
           return old;
         end if;
         insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
         values (new.project_id, new.id, pg_current_xact_id()::text::bigint, nextval('pet_changes_seq'), 0, coalesce(new.updated_at, new.created_at))
         on conflict (project_id, pet_id) do update set txid = excluded.txid, seq = excluded.seq, removed = 0, changed_at = excluded.changed_at;
         return new;
       end $$`,
    )
    .execute(db)
  await sql`create trigger pet_changes_record after insert or update or delete on pets for each row execute function record_pet_change()`.execute(db)
  await sql`
    insert into pet_changes (project_id, pet_id, txid, seq, removed, changed_at)
    select project_id, id, 0, nextval('pet_changes_seq'), 0, created_at from (select project_id, id, created_at from pets order by id) as existing`.execute(db)
}

/**
 * PostgreSQL only. SQLite cannot drop a column that a foreign key names (`pets.location_id`)
 * without rebuilding the table, and no earlier version reads the new columns: restore the backup
 * taken before upgrading instead.
 */
export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) throw new Error('Migration 0012-animal-profiles cannot be undone on SQLite: restore the backup taken before the upgrade.')
  await sql`drop trigger pet_changes_record on pets`.execute(db)
  await sql`drop function record_pet_change()`.execute(db)
  await sql`drop sequence pet_changes_seq`.execute(db)
  await sql`drop index pets_search_idx`.execute(db)
  await db.schema.dropTable('pet_changes').execute()
  await db.schema.dropTable('categories').execute()
  for (const index of [
    'pets_project_external_id_idx',
    'pets_project_created_idx',
    'pets_project_updated_idx',
    'pets_project_name_idx',
    'pets_project_category_idx',
    'pets_location_idx',
    'pets_project_breed_idx',
  ]) {
    await db.schema.dropIndex(index).execute()
  }
  for (const column of [
    'updated_at', 'profile', 'external_id', 'sex', 'age_group', 'size', 'coat', 'good_with_children', 'good_with_dogs', 'good_with_cats',
    'spayed_neutered', 'house_trained', 'vaccinated', 'microchipped', 'special_needs', 'breed_primary_key', 'breed_secondary_key',
    'location_id', 'tags_key', 'search_text',
  ]) {
    await db.schema.alterTable('pets').dropColumn(column).execute()
  }
  await db.schema.dropTable('locations').execute()
}
