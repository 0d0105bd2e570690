import { type ExpressionBuilder, type Insertable, PostgresAdapter, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'
import { entryOfInsertedPetStatement, insertAuditEntry } from '../audit/audit.repository.js'
import type { Db } from '../db/database.js'
import { batchedTogether, prepare } from '../db/prepared.js'
import type { ActorKind, AuditEntryTable, Database, PetStatus } from '../db/schema.js'
import { eventOfInsertedRowStatements, type OutboxEvent, writeEvent } from '../webhooks/webhooks.repository.js'

/**
 * An animal as read: the spec's fields under their API names, and what the service adds to them
 * (the profile, stored as the API shows it, and the times).
 */
export interface PetRecord {
  id: number
  name: string
  categoryId: number
  status: PetStatus
  profile: string | null
  locationId: number | null
  createdAt: string
  updatedAt: string | null
  /** The photos as `pets.photos` keeps them (JSON), or null for none. */
  photos: string | null
}

const PET = ['id', 'name', 'category_id as categoryId', 'status', 'profile', 'location_id as locationId', 'created_at as createdAt', 'updated_at as updatedAt', 'photos'] as const

/**
 * What filters, sorts and the search read, derived from the name and profile by the service
 * (src/pets/profile.ts) and written with them.
 */
export interface ProfileColumns {
  profile: string | null
  external_id: string | null
  sex: string | null
  age_group: string | null
  size: string | null
  coat: string | null
  good_with_children: string | null
  good_with_dogs: string | null
  good_with_cats: string | null
  spayed_neutered: number | null
  house_trained: number | null
  vaccinated: number | null
  microchipped: number | null
  special_needs: number | null
  breed_primary_key: string | null
  breed_secondary_key: string | null
  location_id: number | null
  tags_key: string | null
  search_text: string | null
}

/** Everything written about an animal besides its status; without `columns`, an animal with no profile (and no search text). */
export interface PetWrite {
  name: string
  categoryId: number
  columns?: ProfileColumns | undefined
}

/** A name as the name search and the name order compare it (see src/pets/search-text.ts). */
function folded(name: string): string {
  return name.trim().toLowerCase()
}

/** The profile columns in the order the prepared insert takes them. */
const PROFILE_COLUMNS = [
  'profile',
  'external_id',
  'sex',
  'age_group',
  'size',
  'coat',
  'good_with_children',
  'good_with_dogs',
  'good_with_cats',
  'spayed_neutered',
  'house_trained',
  'vaccinated',
  'microchipped',
  'special_needs',
  'breed_primary_key',
  'breed_secondary_key',
  'location_id',
  'tags_key',
  'search_text',
] as const satisfies readonly (keyof ProfileColumns)[]

type Value = string | number | null

/**
 * One placeholder per column: `prepare` compiles the statement once with a placeholder in place
 * of each argument, so the profile's columns are arguments of their own.
 */
// `prepare` counts the arguments of the function it is given: they are spelt out, not spread.
const insert = prepare(
  (
    db,
    projectId: number,
    name: string,
    nameFolded: string,
    categoryId: number,
    status: PetStatus,
    createdAt: string,
    profile: Value,
    externalId: Value,
    sex: Value,
    ageGroup: Value,
    size: Value,
    coat: Value,
    goodWithChildren: Value,
    goodWithDogs: Value,
    goodWithCats: Value,
    spayedNeutered: Value,
    houseTrained: Value,
    vaccinated: Value,
    microchipped: Value,
    specialNeeds: Value,
    breedPrimaryKey: Value,
    breedSecondaryKey: Value,
    locationId: Value,
    tagsKey: Value,
    searchText: Value,
  ) => db.insertInto('pets').values(petValues(projectId, name, nameFolded, categoryId, status, createdAt, profile, externalId, sex, ageGroup, size, coat, goodWithChildren, goodWithDogs, goodWithCats, spayedNeutered, houseTrained, vaccinated, microchipped, specialNeeds, breedPrimaryKey, breedSecondaryKey, locationId, tagsKey, searchText)).returning(PET),
)

type InsertArgs = [
  projectId: number,
  name: string,
  nameFolded: string,
  categoryId: number,
  status: PetStatus,
  createdAt: string,
  profile: Value,
  externalId: Value,
  sex: Value,
  ageGroup: Value,
  size: Value,
  coat: Value,
  goodWithChildren: Value,
  goodWithDogs: Value,
  goodWithCats: Value,
  spayedNeutered: Value,
  houseTrained: Value,
  vaccinated: Value,
  microchipped: Value,
  specialNeeds: Value,
  breedPrimaryKey: Value,
  breedSecondaryKey: Value,
  locationId: Value,
  tagsKey: Value,
  searchText: Value,
]

/** The row of the prepared inserts, from their arguments (placeholders when they compile). */
function petValues(...[
  projectId,
  name,
  nameFolded,
  categoryId,
  status,
  createdAt,
  profile,
  externalId,
  sex,
  ageGroup,
  size,
  coat,
  goodWithChildren,
  goodWithDogs,
  goodWithCats,
  spayedNeutered,
  houseTrained,
  vaccinated,
  microchipped,
  specialNeeds,
  breedPrimaryKey,
  breedSecondaryKey,
  locationId,
  tagsKey,
  searchText,
]: InsertArgs) {
  return {
    project_id: projectId,
    name,
    name_folded: nameFolded,
    category_id: categoryId,
    status,
    created_at: createdAt,
    updated_at: createdAt,
    profile: profile as string | null,
    external_id: externalId as string | null,
    sex: sex as string | null,
    age_group: ageGroup as string | null,
    size: size as string | null,
    coat: coat as string | null,
    good_with_children: goodWithChildren as string | null,
    good_with_dogs: goodWithDogs as string | null,
    good_with_cats: goodWithCats as string | null,
    spayed_neutered: spayedNeutered as number | null,
    house_trained: houseTrained as number | null,
    vaccinated: vaccinated as number | null,
    microchipped: microchipped as number | null,
    special_needs: specialNeeds as number | null,
    breed_primary_key: breedPrimaryKey as string | null,
    breed_secondary_key: breedSecondaryKey as string | null,
    location_id: locationId as number | null,
    tags_key: tagsKey as string | null,
    search_text: searchText as string | null,
  }
}

/**
 * PostgreSQL: an animal, its audit entry (when `audited`) and its pet.created event with the
 * event's deliveries, in one statement (a data-modifying CTE), so a create costs no more round
 * trips than a plain insert: no BEGIN and COMMIT of its own. The event's `data` is the animal as
 * answered, its id first: `eventRest` is that JSON after the id (`,"name":…}`).
 */
const insertReported = prepare(
  (
    db,
    eventId: string,
    eventType: string,
    eventRest: string,
    audited: boolean,
    at: string,
    actorKind: ActorKind,
    actorName: string,
    actorKeyId: string | null,
    action: string,
    requestId: string | null,
    details: string,
    projectId: number,
    name: string,
    nameFolded: string,
    categoryId: number,
    status: PetStatus,
    createdAt: string,
    profile: Value,
    externalId: Value,
    sex: Value,
    ageGroup: Value,
    size: Value,
    coat: Value,
    goodWithChildren: Value,
    goodWithDogs: Value,
    goodWithCats: Value,
    spayedNeutered: Value,
    houseTrained: Value,
    vaccinated: Value,
    microchipped: Value,
    specialNeeds: Value,
    breedPrimaryKey: Value,
    breedSecondaryKey: Value,
    locationId: Value,
    tagsKey: Value,
    searchText: Value,
  ) =>
    db
      .with('created', (qc) => qc.insertInto('pets').values(petValues(projectId, name, nameFolded, categoryId, status, createdAt, profile, externalId, sex, ageGroup, size, coat, goodWithChildren, goodWithDogs, goodWithCats, spayedNeutered, houseTrained, vaccinated, microchipped, specialNeeds, breedPrimaryKey, breedSecondaryKey, locationId, tagsKey, searchText)).returning(PET))
      .with('entry', (qc) =>
        qc
          .insertInto('audit_entries')
          .columns(['at', 'actor_kind', 'actor_user_id', 'actor_name', 'actor_key_id', 'action', 'target_type', 'target_id', 'project_id', 'request_id', 'details'])
          .expression(
            qc
              .selectFrom('created')
              .select([
                sql<string>`${at}`.as('at'),
                sql<ActorKind>`${actorKind}`.as('actor_kind'),
                sql<null>`null`.as('actor_user_id'),
                sql<string>`${actorName}`.as('actor_name'),
                sql<string | null>`${actorKeyId}`.as('actor_key_id'),
                sql<string>`${action}`.as('action'),
                sql<string>`'pet'`.as('target_type'),
                sql<string>`cast(created.id as text)`.as('target_id'),
                sql<number>`${projectId}`.as('project_id'),
                sql<string | null>`${requestId}`.as('request_id'),
                sql<string>`${details}`.as('details'),
              ])
              .where(sql<boolean>`cast(${audited} as boolean)`),
          ),
      )
      .with('event', (qc) =>
        qc
          .insertInto('webhook_events')
          .columns(['id', 'project_id', 'type', 'created_at', 'dedupe_key', 'data'])
          .expression(
            qc
              .selectFrom('created')
              .select([
                sql<string>`cast(${eventId} as text)`.as('id'),
                sql<number>`${projectId}`.as('project_id'),
                sql<string>`cast(${eventType} as text)`.as('type'),
                sql<string>`${createdAt}`.as('created_at'),
                sql<null>`null`.as('dedupe_key'),
                sql<string>`'{"id":' || cast(created.id as text) || cast(${eventRest} as text)`.as('data'),
              ]),
          )
          .returning(['id', 'project_id', 'type', 'created_at']),
      )
      .with('delivered', (qc) =>
        qc
          .insertInto('webhook_deliveries')
          .columns(['event_id', 'endpoint_id', 'project_id', 'state', 'manual', 'attempts', 'next_attempt_at', 'created_at'])
          .expression(
            qc
              .selectFrom('event as ev')
              .innerJoin('webhook_endpoints as e', 'e.project_id', 'ev.project_id')
              .innerJoin('webhook_subscriptions as s', 's.endpoint_id', 'e.id')
              .where('e.enabled', '=', 1)
              .where((eb) => eb.or([eb('s.event_type', '=', eb.ref('ev.type')), eb('s.event_type', '=', '*')]))
              .select(['ev.id', 'e.id as endpoint_id', 'e.project_id', sql<'pending'>`'pending'`.as('state'), sql<number>`0`.as('manual'), sql<number>`0`.as('attempts'), 'ev.created_at as next', 'ev.created_at as created']),
          )
          .returning('id'),
      )
      .selectFrom('created')
      .selectAll()
      .select(sql<number | string>`(select count(*) from delivered)`.as('deliveries')),
)

function columnsOf(c: ProfileColumns | undefined): ProfileColumns {
  return Object.fromEntries(PROFILE_COLUMNS.map((column) => [column, c?.[column] ?? null])) as unknown as ProfileColumns
}

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

function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter
}

