import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import type { SessionRow, UserRole, UserRow } from '../db/schema.js'

export async function insertUser(
  db: Db,
  user: { email: string; passwordHash: string; role: UserRole; createdAt: string; oneTimePasswordExpiresAt: string | null },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      email: user.email,
      password_hash: user.passwordHash,
      role: user.role,
      created_at: user.createdAt,
      one_time_password_expires_at: user.oneTimePasswordExpiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function insertUserProjects(db: Db, userId: number, projectIds: readonly number[]): Promise<void> {
  if (projectIds.length === 0) return
  await db
    .insertInto('user_projects')
    .values(projectIds.map((projectId) => ({ user_id: userId, project_id: projectId })))
    .execute()
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst()
}

export async function findUserById(db: Db, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * The enabled operators, locked until the transaction ends: run first in a transaction that may
 * leave fewer of them, so that two such changes made at once (two operators disabling each other)
 * are made one after the other and the second sees the first. A no-op UPDATE rather than
 * `SELECT … FOR UPDATE`, which SQLite does not have: on PostgreSQL it locks the rows (a concurrent
 * one waits, then re-reads them), on SQLite it takes the database's write lock from the start.
 */
export async function lockEnabledOperators(db: Db): Promise<number[]> {
  const rows = await db
    .updateTable('users')
    .set((eb) => ({ role: eb.ref('role') }))
    .where('role', '=', 'operator')
    .where('disabled_at', 'is', null)
    .returning('id')
    .execute()
  return rows.map((row) => Number(row.id))
}

export async function setUserDisabledAt(db: Db, id: number, disabledAt: string | null): Promise<UserRow | undefined> {
  return db.updateTable('users').set({ disabled_at: disabledAt }).where('id', '=', id).returningAll().executeTakeFirst()
}

/** A new password hash; `oneTimeUntil` set for a one-time password, null for one its user chose. */
export async function setUserPassword(db: Db, id: number, passwordHash: string, oneTimeUntil: string | null): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ password_hash: passwordHash, one_time_password_expires_at: oneTimeUntil })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst()
}

export async function setLastSignedIn(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('users').set({ last_signed_in_at: at }).where('id', '=', id).execute()
}

/** Deletes a user with their memberships and sessions (no cascade is relied on). */
export async function deleteUser(db: Db, id: number): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', id).execute()
  await db.deleteFrom('user_projects').where('user_id', '=', id).execute()
  await db.deleteFrom('users').where('id', '=', id).execute()
}

/** Replaces an owner's projects. */
export async function replaceUserProjects(db: Db, userId: number, projectIds: readonly number[]): Promise<void> {
  await db.deleteFrom('user_projects').where('user_id', '=', userId).execute()
  await insertUserProjects(db, userId, projectIds)
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute()
}

/** The projects of each of the given users, in slug order. */
export async function listUserProjects(db: Db, userIds: readonly number[]): Promise<{ user_id: number; project_id: number; slug: string }[]> {
  if (userIds.length === 0) return []
  return db
    .selectFrom('user_projects')
    .innerJoin('projects', 'projects.id', 'user_projects.project_id')
    .select(['user_projects.user_id', 'user_projects.project_id', 'projects.slug'])
    .where('user_projects.user_id', 'in', userIds)
    .orderBy('projects.slug')
    .execute()
}

export async function listProjectSlugs(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('projects').select('slug').orderBy('slug').execute()
  return rows.map((row) => row.slug)
}

export async function insertSession(db: Db, session: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(session).execute()
}

/**
 * A session that has not expired at `now`, of a user who is not disabled, with that user. Read on
 * every request (nothing keeps it): a session deleted or a user disabled by any instance or the
 * CLI is refused from the next request on.
 */
export async function findLiveSession(
  db: Db,
  id: string,
  now: string,
): Promise<{ id: string; csrf_token: string; expires_at: string; user_id: number; email: string; role: UserRole } | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['sessions.id', 'sessions.csrf_token', 'sessions.expires_at', 'sessions.user_id', 'users.email', 'users.role'])
    .where('sessions.id', '=', id)
    .where('sessions.expires_at', '>', now)
    .where('users.disabled_at', 'is', null)
    .executeTakeFirst()
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute()
}

/** Ends a user's sessions, but for `keep` when given; answers how many ended. */
export async function deleteUserSessions(db: Db, userId: number, keep?: string): Promise<number> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId)
  if (keep !== undefined) query = query.where('id', '<>', keep)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Forgets expired sessions and throttling counters. */
export async function deleteExpired(db: Db, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute()
  await db.deleteFrom('sign_in_counters').where('expires_at', '<=', now).execute()
}

export async function deleteCounter(db: Db, key: string): Promise<void> {
  await db.deleteFrom('sign_in_counters').where('key', '=', key).execute()
}

/** Adds `delta` to a throttling counter, creating it, in one statement; answers the new count. */
export async function addToCounter(db: Db, key: string, delta: number, expiresAt: string): Promise<number> {
  const row = await db
    .insertInto('sign_in_counters')
    .values({ key, count: delta, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ count: sql<number>`sign_in_counters.count + ${delta}` }))
    .returning('count')
    .executeTakeFirstOrThrow()
  return Number(row.count)
}
