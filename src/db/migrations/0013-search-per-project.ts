import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * The full-text index per project: each word of an animal's search text is indexed with its
 * project, as `p<project id>q<word>` (the project id is digits, so no project's words are a
 * prefix of another's). A search then reads only its own project's entries of a word, however
 * many projects share the database: "friendly" in a project of 10,000 animals no longer walks the
 * entries of a million. `pets.search_text` itself is unchanged; the index is built from it (see
 * src/pets/search-text.ts, `scopedToken`, for the query side).
 *
 * On SQLite the FTS5 table keeps `pets` as its external content, but its entries are the scoped
 * words the triggers write: never run its 'rebuild' command, which would index the unscoped text.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop index pets_search_idx`.execute(db)
    await sql.raw(`create index pets_search_idx on pets using gin (${POSTGRES_DOCUMENT})`).execute(db)
    return
  }
  for (const event of ['insert', 'delete', 'update']) await sql.raw(`drop trigger pets_fts_${event}`).execute(db)
  await sql`insert into pets_fts (pets_fts) values ('delete-all')`.execute(db)
  await sql.raw(`insert into pets_fts (rowid, search_text) select id, ${sqliteScoped('')} from pets where search_text is not null`).execute(db)
  await sql
    .raw(
      `create trigger pets_fts_insert after insert on pets when new.search_text is not null begin
         insert into pets_fts (rowid, search_text) values (new.id, ${sqliteScoped('new.')});
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pets_fts_delete after delete on pets when old.search_text is not null begin
         insert into pets_fts (pets_fts, rowid, search_text) values ('delete', old.id, ${sqliteScoped('old.')});
       end`,
    )
    .execute(db)
  await sql
    .raw(
      `create trigger pets_fts_update after update of search_text, project_id on pets begin
         insert into pets_fts (pets_fts, rowid, search_text) select 'delete', old.id, ${sqliteScoped('old.')} where old.search_text is not null;
         insert into pets_fts (rowid, search_text) select new.id, ${sqliteScoped('new.')} where new.search_text is not null;
       end`,
    )
    .execute(db)
}

/** The scoped words of a row (`row` is '', 'new.' or 'old.'). */
function sqliteScoped(row: string): string {
  return `'p' || ${row}project_id || 'q' || replace(${row}search_text, ' ', ' p' || ${row}project_id || 'q')`
}

/** The document PostgreSQL indexes; src/pets/pets.repository.ts searches with the same expression. */
const POSTGRES_DOCUMENT = `to_tsvector('simple'::regconfig, 'p' || project_id::text || 'q' || replace(coalesce(search_text, ''), ' ', ' p' || project_id::text || 'q'))`

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) throw new Error('Migration 0013-search-per-project cannot be undone on SQLite: restore the backup taken before the upgrade.')
  await sql`drop index pets_search_idx`.execute(db)
  await sql`create index pets_search_idx on pets using gin (to_tsvector('simple'::regconfig, coalesce(search_text, '')))`.execute(db)
}
