import type { Db } from '../db/database.js'
import { prepare } from '../db/prepared.js'
import type { StoredPhoto, StoredVariant } from './photos.schemas.js'

/** A file of a photo as its row names it: its place in the answer, its key, its content's hash and size. */
export interface VariantRow extends StoredVariant {
  format: 'webp' | 'jpeg'
  /** SHA-256 of the file, hex: its strong ETag. */
  hash: string
  size: number
}

export interface PhotoRow {
  id: string
  petId: number
  position: number
  width: number
  height: number
  hash: string
  variants: VariantRow[]
  createdAt: string
}

const PHOTO = ['id', 'pet_id as petId', 'position', 'width', 'height', 'hash', 'variants', 'created_at as createdAt'] as const

function rowOf(row: { id: string; petId: number; position: number; width: number; height: number; hash: string; variants: string; createdAt: string }): PhotoRow {
  return { ...row, petId: Number(row.petId), variants: JSON.parse(row.variants) as VariantRow[] }
}

/** How many photos the project's animal has; undefined when the project has no such animal. */
export async function countPhotos(db: Db, projectId: number, petId: number): Promise<number | undefined> {
  const pet = await db.selectFrom('pets').select('id').where('project_id', '=', projectId).where('id', '=', petId).executeTakeFirst()
  if (!pet) return undefined
  const { count } = await db.selectFrom('pet_photos').select((eb) => eb.fn.countAll<number>().as('count')).where('project_id', '=', projectId).where('pet_id', '=', petId).executeTakeFirstOrThrow()
  return Number(count)
}

/**
 * Marks the animal changed, first in a photo change's transaction: on PostgreSQL the row stays
 * locked until the commit, so concurrent changes of one animal's photos happen one after the other.
 */
export async function touchPet(db: Db, projectId: number, petId: number, at: string): Promise<boolean> {
  const touched = await db.updateTable('pets').set({ updated_at: at }).where('project_id', '=', projectId).where('id', '=', petId).returning('id').executeTakeFirst()
  return touched !== undefined
}

export async function insertPhoto(db: Db, projectId: number, photo: Omit<PhotoRow, 'variants'> & { variants: VariantRow[] }): Promise<void> {
  await db
    .insertInto('pet_photos')
    .values({
      id: photo.id,
      project_id: projectId,
      pet_id: photo.petId,
      position: photo.position,
      width: photo.width,
      height: photo.height,
      hash: photo.hash,
      variants: JSON.stringify(photo.variants),
      created_at: photo.createdAt,
    })
    .execute()
}

/** The animal's photos in order. */
export async function listPhotos(db: Db, projectId: number, petId: number): Promise<PhotoRow[]> {
  const rows = await db.selectFrom('pet_photos').select(PHOTO).where('project_id', '=', projectId).where('pet_id', '=', petId).orderBy('position').orderBy('id').execute()
  return rows.map(rowOf)
}

/** A photo by its id alone (what serving its files starts from), whatever its project. */
export async function findPhoto(db: Db, id: string): Promise<PhotoRow | undefined> {
  const [row] = await findById(db, id)
  return row && rowOf(row)
}

// Every request for a photo's file reads its row: a prepared statement, planned once.
const findById = prepare((db, id: string) => db.selectFrom('pet_photos').select(PHOTO).where('id', '=', id))

export async function deletePhoto(db: Db, projectId: number, petId: number, id: string): Promise<PhotoRow | undefined> {
  const row = await db.deleteFrom('pet_photos').where('project_id', '=', projectId).where('pet_id', '=', petId).where('id', '=', id).returning(PHOTO).executeTakeFirst()
  return row && rowOf(row)
}

export async function setPosition(db: Db, projectId: number, id: string, position: number): Promise<void> {
  await db.updateTable('pet_photos').set({ position }).where('project_id', '=', projectId).where('id', '=', id).execute()
}

/**
 * Rewrites the animal's `pets.photos` from its rows (positions made 0, 1, 2… in their order):
 * what its answers show, written in the photo change's transaction. Answers the photos in order.
 */
export async function writePetPhotos(db: Db, projectId: number, petId: number): Promise<StoredPhoto[]> {
  const rows = await listPhotos(db, projectId, petId)
  for (const [position, row] of rows.entries()) if (row.position !== position) await setPosition(db, projectId, row.id, position)
  const photos = rows.map((row): StoredPhoto => {
    const of = (format: VariantRow['format']) => row.variants.filter((v) => v.format === format).map(({ width, height, key }) => ({ width, height, key }))
    return { id: row.id, width: row.width, height: row.height, variants: { webp: of('webp'), jpeg: of('jpeg') } }
  })
  await db
    .updateTable('pets')
    .set({ photos: photos.length === 0 ? null : JSON.stringify(photos) })
    .where('project_id', '=', projectId)
    .where('id', '=', petId)
    .execute()
  return photos
}

/** Every photo's id, in pages: what the sweep and `media verify` compare the stored files with. */
export async function photoIdsAfter(db: Db, after: string, limit: number): Promise<PhotoRow[]> {
  const rows = await db.selectFrom('pet_photos').select(PHOTO).where('id', '>', after).orderBy('id').limit(limit).execute()
  return rows.map(rowOf)
}

/** Which of these photo ids have a row. */
export async function existingPhotoIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const rows = await db.selectFrom('pet_photos').select('id').where('id', 'in', ids).execute()
  return new Set(rows.map((row) => row.id))
}
