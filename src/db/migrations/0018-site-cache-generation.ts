import { type Kysely, sql } from 'kysely'
import { isPostgres } from './portable.js'

// Frozen: this migration has run on deployed databases. Change the schema in a new migration.

/**
 * The adoption site's pages are kept in the response cache under their project's data
 * generation, so a change of the site's settings (published, name, colours) bumps it in the
 * embedded store, whoever writes. PostgreSQL deployments bump it through Redis.
 */
const EVENTS = [
  ['insert', 'new'],
  ['update', 'new'],
  ['delete', 'old'],
] as const

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return
  for (const [event, row] of EVENTS) {
    await sql
      .raw(
        `create trigger cache_generation_site_settings_${event} after ${event} on site_settings begin
           insert into cache_generations (scope, value) values ('data:' || ${row}.project_id, 1)
             on conflict (scope) do update set value = value + 1;
         end`,
      )
      .execute(db)
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) return
  for (const [event] of EVENTS) await sql.raw(`drop trigger cache_generation_site_settings_${event}`).execute(db)
}
