import { createHash, randomBytes } from 'node:crypto'
import { type Change, recordChange } from '../audit/audit.js'
import type { AdminPrincipal, SessionLookup, SignedIn } from '../auth/admin-access.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { type ProjectRow, USER_ROLES, type UserRole } from '../db/schema.js'
import type { Failure } from '../errors.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import {
  deleteExpired,
  deleteSession,
  findLiveSession,
  findUserByEmail,
  insertSession,
  insertUser,
  insertUserProjects,
  listProjectSlugs,
  listUserProjects,
  listUsers,
} from './accounts.repository.js'
import { hashPassword, MAX_PASSWORD_LENGTH, verifyDummy, verifyPassword } from './passwords.js'
import { type Refusal, SignInThrottle } from './sign-in-throttle.js'

export const MIN_PASSWORD_LENGTH = 12
export const SESSION_TTL_MS = 12 * 3_600_000

export interface User {
  email: string
  role: UserRole
  /** Slugs of the projects an owner belongs to; empty for an operator, who sees every project. */
  projects: string[]
  createdAt: string
}

/** What the dashboard knows of its sign-in: the `Session` of docs/dashboard.md. */
export interface Session {
  user: { email: string; role: UserRole; projects: string[] }
  csrfToken: string
}

/** Creating users is the CLI's alone: its failures have no catalog code of the HTTP API. */
export type UserFailure = Failure<'invalid_user' | 'email_taken' | 'project_not_found'>

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/

/** Emails compare case-insensitively: they are stored and looked up lowercase. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

export type SignInResult =
  | { ok: true; token: string; expiresAt: Date; session: Session }
  | { ok: false; error: 'invalid_credentials' }
  | ({ ok: false; error: 'throttled' } & Refusal)

/** How often an instance deletes expired sessions and throttling counters. */
const PURGE_EVERY_MS = 60_000

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

