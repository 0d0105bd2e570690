import { isDeepStrictEqual } from 'node:util'
import { type Change, entryOf, recordChange } from '../audit/audit.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { isForeignKeyViolation, isUniqueViolation } from '../db/errors.js'
import { type Outcome, Refusal, refuse } from '../errors.js'
import type { Page } from '../shapes.js'
import type { ChangeOutcome, Idempotency } from '../idempotency/idempotency.service.js'
import { METRES_PER } from '../locations/distance.js'
import type { LocationsService } from '../locations/locations.service.js'
import { findOpenOrder, keepPetName } from '../orders/orders.repository.js'
import type { Outbox } from '../webhooks/outbox.js'
import { listPetChanges } from './pet-changes.repository.js'
import { countPets, listPets, type PetOrder, searchPets } from './pets-search.repository.js'
import {
  deletePet,
  findPet,
  findPetByExternalId,
  insertPet,
  insertPetReported,
  type PetAudit,
  type PetRecord,
  type PetWrite,
  updatePet,
} from './pets.repository.js'
import type { NewPet, Pet, PetChanges, PetFeedEntry, PetStatus } from './pets.schemas.js'
import { encodeCursor, isPlainList, parseSearch, type PetField, type PetsQuery, randomMultiplier } from './pets.search.js'
import { mergePatch, profileColumns, profileOf, profileProblem } from './profile.js'
import type { Profile } from './profile.schemas.js'
import type { Photo } from '../photos/photos.schemas.js'

/** What the animals feature works with, named. */
export interface PetsDeps {
  db: Db
  dialect: 'sqlite' | 'postgres'
  clock: Clock
  /** Changes made at most once per Idempotency-Key. */
  idempotency: Idempotency
  /** Told after a committed change, before the answer: cached reads on every instance move on. */
  generations: Pick<Generations, 'dataChanged'>
  /** Events written in the change's transaction. */
  outbox: Outbox
  /** The project's places: what `locationId` names and what `near` measures. */
  locations: Pick<LocationsService, 'exists' | 'within'>
  /** Photos: an animal's answer shows them; its removal deletes their files. */
  photos: PetPhotos
}

/** What the animals need of their photos. */
export interface PetPhotos {
  /** The answer's `photos` from what `pets.photos` keeps; undefined for none. */
  render(stored: string | null): Photo[] | undefined
  /** After an animal's removal committed (its photo rows with it): deletes their files. */
  discard(stored: string | null): Promise<void>
}

/** An animal that passed `check`, as it will be written. */
export type CheckedPet = PetWrite & { status: PetStatus; profile: Profile }

/** Who asks for a change, besides the project it is made in. */
export interface ChangeOptions {
  /** A /v1 request's Idempotency-Key: the change happens at most once per key, and a retry replays it. */
  idempotencyKey?: string | undefined
  /** Who makes the change (an admin, an API key): recorded in the audit log, in the change's transaction. */
  change?: Change | undefined
}

/** A change of an animal: the animal as it is after it, and whether this answer is a replay. */
export type PetChangeResult = Outcome<{ pet: Pet; replayed: boolean }>

/** A page of a search: its animals, where the next page starts (the query parameter and value), and how many match when asked. */
export interface PetsPage {
  items: Pet[]
  next: { after: number } | { cursor: string } | undefined
  total: number | undefined
}

/** A page of the change feed, and the cursor of the next one when the page is full. */
export interface PetFeedPage {
  items: PetFeedEntry[]
  next: string | undefined
}

/** The fields of an animal an answer holds: all it has but the times, unless asked. */
type Fields = ReadonlySet<PetField> | undefined

const SPEC_FIELDS = new Set(['id', 'name', 'categoryId', 'status'])

/** An animal in the API's shape: the spec's fields, then the profile it has, then what `fields` asks for. */
export function toPet(record: PetRecord, fields?: Fields, distance?: number, photos?: Pick<PetPhotos, 'render'>): Pet {
  const pet: Record<string, unknown> = { id: record.id, name: record.name, categoryId: record.categoryId, status: record.status }
  if (record.profile !== null) Object.assign(pet, JSON.parse(record.profile) as Profile)
  const shown = photos && record.photos !== null ? photos.render(record.photos) : undefined
  if (shown !== undefined) pet.photos = shown
  if (fields !== undefined) {
    pet.createdAt = record.createdAt
    pet.updatedAt = record.updatedAt ?? record.createdAt
    // The spec's fields are always sent: a Pet has them, whatever is asked.
    for (const name of Object.keys(pet)) if (!SPEC_FIELDS.has(name) && !fields.has(name as PetField)) delete pet[name]
    if (distance !== undefined && fields.has('distance')) pet.distance = distance
  } else if (distance !== undefined) {
    pet.distance = distance
  }
  return pet as Pet
}

