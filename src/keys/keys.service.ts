import { type Change, recordChange } from '../audit/audit.js'
import { generateApiKey, randomBase62 } from '../auth/api-key.js'
import { API_SCOPES, type ApiScope, isScope, parseOrigin, parseScopes, PUBLISHABLE_SCOPES } from '../auth/scopes.js'
import type { AuthChangeListener } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Environment } from '../config.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import type { ApiKeyRow } from '../db/schema.js'
import type { Outcome } from '../errors.js'
import { findProjectBySlug, getProjectSlug } from '../projects/projects.repository.js'
import type { Outbox } from '../webhooks/outbox.js'
import { findApiKey, findProjectApiKey, insertApiKey, listApiKeys, listKeysExpiringBefore, revokeApiKey } from './keys.repository.js'

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
  /** What the key may do; null: full access. */
  scopes: ApiScope[] | null
  /** Read-only, for web pages: answered with CORS headers for `allowedOrigins`. */
  publishable: boolean
  allowedOrigins: string[]
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
    scopes: row.scopes === null ? null : [...(parseScopes(row.scopes) ?? [])],
    publishable: row.publishable === 1,
    allowedOrigins: row.allowed_origins === null ? [] : row.allowed_origins.split(' '),
  }
}

/** The longest lifetime a key may be given (about ten years): longer is a mistake, not a plan. */
export const MAX_KEY_LIFETIME_DAYS = 3650

export interface KeyRequest {
  project: string
  name?: string | undefined
  /** Lifetime in milliseconds; absent means the key does not expire. */
  expiresInMs?: number | undefined
  /** What the key may do (`API_SCOPES`); absent: full access, or `pets:read` for a publishable key. */
  scopes?: readonly string[] | undefined
  /** A key for web pages: read-only, answered with CORS headers for `allowedOrigins` only. */
  publishable?: boolean | undefined
  /** A publishable key's origins: exact `https://host[:port]`, or `http://localhost[:port]`. */
  allowedOrigins?: readonly string[] | undefined
}

/** The most origins one publishable key may list. */
export const MAX_ALLOWED_ORIGINS = 20

interface KeyAccess {
  scopes: string | null
  publishable: number
  allowed_origins: string | null
}

/** The scopes and origins a key is created with, checked; the message names the field. */
export function keyAccess(request: Pick<KeyRequest, 'scopes' | 'publishable' | 'allowedOrigins'>): Outcome<{ access: KeyAccess }, 'invalid_request'> {
  const fail = (message: string) => ({ ok: false as const, error: 'invalid_request' as const, message })
  let scopes: ApiScope[] | null = null
  if (request.scopes !== undefined) {
    const unknown = request.scopes.find((scope) => !isScope(scope))
    if (unknown !== undefined) return fail(`Unknown scope "${unknown}" in "scopes": use ${API_SCOPES.join(', ')}.`)
    if (request.scopes.length === 0) return fail('"scopes" is empty: name at least one scope, or leave it out for a key of full access.')
    scopes = API_SCOPES.filter((scope) => request.scopes?.includes(scope))
  }
  if (!request.publishable) {
    if (request.allowedOrigins !== undefined) return fail('"allowedOrigins" is for publishable keys: add "publishable": true, or leave the origins out.')
    return { ok: true, access: { scopes: scopes?.join(' ') ?? null, publishable: 0, allowed_origins: null } }
  }
  const beyond = scopes?.find((scope) => !PUBLISHABLE_SCOPES.includes(scope))
  if (beyond !== undefined) return fail(`A publishable key is read-only: its "scopes" may only be ${PUBLISHABLE_SCOPES.join(', ')}, not "${beyond}".`)
  const origins = request.allowedOrigins ?? []
  if (origins.length === 0) return fail('A publishable key needs "allowedOrigins": the origins of the web pages that use it, e.g. https://shelter.example.')
  if (origins.length > MAX_ALLOWED_ORIGINS) return fail(`"allowedOrigins" lists at most ${MAX_ALLOWED_ORIGINS} origins.`)
  for (const [index, origin] of origins.entries()) {
    if (parseOrigin(origin) === undefined) {
      return fail(
        `"allowedOrigins[${index}]" is not an origin a key can allow: write it as the browser sends it, https://host or https://host:port in lower case (no path, no trailing slash, no default port); http:// only for localhost.`,
      )
    }
  }
  return { ok: true, access: { scopes: PUBLISHABLE_SCOPES.join(' '), publishable: 1, allowed_origins: [...new Set(origins)].join(' ') } }
}

