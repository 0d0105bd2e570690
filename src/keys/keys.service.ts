import { type Change, recordChange } from '../audit/audit.js'
import { generateApiKey, randomBase62 } from '../auth/api-key.js'
import type { AuthChangeListener } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Environment } from '../config.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow } from '../db/schema.js'
import type { Outcome } from '../errors.js'
import { findProjectBySlug, getProjectSlug } from '../projects/projects.repository.js'
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

/** not_found: no such project or key (another project's key included); invalid_request: a bad name. */
export type KeyResult<T> = Outcome<T, 'not_found' | 'invalid_request'>

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

/** A project's API keys: create (the secret is shown once), list, find, revoke. */
export class KeysService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly environment: Environment,
    /** Told once a revocation committed: every instance refuses the key from the next request. */
    private readonly authChanged: AuthChangeListener,
  ) {}

  /** Creates a key; the secret is in the answer and nowhere else, ever. */
  async create(request: KeyRequest, change: Change): Promise<KeyResult<{ key: ApiKey; secret: string }>> {
    const project = await findProjectBySlug(this.db, request.project)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${request.project}".` }
    const name = request.name?.trim() || null
    if (name !== null && (name.length > 100 || /\p{Cc}/u.test(name))) {
      return { ok: false, error: 'invalid_request', message: 'A key name is at most 100 characters, without control characters.' }
    }
    const now = this.clock.now()
    const { secret, hash, prefix } = generateApiKey(this.environment)
    const id = `key_${randomBase62(16)}`
    const expiresAt = request.expiresInMs === undefined ? null : new Date(now + request.expiresInMs).toISOString()
    const row = await this.db.transaction().execute(async (trx) => {
      const inserted = await insertApiKey(trx, {
        id,
        project_id: project.id,
        prefix,
        hash,
        name,
        created_at: new Date(now).toISOString(),
        last_used_at: null,
        expires_at: expiresAt,
        revoked_at: null,
      })
      // The prefix only: never the secret, nor its hash.
      await recordChange(trx, this.clock, change, { action: 'key.created', target: { type: 'key', id }, projectId: project.id, details: { name, prefix, expiresAt } })
      return inserted
    })
    return { ok: true, key: toApiKey(row, project.slug), secret }
  }

  async list(projectSlug: string): Promise<KeyResult<{ keys: ApiKey[] }>> {
    const project = await findProjectBySlug(this.db, projectSlug)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${projectSlug}".` }
    const rows = await listApiKeys(this.db, project.id, new Date(this.clock.now()).toISOString())
    return { ok: true, keys: rows.map((row) => toApiKey(row, project.slug)) }
  }

  /** Revokes a key; with `projectId`, only a key of that project (another's is not found). */
  async revoke(id: string, change: Change, projectId?: number): Promise<KeyResult<{ key: ApiKey }>> {
    const existing = await this.find(id, projectId)
    if (!existing.ok) return existing
    const row = await this.db.transaction().execute(async (trx) => {
      const revoked = await revokeApiKey(trx, id, new Date(this.clock.now()).toISOString())
      await recordChange(trx, this.clock, change, {
        action: 'key.revoked',
        target: { type: 'key', id },
        projectId: existing.row.project_id,
        details: { name: existing.row.name, prefix: existing.row.prefix, alreadyRevoked: existing.row.revoked_at !== null },
      })
      return revoked
    })
    await this.authChanged()
    return { ok: true, key: toApiKey(row ?? existing.row, await getProjectSlug(this.db, existing.row.project_id)) }
  }

  /** A key that exists; with `projectId`, only a key of that project (another's is not found). */
  async find(id: string, projectId?: number): Promise<KeyResult<{ row: ApiKeyRow }>> {
    const row = projectId === undefined ? await findApiKey(this.db, id) : await findProjectApiKey(this.db, projectId, id)
    if (!row) return { ok: false, error: 'not_found', message: `No API key with id "${id}"${projectId === undefined ? '' : ' in this project'}.` }
    return { ok: true, row }
  }
}