/**
 * A project's animals. Every change has one method, used by /v1, the admin API and the CLI
 * alike; its transaction holds the change and everything that must commit with it (the audit
 * entry, the webhook event, the feed's entry written by the table's triggers), and the caches
 * hear of it before the method answers.
 */
export class PetsService {
  constructor(private readonly deps: PetsDeps) {}

  /** A page of a search (GET /pets, the admin list): the filters, order, cursor and fields of `query`. */
  async search(projectId: number, query: PetsQuery): Promise<Outcome<PetsPage>> {
    const { db, dialect } = this.deps
    const limit = query.limit ?? 20
    if (isPlainList(query)) {
      // The spec's list: the prepared statements, one row past the page.
      const rows = await listPets(db, projectId, { status: query.status as PetStatus | undefined, after: query.after, limit: limit + 1 })
      const items = rows.slice(0, limit).map((row) => this.pet(row))
      return { ok: true, items, next: rows.length > limit ? { after: items[items.length - 1]!.id } : undefined, total: undefined }
    }
    const parsed = parseSearch(query)
    if (!parsed.ok) return { ok: false, error: 'invalid_request', message: parsed.message }
    const { search, sort, seed, start, near, fields } = parsed.parsed

    let distances: Map<number, number> | undefined
    if (near) {
      distances = await this.deps.locations.within(projectId, near.point, near.radiusMetres)
      const within = [...distances.keys()]
      search.locationIds = search.locationIds ? search.locationIds.filter((id) => distances!.has(id)) : within
    }
    const order = orderOf(sort, seed, start, distances)
    const rows = await searchPets(db, dialect, projectId, search, order, limit + 1)
    const page = rows.slice(0, limit)
    const distanceOf = (row: PetRecord) => {
      const metres = row.locationId === null ? undefined : distances?.get(row.locationId)
      return metres === undefined || !near ? undefined : Math.round((metres / METRES_PER[near.unit]) * 10) / 10
    }
    const items = page.map((row) => this.pet(row, fields, distanceOf(row)))
    const last = page[page.length - 1]
    let next: PetsPage['next']
    if (rows.length > limit && last) {
      next =
        sort === 'id' && query.cursor === undefined
          ? { after: last.id }
          : { cursor: encodeCursor(sort, seed, sort === 'id' ? { id: last.id } : { id: last.id, value: last.sortValue as string | number }) }
    }
    const total = parsed.parsed.count ? await countPets(db, dialect, projectId, search) : undefined
    return { ok: true, items, next, total }
  }

  /** One page in ascending id order, at most filtered by status and a part of the name, and the cursor of the next page. */
  async list(projectId: number, filter: { limit: number; status?: PetStatus | undefined; name?: string | undefined; after?: number | undefined }): Promise<Page<Pet>> {
    const page = await this.search(projectId, filter)
    if (!page.ok) throw new Error(page.message)
    return { items: page.items, nextAfter: page.next && 'after' in page.next ? page.next.after : undefined }
  }

  async get(projectId: number, id: number, fields?: ReadonlySet<PetField>): Promise<Pet | undefined> {
    const row = await findPet(this.deps.db, projectId, id)
    return row && this.pet(row, fields)
  }

  async findByExternalId(projectId: number, externalId: string): Promise<Pet | undefined> {
    const row = await findPetByExternalId(this.deps.db, projectId, externalId)
    return row && this.pet(row)
  }

  /**
   * The change feed after `cursor` (from the start without one): each animal once, at its latest
   * change, in the order changes committed; a removal as a tombstone.
   */
  async changes(projectId: number, cursor: string | undefined, limit: number): Promise<Outcome<PetFeedPage>> {
    const after = cursor === undefined ? { txid: 0, seq: 0 } : decodeFeedCursor(cursor)
    if (!after) return { ok: false, error: 'invalid_request', message: 'Query parameter "after" is not a cursor of this feed: use the `cursor` of the last change you applied.' }
    const rows = await listPetChanges(this.deps.db, this.deps.dialect, projectId, after, limit)
    const items = rows.map((row): PetFeedEntry => {
      const entry = { cursor: encodeFeedCursor(row), id: row.petId, changedAt: row.changedAt }
      if (row.removed === 1 || row.name === null) return { ...entry, type: 'removed' }
      const record: PetRecord = { id: row.petId, name: row.name, categoryId: row.categoryId!, status: row.status!, profile: row.profile, locationId: null, createdAt: row.createdAt!, updatedAt: row.updatedAt, photos: row.photos }
      return { ...entry, type: 'changed', pet: this.pet(record, FEED_FIELDS) }
    })
    return { ok: true, items, next: items.length === limit ? items[items.length - 1]!.cursor : undefined }
  }

