import type { Config } from '../config.js'
import { createHash, randomBytes } from 'node:crypto'
import { anonymousChange, type Change, recordChange } from '../audit/audit.js'
import type { AdminPrincipal, SessionLookup, SignedIn } from '../auth/admin-access.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { UserRole, UserRow } from '../db/schema.js'
import type { Failure, Outcome } from '../errors.js'
import {
  deleteExpired,
  deleteSession,
  deleteUserSessions,
  findLiveSession,
  findUserByEmail,
  findUserById,
  insertSession,
  listProjectSlugs,
  listUserProjects,
  setLastSignedIn,
  setUserPassword,
} from './accounts.repository.js'
import { hashPassword, MAX_PASSWORD_LENGTH, type ScryptCost, verifyDummy, verifyPassword } from './passwords.js'
import type { Refusal, SignInThrottle } from './sign-in-throttle.js'
import { checkPasswordLength, MIN_PASSWORD_LENGTH, normalizeEmail, recordUserChange } from './users.service.js'

export const SESSION_TTL_MS = 12 * 3_600_000

/** What the dashboard knows of its sign-in: the `Session` of docs/dashboard.md. */
export interface Session {
  user: { email: string; role: UserRole; projects: string[] }
  csrfToken: string
  features: ServiceFeatures
}

/** What the operator configured: the dashboard offers only what can work. */
export interface ServiceFeatures {
  /** PLATFORM_DOMAIN is set: projects are published at their subdomains and may add custom domains. */
  customDomains: boolean
  /** WEBHOOK_ENCRYPTION_KEY (or else CERTIFICATE_ENCRYPTION_KEY) is set: webhook endpoints can be added (their secrets are sealed with it). */
  webhooks: boolean
  /** WEBHOOK_ALLOWED_NETWORKS is set: an operator can grant a project the use of those networks for its webhook endpoints. */
  webhookPrivateNetworks: boolean
}

/** A refusal of the sign-in throttle, with the wait it asks for. */
export type Throttled = Failure<'rate_limited'> & Pick<Refusal, 'retryAfterSeconds'>

export type SignInResult =
  | { ok: true; token: string; expiresAt: Date; session: Session }
  | Failure<'unauthorized' | 'password_change_required' | 'invalid_request'>
  | Throttled

const WRONG_CREDENTIALS: Failure<'unauthorized'> = { ok: false, error: 'unauthorized', message: 'Wrong email or password.' }

/** How often an instance deletes expired sessions and throttling counters. */
const PURGE_EVERY_MS = 60_000

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

export interface SessionsDeps {
  db: Db
  clock: Clock
  /** Shared with the users service. */
  throttle: SignInThrottle
  /** What a new password hash costs (see passwords.ts). */
  passwordCost: ScryptCost
  config: Pick<Config, 'platformDomain' | 'webhookEncryptionKey' | 'certificateEncryptionKey' | 'webhookAllowedNetworks'>
}

/**
 * Signing in to the dashboard: sessions (opened, looked up on every admin request, closed) and the
 * signed-in user's own password, throttled per email and per address. Each is recorded in the
 * audit log; only the SHA-256 of a session's cookie is stored.
 */
export class SessionsService implements SessionLookup {
  private lastPurge = 0
  private readonly features: ServiceFeatures

  constructor(private readonly deps: SessionsDeps) {
    this.features = {
      customDomains: deps.config.platformDomain !== undefined,
      webhooks: (deps.config.webhookEncryptionKey ?? deps.config.certificateEncryptionKey) !== undefined,
      webhookPrivateNetworks: deps.config.webhookAllowedNetworks.length > 0,
    }
  }

