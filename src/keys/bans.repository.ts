import type { Db } from '../db/database.js'
import type { ApiKeyBanRow } from '../db/schema.js'

export async function recordBan(db: Db, ban: ApiKeyBanRow): Promise<void> {
  await db
    .insertInto('api_key_bans')
    .values(ban)
    .onConflict((oc) => oc.column('key_id').doUpdateSet({ level: ban.level, banned_at: ban.banned_at, until: ban.until }))
    .execute()
}

export async function findBan(db: Db, keyId: string): Promise<ApiKeyBanRow | undefined> {
  return db.selectFrom('api_key_bans').selectAll().where('key_id', '=', keyId).executeTakeFirst()
}

/** Bans still running at `now`. */
export async function listActiveBans(db: Db, now: string): Promise<ApiKeyBanRow[]> {
  return db.selectFrom('api_key_bans').selectAll().where('until', '>', now).execute()
}

export async function deleteBan(db: Db, keyId: string): Promise<boolean> {
  const result = await db.deleteFrom('api_key_bans').where('key_id', '=', keyId).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
