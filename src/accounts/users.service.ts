import { type Change, recordChange } from '../audit/audit.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { isUniqueViolation } from '../db/errors.js'
import { type ProjectRow, USER_ROLES, type UserRole, type UserRow } from '../db/schema.js'
import type { Failure, Outcome } from '../errors.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import {
  deleteUser,
  deleteUserSessions,
  findUserByEmail,
  findUserById,
  insertUser,
  insertUserProjects,
  listUserProjects,
  listUsers,
  lockEnabledOperators,
  replaceUserProjects,
  setUserDisabledAt,
  setUserPassword,
} from './accounts.repository.js'
import { generatePassword, hashPassword, MAX_PASSWORD_LENGTH, type ScryptCost } from './passwords.js'
import type { Outbox } from '../webhooks/outbox.js'
import type { SignInThrottle } from './sign-in-throttle.js'

export const MIN_PASSWORD_LENGTH = 12
/** How long a one-time password (from creation or a reset) lets its user choose their own. */
export const ONE_TIME_PASSWORD_TTL_MS = 7 * 86_400_000

export interface User {
  id: number
  email: string
  role: UserRole
  /** Slugs of the projects an owner belongs to; empty for an operator, who sees every project. */
  projects: string[]
  state: 'enabled' | 'disabled'
  disabledAt: string | null
  createdAt: string
  lastSignedInAt: string | null
  /** Set while the user's password is a one-time password they have not replaced: until when it works. */
  oneTimePasswordExpiresAt: string | null
}

/** A user named by id (the admin API) or by email (the CLI; compared without case). */
export type UserRef = { id: number } | { email: string }

/** What changing a user can answer besides the user. */
export type UserResult<T> = Outcome<T, 'invalid_request' | 'not_found' | 'email_taken' | 'own_account' | 'last_operator'>

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/

/** Emails compare case-insensitively: they are stored and looked up lowercase. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}

/** The length rule of every password a person chooses (the generated ones are 24 characters). */
export function checkPasswordLength(password: string, field: string): Failure<'invalid_request'> | undefined {
  if (password.length >= MIN_PASSWORD_LENGTH && password.length <= MAX_PASSWORD_LENGTH) return undefined
  return { ok: false, error: 'invalid_request', message: `The ${field} must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.` }
}

function toUser(row: UserRow, projects: string[]): User {
  return {
    id: Number(row.id),
    email: row.email,
    role: row.role,
    projects,
    state: row.disabled_at === null ? 'enabled' : 'disabled',
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    lastSignedInAt: row.last_signed_in_at,
    oneTimePasswordExpiresAt: row.one_time_password_expires_at,
  }
}

const notFound = (ref: UserRef): Failure<'not_found'> => ({ ok: false, error: 'not_found', message: 'id' in ref ? `No user with id ${ref.id}.` : `No user with email ${normalizeEmail(ref.email)}.` })

/** An audit entry of a change of a user: their email copied in (the entry outlives the user), never a password. */
export async function recordUserChange(
  trx: Db,
  clock: Clock,
  change: Change,
  action: 'user.disabled' | 'user.enabled' | 'user.deleted' | 'user.password_reset' | 'user.password_changed' | 'user.projects_changed',
  row: UserRow,
  details: Record<string, unknown>,
): Promise<void> {
  await recordChange(trx, clock, change, { action, target: { type: 'user', id: row.id }, projectId: null, details: { email: row.email, ...details } })
}

export interface UsersDeps {
  db: Db
  clock: Clock
  /** Shared with the sessions service: a reset forgives the failed sign-ins of its user. */
  throttle: SignInThrottle
  /** What a new password hash costs (see passwords.ts). */
  passwordCost: ScryptCost
  /** Where a change of who has access to a project writes its user.added and user.removed events, in the change's transaction. */
  outbox: Pick<Outbox, 'write'>
}

/** The data of user.added and user.removed: who, never a password or a session. */
function memberData(row: UserRow): { id: number; email: string; role: UserRole } {
  return { id: Number(row.id), email: row.email, role: row.role }
}

/**
 * The accounts that sign in to the dashboard: the rules of the admin API's user operations and
 * of `adoption-store users …`. Every change is recorded in the audit log in its own transaction;
 * no password, one-time or not, is ever recorded, logged or stored in clear.
 */
export class UsersService {
  constructor(private readonly deps: UsersDeps) {}

