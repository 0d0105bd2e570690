import { Type, type Static } from 'typebox'
import { StringEnum } from '../shapes.js'
import { PLANS } from '../db/schema.js'

const MAX_LIMIT = 1_000_000_000

export const PlanLimitsSchema = Type.Object(
  {
    perMinute: Type.Integer({ description: 'Requests allowed per UTC minute, for all keys of the project together' }),
    perDay: Type.Integer({ description: 'Requests allowed per UTC day, for all keys of the project together' }),
  },
  { additionalProperties: false, description: 'The limits in force' },
)

const planField = StringEnum(PLANS, {
  description: 'The plan: `free`, `pro`, `business` have fixed limits; `enterprise` takes its own `perMinute` and `perDay`',
})
const limitField = (window: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `Enterprise only, and required for it: requests per ${window}` })

export const ProjectSchema = Type.Object(
  {
    slug: Type.String({ description: 'The project\'s slug: a DNS label, unique', examples: ['acme'] }),
    plan: planField,
    limits: PlanLimitsSchema,
    address: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description: 'Where the project is published: `https://<slug>.<PLATFORM_DOMAIN>`; null when no platform domain is configured',
    }),
    createdAt: Type.String({ format: 'date-time', description: 'When the project was created' }),
    webhookPrivateNetworks: Type.Boolean({
      description:
        "Whether the project's webhook endpoints may reach the private networks the operator allows (`WEBHOOK_ALLOWED_NETWORKS`): granted by an operator, per project; false until then, and the project's endpoints are judged as if no private network were allowed",
    }),
  },
  { $id: 'Project', additionalProperties: false, description: 'A project: its plan and the limits in force' },
)

export const ProjectsSchema = Type.Array(Type.Ref('Project'), { description: 'Projects, oldest first' })

export const NewProjectSchema = Type.Object(
  {
    slug: Type.String({ minLength: 1, maxLength: 63, description: '1-63 lowercase letters, digits and inner hyphens: it becomes `<slug>.<PLATFORM_DOMAIN>`' }),
    plan: planField,
    perMinute: Type.Optional(limitField('minute')),
    perDay: Type.Optional(limitField('day')),
  },
  { additionalProperties: false, examples: [{ slug: 'acme', plan: 'pro' }] },
)

export const PlanChangeSchema = Type.Object(
  { plan: planField, perMinute: Type.Optional(limitField('minute')), perDay: Type.Optional(limitField('day')) },
  { additionalProperties: false, examples: [{ plan: 'enterprise', perMinute: 5000, perDay: 1000000 }] },
)

export const WebhookPrivateNetworksSchema = Type.Object(
  {
    allowed: Type.Boolean({
      description: "true: the project's webhook endpoints may reach the networks of `WEBHOOK_ALLOWED_NETWORKS` (the owners then no longer see those endpoints' answers in the delivery log); false: they may not, from their next attempt",
    }),
  },
  { additionalProperties: false, examples: [{ allowed: true }] },
)

export const ProjectDeletionSchema = Type.Object(
  {
    slug: Type.String({ description: 'The slug of the deleted project (free again)' }),
    rows: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'How many rows were deleted, by table (every table with a project column); rows that go with them (bans, certificates, attempts, subscriptions) are not counted',
    }),
    photoFiles: Type.Integer({ minimum: 0, description: "How many of the photos' stored files were deleted (a file whose deletion failed is deleted by the photo sweep)" }),
  },
  { additionalProperties: false, description: 'What deleting a project removed' },
)

export const ProjectParamsSchema = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }) })

export type ProjectBody = Static<typeof ProjectSchema>
