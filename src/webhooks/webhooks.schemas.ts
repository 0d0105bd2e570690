import { Type, type Static } from 'typebox'
import { DELIVERY_STATES, PLANS } from '../db/schema.js'
import { MAX_PAGE_SIZE, StringEnum } from '../shapes.js'
import { ALL_EVENTS, TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from './events.js'

const timestamp = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description })

export const EventTypeSchema = StringEnum([...WEBHOOK_EVENT_TYPES, ALL_EVENTS], {
  description: 'An event type of the catalogue, or `*` for every type (present and future)',
})

const endpointProperties = {
  id: Type.String({ description: "The endpoint's id", examples: ['ep_8Tq2Xz4LmN6pR1sV'] }),
  url: Type.String({ format: 'uri', description: 'Where events are POSTed' }),
  description: Type.Union([Type.String(), Type.Null()], { description: 'What the endpoint is for' }),
  types: Type.Array(EventTypeSchema, { description: 'The event types it receives' }),
  enabled: Type.Boolean({ description: 'Whether events are sent to it' }),
  disabledReason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was disabled: by the service after failing for 5 days, or by a person' }),
  previousSecretExpiresAt: timestamp('During a rotation: until when the previous secret also signs; null otherwise'),
  failingSince: timestamp('Since when every attempt failed; null after a success'),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
}

export const WebhookEndpointSchema = Type.Object(endpointProperties, {
  $id: 'WebhookEndpoint',
  additionalProperties: false,
  description: "A project's webhook endpoint. Its signing secret is shown only when it is created or rotated.",
})

export const NewWebhookEndpointSchema = Type.Object(
  {
    ...endpointProperties,
    secret: Type.String({ description: 'The signing secret (`whsec_…`), shown this once: store it now and verify every event with it.' }),
  },
  { $id: 'NewWebhookEndpoint', additionalProperties: false, description: 'A webhook endpoint, with its new signing secret' },
)

export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>

export const WebhookEndpointsSchema = Type.Array(Type.Ref('WebhookEndpoint'), { description: "The project's endpoints, oldest first" })

const url = Type.String({ minLength: 1, maxLength: 2048, description: 'https URL (http only to networks the operator allows); no user or password in it', examples: ['https://example.com/webhooks'] })
const types = Type.Array(EventTypeSchema, { minItems: 1, maxItems: 50, uniqueItems: true, description: 'Event types to receive', examples: [['pet.created', 'order.placed']] })
const description = Type.String({ maxLength: 200, description: 'What the endpoint is for: at most 200 characters' })

export const CreateWebhookSchema = Type.Object(
  { url, types, description: Type.Optional(description), enabled: Type.Optional(Type.Boolean({ description: 'Default true' })) },
  { additionalProperties: false, examples: [{ url: 'https://example.com/webhooks', types: ['pet.created', 'order.placed'] }] },
)

export const UpdateWebhookSchema = Type.Object(
  {
    url: Type.Optional(url),
    types: Type.Optional(types),
    description: Type.Optional(Type.Union([description, Type.Null()])),
    enabled: Type.Optional(Type.Boolean({ description: 'Enable (clears the reason it was disabled) or disable' })),
  },
  { additionalProperties: false, minProperties: 1, examples: [{ enabled: true }] },
)

export const RotateSecretSchema = Type.Object(
  {
    overlapHours: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 168, default: 24, description: 'How long the previous secret keeps signing too (both signatures are sent); 0 ends it at once' }),
    ),
  },
  { additionalProperties: false, examples: [{ overlapHours: 24 }] },
)

export const WebhookParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }),
  endpointId: Type.String({ minLength: 1, maxLength: 32, description: "The endpoint's id", examples: ['ep_8Tq2Xz4LmN6pR1sV'] }),
})

export const DeliveryParamsSchema = Type.Object({
  slug: Type.String({ minLength: 1, maxLength: 63, description: "The project's slug", examples: ['acme'] }),
  endpointId: Type.String({ minLength: 1, maxLength: 32, description: "The endpoint's id", examples: ['ep_8Tq2Xz4LmN6pR1sV'] }),
  deliveryId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "The delivery's id", examples: [1] }),
})