/** The arguments of the prepared insert, in its order. */
function insertArgs(projectId: number, pet: PetWrite & { status: PetStatus; createdAt: string }) {
  const columns = PROFILE_COLUMNS.map((column) => pet.columns?.[column] ?? null)
  return [projectId, pet.name, folded(pet.name), pet.categoryId, pet.status, pet.createdAt, ...columns] as Parameters<typeof insert> extends [Db, ...infer A] ? A : never
}

/** The audit entry of an added animal, but for the animal's id, which the insert gives it. */
export type PetAudit = Omit<Insertable<AuditEntryTable>, 'target_type' | 'target_id' | 'project_id'>

/** An animal (with its audit entry, when given) inside a transaction that writes more with it. */
export async function insertPet(trx: Db, projectId: number, pet: PetWrite & { status: PetStatus; createdAt: string }, audit?: PetAudit): Promise<PetRecord> {
  const [row] = await insert(trx, ...insertArgs(projectId, pet))
  if (!row) throw new Error('insert into pets returned no row')
  if (audit) await insertAuditEntry(trx, { ...audit, target_type: 'pet', target_id: String(row.id), project_id: projectId })
  return row
}

/** What `data` of a pet.created event starts with before the animal has its id. */
const BEFORE_ID = '{"id":0,'

