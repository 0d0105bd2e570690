/**
 * The event catalogue: every event type a webhook endpoint can subscribe to, and when it fires.
 * The admin API's `types`, the CLI's `--types`, the OpenAPI `webhooks` section and the docs take
 * their values from here.
 */
export const WEBHOOK_EVENTS = {
  'pet.created': 'An animal was added (POST /v1/pets, the dashboard, an import).',
  'pet.updated': "An animal's name, category or profile was changed (its status moves with orders: see the order events).",
  'pet.deleted': 'An animal was removed.',
  'pet.photo_added': 'A photo of an animal was added, with the addresses of its files.',
  'pet.photo_removed': "A photo of an animal was removed (its files are no longer served).",
  'order.placed': 'An adoption order was placed; its animal is now pending.',
  'order.approved': 'An adoption order was approved.',
  'order.delivered': 'An adoption order was delivered; its animal is sold.',
  'order.cancelled': 'An adoption order was cancelled; its animal is available again.',
  'key.created': 'An API key was created (never its secret).',
  'key.revoked': 'An API key was revoked.',
  'key.expiring': 'An API key expires in 7 days or less (sent once), and again in 1 day or less (once).',
  'quota.warning': "80 % of the project's daily request limit is used (once per UTC day).",
  'quota.exhausted': "The project's daily request limit is used up (once per UTC day).",
  'ban.started': 'An API key was banned for ignoring 429 answers.',
  'ban.lifted': "An operator lifted an API key's ban.",
  'domain.verified': 'A custom domain passed its DNS check.',
  'domain.failed': 'A custom domain failed its DNS check (sent when it starts failing).',
  'certificate.issued': "A custom domain's certificate was issued or renewed.",
  'certificate.failing': "Obtaining or renewing a custom domain's certificate failed (sent when it starts failing).",
  'endpoint.disabled':
    "A webhook endpoint of the project was disabled: by the service after every attempt failed for 5 days, or by a person. Sent to the project's other endpoints that subscribe to it (never to the disabled one).",
  'user.added': "A dashboard user (an owner or a viewer) was given access to the project: created with it, or given it.",
  'user.removed': 'A dashboard user lost access to the project: it was taken from them, or they were deleted.',
  'project.plan_changed': "An operator changed the project's plan or its limits, with the plan before and after (a change to the plan and limits it has sends nothing).",
} as const

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS

export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[]

/** The event "send test event" sends: to one endpoint, whatever it subscribes to. */
export const TEST_EVENT_TYPE = 'webhook.test'

/** Subscribes to every event type, present and future. */
export const ALL_EVENTS = '*'
