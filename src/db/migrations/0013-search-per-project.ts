import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * The full-text index per project, with the filters adopters combine with words; and an index
 * on the secondary breed beside the primary one's.
 *
 * - Each word of an animal's search text is indexed with its project, as `p<project>q<word>`
 *   (the project id is digits and `q` a letter, so no project's words start another's). A search
 *   reads only its own project's entries of a word, however many projects share the database.
 * - Beside the words, each animal's status, category, sex, age group, size and location are
 *   indexed as `f<project>q<letter><value>` (`t` status, `c` category, `s` sex, `a` age, `z`
 *   size without its underscore, `l` location). Words are always `p…`, so these never meet a
 *   word. A search with `q` and such filters asks the index for all of them at once, and reads
 *   only the animals that match everything; the filters are still applied to those rows too.
 *
 * `pets.search_text` itself is unchanged: the index is computed from the row (SQLite: the FTS5
 * table's triggers; PostgreSQL: the expression of the GIN index). src/pets/pets.repository.ts
 * builds its queries to match. On SQLite the FTS5 table keeps `pets` as its external content,
 * but its entries are what the triggers write: never run its 'rebuild' command.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The breed filter matches the primary or the secondary breed: with an index on each, neither
  // side of the `or` reads the whole project.
  await db.schema.createIndex('pets_project_breed_secondary_idx').on('pets').columns(['project_id', 'breed_secondary_key', 'id']).execute()
  if (isPostgres(db)) {
    await sql`drop index pets_search_idx`.execute(db)
    await sql.raw(`create index pets_search_idx on pets using gin (to_tsvector('simple'::regconfig, ${document('', 'postgres')}))`).execute(db)
    return
  }
  for (const event of ['insert', 'delete', 'update']) await sql.raw(`drop trigger pets_fts_${event}`).execute(db)
  await sql`insert into pets_fts (pets_fts) values ('delete-all')`.execute(db)
  await sql.raw(`insert into pets_fts (rowid, search_text) select id, ${document('', 'sqlite')} from pets where search_text is not null`).execute(db)
  await sql
    .raw(
      `create trigger pets_fts_insert after insert on pets when new.search_text is not null begin
         insert into pets_fts (rowid, search_text) values (new.id, ${document('new.', 'sqlite')});
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pets_fts_delete after delete on pets when old.search_text is not null begin
         insert into pets_fts (pets_fts, rowid, search_text) values ('delete', old.id, ${document('old.', 'sqlite')});
       end`,
    )
    .execute(db)
  // Any change of a row may change what is indexed (its words, status, category, profile columns).
  await sql
    .raw(
      `create trigger pets_fts_update after update on pets begin
         insert into pets_fts (pets_fts, rowid, search_text) select 'delete', old.id, ${document('old.', 'sqlite')} where old.search_text is not null;
         insert into pets_fts (rowid, search_text) select new.id, ${document('new.', 'sqlite')} where new.search_text is not null;
       end`,
    )
    .execute(db)
}

/** What is indexed of a row (`row` is '', 'new.' or 'old.'): its scoped words and filter values. */
function document(row: string, dialect: 'sqlite' | 'postgres'): string {
  const project = dialect === 'postgres' ? `${row}project_id::text` : `${row}project_id`
  const text = dialect === 'postgres' ? `coalesce(${row}search_text, '')` : `${row}search_text`
  const value = (letter: string, column: string) => `coalesce(' f' || ${project} || 'q${letter}' || ${column}, '')`
  return [
    `'p' || ${project} || 'q' || replace(${text}, ' ', ' p' || ${project} || 'q')`,
    value('t', `${row}status`),
    value('c', dialect === 'postgres' ? `${row}category_id::text` : `${row}category_id`),
    value('s', `${row}sex`),
    value('a', `${row}age_group`),
    value('z', `replace(${row}size, '_', '')`),
    value('l', dialect === 'postgres' ? `${row}location_id::text` : `${row}location_id`),
  ].join(' || ')
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) throw new Error('Migration 0013-search-per-project cannot be undone on SQLite: restore the backup taken before the upgrade.')
  await db.schema.dropIndex('pets_project_breed_secondary_idx').execute()
  await sql`drop index pets_search_idx`.execute(db)
  await sql`create index pets_search_idx on pets using gin (to_tsvector('simple'::regconfig, coalesce(search_text, '')))`.execute(db)
}
