import { authChanged, type Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Environment } from '../config.js'
import type { Db } from '../db/database.js'
import type { ApiKeyRow, Plan } from '../db/schema.js'
import { limitsOf, type PlanLimits } from '../projects/plans.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
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