  /**
   * Creates a user. Without `password`, one is generated: a one-time password, answered this once,
   * that its user replaces with their own at their first sign-in. A password given (the CLI's
   * `--password-stdin`) is the user's own. Stored only as its scrypt hash either way.
   */
  async createUser(
    request: { email: string; role: UserRole; projects: readonly string[]; password?: string | undefined },
    change: Change,
  ): Promise<UserResult<{ user: User; oneTimePassword: string | undefined }>> {
    const email = normalizeEmail(request.email)
    const invalid = (message: string): Failure<'invalid_request'> => ({ ok: false, error: 'invalid_request', message })
    if (email.length > 254 || !EMAIL_PATTERN.test(email)) return invalid(`Invalid email "${request.email}".`)
    if (!(USER_ROLES as readonly string[]).includes(request.role)) return invalid(`Unknown role "${request.role}": use operator, owner or viewer.`)
    if (request.role !== 'operator' && request.projects.length === 0) return invalid(`${request.role === 'owner' ? 'An owner' : 'A viewer'} needs at least one project.`)
    if (request.role === 'operator' && request.projects.length > 0) return invalid('Operators see every project: projects are for owners and viewers only.')
    const tooShort = request.password === undefined ? undefined : checkPasswordLength(request.password, 'password')
    if (tooShort) return tooShort
    const projects = await this.findProjects(request.projects)
    if (!projects.ok) return projects
    const taken: Failure<'email_taken'> = { ok: false, error: 'email_taken', message: `A user with email ${email} already exists.` }
    if (await findUserByEmail(this.deps.db, email)) return taken

    const password = request.password ?? generatePassword()
    const oneTimePassword = request.password === undefined ? password : undefined
    const passwordHash = await hashPassword(password, this.deps.passwordCost)
    const now = this.deps.clock.now()
    const slugs = projects.rows.map((p) => p.slug)
    try {
      const row = await this.deps.db.transaction().execute(async (trx) => {
        const oneTimePasswordExpiresAt = oneTimePassword === undefined ? null : new Date(now + ONE_TIME_PASSWORD_TTL_MS).toISOString()
        const user = await insertUser(trx, { email, passwordHash, role: request.role, createdAt: new Date(now).toISOString(), oneTimePasswordExpiresAt })
        await insertUserProjects(trx, user.id, projects.rows.map((p) => p.id))
        for (const project of projects.rows) await this.deps.outbox.write(trx, project.id, 'user.added', memberData(user))
        await recordChange(trx, this.deps.clock, change, {
          action: 'user.created',
          target: { type: 'user', id: user.id },
          projectId: null,
          details: { email, role: request.role, projects: slugs, oneTimePassword: oneTimePassword !== undefined },
        })
        return user
      })
      return { ok: true, user: toUser(row, slugs), oneTimePassword }
    } catch (error) {
      // The same email created at the same moment by another request or process.
      if (isUniqueViolation(error)) return taken
      throw error
    }
  }

  async listUsers(): Promise<User[]> {
    const users = await listUsers(this.deps.db)
    const memberships = await listUserProjects(this.deps.db, users.map((u) => u.id))
    return users.map((u) => toUser(u, memberships.filter((m) => m.user_id === u.id).map((m) => m.slug)))
  }

  async getUser(ref: UserRef): Promise<UserResult<{ user: User }>> {
    const row = await this.find(this.deps.db, ref)
    if (!row) return notFound(ref)
    return { ok: true, user: await this.present(this.deps.db, row) }
  }

  /** Disables a user: they cannot sign in, and their sessions end at once, on every instance. */
  async disableUser(ref: UserRef, change: Change): Promise<UserResult<{ user: User }>> {
    return this.changeUser(ref, change, 'disable', async (trx, row) => {
      const alreadyDisabled = row.disabled_at !== null
      const updated = alreadyDisabled ? row : await setUserDisabledAt(trx, row.id, new Date(this.deps.clock.now()).toISOString())
      const sessionsEnded = await deleteUserSessions(trx, row.id)
      await this.record(trx, change, 'user.disabled', row, { alreadyDisabled, sessionsEnded })
      return this.present(trx, updated ?? row)
    })
  }

  /** Enables a disabled user again: they sign in with the password they had. */
  async enableUser(ref: UserRef, change: Change): Promise<UserResult<{ user: User }>> {
    return this.changeUser(ref, change, 'enable', async (trx, row) => {
      const alreadyEnabled = row.disabled_at === null
      const updated = alreadyEnabled ? row : await setUserDisabledAt(trx, row.id, null)
      await this.record(trx, change, 'user.enabled', row, { alreadyEnabled })
      return this.present(trx, updated ?? row)
    })
  }

  /** Deletes a user and ends their sessions; the audit log keeps their email in its entries. */
  async deleteUser(ref: UserRef, change: Change): Promise<UserResult<{ user: User }>> {
    return this.changeUser(ref, change, 'delete', async (trx, row) => {
      const memberships = await listUserProjects(trx, [row.id])
      const user = toUser(row, memberships.map((m) => m.slug))
      const sessionsEnded = await deleteUserSessions(trx, row.id)
      await deleteUser(trx, row.id)
      for (const { project_id } of memberships) await this.deps.outbox.write(trx, project_id, 'user.removed', memberData(row))
      await this.record(trx, change, 'user.deleted', row, { role: row.role, projects: user.projects, sessionsEnded })
      return user
    })
  }