/**
 * Inserts an animal, its audit entry (when given) and the pet.created event that reports it
 * (`data`: the animal as answered, its id filled in) with the event's deliveries, committed
 * together. On SQLite's root instance they join the group commit; on PostgreSQL they are one
 * statement; inside a transaction they run one after the other. Answers the animal and how many
 * deliveries its event has.
 */
export async function insertPetReported(
  db: Db,
  projectId: number,
  pet: PetWrite & { status: PetStatus; createdAt: string },
  event: Omit<OutboxEvent, 'data' | 'dedupeKey'>,
  data: (row: PetRecord) => unknown,
  audit?: PetAudit,
): Promise<{ pet: PetRecord; deliveries: number }> {
  const args = insertArgs(projectId, pet)
  const placeholder: PetRecord = { id: 0, name: pet.name, categoryId: pet.categoryId, status: pet.status, profile: pet.columns?.profile ?? null, locationId: pet.columns?.location_id ?? null, createdAt: pet.createdAt, updatedAt: pet.createdAt, photos: null }
  const json = JSON.stringify(data(placeholder))
  const first = insert.statement(db, ...args)
  const rest = eventOfInsertedRowStatements(db, { ...event, data: json })
  // The entry comes last: the event's statements read `last_insert_rowid()`, which it would move.
  const entry = audit && entryOfInsertedPetStatement(db, { ...audit, project_id: projectId })
  if (first && rest && (!audit || entry)) {
    const rows = await batchedTogether(db, [first, ...rest, ...(entry ? [entry] : [])])
    const row = rows[0]?.[0] as PetRecord | undefined
    if (!row) throw new Error('insert into pets returned no row')
    return { pet: row, deliveries: rows[2]?.length ?? 0 }
  }
  if (isPostgres(db) && !db.isTransaction && json.startsWith(BEFORE_ID)) {
    const [row] = await insertReported(
      db,
      event.id,
      event.type,
      json.slice(BEFORE_ID.length - 1),
      audit !== undefined,
      audit?.at ?? pet.createdAt,
      audit?.actor_kind ?? 'system',
      audit?.actor_name ?? '',
      audit?.actor_key_id ?? null,
      audit?.action ?? '',
      audit?.request_id ?? null,
      audit?.details ?? '',
      ...args,
    )
    if (!row) throw new Error('insert into pets returned no row')
    const { deliveries, ...created } = row
    return { pet: created, deliveries: Number(deliveries) }
  }
  const inserted = async (trx: Db) => {
    const row = await insertPet(trx, projectId, pet, audit)
    const { deliveries } = await writeEvent(trx, { ...event, data: JSON.stringify(data(row)), dedupeKey: null })
    return { pet: row, deliveries }
  }
  return db.isTransaction ? inserted(db) : db.transaction().execute(inserted)
}

