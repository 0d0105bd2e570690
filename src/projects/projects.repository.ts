import type { Db } from '../db/database.js'
import type { Database, Plan, ProjectRow } from '../db/schema.js'

export interface NewProject {
  slug: string
  plan: Plan
  perMinute: number | null
  perDay: number | null
  createdAt: string
}

export async function insertProject(db: Db, project: NewProject): Promise<ProjectRow> {
  return db
    .insertInto('projects')
    .values({ slug: project.slug, plan: project.plan, per_minute: project.perMinute, per_day: project.perDay, created_at: project.createdAt })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function findProjectBySlug(db: Db, slug: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('slug', '=', slug).executeTakeFirst()
}

export async function listProjects(db: Db): Promise<ProjectRow[]> {
  return db.selectFrom('projects').selectAll().orderBy('id').execute()
}

export async function countProjects(db: Db): Promise<number> {
  const { count } = await db.selectFrom('projects').select((eb) => eb.fn.countAll<number | string>().as('count')).executeTakeFirstOrThrow()
  return Number(count)
}

export async function updateProjectPlan(
  db: Db,
  slug: string,
  plan: { plan: Plan; perMinute: number | null; perDay: number | null },
): Promise<ProjectRow | undefined> {
  return db
    .updateTable('projects')
    .set({ plan: plan.plan, per_minute: plan.perMinute, per_day: plan.perDay })
    .where('slug', '=', slug)
    .returningAll()
    .executeTakeFirst()
}

/** The slug of the project with this id; the project must exist (a key's project always does). */
export async function getProjectSlug(db: Db, id: number): Promise<string> {
  const { slug } = await db.selectFrom('projects').select('slug').where('id', '=', id).executeTakeFirstOrThrow()
  return slug
}

export async function updateProjectWebhookPrivateNetworks(db: Db, slug: string, allowed: boolean): Promise<ProjectRow | undefined> {
  return db.updateTable('projects').set({ webhook_private_networks: allowed ? 1 : 0 }).where('slug', '=', slug).returningAll().executeTakeFirst()
}

/** What deleting a project removed: the rows of each table, and the keys of its photos' stored files. */
export interface DeletedProject {
  rows: Record<string, number>
  photoKeys: string[]
}

/**
 * Deletes a project and every row that belongs to it, in the caller's transaction. On PostgreSQL
 * the project's row is locked first: a concurrent write of the project's data (which checks its
 * foreign key against that row) waits for the commit, then fails, so nothing is added while the
 * project goes. The order follows the foreign keys: animals before their locations, deliveries
 * before their endpoints, the animals' change feed and search words after the animals (their
 * triggers write those). Rows without a project column go with their parent by cascade: a key's
 * bans, a domain's certificate and challenges, an endpoint's subscriptions, a delivery's attempts.
 */
export async function deleteProjectData(db: Db, dialect: 'sqlite' | 'postgres', projectId: number): Promise<DeletedProject> {
  let lock = db.selectFrom('projects').select('id').where('id', '=', projectId)
  if (dialect === 'postgres') lock = lock.forUpdate()
  await lock.executeTakeFirst()
  const photos = await db.selectFrom('pet_photos').select('variants').where('project_id', '=', projectId).execute()
  const photoKeys = photos.flatMap((photo) => (JSON.parse(photo.variants) as { key: string }[]).map((variant) => variant.key))
  const rows: Record<string, number> = {}
  const remove = async (table: ProjectTableName) => {
    const result = await db.deleteFrom(table).where('project_id', '=', projectId).executeTakeFirst()
    rows[table] = Number(result.numDeletedRows)
  }
  for (const table of projectTables(dialect)) await remove(table)
  await db.deleteFrom('projects').where('id', '=', projectId).execute()
  return { rows, photoKeys }
}

/** Every table with a `project_id` column, in the order deleteProjectData empties them (see projectTables). */
export const PROJECT_TABLES = [
  'webhook_deliveries',
  'webhook_events',
  'webhook_endpoints',
  'orders',
  'pet_photos',
  'pets',
  'pet_changes',
  'pet_search_words',
  'locations',
  'categories',
  'idempotency_keys',
  'api_keys',
  'domains',
  'site_settings',
  'usage_minutes',
  'user_projects',
  'audit_entries',
] as const satisfies readonly (keyof Database)[]

type ProjectTableName = (typeof PROJECT_TABLES)[number]

/** The tables with a project column on this dialect: the search words are PostgreSQL's only (SQLite searches with its own index). */
export function projectTables(dialect: 'sqlite' | 'postgres'): readonly ProjectTableName[] {
  return dialect === 'postgres' ? PROJECT_TABLES : PROJECT_TABLES.filter((table) => table !== 'pet_search_words')
}
