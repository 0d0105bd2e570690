import type { Db } from '../db/database.js'
import type { PetRow, PetStatus } from '../db/schema.js'

/** What an animal's API shape needs: reading less makes fewer and smaller row objects. */
const PET_COLUMNS = ['id', 'name', 'category_id', 'status'] as const
export type PetFields = Pick<PetRow, (typeof PET_COLUMNS)[number]>

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
): Promise<PetFields> {
  return db
    .insertInto('pets')
    .values({ project_id: projectId, name: pet.name, category_id: pet.categoryId, status: pet.status, created_at: pet.createdAt })
    .returning(PET_COLUMNS)
    .executeTakeFirstOrThrow()
}

export async function listPets(db: Db, projectId: number, filter: PetFilter): Promise<PetFields[]> {
  let query = db.selectFrom('pets').select(PET_COLUMNS).where('project_id', '=', projectId)
  if (filter.status !== undefined) query = query.where('status', '=', filter.status)
  if (filter.after !== undefined) query = query.where('id', '>', filter.after)
  return query.orderBy('id').limit(filter.limit).execute()
}

export async function findPet(db: Db, projectId: number, id: number): Promise<PetFields | undefined> {
  return db.selectFrom('pets').select(PET_COLUMNS).where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}
