import type { Db } from '../db/database.js'
import { prepare } from '../db/prepared.js'
import type { LocationRow } from '../db/schema.js'

/** A location as written: its name, its address as the API shows it (JSON) and its coordinates. */
export interface LocationWrite {
  name: string
  address: string | null
  latitude: number | null
  longitude: number | null
}

export async function insertLocation(db: Db, projectId: number, location: LocationWrite, at: string): Promise<LocationRow> {
  return db
    .insertInto('locations')
    .values({ project_id: projectId, ...location, created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow()
}

export async function updateLocation(db: Db, projectId: number, id: number, location: LocationWrite, at: string): Promise<LocationRow | undefined> {
  return db.updateTable('locations').set({ ...location, updated_at: at }).where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst()
}

export async function deleteLocation(db: Db, projectId: number, id: number): Promise<LocationRow | undefined> {
  return db.deleteFrom('locations').where('project_id', '=', projectId).where('id', '=', id).returningAll().executeTakeFirst()
}

/** Prepared: every animal written with a location asks for it (an import, hundreds a second). */
const find = prepare((db, projectId: number, id: number) => db.selectFrom('locations').selectAll().where('project_id', '=', projectId).where('id', '=', id))

export async function findLocation(db: Db, projectId: number, id: number): Promise<LocationRow | undefined> {
  const [row] = await find(db, projectId, id)
  return row
}

/** A page in ascending id order. */
export async function listLocations(db: Db, projectId: number, after: number, limit: number): Promise<LocationRow[]> {
  return db.selectFrom('locations').selectAll().where('project_id', '=', projectId).where('id', '>', after).orderBy('id').limit(limit).execute()
}

export async function countLocations(db: Db, projectId: number): Promise<number> {
  const row = await db.selectFrom('locations').select((eb) => eb.fn.countAll<number | string>().as('count')).where('project_id', '=', projectId).executeTakeFirstOrThrow()
  return Number(row.count)
}

/** The project's locations that have coordinates: what a distance search measures. */
export async function locatedPlaces(db: Db, projectId: number): Promise<{ id: number; latitude: number; longitude: number }[]> {
  const rows = await db
    .selectFrom('locations')
    .select(['id', 'latitude', 'longitude'])
    .where('project_id', '=', projectId)
    .where('latitude', 'is not', null)
    .where('longitude', 'is not', null)
    .execute()
  return rows as { id: number; latitude: number; longitude: number }[]
}
