import { type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely'
import type { Db } from '../db/database.js'
import { prepare } from '../db/prepared.js'
import type { Database, PetStatus } from '../db/schema.js'
import { folded, PET, type PetRecord } from './pets.repository.js'

/**
 * The search of a project's animals: the spec's list (status and id order), and the filters,
 * full-text match, distance and sorts of `GET /v1/pets`, with their cursors and counts. The
 * writes and the reads by id are in pets.repository.ts.
 */

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