  /**
   * Whether an animal to add (or an animal as a change would make it) passes every rule beyond its
   * schema, without writing it; when it does, the animal as checked, for `createChecked`.
   */
  async check(projectId: number, input: NewPet): Promise<Outcome<{ pet: CheckedPet }>> {
    const { name, categoryId, status = 'available', ...fields } = input
    const checked = await this.checked(projectId, name.trim(), categoryId, profileOf(fields))
    return checked.ok ? { ok: true, pet: { ...checked.write, status, profile: checked.profile } } : checked
  }

  /**
   * Adds animals already checked (an import checks every row before it writes any): they join the
   * group commit together, with their pet.created events.
   * A location removed since the check is refused by the database, like any write.
   */
  async createChecked(projectId: number, pets: readonly CheckedPet[]): Promise<PetChangeResult[]> {
    const createdAt = this.now()
    const results = await Promise.all(
      pets.map(({ profile, ...write }) => this.insertNew(projectId, { ...write, createdAt }, profile)),
    )
    await this.deps.generations.dataChanged(projectId)
    return results
  }

  /** Adds an animal; `status` defaults to `available`. */
  async create(projectId: number, input: NewPet, options: ChangeOptions = {}): Promise<PetChangeResult> {
    const { name, categoryId, status = 'available', ...fields } = input
    const written = await this.checked(projectId, name.trim(), categoryId, profileOf(fields))
    if (!written.ok) return written
    const pet = { ...written.write, status, createdAt: this.now() }
    // pet.created is written with the animal, in its transaction.
    if (options.idempotencyKey === undefined) {
      // The common /v1 create needs nothing else in its transaction: it joins the group commit,
      // with its audit entry and its event.
      const audit = options.change && entryOf(this.deps.clock, options.change, { action: 'pet.created', target: { type: 'pet', id: '' }, projectId, details: { name: pet.name, categoryId: pet.categoryId, status } })
      const result = await this.insertNew(projectId, pet, written.profile, audit)
      await this.deps.generations.dataChanged(projectId)
      return result
    }
    return this.changed(projectId, { key: options.idempotencyKey, sent: { operation: 'createPet', body: input }, status: 201 }, written.profile, async (trx) => {
      const created = this.pet(await insertPet(trx, projectId, pet))
      await this.record(trx, projectId, options.change, 'pet.created', created, { name: created.name, categoryId: created.categoryId, status: created.status })
      await this.deps.outbox.write(trx, projectId, 'pet.created', created)
      return created
    })
  }

  /**
   * A checked animal written on its own with its pet.created event (in the group commit where
   * there is one, in one statement on PostgreSQL); a refusal of the database (a duplicate external
   * id, a missing location) answered as the create's failure.
   */
  private async insertNew(projectId: number, pet: PetWrite & { status: PetStatus; createdAt: string }, profile: Profile, audit?: PetAudit): Promise<PetChangeResult> {
    try {
      const { id, type, createdAt } = this.deps.outbox.event(projectId, 'pet.created', null)
      const created = await insertPetReported(this.deps.db, projectId, pet, { id, projectId, type, createdAt }, (row) => this.pet(row), audit)
      if (created.deliveries > 0) this.deps.outbox.delivering()
      return { ok: true, pet: this.pet(created.pet), replayed: false }
    } catch (error) {
      const failure = writeFailure(error, profile)
      if (failure) return failure
      throw error
    }
  }

