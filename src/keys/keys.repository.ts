import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import { prepare } from '../db/prepared.js'
import type { ApiKeyRow, Plan } from '../db/schema.js'

/** What authentication needs in one read: the key and the plan of its project. */
export interface KeyWithProject {
  id: string
  project_id: number
  expires_at: string | null
  revoked_at: string | null
  last_used_at: string | null
  slug: string
  plan: Plan
  per_minute: number | null
  per_day: number | null
  scopes: string | null
  publishable: number
  allowed_origins: string | null
}

export async function insertApiKey(db: Db, key: ApiKeyRow): Promise<ApiKeyRow> {
  return db.insertInto('api_keys').values(key).returningAll().executeTakeFirstOrThrow()
}

const findByHash = prepare((db, hash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .select([
      'api_keys.id',
      'api_keys.project_id',
      'api_keys.expires_at',
      'api_keys.revoked_at',
      'api_keys.last_used_at',
      'api_keys.scopes',
      'api_keys.publishable',
      'api_keys.allowed_origins',
      'projects.slug',
      'projects.plan',
      'projects.per_minute',
      'projects.per_day',
    ])
    .where('api_keys.hash', '=', hash),
)

/** Runs on every request: a prepared query. */
export async function findKeyByHash(db: Db, hash: string): Promise<KeyWithProject | undefined> {
  const [key] = await findByHash(db, hash)
  return key
}

/** A project's keys, each with the end of its ban when one is running at `now`. */
export async function listApiKeys(db: Db, projectId: number, now: string): Promise<(ApiKeyRow & { banned_until: string | null })[]> {
  return db
    .selectFrom('api_keys')
    .leftJoin('api_key_bans', (join) => join.onRef('api_key_bans.key_id', '=', 'api_keys.id').on('api_key_bans.until', '>', now))
    .selectAll('api_keys')
    .select('api_key_bans.until as banned_until')
    .where('api_keys.project_id', '=', projectId)
    .orderBy('api_keys.created_at')
    .orderBy('api_keys.id')
    .execute()
}

export async function findApiKey(db: Db, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst()
}

/** A key of one project: another project's key is not found. */
export async function findProjectApiKey(db: Db, projectId: number, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).where('project_id', '=', projectId).executeTakeFirst()
}

/** Revokes a key unless it already is; answers the key as it now stands. */
export async function revokeApiKey(db: Db, id: string, at: string): Promise<ApiKeyRow | undefined> {
  await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).execute()
  return findApiKey(db, id)
}

export async function touchApiKey(db: Db, id: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute()
}

/** Whether any key of the project has ever authenticated a request. */
export async function anyKeyUsed(db: Db, projectId: number): Promise<boolean> {
  const used = await db.selectFrom('api_keys').select('id').where('project_id', '=', projectId).where('last_used_at', 'is not', null).limit(1).executeTakeFirst()
  return used !== undefined
}

/** Keys not revoked whose expiry is after `from` and at most `until`, with their project's slug. */
export async function listKeysExpiringBefore(db: Db, from: string, until: string): Promise<(ApiKeyRow & { slug: string })[]> {
  return db
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .selectAll('api_keys')
    .select('projects.slug')
    .where('api_keys.revoked_at', 'is', null)
    .where('api_keys.expires_at', '>', from)
    .where('api_keys.expires_at', '<=', until)
    .orderBy('api_keys.expires_at')
    .execute()
}

/**
 * For CORS preflight requests, which carry no key: `allowed` when a publishable key that is not
 * revoked nor expired at `now` lists `origin` (a valid origin: no LIKE wildcard or space can be
 * in it; undefined for one that is not valid), `refused` when such keys exist but none lists it,
 * `none` when there is no such key at all. With `projectId`, the keys of that project only.
 */
export async function publishableOriginAccess(db: Db, origin: string | undefined, projectId: number | undefined, now: string): Promise<'allowed' | 'refused' | 'none'> {
  const lists = origin === undefined ? sql<number>`0` : sql<number>`case when ' ' || allowed_origins || ' ' like ${`% ${origin} %`} then 1 else 0 end`
  let query = db
    .selectFrom('api_keys')
    .select(lists.as('lists'))
    .where('publishable', '=', 1)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
  if (projectId !== undefined) query = query.where('project_id', '=', projectId)
  const found = await query.orderBy('lists', 'desc').limit(1).executeTakeFirst()
  if (found === undefined) return 'none'
  return Number(found.lists) === 1 ? 'allowed' : 'refused'
}
