import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import { batchedTogether, prepare } from '../db/prepared.js'
import type { PetStatus } from '../db/schema.js'
import { eventOfInsertedRowStatements, type OutboxEvent, writeEvent } from '../webhooks/webhooks.repository.js'
import type { Pet } from './pets.schemas.js'

/** An animal is read in the API's own shape: one object per row, handed to the serialiser as is. */
const PET = ['id', 'name', 'category_id as categoryId', 'status'] as const

export interface PetFilter {
  status?: PetStatus | undefined
  /** Only animals whose name contains this, whatever the case. */
  name?: string | undefined
  /** Only ids greater than this. */
  after?: number | undefined
  limit: number
}

/**
 * A name as the search compares it: folded by this code, not by the database (SQLite's `lower()`
 * folds ASCII only, PostgreSQL's follows the server's locale), so both dialects match alike.
 */
function folded(name: string): string {
  return name.toLowerCase()
}

const insert = prepare((db, projectId: number, name: string, nameFolded: string, categoryId: number, status: PetStatus, createdAt: string) =>
  db
    .insertInto('pets')
    .values({ project_id: projectId, name, name_folded: nameFolded, category_id: categoryId, status, created_at: createdAt })
    .returning(PET),
)

// Ids start at 1, so `after` 0 means from the start: one query shape per filter, not two.
const listAll = prepare((db, projectId: number, after: number, limit: number) =>
  db.selectFrom('pets').select(PET).where('project_id', '=', projectId).where('id', '>', after).orderBy('id').limit(limit),
)

const listByStatus = prepare((db, projectId: number, status: PetStatus, after: number, limit: number) =>
  db
    .selectFrom('pets')
    .select(PET)
    .where('project_id', '=', projectId)
    .where('status', '=', status)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit),
)

const find = prepare((db, projectId: number, id: number) =>
  db.selectFrom('pets').select(PET).where('project_id', '=', projectId).where('id', '=', id),
)

export async function insertPet(
  db: Db,
  projectId: number,
  pet: { name: string; categoryId: number; status: PetStatus; createdAt: string },
): Promise<Pet> {
  // Durable before it is acknowledged, and committed together with the other requests' animals.
  const [row] = await insert.batched(db, projectId, pet.name, folded(pet.name), pet.categoryId, pet.status, pet.createdAt)
  if (!row) throw new Error('insert into pets returned no row')
  return row
}

/**
 * Inserts an animal and the webhook event that reports it (whose `data` is the animal), in one
 * transaction. On SQLite's root instance both join the group commit; elsewhere (PostgreSQL, or
 * inside a transaction) they run one after the other in a transaction.
 */
export async function insertPetReported(
  db: Db,
  projectId: number,
  pet: { name: string; categoryId: number; status: PetStatus; createdAt: string },
  event: Omit<OutboxEvent, 'data' | 'dedupeKey'>,
): Promise<Pet> {
  const first = insert.statement(db, projectId, pet.name, folded(pet.name), pet.categoryId, pet.status, pet.createdAt)
  const rest = eventOfInsertedRowStatements(db, { ...event, data: JSON.stringify({ id: 0, name: pet.name, categoryId: pet.categoryId, status: pet.status }) })
  if (first && rest) {
    const [rows] = await batchedTogether(db, [first, ...rest])
    const row = rows?.[0] as Pet | undefined
    if (!row) throw new Error('insert into pets returned no row')
    return row
  }
  const inserted = async (trx: Db) => {
    const row = await insertPet(trx, projectId, pet)
    await writeEvent(trx, { ...event, data: JSON.stringify(row), dedupeKey: null })
    return row
  }
  return db.isTransaction ? inserted(db) : db.transaction().execute(inserted)
}

export async function listPets(db: Db, projectId: number, filter: PetFilter): Promise<Pet[]> {
  const after = filter.after ?? 0
  if (filter.name !== undefined) return searchPets(db, projectId, { ...filter, name: filter.name, after })
  return filter.status === undefined ? listAll(db, projectId, after, filter.limit) : listByStatus(db, projectId, filter.status, after, filter.limit)
}

/** `%`, `_` and the escape character itself stand for themselves in the pattern. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`
}

/** The name search (the admin API's): a case-insensitive substring, the same on every dialect. */
async function searchPets(db: Db, projectId: number, filter: PetFilter & { name: string; after: number }): Promise<Pet[]> {
  let query = db
    .selectFrom('pets')
    .select(PET)
    .where('project_id', '=', projectId)
    .where('id', '>', filter.after)
    // Rows written before the folded column existed are folded here (ASCII on SQLite) until written again.
    .where(sql<string>`coalesce(name_folded, lower(name))`, 'like', sql<string>`${likeContaining(folded(filter.name))} escape '\\'`)
  if (filter.status !== undefined) query = query.where('status', '=', filter.status)
  return query.orderBy('id').limit(filter.limit).execute()
}

export async function findPet(db: Db, projectId: number, id: number): Promise<Pet | undefined> {
  const [row] = await find(db, projectId, id)
  return row
}

/** Changes an animal's name or category; answers it as it is now, or nothing when there is no such animal. */
export async function updatePet(db: Db, projectId: number, id: number, changes: { name?: string | undefined; categoryId?: number | undefined }): Promise<Pet | undefined> {
  return db
    .updateTable('pets')
    .set({
      ...(changes.name !== undefined && { name: changes.name, name_folded: folded(changes.name) }),
      ...(changes.categoryId !== undefined && { category_id: changes.categoryId }),
    })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .returning(PET)
    .executeTakeFirst()
}

/** Deletes an animal; answers it as it was, or nothing when there is no such animal. */
export async function deletePet(db: Db, projectId: number, id: number): Promise<Pet | undefined> {
  return db.deleteFrom('pets').where('project_id', '=', projectId).where('id', '=', id).returning(PET).executeTakeFirst()
}

/**
 * Moves an animal from `from` to `to` in one conditional statement: of two concurrent callers,
 * exactly one sees the animal in `from`. Answers whether it moved.
 */
export async function movePet(db: Db, projectId: number, petId: number, from: PetStatus, to: PetStatus): Promise<boolean> {
  const result = await db
    .updateTable('pets')
    .set({ status: to })
    .where('project_id', '=', projectId)
    .where('id', '=', petId)
    .where('status', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function setPetStatus(db: Db, projectId: number, petId: number, to: PetStatus): Promise<void> {
  await db.updateTable('pets').set({ status: to }).where('project_id', '=', projectId).where('id', '=', petId).execute()
}
