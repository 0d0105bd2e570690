import { authChanged, type Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Environment } from '../config.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow, Plan } from '../db/schema.js'
import type { Outcome } from '../errors.js'
import { limitsOf, type PlanLimits } from '../projects/plans.js'
import { findProjectBySlug, getProjectSlug } from '../projects/projects.repository.js'
import { generateApiKey, parseApiKey, randomBase62 } from './api-key.js'
import { findApiKey, findKeyByHash, findProjectApiKey, insertApiKey, listApiKeys, revokeApiKey, touchApiKey } from './keys.repository.js'

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
  ) {}

  /** Creates a key; the secret is in the answer and nowhere else, ever. */
  async create(request: KeyRequest): Promise<KeyResult<{ key: ApiKey; secret: string }>> {
    const project = await findProjectBySlug(this.db, request.project)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${request.project}".` }
    const name = request.name?.trim() || null
    if (name !== null && (name.length > 100 || /\p{Cc}/u.test(name))) {
      return { ok: false, error: 'invalid_request', message: 'A key name is at most 100 characters, without control characters.' }
    }
    const now = this.clock.now()
    const { secret, hash, prefix } = generateApiKey(this.environment)
    const row = await insertApiKey(this.db, {
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

  async list(projectSlug: string): Promise<KeyResult<{ keys: ApiKey[] }>> {
    const project = await findProjectBySlug(this.db, projectSlug)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${projectSlug}".` }
    const rows = await listApiKeys(this.db, project.id, new Date(this.clock.now()).toISOString())
    return { ok: true, keys: rows.map((row) => toApiKey(row, project.slug)) }
  }

  /** Revokes a key; with `projectId`, only a key of that project (another's is not found). */
  async revoke(id: string, projectId?: number): Promise<KeyResult<{ key: ApiKey }>> {
    const existing = await this.find(id, projectId)
    if (!existing.ok) return existing
    const row = await revokeApiKey(this.db, id, new Date(this.clock.now()).toISOString())
    await authChanged(this.db)
    return { ok: true, key: toApiKey(row ?? existing.row, await getProjectSlug(this.db, existing.row.project_id)) }
  }

  /** A key that exists; with `projectId`, only a key of that project (another's is not found). */
  async find(id: string, projectId?: number): Promise<KeyResult<{ row: ApiKeyRow }>> {
    const row = projectId === undefined ? await findApiKey(this.db, id) : await findProjectApiKey(this.db, projectId, id)
    if (!row) return { ok: false, error: 'not_found', message: `No API key with id "${id}"${projectId === undefined ? '' : ' in this project'}.` }
    return { ok: true, row }
  }
}

/** Who a request acts for, once its key is accepted. */
export interface Principal {
  keyId: string
  projectId: number
  projectSlug: string
  plan: Plan
  limits: PlanLimits
  /** Taken from the principal cache: the auth token it was resolved at (shared generations check it). */
  cachedAt?: string | undefined
}

export type AuthResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'missing' | 'scheme' | 'malformed' | 'checksum' | 'environment' | 'unknown' | 'revoked' | 'expired'; at?: string }

/** How often `last_used_at` is written for one key: a write per request would cost every request. */
const TOUCH_INTERVAL_MS = 60_000
/** Most principals kept; past it the cache starts again (a bound, not a working-set size). */
const PRINCIPAL_CACHE_SIZE = 10_000
/**
 * The longest a cached principal is used without reading its key again: the generations make it
 * exact, and this bounds what a change made without bumping them (a CLI without REDIS_URL
 * beside Redis-sharing servers) can go unnoticed.
 */
const PRINCIPAL_MAX_AGE_MS = 1_000

interface CachedPrincipal {
  principal: Principal
  expiresAt: number
  token: string
  at: number
}

/**
 * Turns an Authorization header into a principal. An accepted key's principal is kept, keyed by
 * the key's hash, for as long as the auth generation (see src/cache/generations.ts) stays the
 * same: a revocation, expiry, plan change or project change anywhere applies to the very next
 * request, and the hot path runs no SQL.
 */
export class Authenticator {
  private readonly touched = new Map<string, number>()
  private readonly principals = new Map<string, CachedPrincipal>()

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly environment: Environment,
    private readonly generations: Generations,
  ) {}

  /**
   * `fresh`: the auth token a stale decision returned; the key is read from the database and
   * kept under that token.
   */
  async authenticate(header: string | undefined, fresh?: { authToken: string }): Promise<AuthResult> {
    const [scheme = '', ...rest] = (header ?? '').trim().split(/[ \t]+/)
    const token = rest.join(' ')
    // No header, or "Bearer" with nothing after it (e.g. an unset variable): the key is missing.
    if (scheme === '' || (scheme.toLowerCase() === 'bearer' && token === '')) return { ok: false, reason: 'missing' }
    if (scheme.toLowerCase() !== 'bearer') return { ok: false, reason: 'scheme' }
    const parsed = parseApiKey(token, this.environment)
    if (!parsed.ok) return { ok: false, reason: parsed.reason }
    // Read before the key: a change committed after this read moves the token on.
    const generation = fresh?.authToken ?? (await this.generations.auth())
    const now = this.clock.now()
    if (generation !== undefined && !fresh) {
      const cached = this.principals.get(parsed.hash)
      if (cached && cached.token === generation && now < cached.expiresAt && now - cached.at < PRINCIPAL_MAX_AGE_MS) {
        this.touch(cached.principal.keyId, now)
        return { ok: true, principal: cached.principal }
      }
    }
    const key = await findKeyByHash(this.db, parsed.hash)
    if (!key) return { ok: false, reason: 'unknown' }
    if (key.revoked_at !== null) return { ok: false, reason: 'revoked', at: key.revoked_at }
    if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return { ok: false, reason: 'expired', at: key.expires_at }
    this.touch(key.id, now)
    const principal: Principal = { keyId: key.id, projectId: key.project_id, projectSlug: key.slug, plan: key.plan, limits: limitsOf(key) }
    if (generation !== undefined) {
      if (this.principals.size >= PRINCIPAL_CACHE_SIZE) this.principals.clear()
      const expiresAt = key.expires_at === null ? Infinity : Date.parse(key.expires_at)
      this.principals.set(parsed.hash, { principal: { ...principal, cachedAt: generation }, expiresAt, token: generation, at: now })
    }
    return { ok: true, principal }
  }

  /** Forgets every cached principal (the generations can no longer be trusted). */
  forget(): void {
    this.principals.clear()
  }

  private touch(keyId: string, now: number): void {
    const last = this.touched.get(keyId)
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return
    this.touched.set(keyId, now)
    // Bookkeeping only: the request does not wait for it, and a failure costs one timestamp.
    touchApiKey(this.db, keyId, new Date(now).toISOString()).catch(() => this.touched.delete(keyId))
  }
}