export async function findPet(db: Db, projectId: number, id: number): Promise<PetRecord | undefined> {
  const [row] = await find(db, projectId, id)
  return row
}

/** The project's animals that have an `externalId`, by it (read in pages of 5,000). */
export async function listByExternalId(db: Db, projectId: number): Promise<Map<string, PetRecord>> {
  const found = new Map<string, PetRecord>()
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('pets')
      .select([...PET, 'external_id'])
      .where('project_id', '=', projectId)
      .where('external_id', 'is not', null)
      .where('id', '>', after)
      .orderBy('id')
      .limit(5000)
      .execute()
    for (const { external_id, ...record } of rows) found.set(external_id!, record)
    const last = rows.at(-1)
    if (!last) return found
    after = last.id
  }
}

export async function findPetByExternalId(db: Db, projectId: number, externalId: string): Promise<PetRecord | undefined> {
  return db.selectFrom('pets').select(PET).where('project_id', '=', projectId).where('external_id', '=', externalId).executeTakeFirst()
}

/** Writes an animal's name, category and profile; answers it as it is now, or nothing when there is no such animal. */
export async function updatePet(db: Db, projectId: number, id: number, pet: PetWrite, updatedAt: string): Promise<PetRecord | undefined> {
  return db
    .updateTable('pets')
    .set({ name: pet.name, name_folded: folded(pet.name), category_id: pet.categoryId, updated_at: updatedAt, ...columnsOf(pet.columns) })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .returning(PET)
    .executeTakeFirst()
}

