import type { Db } from '../db/database.js'
import type { Plan, ProjectRow } from '../db/schema.js'

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
