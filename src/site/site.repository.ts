import type { Db } from '../db/database.js'
import type { SiteSettingsRow, SiteSettingsTable } from '../db/schema.js'

export async function findSiteSettings(db: Db, projectId: number): Promise<SiteSettingsRow | undefined> {
  return db.selectFrom('site_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst()
}

/** Writes a project's whole settings row, creating it the first time. */
export async function saveSiteSettings(db: Db, row: SiteSettingsTable): Promise<void> {
  const { published, display_name, logo_url, primary_color, about, contact_email, contact_phone, updated_at } = row
  const changes = { published, display_name, logo_url, primary_color, about, contact_email, contact_phone, updated_at }
  await db
    .insertInto('site_settings')
    .values(row)
    .onConflict((conflict) => conflict.column('project_id').doUpdateSet(changes))
    .execute()
}

/**
 * The service's form-signing secret: the stored one, else `candidate`, stored now. Of instances
 * starting together, the first insert wins and every one reads it back.
 */
export async function siteKey(db: Db, candidate: { secret: string; at: string }): Promise<string> {
  await db
    .insertInto('site_keys')
    .values({ id: 1, secret: candidate.secret, created_at: candidate.at })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute()
  const row = await db.selectFrom('site_keys').select('secret').where('id', '=', 1).executeTakeFirstOrThrow()
  return row.secret
}
