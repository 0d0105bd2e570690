import { isDeepStrictEqual } from 'node:util'
import { type Change, recordChange } from '../audit/audit.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { isForeignKeyViolation } from '../db/errors.js'
import type { LocationRow } from '../db/schema.js'
import { type Outcome, Refusal, refuse } from '../errors.js'
import { type Page, pageOf } from '../shapes.js'
import { anyPetAt } from '../pets/pets.repository.js'
import { metresBetween, type Point } from './distance.js'
import {
  countLocations,
  deleteLocation,
  findLocation,
  insertLocation,
  listLocations,
  locatedPlaces,
  type LocationWrite,
  updateLocation,
} from './locations.repository.js'
import { type Address, type Location, type LocationChanges, MAX_LOCATIONS, type NewLocation } from './locations.schemas.js'

export interface LocationsDeps {
  db: Db
  clock: Clock
  /** Told after a committed change: distances and names in cached answers move with it. */
  generations: Pick<Generations, 'dataChanged'>
}

export type LocationResult = Outcome<{ location: Location }>

/** Country codes the runtime's ICU data names (ISO 3166-1 alpha-2). */
const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' })

export function toLocation(row: LocationRow): Location {
  return {
    id: row.id,
    name: row.name,
    ...(row.address !== null && { address: JSON.parse(row.address) as Address }),
    ...(row.latitude !== null && row.longitude !== null && { coordinates: { latitude: row.latitude, longitude: row.longitude } }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

/**
 * A project's places: shelter sites and foster areas where its animals can be met, with the
 * coordinates a distance search measures from. A place with animals cannot be removed.
 */
export class LocationsService {
  constructor(private readonly deps: LocationsDeps) {}

  async list(projectId: number, page: { limit: number; after?: number | undefined }): Promise<Page<Location>> {
    const rows = pageOf(await listLocations(this.deps.db, projectId, page.after ?? 0, page.limit + 1), page.limit)
    return { ...rows, items: rows.items.map(toLocation) }
  }

  async get(projectId: number, id: number): Promise<Location | undefined> {
    const row = await findLocation(this.deps.db, projectId, id)
    return row && toLocation(row)
  }

  async create(projectId: number, input: NewLocation, change?: Change): Promise<LocationResult> {
    const write = writeOf(input)
    if (!write.ok) return write
    return this.changed(projectId, async (trx) => {
      if ((await countLocations(trx, projectId)) >= MAX_LOCATIONS) {
        return refuse('limit_reached', `The project has ${MAX_LOCATIONS} locations, the most it may have: remove one it no longer uses first.`)
      }
      const row = await insertLocation(trx, projectId, write.location, this.now())
      await this.record(trx, projectId, change, 'location.created', row.id, { name: row.name })
      return row
    })
  }

  async update(projectId: number, id: number, changes: LocationChanges, change?: Change): Promise<LocationResult> {
    return this.changed(projectId, async (trx) => {
      const before = await findLocation(trx, projectId, id)
      if (!before) return refuse('not_found', noSuchLocation(id))
      const current = toLocation(before)
      const address = changes.address === undefined ? current.address : changes.address === null ? undefined : mergeAddress(current.address, changes.address)
      const merged: NewLocation = {
        name: changes.name ?? current.name,
        ...(address !== undefined && { address }),
        ...(changes.coordinates !== null && (changes.coordinates ?? current.coordinates) !== undefined && { coordinates: changes.coordinates ?? current.coordinates }),
      }
      const write = writeOf(merged)
      if (!write.ok) return refuse(write.error, write.message)
      // The values it has: the location as it is, with no write or audit entry.
      if (isDeepStrictEqual(toLocation({ ...before, ...write.location }), current)) return before
      const row = await updateLocation(trx, projectId, id, write.location, this.now())
      if (!row) return refuse('not_found', noSuchLocation(id))
      await this.record(trx, projectId, change, 'location.updated', id, { fields: Object.keys(changes) })
      return row
    })
  }

  async remove(projectId: number, id: number, change?: Change): Promise<LocationResult> {
    return this.changed(projectId, async (trx) => {
      const pet = await anyPetAt(trx, projectId, id)
      if (pet !== undefined) {
        return refuse('location_in_use', `Location ${id} has animals (animal ${pet} among them): move them to another location (or none) first.`)
      }
      const row = await deleteLocation(trx, projectId, id)
      if (!row) return refuse('not_found', noSuchLocation(id))
      await this.record(trx, projectId, change, 'location.deleted', id, { name: row.name })
      return row
    })
  }

  /** Whether the project has this location: what an animal's `locationId` must name. */
  async exists(projectId: number, id: number): Promise<boolean> {
    return (await findLocation(this.deps.db, projectId, id)) !== undefined
  }

  /** The project's locations within `radiusMetres` of `point`, each with its distance in whole metres. */
  async within(projectId: number, point: Point, radiusMetres: number): Promise<Map<number, number>> {
    const near = new Map<number, number>()
    for (const place of await locatedPlaces(this.deps.db, projectId)) {
      const metres = Math.round(metresBetween(point, place))
      if (metres <= radiusMetres) near.set(place.id, metres)
    }
    return near
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString()
  }

  private async changed(projectId: number, work: (trx: Db) => Promise<LocationRow>): Promise<LocationResult> {
    let row: LocationRow
    try {
      row = await this.deps.db.transaction().execute(work)
    } catch (error) {
      if (error instanceof Refusal) return error.failure
      // An animal was put there while the removal ran: the reference holds.
      if (isForeignKeyViolation(error)) return { ok: false, error: 'location_in_use', message: 'The location has animals: move them to another location (or none) first.' }
      throw error
    }
    await this.deps.generations.dataChanged(projectId)
    return { ok: true, location: toLocation(row) }
  }

  private async record(trx: Db, projectId: number, change: Change | undefined, action: 'location.created' | 'location.updated' | 'location.deleted', id: number, details: Record<string, unknown>) {
    if (change) await recordChange(trx, this.deps.clock, change, { action, target: { type: 'location', id }, projectId, details })
  }
}

function mergeAddress(current: Address | undefined, patch: Record<string, string | null | undefined>): Address | undefined {
  const merged: Record<string, string> = { ...current }
  for (const [part, value] of Object.entries(patch)) {
    if (value === null) delete merged[part]
    else if (value !== undefined) merged[part] = value
  }
  return Object.keys(merged).length === 0 ? undefined : (merged as Address)
}

/** The columns of a location, or why its address is not one. */
function writeOf(input: NewLocation): Outcome<{ location: LocationWrite }> {
  const name = input.name.trim()
  if (name === '') return { ok: false, error: 'invalid_request', message: 'Body field "name" is empty once its surrounding spaces are trimmed: name the place.' }
  const address = input.address && Object.fromEntries(Object.entries(input.address).map(([part, value]) => [part, typeof value === 'string' ? value.trim() : value]))
  const blank = Object.entries(address ?? {}).find(([, value]) => value === '')?.[0]
  if (blank) return { ok: false, error: 'invalid_request', message: `Body field "address.${blank}" is empty once its surrounding spaces are trimmed: give it, or leave it out.` }
  const country = address?.country
  if (country !== undefined && (regions.of(country) === country || country === 'ZZ')) {
    return { ok: false, error: 'invalid_request', message: `Body field "address.country" is not an ISO 3166-1 alpha-2 country code: "${country}" (e.g. US, GB, DE).` }
  }
  return {
    ok: true,
    location: {
      name,
      address: address && Object.keys(address).length > 0 ? JSON.stringify(address) : null,
      latitude: input.coordinates?.latitude ?? null,
      longitude: input.coordinates?.longitude ?? null,
    },
  }
}

export function noSuchLocation(id: number): string {
  return `No location with id ${id} in your project.`
}