  /**
   * Changes an animal's name, category or profile, as a merge patch (RFC 7396): a field left out
   * stays, `null` removes a profile field, nested objects merge. Its status is the orders' to change.
   */
  async update(projectId: number, id: number, input: PetChanges, options: ChangeOptions = {}): Promise<PetChangeResult> {
    const { name, categoryId, ...patch } = input
    return this.changed(projectId, { key: options.idempotencyKey, sent: { operation: 'updatePet', petId: id, body: input }, status: 200 }, undefined, async (trx) => {
      const before = await findPet(trx, projectId, id)
      if (!before) return refuse('not_found', noSuchPet(id))
      const current = this.pet(before)
      const profile = profileOfPet(current)
      const merged = profileOf(mergePatch(profile, patch) as Record<string, unknown>)
      const written = await this.checked(projectId, name?.trim() ?? current.name, categoryId ?? current.categoryId, merged, profile.locationId)
      if (!written.ok) return refuse(written.error, written.message)
      // The values it has: the animal as it is, with no write, audit entry or event.
      if (written.write.name === current.name && written.write.categoryId === current.categoryId && isDeepStrictEqual(merged, profile)) return current
      let updated: PetRecord | undefined
      try {
        updated = await updatePet(trx, projectId, id, written.write, this.now())
      } catch (error) {
        const failure = writeFailure(error, merged)
        if (failure) return refuse(failure.error, failure.message)
        throw error
      }
      if (!updated) return refuse('not_found', noSuchPet(id))
      const after = this.pet(updated)
      const fields = (Object.keys(input) as (keyof PetChanges)[]).filter((field) => input[field] !== undefined)
      await this.record(trx, projectId, options.change, 'pet.updated', after, {
        from: Object.fromEntries(fields.map((field) => [field, (current as Record<string, unknown>)[field] ?? null])),
        to: Object.fromEntries(fields.map((field) => [field, (after as Record<string, unknown>)[field] ?? null])),
      })
      await this.deps.outbox.write(trx, projectId, 'pet.updated', after)
      return after
    })
  }

  /**
   * Removes an animal, unless an order of it is open (placed or approved). Its delivered and
   * cancelled orders stay, with its name: adoption records outlive the animal's listing. The
   * removal and the check are one transaction that deletes first: a concurrent order either
   * committed before (and is seen) or waits for the deleted row (and finds no animal).
   */
  async remove(projectId: number, id: number, options: Pick<ChangeOptions, 'change'> = {}): Promise<PetChangeResult> {
    let photos: string | null = null
    const result = await this.changed(projectId, undefined, undefined, async (trx) => {
      const record = await deletePet(trx, projectId, id)
      if (!record) return refuse('not_found', noSuchPet(id))
      photos = record.photos
      const removed = this.pet(record)
      const open = await findOpenOrder(trx, projectId, id)
      if (open) {
        return refuse(
          'pet_has_open_order',
          `Animal ${id} has an open adoption order (order ${open.id}, ${open.status}): deliver or cancel it first, then remove the animal.`,
        )
      }
      await keepPetName(trx, projectId, id, removed.name)
      await this.record(trx, projectId, options.change, 'pet.deleted', removed, { name: removed.name, categoryId: removed.categoryId, status: removed.status })
      await this.deps.outbox.write(trx, projectId, 'pet.deleted', removed)
      return removed
    })
    // Its photo rows went with it: their files stop being served at once, and are deleted now.
    if (result.ok) await this.deps.photos.discard(photos)
    return result
  }

  /** The columns of an animal as it will be written, or why its profile cannot be. */
  private async checked(
    projectId: number,
    name: string,
    categoryId: number,
    profile: Profile,
    previousLocation?: number,
  ): Promise<Outcome<{ write: PetWrite; profile: Profile }>> {
    const problem = profileProblem(profile, this.now().slice(0, 10))
    if (problem) return { ok: false, error: 'invalid_request', message: problem }
    // A location already set may stay while it exists; a new one must be the project's.
    if (profile.locationId !== undefined && profile.locationId !== previousLocation && !(await this.deps.locations.exists(projectId, profile.locationId))) {
      return { ok: false, error: 'invalid_request', message: noSuchLocationField(profile.locationId) }
    }
    return { ok: true, write: { name, categoryId, columns: profileColumns(name, profile) }, profile }
  }

  /** Runs a change's transaction (at most once per Idempotency-Key, if one was sent), then tells the caches. */
  private async changed(
    projectId: number,
    idempotent: { key: string | undefined; sent: { operation: string; body: unknown; petId?: number }; status: number } | undefined,
    profile: Profile | undefined,
    work: (trx: Db) => Promise<Pet>,
  ): Promise<PetChangeResult> {
    const request = idempotent?.key === undefined ? undefined : { key: idempotent.key, request: idempotent.sent, status: idempotent.status }
    let outcome: ChangeOutcome<Pet>
    try {
      outcome = await this.deps.idempotency.change(projectId, request, work)
    } catch (error) {
      const failure = writeFailure(error, profile)
      if (failure) return failure
      throw error
    }
    if (!outcome.ok) return outcome
    // Before the answer: the next read on any instance must see the change.
    await this.deps.generations.dataChanged(projectId)
    return { ok: true, pet: outcome.value, replayed: outcome.replayed }
  }

