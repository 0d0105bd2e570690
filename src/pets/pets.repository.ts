import { type Insertable, PostgresAdapter, sql } from 'kysely'
import { entryOfInsertedPetStatement, insertAuditEntry, PET_ENTRY_COLUMNS, petEntryValues } from '../audit/audit.repository.js'
import type { Db } from '../db/database.js'
import { batchedTogether, prepare } from '../db/prepared.js'
import type { ActorKind, AuditEntryTable, PetStatus } from '../db/schema.js'
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

export const PET = ['id', 'name', 'category_id as categoryId', 'status', 'profile', 'location_id as locationId', 'created_at as createdAt', 'updated_at as updatedAt', 'photos'] as const

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
export function folded(name: string): string {
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
          .columns(PET_ENTRY_COLUMNS)
          .expression(
            qc
              .selectFrom('created')
              .select(petEntryValues({ at, actorKind, actorName, actorKeyId, action, projectId, requestId, details }, sql<string>`cast(created.id as text)`))
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

/**
 * An animal (with its audit entry, when given): inside a transaction that writes more with it, or
 * alone. Alone and without an entry it joins SQLite's group commit: durable before it is
 * acknowledged, and committed together with the other requests' animals.
 */
export async function insertPet(db: Db, projectId: number, pet: PetWrite & { status: PetStatus; createdAt: string }, audit?: PetAudit): Promise<PetRecord> {
  if (!db.isTransaction && audit) return db.transaction().execute((trx) => insertPet(trx, projectId, pet, audit))
  const args = insertArgs(projectId, pet)
  const [row] = await (db.isTransaction ? insert(db, ...args) : insert.batched(db, ...args))
  if (!row) throw new Error('insert into pets returned no row')
  if (audit) await insertAuditEntry(db, { ...audit, target_type: 'pet', target_id: String(row.id), project_id: projectId })
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