const DAY_MS = 86_400_000
/** The `key.expiring` notices: 7 days before, then 1 day before; each sent once per key. */
export const EXPIRY_NOTICES = [1, 7] as const
/** How often each instance looks for keys that reached a notice. */
const EXPIRY_SCAN_MS = 15 * 60_000

/** A project's API keys: create (the secret is shown once), list, find, revoke; and the notices of keys about to expire. */
export class KeysService {
  private scanTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly environment: Environment,
    /** Told once a revocation committed: every instance refuses the key from the next request. */
    private readonly authChanged: AuthChangeListener,
    private readonly outbox: Outbox,
    /** Where the expiry scan's failures go: a database outage is logged once, with the requests'. */
    private readonly failures?: FailureLog,
  ) {}

  /** Looks for keys about to expire now and every 15 minutes, until `close`. */
  start(): void {
    const scan = () => void this.noticeExpiringKeys().catch((err: unknown) => this.failures?.failed(err, 'key expiry notices failed'))
    this.scanTimer = setInterval(scan, EXPIRY_SCAN_MS)
    this.scanTimer.unref()
    scan()
  }

  close(): void {
    clearInterval(this.scanTimer)
  }

  /**
   * Writes `key.expiring` for each key (not revoked) that expires within 7 days, or within 1 day:
   * once per key and notice across every instance (the event's dedupe key). Answers how many were written.
   */
  async noticeExpiringKeys(): Promise<number> {
    const now = this.clock.now()
    let written = 0
    for (const row of await listKeysExpiringBefore(this.db, new Date(now).toISOString(), new Date(now + 7 * DAY_MS).toISOString())) {
      const left = Date.parse(row.expires_at ?? '') - now
      const days = EXPIRY_NOTICES.find((notice) => left <= notice * DAY_MS)
      if (days === undefined) continue
      const data = { ...toApiKey(row, row.slug), noticeDays: days }
      if (await this.db.transaction().execute((trx) => this.outbox.write(trx, row.project_id, 'key.expiring', data, `key.expiring:${row.id}:${days}d`))) written++
    }
    return written
  }

  /** Creates a key; the secret is in the answer and nowhere else, ever. */
  async create(request: KeyRequest, change: Change): Promise<KeyResult<{ key: ApiKey; secret: string }>> {
    const project = await findProjectBySlug(this.db, request.project)
    if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${request.project}".` }
    const name = request.name?.trim() || null
    if (name !== null && (name.length > 100 || /\p{Cc}/u.test(name))) {
      return { ok: false, error: 'invalid_request', message: 'A key name is at most 100 characters, without control characters.' }
    }
    const access = keyAccess(request)
    if (!access.ok) return access
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
        ...access.access,
      })
      const { scopes, publishable, allowedOrigins } = toApiKey(inserted, project.slug)
      // The prefix only: never the secret, nor its hash.
      await recordChange(trx, this.clock, change, {
        action: 'key.created',
        target: { type: 'key', id },
        projectId: project.id,
        details: { name, prefix, expiresAt, scopes, publishable, allowedOrigins },
      })
      await this.outbox.write(trx, project.id, 'key.created', toApiKey(inserted, project.slug))
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
    const slug = await getProjectSlug(this.db, existing.row.project_id)
    const row = await this.db.transaction().execute(async (trx) => {
      const revoked = await revokeApiKey(trx, id, new Date(this.clock.now()).toISOString())
      if (revoked && existing.row.revoked_at === null) await this.outbox.write(trx, existing.row.project_id, 'key.revoked', toApiKey(revoked, slug))
      await recordChange(trx, this.clock, change, {
        action: 'key.revoked',
        target: { type: 'key', id },
        projectId: existing.row.project_id,
        details: { name: existing.row.name, prefix: existing.row.prefix, alreadyRevoked: existing.row.revoked_at !== null },
      })
      return revoked
    })
    await this.authChanged()
    return { ok: true, key: toApiKey(row ?? existing.row, slug) }
  }

  /** A key that exists; with `projectId`, only a key of that project (another's is not found). */
  async find(id: string, projectId?: number): Promise<KeyResult<{ row: ApiKeyRow }>> {
    const row = projectId === undefined ? await findApiKey(this.db, id) : await findProjectApiKey(this.db, projectId, id)
    if (!row) return { ok: false, error: 'not_found', message: `No API key with id "${id}"${projectId === undefined ? '' : ' in this project'}.` }
    return { ok: true, row }
  }
}