  /** A change in the audit log: an admin's, or a /v1 write by an API key. */
  private async record(
    trx: Db,
    projectId: number,
    change: Change | undefined,
    action: 'pet.created' | 'pet.updated' | 'pet.deleted',
    pet: Pet,
    details: Record<string, unknown>,
  ): Promise<void> {
    if (change) await recordChange(trx, this.deps.clock, change, { action, target: { type: 'pet', id: pet.id }, projectId, details })
  }

  /** An animal in the API's shape, with its photos' addresses. */
  private pet(record: PetRecord, fields?: Fields, distance?: number): Pet {
    return toPet(record, fields, distance, this.deps.photos)
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString()
  }
}

/** The profile fields of an animal as answered. */
function profileOfPet(pet: Pet): Profile {
  const profile: Record<string, unknown> = { ...pet }
  for (const field of ['id', 'name', 'categoryId', 'status', 'photos', 'createdAt', 'updatedAt', 'distance']) delete profile[field]
  return profile as Profile
}

/** Every field of an animal, times included: what the change feed carries. */
const FEED_FIELDS: ReadonlySet<PetField> = new Set<PetField>(['name', 'categoryId', 'status', 'externalId', 'breeds', 'sex', 'age', 'birthDate', 'birthDateEstimated', 'size', 'colors', 'coat', 'description', 'goodWith', 'attributes', 'adoptionFee', 'intakeDate', 'locationId', 'tags', 'videoUrls', 'photos', 'createdAt', 'updatedAt'])

/** The order of a search and where its page starts, with what the repository needs to compute it. */
function orderOf(sort: string, seed: number, start: { id: number; value?: string | number } | undefined, distances: Map<number, number> | undefined): PetOrder {
  const at = start?.value === undefined ? undefined : { value: start.value, id: start.id }
  switch (sort) {
    case '-createdAt':
    case 'createdAt':
      return { by: 'createdAt', descending: sort === '-createdAt', after: at as { value: string; id: number } | undefined }
    case 'name':
      return { by: 'name', after: at as { value: string; id: number } | undefined }
    case 'distance':
      return { by: 'distance', metres: distances ?? new Map(), after: at as { value: number; id: number } | undefined }
    case 'random':
      return { by: 'random', multiplier: randomMultiplier(seed), after: at as { value: number; id: number } | undefined }
    default:
      return { by: 'id', after: start?.id }
  }
}

/** A refusal of the database that the client caused: a taken `externalId`, a location removed meanwhile. */
function writeFailure(error: unknown, profile: Profile | undefined): Refusal['failure'] | undefined {
  if (error instanceof Refusal) return undefined
  if (isUniqueViolation(error) && profile?.externalId !== undefined) {
    return { ok: false, error: 'external_id_taken', message: `Another animal of your project has externalId "${profile.externalId}": each animal's is its own.` }
  }
  if (isForeignKeyViolation(error) && profile?.locationId !== undefined) return { ok: false, error: 'invalid_request', message: noSuchLocationField(profile.locationId) }
  return undefined
}

function noSuchLocationField(id: number): string {
  return `Field "locationId" names no location of your project (${id}): add it first (the admin API's locations), or leave the field out.`
}

/** The feed's cursor: the position of a change, opaque to clients. */
function encodeFeedCursor(row: { txid: number; seq: number }): string {
  return Buffer.from(`${row.txid}.${row.seq}`).toString('base64url')
}

function decodeFeedCursor(text: string): { txid: number; seq: number } | undefined {
  const match = /^(\d{1,19})\.(\d{1,19})$/.exec(Buffer.from(text, 'base64url').toString('utf8'))
  if (!match) return undefined
  const txid = Number(match[1])
  const seq = Number(match[2])
  return Number.isSafeInteger(txid) && Number.isSafeInteger(seq) ? { txid, seq } : undefined
}

/** What is said of an animal that is not in the project (another project's is not either). */
export function noSuchPet(id: number): string {
  return `No animal with id ${id} in your project.`
}