/** Deletes an animal; answers it as it was, or nothing when there is no such animal. */
export async function deletePet(db: Db, projectId: number, id: number): Promise<PetRecord | undefined> {
  return db.deleteFrom('pets').where('project_id', '=', projectId).where('id', '=', id).returning(PET).executeTakeFirst()
}

/**
 * Moves an animal from `from` to `to` in one conditional statement: of two concurrent callers,
 * exactly one sees the animal in `from`. Answers whether it moved.
 */
export async function movePet(db: Db, projectId: number, petId: number, from: PetStatus, to: PetStatus, at: string): Promise<boolean> {
  const result = await db
    .updateTable('pets')
    .set({ status: to, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', petId)
    .where('status', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function setPetStatus(db: Db, projectId: number, petId: number, to: PetStatus, at: string): Promise<void> {
  await db.updateTable('pets').set({ status: to, updated_at: at }).where('project_id', '=', projectId).where('id', '=', petId).execute()
}

/** Whether any animal of the project is at the location. */
export async function anyPetAt(db: Db, projectId: number, locationId: number): Promise<number | undefined> {
  const row = await db.selectFrom('pets').select('id').where('project_id', '=', projectId).where('location_id', '=', locationId).limit(1).executeTakeFirst()
  return row?.id
}

// The search.

/** The answers a compatibility filter accepts; `unknown` also matches an animal nobody answered for. */
export type Answer = 'yes' | 'no' | 'unknown'

/** How a search orders its animals, and where the page starts in that order. */
export type PetOrder =
  | { by: 'id'; after?: number | undefined }
  | { by: 'createdAt'; descending: boolean; after?: { value: string; id: number } | undefined }
  | { by: 'name'; after?: { value: string; id: number } | undefined }
  /** `metres`: each location's distance (the locations within the radius), rounded to whole metres. */
  | { by: 'distance'; metres: ReadonlyMap<number, number>; after?: { value: number; id: number } | undefined }
  /** `multiplier`: the seed's permutation of ids (see `randomKey`). */
  | { by: 'random'; multiplier: number; after?: { value: number; id: number } | undefined }

export interface PetSearch {
  statuses?: PetStatus[] | undefined
  categoryIds?: number[] | undefined
  /** Folded breed names: the primary or secondary breed is one of them. */
  breeds?: string[] | undefined
  sexes?: string[] | undefined
  ages?: string[] | undefined
  sizes?: string[] | undefined
  coats?: string[] | undefined
  goodWith?: Partial<Record<'good_with_children' | 'good_with_dogs' | 'good_with_cats', Answer[]>> | undefined
  /** Attribute columns that must be 1 (true) or 0 (false). */
  attributes?: Partial<Record<'spayed_neutered' | 'house_trained' | 'vaccinated' | 'microchipped' | 'special_needs', 0 | 1>> | undefined
  /** Only animals at these locations (an empty list matches none). */
  locationIds?: number[] | undefined
  /** Folded tags: the animal has one of them. */
  tags?: string[] | undefined
  externalIds?: string[] | undefined
  /** A part of the name, whatever the case (the admin API's search). */
  name?: string | undefined
  /** Full-text tokens: each starts a word of the animal's name, breeds, description or tags. */
  q?: string[] | undefined
  /** Only animals changed after this instant (RFC 3339, as stored). */
  updatedAfter?: string | undefined
}

/** The plain list of the spec (ascending ids, at most a status): its prepared statements. */
export async function listPets(db: Db, projectId: number, filter: { status?: PetStatus | undefined; after?: number | undefined; limit: number }): Promise<PetRecord[]> {
  const after = filter.after ?? 0
  return filter.status === undefined ? listAll(db, projectId, after, filter.limit) : listByStatus(db, projectId, filter.status, after, filter.limit)
}

type PetQuery = SelectQueryBuilder<Database, 'pets', object>

/** A page of a search, in `order`, read one past `limit`; each row with the value its order sorts on. */
export async function searchPets(
  db: Db,
  dialect: 'sqlite' | 'postgres',
  projectId: number,
  search: PetSearch,
  order: PetOrder,
  limit: number,
): Promise<(PetRecord & { sortValue: string | number | null })[]> {
  let text = await textMatch(db, dialect, projectId, search)
  // SQLite reads a search by date or name along that order's index, checking each animal against
  // the words' matches, and stops at a full page: quick when many match, a read of the whole
  // project when few do. Those few are then looked up by id and sorted instead.
  if (text?.kind === 'fts5' && (order.by === 'createdAt' || order.by === 'name')) text = (await fewMatches(db, text.match)) ?? text
  let query = filtered(db.selectFrom('pets'), projectId, search, text)
  const key = sortKey(order, text?.kind === 'ids')
  query = afterCursor(query, order, key)
  const direction = order.by === 'createdAt' && order.descending ? 'desc' : 'asc'
  const rows = await query
    .select([...PET, key.as('sortValue')])
    .orderBy(key, direction)
    .orderBy('id', direction)
    .limit(limit)
    .execute()
  return rows as (PetRecord & { sortValue: string | number | null })[]
}

/** How many animals a search matches, whatever page is asked. */
export async function countPets(db: Db, dialect: 'sqlite' | 'postgres', projectId: number, search: PetSearch): Promise<number> {
  const text = await textMatch(db, dialect, projectId, search)
  const row = await filtered(db.selectFrom('pets'), projectId, search, text)
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** `%`, `_` and the escape character itself stand for themselves in the pattern. */
function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`
}

function filtered(query: PetQuery, projectId: number, search: PetSearch, text: TextMatch | undefined): PetQuery {
  query = query.where('project_id', '=', projectId)
  const anyOf = <C extends 'status' | 'category_id' | 'sex' | 'age_group' | 'size' | 'coat' | 'external_id'>(column: C, values: readonly unknown[] | undefined) => {
    if (values === undefined) return
    // A single value compares with `=`: the plain filters keep the query shape indexes expect.
    query = values.length === 1 ? query.where(column, '=', values[0] as never) : query.where(column, 'in', values as never)
  }
  anyOf('status', search.statuses)
  anyOf('category_id', search.categoryIds)
  anyOf('sex', search.sexes)
  anyOf('age_group', search.ages)
  anyOf('size', search.sizes)
  anyOf('coat', search.coats)
  anyOf('external_id', search.externalIds)
  if (search.breeds) {
    const breeds = search.breeds
    query = query.where((eb) => eb.or([eb('breed_primary_key', 'in', breeds), eb('breed_secondary_key', 'in', breeds)]))
  }
  for (const [column, answers] of Object.entries(search.goodWith ?? {}) as [keyof NonNullable<PetSearch['goodWith']>, Answer[]][]) {
    query = query.where((eb) => {
      const known = answers.filter((answer) => answer !== 'unknown')
      const alternatives = known.length > 0 ? [eb(column, 'in', known)] : []
      if (answers.includes('unknown')) alternatives.push(eb(column, 'is', null), eb(column, '=', 'unknown'))
      return eb.or(alternatives)
    })
  }
  for (const [column, value] of Object.entries(search.attributes ?? {}) as [keyof NonNullable<PetSearch['attributes']>, 0 | 1][]) {
    query = query.where(column, '=', value)
  }
  if (search.locationIds) {
    const ids = search.locationIds
    query = ids.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('location_id', 'in', ids)
  }
  if (search.tags) {
    const tags = search.tags
    query = query.where((eb) => eb.or(tags.map((tag) => eb('tags_key', 'like', sql<string>`${likeContaining(`|${tag}|`)} escape '\\'`))))
  }
  if (search.name !== undefined) {
    query = query.where('name_folded', 'like', sql<string>`${likeContaining(folded(search.name))} escape '\\'`)
  }
  if (search.updatedAfter !== undefined) query = query.where('updated_at', '>', search.updatedAfter)
  if (text) query = matching(query, text)
  return query
}

/**
 * What the full-text index holds of each animal (migration 0013): its words as
 * `p<project>q<word>`, and the values of the filters adopters combine with words as
 * `f<project>q<letter><value>`. PostgreSQL's index is on exactly this expression.
 */
const POSTGRES_DOCUMENT = sql.raw(
  `to_tsvector('simple'::regconfig, 'p' || project_id::text || 'q' || replace(coalesce(search_text, ''), ' ', ' p' || project_id::text || 'q') || coalesce(' f' || project_id::text || 'qt' || status, '') || coalesce(' f' || project_id::text || 'qc' || category_id::text, '') || coalesce(' f' || project_id::text || 'qs' || sex, '') || coalesce(' f' || project_id::text || 'qa' || age_group, '') || coalesce(' f' || project_id::text || 'qz' || replace(size, '_', ''), '') || coalesce(' f' || project_id::text || 'ql' || location_id::text, ''))`,
)

/**
 * A search's words as its engine's full-text index is asked for them: FTS5's query (`match`),
 * the ids of the few animals it matches (`ids`, see `fewMatches`), PostgreSQL's `tsquery`, or
 * nothing at all (`none`: a word starts no word of the project's animals).
 */
type TextMatch = { kind: 'fts5'; match: string } | { kind: 'ids'; ids: number[] } | { kind: 'tsquery'; tsquery: string } | { kind: 'none' }

/**
 * Every word must start a word of the animal's text; the filters the index also holds (status,
 * category, sex, age, size, location) are asked of it in the same query, so it reads only the
 * animals that match them all (the filters are applied to the rows as well). Words hold only
 * letters and digits (see search-text.ts), values are enumerations and ids: safe inside either
 * engine's query syntax.
 *
 * On PostgreSQL each word is asked as the words of the project it starts (`completions`), not as
 * a prefix: see migration 0015.
 */
async function textMatch(db: Db, dialect: 'sqlite' | 'postgres', projectId: number, search: PetSearch): Promise<TextMatch | undefined> {
  const tokens = search.q ?? []
  if (tokens.length === 0) return undefined
  const filters: string[][] = []
  const filter = (letter: string, values: readonly (string | number)[] | undefined) => {
    if (values && values.length > 0) filters.push(values.map((value) => `f${projectId}q${letter}${String(value).replace(/_/g, '')}`))
  }
  filter('t', search.statuses)
  filter('c', search.categoryIds)
  filter('s', search.sexes)
  filter('a', search.ages)
  filter('z', search.sizes)
  filter('l', search.locationIds)
  if (dialect === 'sqlite') {
    const match = [...tokens.map((token) => `"p${projectId}q${token}"*`), ...filters.map((group) => `(${group.map((value) => `"${value}"`).join(' OR ')})`)].join(' AND ')
    return { kind: 'fts5', match }
  }
  const words = await completions(db, projectId, tokens)
  if (words.some((group) => group?.length === 0)) return { kind: 'none' }
  const terms = tokens.map((token, i) => {
    const group = words[i]
    return group === undefined ? `'p${projectId}q${token}':*` : `(${group.map((word) => `'p${projectId}q${word}'`).join(' | ')})`
  })
  const tsquery = [...terms, ...filters.map((group) => `(${group.map((value) => `'${value}'`).join(' | ')})`)].join(' & ')
  return { kind: 'tsquery', tsquery }
}

/** The most words a search word is asked as; a word that starts more is asked as a prefix. */
const MAX_COMPLETIONS = 32

/**
 * PostgreSQL: for each token, the words of the project's animals it starts (none: an empty
 * list), or `undefined` when it starts more than `MAX_COMPLETIONS`. The words are in byte order
 * (collation "C"), so a token's are the range from the token to the token followed by the last
 * code point; tokens hold only letters and digits, so none is cut off.
 */
async function completions(db: Db, projectId: number, tokens: string[]): Promise<(string[] | undefined)[]> {
  const { rows } = await sql<{ i: number | string; word: string }>`
    select t.i, w.word from unnest(${tokens}::text[]) with ordinality as t (token, i)
    cross join lateral (
      select distinct word from pet_search_words
      where project_id = ${projectId} and word >= t.token and word < t.token || ${String.fromCodePoint(0x10ffff)}
      order by word limit ${MAX_COMPLETIONS + 1}
    ) as w`.execute(db)
  const found: string[][] = tokens.map(() => [])
  for (const row of rows) found[Number(row.i) - 1]!.push(row.word)
  return found.map((words) => (words.length > MAX_COMPLETIONS ? undefined : words))
}

/** The animals a search matches when FTS5 finds fewer than this many (the rest reads an order's index). */
const FEW_MATCHES = 500

/** SQLite: the ids of the animals an FTS5 query matches, when they are fewer than `FEW_MATCHES`. */
async function fewMatches(db: Db, match: string): Promise<TextMatch | undefined> {
  const { rows } = await sql<{ id: number }>`select rowid as id from pets_fts where pets_fts match ${match} limit ${FEW_MATCHES}`.execute(db)
  return rows.length < FEW_MATCHES ? { kind: 'ids', ids: rows.map((row) => Number(row.id)) } : undefined
}

function matching(query: PetQuery, text: TextMatch): PetQuery {
  switch (text.kind) {
    case 'none':
      return query.where(sql<boolean>`1 = 0`)
    case 'ids':
      return text.ids.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('id', 'in', text.ids)
    case 'tsquery':
      return query.where(sql<boolean>`${POSTGRES_DOCUMENT} @@ to_tsquery('simple'::regconfig, ${text.tsquery})`)
    case 'fts5':
      return query.where('id', 'in', sql<number>`(select rowid from pets_fts where pets_fts match ${text.match})`)
  }
}

/** Where `limit` rows of a random order come from: the seed's permutation of ids modulo a prime (2^31 - 1). */
const RANDOM_MODULUS = 2_147_483_647

/**
 * What a search sorts on. `looseColumn`: a column is written `+column` (the same value), which
 * keeps SQLite from reading it in the order of its index (see `searchPets`).
 */
function sortKey(order: PetOrder, looseColumn = false): RawBuilder<string | number> {
  const loose = looseColumn ? '+' : ''
  switch (order.by) {
    case 'id':
      return sql<number>`id`
    case 'createdAt':
      return sql<string>`${sql.raw(loose)}created_at`
    case 'name':
      return sql<string>`${sql.raw(loose)}name_folded`
    case 'distance': {
      // Every animal of the search is at one of these locations (the filter keeps only them).
      const cases = [...order.metres].map(([location, metres]) => sql`when ${location} then cast(${metres} as bigint)`)
      return cases.length === 0 ? sql<number>`0` : sql<number>`(case location_id ${sql.join(cases, sql` `)} end)`
    }
    case 'random':
      return sql<number>`(((id % ${RANDOM_MODULUS}) * cast(${order.multiplier} as bigint)) % ${RANDOM_MODULUS})`
  }
}

/** Only what comes after the cursor in the order (its sort value, then its id). */
function afterCursor(query: PetQuery, order: PetOrder, key: ReturnType<typeof sortKey>): PetQuery {
  if (order.after === undefined) return query
  if (order.by === 'id') return query.where('id', '>', order.after)
  const { value, id } = order.after
  const descending = order.by === 'createdAt' && order.descending
  const later = descending ? '<' : '>'
  return query.where((eb: ExpressionBuilder<Database, 'pets'>) =>
    eb.or([eb(key, later, value as never), eb.and([eb(key, '=', value as never), eb('id', later, id)])]),
  )
}