export const DeliveryQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: 'Maximum number of deliveries returned', examples: [20] })),
    before: Type.Optional(
      Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Cursor: only deliveries with a smaller id. Follow the `Link: rel="next"` header instead of building it.', examples: [120] }),
    ),
    state: Type.Optional(StringEnum(DELIVERY_STATES, { description: 'Only deliveries in this state', examples: ['failed'] })),
    eventType: Type.Optional(StringEnum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE], { description: 'Only deliveries of events of this type', examples: ['pet.created'] })),
    webhookId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: 'Only the deliveries of this event: the `webhook-id` header the receiver got (`msg_…`)', examples: ['msg_2KWPBgLlAfxdpx2AI54pPJ85'] }),
    ),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only deliveries created at or after this time', examples: ['2026-11-01T00:00:00Z'] })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Only deliveries created before this time; after `since`', examples: ['2026-11-02T00:00:00Z'] })),
  },
  { additionalProperties: false },
)

export const WebhookAttemptSchema = Type.Object(
  {
    attemptedAt: Type.String({ format: 'date-time', description: 'When the attempt was made' }),
    status: Type.Union([Type.Integer(), Type.Null()], { description: "The answer's HTTP status; null when none came" }),
    durationMs: Type.Integer({ description: 'How long it took, in milliseconds' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed; null when it succeeded' }),
    responseExcerpt: Type.Union([Type.String(), Type.Null()], { description: "The first KiB at most of the answer's body; null for owners of a project granted the private networks (only operators see those answers)" }),
    request: Type.Union(
      [
        Type.Object(
          {
            headers: Type.Record(Type.String(), Type.String(), {
              description: 'The headers sent: `content-type`, `user-agent` and the signature headers `webhook-id`, `webhook-timestamp`, `webhook-signature` (never a secret)',
            }),
            body: Type.String({ description: 'The body sent, byte for byte what was signed' }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: 'The request sent; null when none could be made (the endpoint was removed, or its secret does not open on this instance)' },
    ),
  },
  { $id: 'WebhookAttempt', additionalProperties: false, description: 'One attempt of a delivery: the request sent and how it went' },
)

export type WebhookAttempt = Static<typeof WebhookAttemptSchema>

export const WebhookAttemptsSchema = Type.Array(Type.Ref('WebhookAttempt'), { description: "The delivery's attempts, oldest first" })

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.Integer({ description: "The delivery's id" }),
    eventId: Type.String({ description: 'The event id, sent as `webhook-id` on every attempt: deduplicate by it', examples: ['msg_2KWPBgLlAfxdpx2AI54pPJ85'] }),
    eventType: Type.String({ description: 'The event type' }),
    eventCreatedAt: Type.String({ format: 'date-time', description: 'When the event happened' }),
    state: StringEnum(DELIVERY_STATES, { description: '`pending` (an attempt is due), `succeeded` (a 2xx answer) or `failed` (no attempt left)' }),
    manual: Type.Boolean({ description: 'A redelivery or test event asked for by a person: attempted once' }),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    nextAttemptAt: timestamp('When the next attempt is due; null once it succeeded or failed'),
    lastAttemptAt: timestamp('When the last attempt was made'),
    lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: "The last answer's HTTP status; null when none came" }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed' }),
    latencyMs: Type.Union([Type.Integer(), Type.Null()], { description: 'How long the last attempt took, in milliseconds' }),
    responseExcerpt: Type.Union([Type.String(), Type.Null()], { description: "The first KiB at most of the last answer's body; null for owners of a project granted the private networks (only operators see those answers)" }),
    createdAt: Type.String({ format: 'date-time' }),
    completedAt: timestamp('When it succeeded or failed for good'),
  },
  { $id: 'WebhookDelivery', additionalProperties: false, description: 'One event sent to one endpoint: its attempts and how the last one went' },
)

export type WebhookDelivery = Static<typeof WebhookDeliverySchema>

export const WebhookDeliveriesSchema = Type.Array(Type.Ref('WebhookDelivery'), { description: 'Deliveries, newest first' })

// The event catalogue as the public document's `webhooks` section (OpenAPI 3.1): what each
// event's body is, and the headers every attempt carries.

const dateTime = (description: string) => Type.String({ format: 'date-time', description })
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` })

const apiKeyProperties = {
  id: Type.String({ description: "The key's id" }),
  project: Type.String({ description: "The project's slug" }),
  prefix: Type.String({ description: 'The first characters of the secret (never the secret)' }),
  name: Type.Union([Type.String(), Type.Null()]),
  createdAt: dateTime('When it was created'),
  lastUsedAt: timestamp('When it was last used'),
  expiresAt: timestamp('When it stops working; null: never'),
  revokedAt: timestamp('When it was revoked'),
  bannedUntil: timestamp('The end of a running ban'),
  // Added with key scopes, beta as in the admin API's ApiKey.
  scopes: Type.Union([Type.Array(Type.String()), Type.Null()], {
    'x-stability': 'beta',
    description: 'What the key may call (pets:read, pets:write, orders:read, orders:write); null: everything, as keys made without scopes',
  }),
  publishable: Type.Boolean({ 'x-stability': 'beta', description: 'A key for web pages: read-only (pets:read), answered with CORS headers for its allowedOrigins only' }),
  allowedOrigins: Type.Array(Type.String(), { 'x-stability': 'beta', description: "A publishable key's origins; empty for other keys" }),
}

const ApiKeyData = Type.Object(apiKeyProperties, { additionalProperties: false, description: 'An API key, never its secret' })

const DomainData = Type.Object(
  {
    domain: Type.String({ description: 'The custom domain' }),
    state: StringEnum(['verified', 'failed']),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the check failed, and how to fix it' }),
    checkedAt: dateTime('When DNS was checked'),
  },
  { additionalProperties: false },
)

const QuotaData = Type.Object(
  {
    project: Type.String({ description: "The project's slug" }),
    window: StringEnum(['day']),
    limit: Type.Integer({ description: "The plan's requests per UTC day" }),
    used: Type.Integer({ description: 'Requests admitted so far today' }),
    resetAt: dateTime('When the day ends (UTC midnight)'),
  },
  { additionalProperties: false },
)

const PlanData = Type.Object(
  {
    plan: StringEnum(PLANS),
    limits: Type.Object(
      { perMinute: Type.Integer({ description: 'Requests per UTC minute' }), perDay: Type.Integer({ description: 'Requests per UTC day' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

/** The body of each group of event types, named in the document's components; `data` is what the types share. */
const EVENT_BODIES: Record<string, { types: string[]; data: object; description: string }> = {
  PetEvent: { types: ['pet.created', 'pet.updated', 'pet.deleted'], data: ref('Pet'), description: 'An animal added, changed (as it is now) or removed (as it was)' },
  PhotoEvent: {
    types: ['pet.photo_added', 'pet.photo_removed'],
    data: Type.Object({ petId: Type.Integer({ format: 'int64', description: 'The animal' }), photo: ref('Photo') as never }, { additionalProperties: false }),
    description: 'A photo of an animal added, or removed (as it was)',
  },
  OrderEvent: { types: ['order.placed', 'order.approved', 'order.delivered', 'order.cancelled'], data: ref('Order'), description: 'An adoption order that moved' },
  ApiKeyEvent: { types: ['key.created', 'key.revoked'], data: ref('WebhookApiKey'), description: 'An API key created or revoked' },
  KeyExpiringEvent: {
    types: ['key.expiring'],
    // The key's properties and the notice in one closed object: an `allOf` of the closed key and
    // the notice would refuse every payload (each part forbids the other's properties).
    data: Type.Object(
      { ...apiKeyProperties, noticeDays: Type.Number({ enum: [7, 1], description: 'The notice: 7 days or 1 day before' }) },
      { additionalProperties: false, description: 'The API key (never its secret) and the notice' },
    ),
    description: 'An API key about to expire',
  },
  QuotaEvent: { types: ['quota.warning', 'quota.exhausted'], data: QuotaData, description: "The project's daily limit 80 % used, or used up" },
  BanStartedEvent: {
    types: ['ban.started'],
    data: Type.Object(
      { keyId: Type.String(), level: Type.Integer({ description: 'Escalation: 0 for a first ban (10 minutes), doubling with each repeat' }), bannedAt: dateTime('When it started'), until: dateTime('When it ends') },
      { additionalProperties: false },
    ),
    description: 'An API key banned for ignoring 429 answers',
  },
  BanLiftedEvent: { types: ['ban.lifted'], data: Type.Object({ keyId: Type.String(), liftedAt: dateTime('When an operator lifted it') }, { additionalProperties: false }), description: 'A ban lifted by an operator' },
  DomainEvent: { types: ['domain.verified', 'domain.failed'], data: DomainData, description: "A custom domain's DNS check passed, or started failing" },
  CertificateIssuedEvent: {
    types: ['certificate.issued'],
    data: Type.Object(
      {
        domain: Type.String(),
        notBefore: dateTime('Start of validity'),
        notAfter: dateTime('End of validity'),
        renewAt: dateTime('When it will be renewed'),
        renewal: Type.Boolean({ description: 'Whether it replaces a certificate' }),
      },
      { additionalProperties: false },
    ),
    description: 'A certificate issued or renewed',
  },
  CertificateFailingEvent: {
    types: ['certificate.failing'],
    data: Type.Object(
      {
        domain: Type.String(),
        reason: Type.String({ description: 'Why, and how to fix it' }),
        attempts: Type.Integer(),
        nextAttemptAt: dateTime('When it is tried again'),
        servedUntil: timestamp('For a failing renewal: until when the current certificate is still served'),
      },
      { additionalProperties: false },
    ),
    description: 'Obtaining or renewing a certificate started failing',
  },
  EndpointDisabledEvent: {
    types: ['endpoint.disabled'],
    data: Type.Object(
      {
        id: Type.String({ description: "The disabled endpoint's id" }),
        url: Type.String({ format: 'uri', description: 'Where its events were POSTed' }),
        description: Type.Union([Type.String(), Type.Null()]),
        disabledBy: StringEnum(['service', 'person'], { description: '`service`: every attempt failed for 5 days; `person`: through the admin API, the CLI or the dashboard' }),
        reason: Type.String({ description: 'Why it was disabled' }),
        disabledAt: dateTime('When it was disabled'),
      },
      { additionalProperties: false },
    ),
    description: "Another endpoint of the project disabled: it receives nothing until it is enabled again",
  },
  PlanChangedEvent: {
    types: ['project.plan_changed'],
    data: Type.Object({ project: Type.String({ description: "The project's slug" }), from: PlanData, to: PlanData }, { additionalProperties: false }),
    description: "The project's plan (or its limits) changed by an operator",
  },
  UserEvent: {
    types: ['user.added', 'user.removed'],
    data: Type.Object(
      {
        id: Type.Integer({ format: 'int64', description: "The user's id" }),
        email: Type.String({ description: "The user's email (never a password or a session)" }),
        role: StringEnum(['owner', 'viewer'], { description: 'An operator sees every project and is no member of any' }),
      },
      { additionalProperties: false },
    ),
    description: 'A dashboard user given access to the project, or who lost it',
  },
  TestEvent: { types: [TEST_EVENT_TYPE], data: Type.Object({ endpointId: Type.String(), message: Type.String() }, { additionalProperties: false }), description: 'A test event sent on request' },
}

const header = (name: string, description: string, example: string) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example })

/**
 * The `webhooks` section of the public OpenAPI document (one POST per event type), and the
 * components it refers to: the event bodies, the headers every attempt carries, the answer.
 */
export function webhooksDocument() {
  const descriptions: Record<string, string> = { ...WEBHOOK_EVENTS, [TEST_EVENT_TYPE]: 'Sent on request ("send test event") to one endpoint, whatever it subscribes to.' }
  const schemas: Record<string, object> = {
    WebhookApiKey: ApiKeyData,
    ...Object.fromEntries(
      Object.entries(EVENT_BODIES).map(([name, { types, data, description }]) => [
        name,
        {
          type: 'object',
          description,
          required: ['type', 'timestamp', 'data'],
          additionalProperties: false,
          properties: {
            type: { type: 'string', enum: types, description: 'The event type' },
            timestamp: { type: 'string', format: 'date-time', description: 'When the event happened' },
            data,
          },
        },
      ]),
    ),
  }
  const parameters = {
    WebhookId: header('webhook-id', 'The event id: the same on every attempt; deduplicate by it', 'msg_2KWPBgLlAfxdpx2AI54pPJ85'),
    WebhookTimestamp: header('webhook-timestamp', 'When this attempt was signed, in Unix seconds: refuse one older than 5 minutes', '1732450000'),
    WebhookSignature: header('webhook-signature', 'Space-separated `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per signing secret (two during a rotation)', 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='),
  }
  const responses = {
    WebhookReceived: { description: 'Received. Any 2xx counts; anything else (a 3xx included: redirects are not followed) or no answer within 10 s is retried for about 3 days' },
  }
  const webhooks = Object.fromEntries(
    Object.entries(EVENT_BODIES).flatMap(([name, { types }]) =>
      types.map((type) => [
        type,
        {
          post: {
            operationId: `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Event`,
            summary: type,
            description: `${descriptions[type]}\n\nVerify the signature before trusting the body (see \`verifyWebhook\` in \`adoption-store/client\`), answer 2xx within 10 s, and deduplicate by \`webhook-id\`: delivery is at least once.`,
            tags: ['webhooks'],
            parameters: Object.keys(parameters).map((id) => ({ $ref: `#/components/parameters/${id}` })),
            requestBody: { required: true, content: { 'application/json': { schema: ref(name) } } },
            responses: { '200': { $ref: '#/components/responses/WebhookReceived' } },
            security: [],
          },
        },
      ]),
    ),
  )
  return { webhooks, schemas, parameters, responses }
}