/** The accounts that sign in to the dashboard, and their sessions. */
export class AccountsService implements SessionLookup {
  private readonly throttle: SignInThrottle
  private lastPurge = 0

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.throttle = new SignInThrottle(db, clock)
  }

  /** Creates a user (the CLI's `users create`); the password is stored only as its scrypt hash. */
  async createUser(
    request: { email: string; role: UserRole; projects: readonly string[]; password: string },
    change: Change,
  ): Promise<{ ok: true; user: User } | UserFailure> {
    const email = normalizeEmail(request.email)
    const invalid = (message: string): UserFailure => ({ ok: false, error: 'invalid_user', message })
    if (email.length > 254 || !EMAIL_PATTERN.test(email)) return invalid(`Invalid email "${request.email}".`)
    if (!(USER_ROLES as readonly string[]).includes(request.role)) return invalid(`Unknown role "${request.role}": use operator or owner.`)
    if (request.role === 'owner' && request.projects.length === 0) return invalid('An owner needs at least one project: add --project <slug>.')
    if (request.role === 'operator' && request.projects.length > 0) return invalid('Operators see every project: --project is for owners only.')
    if (request.password.length < MIN_PASSWORD_LENGTH || request.password.length > MAX_PASSWORD_LENGTH) {
      return invalid(`The password must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`)
    }
    const projects: ProjectRow[] = []
    for (const slug of new Set(request.projects)) {
      const project = await findProjectBySlug(this.db, slug)
      if (!project) return { ok: false, error: 'project_not_found', message: `No project with slug "${slug}".` }
      projects.push(project)
    }
    if (await findUserByEmail(this.db, email)) return { ok: false, error: 'email_taken', message: `A user with email ${email} already exists.` }

    const passwordHash = await hashPassword(request.password)
    const row = await this.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, { email, passwordHash, role: request.role, createdAt: new Date(this.clock.now()).toISOString() })
      await insertUserProjects(trx, user.id, projects.map((p) => p.id))
      await recordChange(trx, this.clock, change, {
        action: 'user.created',
        target: { type: 'user', id: user.id },
        projectId: null,
        details: { email, role: request.role, projects: projects.map((p) => p.slug).sort() },
      })
      return user
    })
    return { ok: true, user: { email: row.email, role: row.role, projects: projects.map((p) => p.slug).sort(), createdAt: row.created_at } }
  }

  async listUsers(): Promise<User[]> {
    const users = await listUsers(this.db)
    const memberships = await listUserProjects(this.db, users.map((u) => u.id))
    return users.map((u) => ({
      email: u.email,
      role: u.role,
      projects: memberships.filter((m) => m.user_id === u.id).map((m) => m.slug),
      createdAt: u.created_at,
    }))
  }

  /**
   * Checks the credentials and opens a session. A wrong password and an unknown email fail alike,
   * in the same time (see verifyDummy). The cookie carries `token`; only its SHA-256 is stored.
   */
  async signIn(emailAsSent: string, password: string, address: string, requestId: string): Promise<SignInResult> {
    await this.purge()
    const email = normalizeEmail(emailAsSent)
    const refusal = (await this.throttle.attempt(address)) ?? (await this.throttle.failure(email))
    if (refusal) return { ok: false, error: 'throttled', ...refusal }

    const user = await findUserByEmail(this.db, email)
    const valid = user ? await verifyPassword(password, user.password_hash) : await verifyDummy(password)
    if (!user || !valid) return { ok: false, error: 'invalid_credentials' }
    await this.throttle.succeeded(email)

    const now = this.clock.now()
    const token = randomBytes(32).toString('base64url')
    const csrfToken = randomBytes(32).toString('base64url')
    const expiresAt = new Date(now + SESSION_TTL_MS)
    const change: Change = { actor: { kind: 'user', userId: user.id, name: user.email }, requestId }
    await this.db.transaction().execute(async (trx) => {
      await insertSession(trx, {
        id: sha256(token),
        user_id: user.id,
        csrf_token: csrfToken,
        created_at: new Date(now).toISOString(),
        expires_at: expiresAt.toISOString(),
      })
      // The session's id is the digest of its cookie: recorded by neither.
      await recordChange(trx, this.clock, change, { action: 'session.signed_in', target: { type: 'user', id: user.id }, projectId: null, details: { address } })
    })
    const projects = await this.projectsOf(user.id, user.role)
    return { ok: true, token, expiresAt, session: { user: { email: user.email, role: user.role, projects }, csrfToken } }
  }

  /** The live session the cookie's token opens, with the principal it stands for; undefined when none. */
  async authenticate(token: string): Promise<SignedIn | undefined> {
    const session = await findLiveSession(this.db, sha256(token), new Date(this.clock.now()).toISOString())
    if (!session) return undefined
    const principal: AdminPrincipal =
      session.role === 'operator'
        ? { role: 'operator', userId: session.user_id, email: session.email }
        : {
            role: 'owner',
            userId: session.user_id,
            email: session.email,
            projectIds: new Set((await listUserProjects(this.db, [session.user_id])).map((m) => m.project_id)),
          }
    const user = { id: session.user_id, email: session.email, role: session.role }
    return { sessionId: session.id, csrfToken: session.csrf_token, user, principal }
  }

  /** The `Session` answer for a signed-in request. */
  async describe({ user, csrfToken }: SignedIn): Promise<Session> {
    return { user: { email: user.email, role: user.role, projects: await this.projectsOf(user.id, user.role) }, csrfToken }
  }

  async signOut({ sessionId, user }: SignedIn, requestId: string): Promise<void> {
    const change: Change = { actor: { kind: 'user', userId: user.id, name: user.email }, requestId }
    await this.db.transaction().execute(async (trx) => {
      await deleteSession(trx, sessionId)
      await recordChange(trx, this.clock, change, { action: 'session.signed_out', target: { type: 'user', id: user.id }, projectId: null })
    })
  }

  private async projectsOf(userId: number, role: UserRole): Promise<string[]> {
    if (role === 'operator') return listProjectSlugs(this.db)
    return (await listUserProjects(this.db, [userId])).map((m) => m.slug)
  }

  /** At most once a minute per instance, on a sign-in: no timer to run or stop. */
  private async purge(): Promise<void> {
    const now = this.clock.now()
    if (now - this.lastPurge < PURGE_EVERY_MS) return
    this.lastPurge = now
    await deleteExpired(this.db, new Date(now).toISOString())
  }
}
