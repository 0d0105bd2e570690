import { MAX_INT53 } from '../shapes.js'
import { type DistanceUnit, METRES_PER, type Point } from '../locations/distance.js'
import type { Answer, PetSearch } from './pets-search.repository.js'
import { type ListPetsQuery, PET_FIELD_NAMES, type PET_SORTS } from './pets.schemas.js'
import { foldedName, queryTokens } from './search-text.js'

/**
 * The query of GET /pets, read into what the repository searches: the filters, the order and
 * where the page starts, the fields to answer. Everything the schema cannot say (a radius out of
 * range, a contradiction between parameters, a cursor of another order) is a 400 naming the
 * parameter.
 */

export type PetSort = (typeof PET_SORTS)[number]
export type PetField = (typeof PET_FIELD_NAMES)[number]

export interface ParsedSearch {
  search: PetSearch
  sort: PetSort
  seed: number
  /** Where the page starts: an id (`after`, or a cursor of the id order), or a cursor's sort value and id. */
  start: { id: number; value?: string | number } | undefined
  near: { point: Point; radiusMetres: number; unit: DistanceUnit } | undefined
  /** Undefined: the default fields (all but the times). */
  fields: ReadonlySet<PetField> | undefined
  count: boolean
  limit: number
}

export type Parsed = { ok: true; parsed: ParsedSearch } | { ok: false; message: string }

/** The greatest radius: half the Earth's circumference, about 20,000 km. */
const MAX_RADIUS_METRES = 20_000_000
const DEFAULT_RADIUS = 100

/** The query as the list takes it: the schema's validated strings, and the admin API's name search. */
export type PetsQuery = Partial<ListPetsQuery> & { name?: string | undefined }

export function parseSearch(query: PetsQuery): Parsed {
  const fail = (message: string): Parsed => ({ ok: false, message })
  const list = (text: string | undefined) => (text === undefined ? undefined : [...new Set(text.split(',').map((item) => item.trim()).filter(Boolean))])
  const folded = (text: string | undefined, parameter: string) => {
    const values = list(text)?.map(foldedName)
    if (values && values.length > 20) throw new RangeError(`Query parameter "${parameter}" takes at most 20 values.`)
    if (values && values.length === 0) throw new RangeError(`Query parameter "${parameter}" names no value: send at least one, comma-separated.`)
    return values
  }
  const ids = (text: string | undefined, parameter: string) => {
    const values = list(text)?.map(Number)
    const wrong = values?.find((value) => !Number.isSafeInteger(value) || value < 1 || value > MAX_INT53)
    if (wrong !== undefined) throw new RangeError(`Query parameter "${parameter}" must be ids from 1 to ${MAX_INT53}.`)
    return values
  }
  const yesNo = (value: 'true' | 'false' | undefined) => (value === undefined ? undefined : value === 'true' ? 1 : 0)

  let search: PetSearch
  try {
    const attributes = Object.fromEntries(
      (
        [
          ['spayed_neutered', yesNo(query.spayedNeutered)],
          ['house_trained', yesNo(query.houseTrained)],
          ['vaccinated', yesNo(query.vaccinated)],
          ['microchipped', yesNo(query.microchipped)],
          ['special_needs', yesNo(query.specialNeeds)],
        ] as const
      ).filter(([, value]) => value !== undefined),
    )
    const goodWith = Object.fromEntries(
      (
        [
          ['good_with_children', list(query.goodWithChildren)],
          ['good_with_dogs', list(query.goodWithDogs)],
          ['good_with_cats', list(query.goodWithCats)],
        ] as const
      ).filter(([, value]) => value !== undefined),
    ) as PetSearch['goodWith']
    search = {
      statuses: list(query.status) as PetSearch['statuses'],
      categoryIds: ids(query.categoryId, 'categoryId'),
      breeds: folded(query.breed, 'breed'),
      sexes: list(query.sex),
      ages: list(query.age),
      sizes: list(query.size),
      coats: list(query.coat),
      goodWith: Object.keys(goodWith ?? {}).length > 0 ? (goodWith as Record<string, Answer[]>) : undefined,
      attributes: Object.keys(attributes).length > 0 ? attributes : undefined,
      locationIds: ids(query.locationId, 'locationId'),
      tags: folded(query.tag, 'tag'),
      externalIds: list(query.externalId),
      name: query.name,
      updatedAfter: query.updatedAfter === undefined ? undefined : new Date(query.updatedAfter).toISOString(),
    }
  } catch (error) {
    if (error instanceof RangeError) return fail(error.message)
    throw error
  }
  if (search.externalIds && search.externalIds.length > 20) return fail('Query parameter "externalId" takes at most 20 values.')

  if (query.q !== undefined) {
    const tokens = queryTokens(query.q)
    if (tokens.length === 0) return fail('Query parameter "q" has no letters or digits to search for.')
    search.q = tokens
  }

  const sort: PetSort = query.sort ?? 'id'
  let near: ParsedSearch['near']
  if (query.near !== undefined) {
    const [latitude, longitude] = query.near.split(',').map(Number) as [number, number]
    if (!(Math.abs(latitude) <= 90)) return fail(`Query parameter "near" has latitude ${latitude}: it must be from -90 to 90.`)
    if (!(Math.abs(longitude) <= 180)) return fail(`Query parameter "near" has longitude ${longitude}: it must be from -180 to 180.`)
    const unit = query.unit ?? 'km'
    const radius = query.radius === undefined ? DEFAULT_RADIUS : Number(query.radius)
    const radiusMetres = radius * METRES_PER[unit]
    if (!(radius > 0) || radiusMetres > MAX_RADIUS_METRES) {
      return fail(`Query parameter "radius" must be more than 0 and at most ${unit === 'km' ? '20000 km' : '12400 mi'}.`)
    }
    near = { point: { latitude, longitude }, radiusMetres, unit }
  } else {
    if (query.radius !== undefined) return fail('Query parameter "radius" needs "near": send the point to measure from, as near=latitude,longitude.')
    if (query.unit !== undefined) return fail('Query parameter "unit" needs "near": it is the unit of the radius and distances.')
    if (sort === 'distance') return fail('Query parameter "sort" is "distance", which needs "near": send the point to measure from, as near=latitude,longitude.')
  }
  if (query.seed !== undefined && sort !== 'random') return fail('Query parameter "seed" is for sort=random only: remove it, or sort at random.')
  const seed = query.seed ?? 0

  let start: ParsedSearch['start']
  // `after=0` is the start, which any order and any cursor agree with: only an id past it says
  // where a page starts, in the default order only.
  const after = query.after === 0 ? undefined : query.after
  if (after !== undefined && query.cursor !== undefined) return fail('Query parameters "after" and "cursor" both say where the page starts: send one (the Link header gives the right one).')
  if (after !== undefined) {
    if (sort !== 'id') return fail(`Query parameter "after" is an id, for the default order; with sort=${sort}, follow the Link header (its "cursor").`)
    start = { id: after }
  } else if (query.cursor !== undefined) {
    const cursor = decodeCursor(query.cursor)
    if (!cursor || cursor.sort !== sort || (sort === 'random' && cursor.seed !== seed)) {
      return fail('Query parameter "cursor" is not one this list gave for this order: follow the Link header of the previous page, with the same sort (and seed).')
    }
    start = cursor.start
  }

  const fields = query.fields === undefined ? undefined : new Set<PetField>(query.fields === '*' ? PET_FIELD_NAMES : (query.fields.split(',') as PetField[]))
  return { ok: true, parsed: { search, sort, seed, start, near, fields, count: query.count === 'true', limit: query.limit ?? 20 } }
}