  /**
   * The signed-in user's own password: the current one is checked first (a wrong one counts as a
   * failed sign-in of their email, so a stolen session cannot guess it at speed). Their other
   * sessions end; the one that asked stays.
   */
  async changeOwnPassword(
    { sessionId, user }: SignedIn,
    passwords: { currentPassword: string; newPassword: string },
    requestId: string,
  ): Promise<Outcome<{ otherSessionsEnded: number }, 'wrong_password' | 'invalid_request'> | Throttled> {
    const tooShort = checkPasswordLength(passwords.newPassword, 'new password')
    if (tooShort) return tooShort
    const refusal = await this.deps.throttle.failure(user.email)
    if (refusal) return { ok: false, error: 'rate_limited', ...refusal }
    const row = await findUserById(this.deps.db, user.id)
    if (!row || !(await verifyPassword(passwords.currentPassword, row.password_hash))) {
      return { ok: false, error: 'wrong_password', message: 'The current password is not right: type the password you signed in with.' }
    }
    await this.deps.throttle.succeeded(user.email)
    const passwordHash = await hashPassword(passwords.newPassword, this.deps.passwordCost)
    const change: Change = { actor: { kind: 'user', userId: user.id, name: user.email }, requestId }
    const otherSessionsEnded = await this.deps.db.transaction().execute(async (trx) => {
      await setUserPassword(trx, row.id, passwordHash, null)
      const ended = await deleteUserSessions(trx, row.id, sessionId)
      await this.record(trx, change, 'user.password_changed', row, { otherSessionsEnded: ended })
      return ended
    })
    return { ok: true, otherSessionsEnded }
  }

  /**
   * Checks the credentials and opens a session. A wrong password, an unknown email and a disabled
   * user fail alike, in the same time (see verifyDummy): the answer never confirms a password of an
   * account that cannot be used. A one-time password opens no session: it is refused with
   * `password_change_required` until the sign-in also sends `newPassword`, which replaces it. The
   * cookie carries `token`; only its SHA-256 is stored.
   */
  async signIn(emailAsSent: string, password: string, address: string, requestId: string, newPassword?: string): Promise<SignInResult> {
    await this.purge()
    const email = normalizeEmail(emailAsSent)
    const refusal = (await this.deps.throttle.attempt(address)) ?? (await this.deps.throttle.failure(email))
    if (refusal) return { ok: false, error: 'rate_limited', ...refusal }

    const user = await findUserByEmail(this.deps.db, email)
    const valid = user ? await verifyPassword(password, user.password_hash) : await verifyDummy(password, this.deps.passwordCost)
    // A disabled user's failure stays counted, as any other: the throttle tells nothing either.
    if (!user || !valid || user.disabled_at !== null) {
      await this.failedSignIn(email, user, valid, address, requestId)
      return WRONG_CREDENTIALS
    }
    await this.deps.throttle.succeeded(email)

    const now = this.deps.clock.now()
    const oneTimeUntil = user.one_time_password_expires_at
    if (oneTimeUntil !== null && Date.parse(oneTimeUntil) <= now) {
      return { ok: false, error: 'unauthorized', message: `This one-time password expired at ${oneTimeUntil}: ask an operator for a new one.` }
    }
    if (oneTimeUntil !== null && newPassword === undefined) {
      return {
        ok: false,
        error: 'password_change_required',
        message: `This is a one-time password: choose your own (${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters) and sign in again with it as newPassword.`,
      }
    }
    if (oneTimeUntil === null && newPassword !== undefined) {
      return { ok: false, error: 'invalid_request', message: 'newPassword is only for replacing a one-time password: change your password with PUT /admin/v1/account/password.' }
    }
    if (newPassword !== undefined) {
      const tooShort = checkPasswordLength(newPassword, 'new password')
      if (tooShort) return tooShort
      if (newPassword === password) return { ok: false, error: 'invalid_request', message: 'Choose a password of your own, not the one-time password.' }
    }
    const newHash = newPassword === undefined ? undefined : await hashPassword(newPassword, this.deps.passwordCost)

    const token = randomBytes(32).toString('base64url')
    const csrfToken = randomBytes(32).toString('base64url')
    const expiresAt = new Date(now + SESSION_TTL_MS)
    const change: Change = { actor: { kind: 'user', userId: user.id, name: user.email }, requestId }
    await this.deps.db.transaction().execute(async (trx) => {
      if (newHash !== undefined) {
        await setUserPassword(trx, user.id, newHash, null)
        await this.record(trx, change, 'user.password_changed', user, { oneTimePasswordReplaced: true })
      }
      await insertSession(trx, {
        id: sha256(token),
        user_id: user.id,
        csrf_token: csrfToken,
        created_at: new Date(now).toISOString(),
        expires_at: expiresAt.toISOString(),
      })
      await setLastSignedIn(trx, user.id, new Date(now).toISOString())
      // The session's id is the digest of its cookie: recorded by neither.
      await recordChange(trx, this.deps.clock, change, { action: 'session.signed_in', target: { type: 'user', id: user.id }, projectId: null, details: { address } })
    })
    const projects = await this.projectsOf(user.id, user.role)
    return { ok: true, token, expiresAt, session: { user: { email: user.email, role: user.role, projects }, csrfToken, features: this.features } }
  }

