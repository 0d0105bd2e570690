import type { Db } from '../db/database.js'
import type { CategoryRow } from '../db/schema.js'

export async function listProjectCategories(db: Db, projectId: number): Promise<CategoryRow[]> {
  return db.selectFrom('categories').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
}

export async function findProjectCategory(db: Db, projectId: number, id: number): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

/** Sets the project's name and added breeds (JSON) for a category id; answers the row. */
export async function upsertCategory(db: Db, projectId: number, id: number, name: string, breeds: string | null, at: string): Promise<CategoryRow> {
  return db
    .insertInto('categories')
    .values({ project_id: projectId, id, name, breeds, created_at: at, updated_at: at })
    .onConflict((oc) => oc.columns(['project_id', 'id']).doUpdateSet({ name, breeds, updated_at: at }))
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function deleteCategory(db: Db, projectId: number, id: number): Promise<CategoryRow | undefined> {
  return db.deleteFrom('categories').where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst()
}

export async function countProjectCategories(db: Db, projectId: number): Promise<number> {
  const row = await db.selectFrom('categories').select((eb) => eb.fn.countAll<number | string>().as('count')).where('project_id', '=', projectId).executeTakeFirstOrThrow()
  return Number(row.count)
}
