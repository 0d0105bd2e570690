import { generateApiKey, randomBase62 } from '../auth/api-key.js'
import { authChanged } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Environment } from '../config.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow } from '../db/schema.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import { findApiKey, findProjectApiKey, insertApiKey, listApiKeys, revokeApiKey } from './keys.repository.js'

export interface ApiKey {
  id: string
  project: string
  prefix: string
  name: string | null
  createdAt: string
  lastUsedAt: string | null
  expiresAt: string | null
  revokedAt: string | null
  /** The end of the temporary ban running now, if any. */
  bannedUntil: string | null
}

export type KeyFailure = { ok: false; error: 'project_not_found' | 'key_not_found' | 'invalid_name'; message: string }

export function toApiKey(row: ApiKeyRow & { banned_until?: string | null }, project: string): ApiKey {
  return {
    id: row.id,
    project,
    prefix: row.prefix,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    bannedUntil: row.banned_until ?? null,
  }
}

/** The longest lifetime a key may be given (about ten years): longer is a mistake, not a plan. */
export const MAX_KEY_LIFETIME_DAYS = 3650

export interface KeyRequest {
  project: string
  name?: string | undefined
  /** Lifetime in milliseconds; absent means the key does not expire. */
  expiresInMs?: number | undefined
}

/** Creates a key; the secret is in the answer and nowhere else, ever. */
export async function createApiKey(
  db: Db,
  clock: Clock,
  environment: Environment,
  request: KeyRequest,
): Promise<{ ok: true; key: ApiKey; secret: string } | KeyFailure> {
  const project = await findProjectBySlug(db, request.project)
  if (!project) return { ok: false, error: 'project_not_found', message: `No project with slug "${request.project}".` }
  const name = request.name?.trim() || null
  if (name !== null && (name.length > 100 || /\p{Cc}/u.test(name))) {
    return { ok: false, error: 'invalid_name', message: 'A key name is at most 100 characters, without control characters.' }
  }
  const now = clock.now()
  const { secret, hash, prefix } = generateApiKey(environment)
  const row = await insertApiKey(db, {
    id: `key_${randomBase62(16)}`,
    project_id: project.id,
    prefix,
    hash,
    name,
    created_at: new Date(now).toISOString(),
    last_used_at: null,
    expires_at: request.expiresInMs === undefined ? null : new Date(now + request.expiresInMs).toISOString(),
    revoked_at: null,
  })
  return { ok: true, key: toApiKey(row, project.slug), secret }
}

/** A key of one project, or undefined (another project's key included). */
export async function findProjectKey(db: Db, projectId: number, id: string): Promise<ApiKeyRow | undefined> {
  return findProjectApiKey(db, projectId, id)
}

export async function getApiKeys(db: Db, clock: Clock, projectSlug: string): Promise<{ ok: true; keys: ApiKey[] } | KeyFailure> {
  const project = await findProjectBySlug(db, projectSlug)
  if (!project) return { ok: false, error: 'project_not_found', message: `No project with slug "${projectSlug}".` }
  const rows = await listApiKeys(db, project.id, new Date(clock.now()).toISOString())
  return { ok: true, keys: rows.map((row) => toApiKey(row, project.slug)) }
}

/** Revokes a key; with `projectId`, only a key of that project (another's is not found). */
export async function revokeKey(db: Db, clock: Clock, id: string, projectId?: number): Promise<{ ok: true; key: ApiKey } | KeyFailure> {
  const existing = projectId === undefined ? await findApiKey(db, id) : await findProjectApiKey(db, projectId, id)
  if (!existing) return { ok: false, error: 'key_not_found', message: `No API key with id "${id}"${projectId === undefined ? '' : ' in this project'}.` }
  const row = await revokeApiKey(db, id, new Date(clock.now()).toISOString())
  await authChanged(db)
  const project = await db.selectFrom('projects').select('slug').where('id', '=', existing.project_id).executeTakeFirstOrThrow()
  return { ok: true, key: toApiKey(row ?? existing, project.slug) }
}
