import { type TSchema, Type } from 'typebox'

/** The largest integer JSON numbers carry exactly in every client: ids and references stop here. */
export const MAX_INT53 = Number.MAX_SAFE_INTEGER

/** The query of a paged list: `limit` (1..100, default 20), a `status` filter and the `after` cursor. */
export function pageQuerySchema<S extends TSchema>(items: string, status: S) {
  return Type.Object(
    {
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: `Maximum number of ${items} returned` })),
      status: Type.Optional({ ...status, description: `Only ${items} with this status` }),
      after: Type.Optional(
        Type.Integer({
          format: 'int64',
          minimum: 0,
          maximum: MAX_INT53,
          description: `Cursor: only ${items} with an id greater than this. Follow the \`Link: rel="next"\` header instead of building it.`,
        }),
      ),
    },
    { additionalProperties: false },
  )
}