interface Cursor {
  sort: PetSort
  seed: number
  start: { id: number; value?: string | number }
}

/** A cursor: where the next page starts in an order, opaque to clients (base64url of JSON). */
export function encodeCursor(sort: PetSort, seed: number, start: { id: number; value?: string | number }): string {
  const payload = start.value === undefined ? [sort, seed, start.id] : [sort, seed, start.id, start.value]
  return Buffer.from(JSON.stringify(payload)).toString('base64url')
}

function decodeCursor(text: string): Cursor | undefined {
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (!Array.isArray(payload) || payload.length < 3 || payload.length > 4) return undefined
  const [sort, seed, id, value] = payload as unknown[]
  if (typeof sort !== 'string' || !SORTS.has(sort as PetSort)) return undefined
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(id) || (id as number) < 0) return undefined
  if (value !== undefined && typeof value !== 'string' && !Number.isSafeInteger(value)) return undefined
  if ((sort === 'id') !== (value === undefined)) return undefined
  return { sort: sort as PetSort, seed: seed as number, start: value === undefined ? { id: id as number } : { id: id as number, value: value as string | number } }
}

const SORTS = new Set<PetSort>(['id', '-createdAt', 'createdAt', 'name', 'distance', 'random'])

/** The multiplier of a seed's permutation: 1 to 2^31 - 2, spread over the range by a multiplicative hash. */
export function randomMultiplier(seed: number): number {
  return 1 + Number((BigInt(seed + 1) * 2654435761n) % 2147483646n)
}

/** Whether the query is the spec's plain list (`limit`, one `status`, `after`): the prepared statements answer it. */
export function isPlainList(query: PetsQuery): boolean {
  for (const name in query) {
    if (name === 'limit' || name === 'after') continue
    if (name === 'status' && query.status !== undefined && !query.status.includes(',')) continue
    if ((query as Record<string, unknown>)[name] !== undefined) return false
  }
  return true
}