  /**
   * Replaces a user's password with a new one-time password, answered this once, and ends their
   * sessions. It works only to choose their own at sign-in, for ONE_TIME_PASSWORD_TTL_MS.
   */
  async resetPassword(ref: UserRef, change: Change): Promise<UserResult<{ user: User; oneTimePassword: string }>> {
    // Hashing takes a while: not for no one, and not while the transaction holds its locks.
    if (!(await this.find(this.deps.db, ref))) return notFound(ref)
    const oneTimePassword = generatePassword()
    const passwordHash = await hashPassword(oneTimePassword, this.deps.passwordCost)
    const result = await this.changeUser(ref, change, 'reset', async (trx, row) => {
      const expiresAt = new Date(this.deps.clock.now() + ONE_TIME_PASSWORD_TTL_MS).toISOString()
      const updated = await setUserPassword(trx, row.id, passwordHash, expiresAt)
      const sessionsEnded = await deleteUserSessions(trx, row.id)
      await this.record(trx, change, 'user.password_reset', row, { oneTimePasswordExpiresAt: expiresAt, sessionsEnded })
      return this.present(trx, updated ?? row)
    })
    if (!result.ok) return result
    // Their failed sign-ins (perhaps why they asked) no longer hold back the new password.
    await this.deps.throttle.forgive(result.user.email)
    return { ...result, oneTimePassword }
  }

  /** Replaces an owner's or a viewer's projects; their sessions see the new set from the next request. */
  async setProjects(ref: UserRef, slugs: readonly string[], change: Change): Promise<UserResult<{ user: User }>> {
    const projects = await this.findProjects(slugs)
    if (!projects.ok) return projects
    return this.changeUser(ref, change, 'projects', async (trx, row) => {
      if (row.role === 'operator') return { ok: false, error: 'invalid_request', message: `${row.email} is an operator, who sees every project: only owners and viewers have projects.` }
      const memberships = await listUserProjects(trx, [row.id])
      const from = memberships.map((m) => m.slug)
      // The projects they have: the user as they are, with no write, audit entry or event.
      const to = projects.rows.map((p) => p.slug)
      if ([...new Set(from)].sort().join() === [...new Set(to)].sort().join()) return this.present(trx, row)
      await replaceUserProjects(trx, row.id, projects.rows.map((p) => p.id))
      const before = new Set(memberships.map((m) => m.project_id))
      const after = new Set(projects.rows.map((p) => p.id))
      for (const id of before) if (!after.has(id)) await this.deps.outbox.write(trx, id, 'user.removed', memberData(row))
      for (const id of after) if (!before.has(id)) await this.deps.outbox.write(trx, id, 'user.added', memberData(row))
      await this.record(trx, change, 'user.projects_changed', row, { from, to: projects.rows.map((p) => p.slug) })
      return this.present(trx, row)
    })
  }

  /**
   * One change of a user, in one transaction with its audit entry, after the rules every such
   * change keeps: the user exists; nobody disables, deletes or resets their own account (the
   * Account page changes one's password); and at least one enabled operator remains. The enabled
   * operators are locked first, so two changes at once cannot both take away "the other" one.
   */
  private async changeUser(
    ref: UserRef,
    change: Change,
    kind: 'disable' | 'enable' | 'delete' | 'reset' | 'projects',
    apply: (trx: Db, row: UserRow) => Promise<User | Failure<'invalid_request'>>,
  ): Promise<UserResult<{ user: User }>> {
    return this.deps.db.transaction().execute(async (trx): Promise<UserResult<{ user: User }>> => {
      const operators = await lockEnabledOperators(trx)
      const row = await this.find(trx, ref)
      if (!row) return notFound(ref)
      if (change.actor.userId === row.id && (kind === 'disable' || kind === 'delete' || kind === 'reset')) {
        const what = kind === 'reset' ? 'reset your own password: change it on your Account page (PUT /admin/v1/account/password)' : `${kind} your own account`
        return { ok: false, error: 'own_account', message: `You cannot ${what}. Another operator can, or adoption-store users on the server.` }
      }
      const lastOperator = operators.length === 1 && operators[0] === row.id
      if (lastOperator && (kind === 'disable' || kind === 'delete')) {
        return { ok: false, error: 'last_operator', message: `${row.email} is the last enabled operator: enable or create another operator before you ${kind} this one.` }
      }
      const applied = await apply(trx, row)
      return 'ok' in applied ? applied : { ok: true, user: applied }
    })
  }

  private async record(trx: Db, change: Change, action: Parameters<typeof recordUserChange>[3], row: UserRow, details: Record<string, unknown>): Promise<void> {
    await recordUserChange(trx, this.deps.clock, change, action, row, details)
  }

  private find(db: Db, ref: UserRef): Promise<UserRow | undefined> {
    return 'id' in ref ? findUserById(db, ref.id) : findUserByEmail(db, normalizeEmail(ref.email))
  }

  private async present(db: Db, row: UserRow): Promise<User> {
    return toUser(row, (await listUserProjects(db, [row.id])).map((m) => m.slug))
  }

  /** The projects of these slugs (each once, in slug order); not_found names the first unknown. */
  private async findProjects(slugs: readonly string[]): Promise<Outcome<{ rows: ProjectRow[] }, 'not_found'>> {
    const rows: ProjectRow[] = []
    for (const slug of [...new Set(slugs)].sort()) {
      const project = await findProjectBySlug(this.deps.db, slug)
      if (!project) return { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
      rows.push(project)
    }
    return { ok: true, rows }
  }
}