// Recovery, replay and the event list.

const rangeTime = (description: string, example: string) => Type.String({ format: 'date-time', description, examples: [example] })

export const RecoverSchema = Type.Object(
  {
    since: rangeTime('Recover the deliveries that failed and were created at or after this time; within the retention period (30 days by default)', '2026-11-01T00:00:00Z'),
    until: Type.Optional(rangeTime('…and before this time (default: now)', '2026-11-02T00:00:00Z')),
  },
  { additionalProperties: false, examples: [{ since: '2026-11-01T00:00:00Z' }] },
)

export const ReplaySchema = Type.Object(
  {
    since: rangeTime('Replay the events that happened at or after this time; within the retention period (30 days by default)', '2026-11-01T00:00:00Z'),
    until: Type.Optional(rangeTime('…and before this time (default: now)', '2026-11-02T00:00:00Z')),
  },
  { additionalProperties: false, examples: [{ since: '2026-11-01T00:00:00Z' }] },
)

export const QueuedSchema = Type.Object(
  { queued: Type.Integer({ minimum: 0, description: 'How many deliveries were queued: one per event, due now, each with a full schedule of attempts and the event\'s `webhook-id`' }) },
  { additionalProperties: false, description: 'What was queued' },
)

export const WebhookEventSchema = Type.Object(
  {
    id: Type.String({ description: 'The event id, sent as `webhook-id`', examples: ['msg_2KWPBgLlAfxdpx2AI54pPJ85'] }),
    type: Type.String({ description: 'The event type', examples: ['pet.created'] }),
    createdAt: Type.String({ format: 'date-time', description: 'When the event happened' }),
    data: Type.Object({}, { additionalProperties: true, description: "The event's `data`, as sent (see the public document's `webhooks`)" }),
  },
  { additionalProperties: false, description: 'An event of the project, as its endpoints receive it' },
)

export type WebhookEvent = Static<typeof WebhookEventSchema>

export const WebhookEventsSchema = Type.Array(WebhookEventSchema, { description: 'Events, newest first' })

export const EventQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, default: 20, description: 'Maximum number of events returned', examples: [20] })),
    before: Type.Optional(
      Type.String({ minLength: 1, maxLength: 40, description: 'Cursor: only events older than this one (its id). Follow the `Link: rel="next"` header instead of building it.', examples: ['msg_2KWPBgLlAfxdpx2AI54pPJ85'] }),
    ),
    type: Type.Optional(StringEnum([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE], { description: 'Only events of this type', examples: ['pet.created'] })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Only events that happened at or after this time', examples: ['2026-11-01T00:00:00Z'] })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Only events that happened before this time; after `since`', examples: ['2026-11-02T00:00:00Z'] })),
  },
  { additionalProperties: false },
)
