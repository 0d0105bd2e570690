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
