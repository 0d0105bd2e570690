/**
 * The shapes every feature's schemas and services share: TypeBox helpers, the bounds of ids and
 * pages, and the page of a list. Nothing of HTTP: services and repositories use them too.
 */
import { type TEnum, type TSchema, type TSchemaOptions, Type } from 'typebox'

/** The largest integer JSON numbers carry exactly in every client: ids and references stop here. */
export const MAX_INT53 = Number.MAX_SAFE_INTEGER

/** The most items one page of a list holds: the largest `limit`. */
export const MAX_PAGE_SIZE = 100

/**
 * A string enum whose schema also says `type: string`: JSON Schema does not need it, but OpenAPI
 * tools (generators, linters, Swagger UI) read the type, not the values.
 */
export function StringEnum<const Values extends string[]>(values: readonly [...Values], options: TSchemaOptions = {}): TEnum<Values> {
  return Type.Enum(values, { ...options, type: 'string' })
}

/** An instant that may not have happened (yet): RFC 3339, or null. */
export function nullableTimestamp(description: string) {
  return Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description })
}

/** The query of a paged list: `limit` (1..100, default 20), a `status` filter and the `after` cursor. */
export function pageQuerySchema<S extends TSchema>(items: string, status: S, statusExample: string) {
  return Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: `Maximum number of ${items} returned`, examples: [20] })),
      status: Type.Optional({ ...status, description: `Only ${items} with this status`, examples: [statusExample] }),
      after: Type.Optional(
        Type.Integer({
          format: 'int64',
          minimum: 0,
          maximum: MAX_INT53,
          description: `Cursor: only ${items} with an id greater than this. Follow the \`Link: rel="next"\` header instead of building it.`,
          // 0, the start: "Try it out" fills parameters in with their examples.
          examples: [0],
        }),
      ),
    },
    { additionalProperties: false },
  )
}

/** One page of a list in ascending id order, and the cursor of the next page when there is one. */
export interface Page<T> {
  items: T[]
  nextAfter: number | undefined
}

/** What a list operation's query string holds once validated (the schema fills `limit` in). */
export interface PageQuery<Status extends string> {
  limit: number
  status?: Status | undefined
  after?: number | undefined
}

/**
 * A page from rows read with one more than the limit: the extra row tells that another page
 * exists, without a count.
 */
export function pageOf<T extends { id: number }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit)
  return { items, nextAfter: rows.length > limit ? items[items.length - 1]?.id : undefined }
}
