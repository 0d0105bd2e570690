import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Environment } from '../config.js'
import type { Plan } from '../db/schema.js'
import { limitsOf, type PlanLimits } from '../limits/plans.js'
import { parseApiKey } from './api-key.js'
import { type ApiScope, parseScopes } from './scopes.js'

/** Who a request acts for, once its key is accepted. */
export interface Principal {
  keyId: string
  projectId: number
  projectSlug: string
  plan: Plan
  limits: PlanLimits
  /** What the key may do; null: everything (a key made without scopes). */
  scopes: readonly ApiScope[] | null
  /** A publishable key: read-only, for web pages, with its own rate-limit budget. */
  publishable: boolean
  /** The origins a publishable key is answered for (with CORS headers); empty for other keys. */
  allowedOrigins: readonly string[]
  /** Taken from the principal cache: the auth token it was resolved at (shared generations check it). */
  cachedAt?: string | undefined
}

/** A stored key as authentication reads it, in one read: the key and the plan of its project. */
export interface StoredKey {
  id: string
  project_id: number
  expires_at: string | null
  revoked_at: string | null
  slug: string
  plan: Plan
  per_minute: number | null
  per_day: number | null
  scopes: string | null
  publishable: number
  allowed_origins: string | null
}

/**
 * Where the authenticator reads keys: given by the keys feature, which owns their table, so that
 * authentication imports no feature.
 */
export interface KeyLookup {
  /** The key whose secret hashes to `hash`, with its project's plan; undefined when there is none. */
  byHash(hash: string): Promise<StoredKey | undefined>
  /** Records when the key was last used (`last_used_at`). */
  touch(keyId: string, at: string): Promise<void>
  /** Whether the publishable keys not revoked nor expired at `now` (of `projectId` when given) allow `origin` (undefined: not a valid origin). */
  originAccess(origin: string | undefined, projectId: number | undefined, now: string): Promise<OriginAccess>
}

/**
 * What a CORS preflight's origin is to the publishable keys: one of them allows it (`allowed`),
 * some exist but none allows it (`refused`), or there is no publishable key at all (`none`).
 */
export type OriginAccess = 'allowed' | 'refused' | 'none'

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
    private readonly keys: KeyLookup,
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
    const key = await this.keys.byHash(parsed.hash)
    if (!key) return { ok: false, reason: 'unknown' }
    if (key.revoked_at !== null) return { ok: false, reason: 'revoked', at: key.revoked_at }
    if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return { ok: false, reason: 'expired', at: key.expires_at }
    this.touch(key.id, now)
    const principal: Principal = {
      keyId: key.id,
      projectId: key.project_id,
      projectSlug: key.slug,
      plan: key.plan,
      limits: limitsOf(key),
      scopes: parseScopes(key.scopes),
      publishable: key.publishable === 1,
      allowedOrigins: key.allowed_origins === null ? [] : key.allowed_origins.split(' '),
    }
    if (generation !== undefined) {
      if (this.principals.size >= PRINCIPAL_CACHE_SIZE) this.principals.clear()
      const expiresAt = key.expires_at === null ? Infinity : Date.parse(key.expires_at)
      this.principals.set(parsed.hash, { principal: { ...principal, cachedAt: generation }, expiresAt, token: generation, at: now })
    }
    return { ok: true, principal }
  }

  /** For a CORS preflight, which carries no key: what the live publishable keys say of `origin`. */
  async originAccess(origin: string | undefined, projectId: number | undefined): Promise<OriginAccess> {
    return this.keys.originAccess(origin, projectId, new Date(this.clock.now()).toISOString())
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
    this.keys.touch(keyId, new Date(now).toISOString()).catch(() => this.touched.delete(keyId))
  }
}
