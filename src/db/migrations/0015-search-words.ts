import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * PostgreSQL only: the words of each project's animals, so that a search word is asked of the
 * full-text index as the words it starts, not as a prefix.
 *
 * A prefix (`'p2qfriendly':*`) makes the GIN index gather every entry of every word it starts
 * into a bitmap before it intersects anything: for a word in half of a project's animals that
 * alone is most of the search. The same word asked as the words it starts (`'p2qfriendly' |
 * 'p2qfriendlier'`), found in this table first, is intersected with the other terms entry by
 * entry, skipping what cannot match. The table keeps every word an animal of the project has had
 * (triggers add the words of the rows each statement writes; none is removed: a word no animal has any more
 * only matches nothing), so a search finds exactly what the prefix would. Words are not unique:
 * a unique key would make writers that add the same new word wait for each other (and two
 * transactions adding two words in opposite orders deadlock); two writers adding one word at
 * once write it twice, and a lookup reads it once.
 *
 * The index also stops keeping a pending list of new entries (`fastupdate`): a search would read
 * the whole list, up to 4 MB, every time until a vacuum merged it. A write adds its entries at
 * once instead. SQLite's FTS5 index answers prefixes itself and needs neither.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await db.schema
    .createTable('pet_search_words')
    .addColumn('project_id', 'bigint', (col) => col.notNull().references('projects.id').onDelete('cascade'))
    // Byte order ("C"): a word's completions are one range of the index (`like 'w%'`).
    .addColumn('word', sql`text collate "C"`, (col) => col.notNull())
    .execute()
  await db.schema.createIndex('pet_search_words_idx').on('pet_search_words').columns(['project_id', 'word']).execute()
  // Once per statement, over the rows it wrote (a batch's common words are looked up once); on
  // an update only the rows whose text changed (an order moving the status changes none).
  const added = (rows: string) => `
    insert into pet_search_words (project_id, word)
      select distinct n.project_id, t.word
      from ${rows} cross join unnest(string_to_array(n.search_text, ' ')) as t (word)
      where t.word <> '' and not exists (select from pet_search_words w where w.project_id = n.project_id and w.word = t.word);`
  await sql
    .raw(`create function pet_search_words_inserted() returns trigger language plpgsql as $$ begin ${added('written n')} return null; end $$`)
    .execute(db)
  await sql
    .raw(
      `create function pet_search_words_updated() returns trigger language plpgsql as $$ begin ${added(
        'written n join former o on o.id = n.id and o.search_text is distinct from n.search_text',
      )} return null; end $$`,
    )
    .execute(db)
  await sql`create trigger pet_search_words_insert after insert on pets referencing new table as written for each statement execute function pet_search_words_inserted()`.execute(db)
  await sql`create trigger pet_search_words_update after update on pets referencing old table as former new table as written for each statement execute function pet_search_words_updated()`.execute(db)
  await sql`
    insert into pet_search_words (project_id, word)
      select distinct project_id, word from pets, unnest(string_to_array(search_text, ' ')) as word
      where search_text is not null and word <> ''`.execute(db)
  await sql`alter index pets_search_idx set (fastupdate = off)`.execute(db)
  await sql`select gin_clean_pending_list('pets_search_idx')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return
  await sql`alter index pets_search_idx reset (fastupdate)`.execute(db)
  await sql`drop trigger pet_search_words_update on pets`.execute(db)
  await sql`drop trigger pet_search_words_insert on pets`.execute(db)
  await sql`drop function pet_search_words_updated()`.execute(db)
  await sql`drop function pet_search_words_inserted()`.execute(db)
  await db.schema.dropTable('pet_search_words').execute()
}
