import type { Db } from '../db/database.js'
import type { PetRow, PetStatus } from '../db/schema.js'

export interface PetFilter {
  status?: PetStatus | undefined
  /** Only ids greater than this. */
  after?: number | undefined
  limit: number
}

export async function insertPet(
  db: Db,
  projectId: number,
  pet: { name: string; categoryId: number; status: PetStatus; createdAt: string },
): Promise<PetRow> {
  return db
    .insertInto('pets')
    .values({ project_id: projectId, name: pet.name, category_id: pet.categoryId, status: pet.status, created_at: pet.createdAt })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function listPets(db: Db, projectId: number, filter: PetFilter): Promise<PetRow[]> {
  let query = db.selectFrom('pets').selectAll().where('project_id', '=', projectId)
  if (filter.status !== undefined) query = query.where('status', '=', filter.status)
  if (filter.after !== undefined) query = query.where('id', '>', filter.after)
  return query.orderBy('id').limit(filter.limit).execute()
}

export async function findPet(db: Db, projectId: number, id: number): Promise<PetRow | undefined> {
  return db.selectFrom('pets').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}
