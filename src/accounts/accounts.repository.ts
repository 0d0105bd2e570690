import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import type { SessionRow, UserRole, UserRow } from '../db/schema.js'

export async function insertUser(db: Db, user: { email: string; passwordHash: string; role: UserRole; createdAt: string }): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({ email: user.email, password_hash: user.passwordHash, role: user.role, created_at: user.createdAt })
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

/** A session that has not expired at `now`, with its user. */
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
    .executeTakeFirst()
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db.deleteFrom('sessions').where('id', '=', id).execute()
}

/** Forgets expired sessions and throttling counters. */
export async function deleteExpired(db: Db, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute()
  await db.deleteFrom('sign_in_counters').where('expires_at', '<=', now).execute()
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
