import { Type } from 'typebox'
import { StringEnum } from '../shapes.js'
import { PlanLimitsSchema } from '../projects/projects.schemas.js'

/** The ranges usage is read over (see usage.service.ts). */
export const USAGE_RANGES = ['hour', 'week'] as const

export const UsageQuerySchema = Type.Object(
  {
    range: StringEnum(USAGE_RANGES, {
      description: '`hour`: 60 one-minute buckets ending with the current minute; `week`: 7 one-day buckets (UTC) ending today',
      examples: ['hour'],
    }),
  },
  { additionalProperties: false },
)

export const UsageSchema = Type.Object(
  {
    range: StringEnum(USAGE_RANGES, { description: 'The range asked for' }),
    bucketSeconds: Type.Integer({ description: 'The length of a bucket: 60 or 86400', examples: [60] }),
    limits: PlanLimitsSchema,
    points: Type.Array(
      Type.Object(
        {
          at: Type.String({ format: 'date-time', description: "The bucket's start (UTC)" }),
          requests: Type.Integer({ description: '`/v1` requests answered for the project, 429s included' }),
          limited: Type.Integer({ description: 'Of those, the 429s (rate limited or banned)' }),
          bans: Type.Integer({ description: 'Bans of the project\'s keys that started' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Oldest first; every bucket is present, with zeros when nothing happened' },
    ),
  },
  {
    $id: 'Usage',
    additionalProperties: false,
    description: "A project's traffic against its plan's limits. Counts reach the database within about 10 seconds from every instance.",
  },
)