  /**
   * A failed sign-in, in the audit log: who was tried (the user, or the email as sent when no user
   * has it), from which address, and why; never the password. Only attempts the throttle let
   * through get here, so the entries are bounded as the attempts are: at most 20 per minute per
   * client address, and at most 5 per 15 minutes per email.
   */
  private async failedSignIn(email: string, user: { id: number; disabled_at: string | null } | undefined, valid: boolean, address: string, requestId: string): Promise<void> {
    const reason = !user ? 'unknown_email' : !valid ? 'wrong_password' : 'user_disabled'
    await recordChange(this.deps.db, this.deps.clock, anonymousChange(requestId), {
      action: 'session.sign_in_failed',
      target: { type: 'user', id: user ? user.id : email.slice(0, 254) },
      projectId: null,
      details: { email: email.slice(0, 254), address, reason },
    })
  }

  /** The live session the cookie's token opens, with the principal it stands for; undefined when none. */
  async authenticate(token: string): Promise<SignedIn | undefined> {
    const session = await findLiveSession(this.deps.db, sha256(token), new Date(this.deps.clock.now()).toISOString())
    if (!session) return undefined
    const principal: AdminPrincipal =
      session.role === 'operator'
        ? { role: 'operator', userId: session.user_id, email: session.email }
        : {
            role: session.role,
            userId: session.user_id,
            email: session.email,
            projectIds: new Set((await listUserProjects(this.deps.db, [session.user_id])).map((m) => m.project_id)),
          }
    const user = { id: session.user_id, email: session.email, role: session.role }
    return { sessionId: session.id, csrfToken: session.csrf_token, user, principal }
  }

  /** The `Session` answer for a signed-in request. */
  async describe({ user, csrfToken }: SignedIn): Promise<Session> {
    return { user: { email: user.email, role: user.role, projects: await this.projectsOf(user.id, user.role) }, csrfToken, features: this.features }
  }

  async signOut({ sessionId, user }: SignedIn, requestId: string): Promise<void> {
    const change: Change = { actor: { kind: 'user', userId: user.id, name: user.email }, requestId }
    await this.deps.db.transaction().execute(async (trx) => {
      await deleteSession(trx, sessionId)
      await recordChange(trx, this.deps.clock, change, { action: 'session.signed_out', target: { type: 'user', id: user.id }, projectId: null })
    })
  }

  private async record(trx: Db, change: Change, action: 'user.password_changed', row: UserRow, details: Record<string, unknown>): Promise<void> {
    await recordUserChange(trx, this.deps.clock, change, action, row, details)
  }

  private async projectsOf(userId: number, role: UserRole): Promise<string[]> {
    if (role === 'operator') return listProjectSlugs(this.deps.db)
    return (await listUserProjects(this.deps.db, [userId])).map((m) => m.slug)
  }

  /** At most once a minute per instance, on a sign-in: no timer to run or stop. */
  private async purge(): Promise<void> {
    const now = this.deps.clock.now()
    if (now - this.lastPurge < PURGE_EVERY_MS) return
    this.lastPurge = now
    await deleteExpired(this.deps.db, new Date(now).toISOString())
  }
}
