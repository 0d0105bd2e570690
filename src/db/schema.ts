import type { Generated, Insertable, Kysely, Selectable } from 'kysely'

/** What the enumerated columns may hold: each list is the one definition of its values. */
/** Every plan, cheapest first: the plan column and the API's `plan` take their type from it. */
export const PLANS = ['free', 'pro', 'business', 'enterprise'] as const
/**
 * What an API key may be given (`api_keys.scopes`): reading or changing the animals (with their
 * photos, categories, breeds and locations), reading or changing the adoption orders.
 */
export const API_SCOPES = ['pets:read', 'pets:write', 'orders:read', 'orders:write'] as const
export type ApiScope = (typeof API_SCOPES)[number]
/** Every status of an animal: the status column takes its type from it. */
export const PET_STATUSES = ['available', 'pending', 'sold'] as const
/** Every status of an order: the status column takes its type from it. */
export const ORDER_STATUSES = ['placed', 'approved', 'delivered', 'cancelled'] as const
/** Every state of a domain's DNS verification, and of its certificate: their columns take their types from them. */
export const DOMAIN_STATES = ['pending', 'verified', 'failed'] as const
export const CERTIFICATE_STATES = ['pending', 'issuing', 'issued', 'failed', 'renewing'] as const
/** Every role: the role column (src/db/schema.ts), the API's `role` and the CLI's `--role` take it from here. */
export const USER_ROLES = ['operator', 'owner', 'viewer'] as const
/** Who can make a change the audit log records: a signed-in user, the ADMIN_TOKEN bearer, the CLI, the service itself, an API key (/v1), or someone anonymous (the adoption site, a failed sign-in). */
export const ACTOR_KINDS = ['user', 'admin_token', 'cli', 'system', 'api_key', 'anonymous'] as const
/** Every state of a webhook delivery: its column takes its type from it. */
export const DELIVERY_STATES = ['pending', 'succeeded', 'failed'] as const

/** The query builder over the database. */
export type Db = Kysely<Database>

/**
 * The one description of the database. Columns are snake_case; rows become API shapes in each
 * feature's `toXxx` function. Times are ISO-8601 UTC strings (`Date#toISOString`), which sort
 * and compare correctly as text on every dialect.
 */
export interface Database {
  projects: ProjectTable
  api_keys: ApiKeyTable
  pets: PetTable
  pet_photos: PetPhotoTable
  categories: CategoryTable
  locations: LocationTable
  pet_changes: PetChangeTable
  pet_search_words: PetSearchWordTable
  idempotency_keys: IdempotencyKeyTable
  api_key_bans: ApiKeyBanTable
  orders: OrderTable
  site_settings: SiteSettingsTable
  site_keys: SiteKeyTable
  domains: DomainTable
  certificates: CertificateTable
  acme_challenges: AcmeChallengeTable
  acme_accounts: AcmeAccountTable
  routing_state: RoutingStateTable
  users: UserTable
  user_projects: UserProjectTable
  sessions: SessionTable
  sign_in_counters: SignInCounterTable
  usage_minutes: UsageMinuteTable
  cache_generations: CacheGenerationTable
  audit_entries: AuditEntryTable
  webhook_endpoints: WebhookEndpointTable
  webhook_subscriptions: WebhookSubscriptionTable
  webhook_events: WebhookEventTable
  webhook_deliveries: WebhookDeliveryTable
  webhook_attempts: WebhookAttemptTable
}

// Each enumeration is listed once, where its feature lives; its columns take the type of the list.
export type Plan = (typeof PLANS)[number]
export type PetStatus = (typeof PET_STATUSES)[number]
export type OrderStatus = (typeof ORDER_STATUSES)[number]

export interface ProjectTable {
  id: Generated<number>
  slug: string
  plan: Plan
  /** Only for the enterprise plan: its agreed limits. */
  per_minute: number | null
  per_day: number | null
  created_at: string
  /** 1 when an operator lets the project's webhook endpoints reach WEBHOOK_ALLOWED_NETWORKS. */
  webhook_private_networks: Generated<number>
}

export interface ApiKeyTable {
  /** Public identifier, `key_<random>`; safe to show and log. */
  id: string
  project_id: number
  /** The first characters of the secret, to recognise a key in lists. */
  prefix: string
  /** SHA-256 of the whole secret, hex. The secret itself is never stored. */
  hash: string
  name: string | null
  created_at: string
  last_used_at: string | null
  expires_at: string | null
  revoked_at: string | null
  /** The key's scopes, space-separated (`API_SCOPES`); null: full access (every key made before scopes). */
  scopes: string | null
  /** 1 for a publishable key (read-only, for web pages, answered with CORS headers for its origins). */
  publishable: number
  /** A publishable key's allowed origins, space-separated exact `scheme://host[:port]`; null for other keys. */
  allowed_origins: string | null
}

export interface PetTable {
  id: Generated<number>
  project_id: number
  name: string
  category_id: number
  status: PetStatus
  created_at: string
  /**
   * The name in lower case (`String#toLowerCase`), for the name search: folded by the service, so
   * the search matches alike on every dialect. Null only on rows written before migration 0009
   * and not since (the search then folds the name itself).
   */
  name_folded: string | null
  /**
   * The last change of the animal (its creation at first), by the service's clock. Null only on
   * a row written by other means than the service (read as its `created_at`).
   */
  updated_at: string | null
  /** The profile as the API shows it (src/pets/profile.ts), JSON; null: none. */
  profile: string | null
  /** The shelter's own identifier of the animal, unique in the project. */
  external_id: string | null
  // What filters and sorts read, written from the profile with it (src/pets/profile.ts).
  sex: string | null
  age_group: string | null
  size: string | null
  coat: string | null
  good_with_children: string | null
  good_with_dogs: string | null
  good_with_cats: string | null
  /** Attributes: 1 yes, 0 no, null not said. */
  spayed_neutered: number | null
  house_trained: number | null
  vaccinated: number | null
  microchipped: number | null
  special_needs: number | null
  /** Breed names folded like `name_folded`. */
  breed_primary_key: string | null
  breed_secondary_key: string | null
  location_id: number | null
  /** The tags folded, each between bars (`|calm|senior|`), for the tag filter. */
  tags_key: string | null
  /** Name, breeds, description and tags as plain folded tokens: what the full-text indexes read. */
  search_text: string | null
  /** The animal's photos in order as answers show them (src/photos/photos.schemas.ts), JSON, written from `pet_photos`; null: none. */
  photos: string | null
}

/** A photo of an animal, visible (and served) once its row is committed, every variant stored before. */
export interface PetPhotoTable {
  /** Random, base64url: part of every address of the photo's files. */
  id: string
  project_id: number
  pet_id: number
  /** 0 is the main photo. */
  position: number
  width: number
  height: number
  /** SHA-256 (hex) of the bytes uploaded. */
  hash: string
  /** JSON: the stored variants (src/photos/photos.schemas.ts `StoredPhoto`). */
  variants: string
  created_at: string
}

/** A project's own name (and breeds) for a category id; the default names are in code (src/categories). */
export interface CategoryTable {
  project_id: number
  id: number
  name: string
  /** JSON array of breed names, added to the category's shipped list. */
  breeds: string | null
  created_at: string
  updated_at: string
}

/** A project's place: a shelter site, a foster area. */
export interface LocationTable {
  id: Generated<number>
  project_id: number
  name: string
  /** JSON: the address as the API shows it; null: none. */
  address: string | null
  latitude: number | null
  longitude: number | null
  created_at: string
  updated_at: string
}

/**
 * The change feed: each animal once, at its latest change, written by triggers on `pets`
 * (migration 0012). Ordered by `(txid, seq)`; see src/pets/pet-changes.repository.ts.
 */
export interface PetChangeTable {
  project_id: number
  pet_id: number
  /** PostgreSQL: the id of the writing transaction; SQLite: 0. */
  txid: number
  seq: number
  /** 1 for a removal (a tombstone). */
  removed: number
  changed_at: string
}

/**
 * PostgreSQL only: every word the animals of a project have had (their `search_text`), written by
 * triggers on `pets` (migration 0015). A search asks the full-text index for the words a query
 * word starts; see src/pets/pets.repository.ts. A word may be listed twice.
 */
export interface PetSearchWordTable {
  project_id: number
  word: string
}

export interface IdempotencyKeyTable {
  project_id: number
  key: string
  /** SHA-256 of the operation and its body, to tell a retry from a reuse. */
  request_hash: string
  state: 'in_flight' | 'done'
  response_status: number | null
  response_body: string | null
  created_at: string
}

export interface ApiKeyBanTable {
  key_id: string
  /** 0 for a first ban, +1 for each repeat; the length doubles with each level. */
  level: number
  banned_at: string
  until: string
}

/**
 * A request to adopt one animal; its status moves the animal's (see orders.service.ts). An order
 * outlives its animal: `pet_id` is no reference, and stays the id of a removed animal.
 */
export interface OrderTable {
  id: Generated<number>
  project_id: number
  pet_id: number
  status: OrderStatus
  created_at: string
  updated_at: string
  /** The animal's name, copied when the animal is removed; null while it exists. */
  pet_name: string | null
  /** Who asked through the adoption site's enquiry form; null for orders placed through the API. */
  enquiry_name: Generated<string | null>
  enquiry_email: Generated<string | null>
  enquiry_phone: Generated<string | null>
  enquiry_message: Generated<string | null>
}

/** A project's adoption site; no row: published, with the defaults. */
export interface SiteSettingsTable {
  project_id: number
  /** 1: the site is served on the project's hosts; 0: only the API. */
  published: number
  display_name: string | null
  logo_url: string | null
  /** `#rrggbb`. */
  primary_color: string | null
  about: string | null
  contact_email: string | null
  contact_phone: string | null
  updated_at: string
}

/** The secret the adoption site's form tokens are signed with: one row (id 1) for the service. */
export interface SiteKeyTable {
  id: number
  /** 32 random bytes, hex. */
  secret: string
  created_at: string
}

export type DomainState = (typeof DOMAIN_STATES)[number]
export type CertificateState = (typeof CERTIFICATE_STATES)[number]

/** A project's custom domain: its DNS verification and its certificate, each with a state (see src/domains). */
export interface DomainTable {
  id: Generated<number>
  project_id: number
  /** ASCII (IDNA) form, lowercase, no trailing dot. */
  name: string
  /** 1 for a registrable domain (ALIAS/ANAME, compared by addresses), 0 for a subdomain (CNAME). */
  apex: number
  is_primary: Generated<number>
  /** This domain answers 301 to the same path on `redirect_to`. */
  redirect_to: string | null
  redirect_status: number | null
  state: DomainState
  reason: string | null
  checks: Generated<number>
  /** Start of the current verification schedule (added or re-verified): sets the backoff. */
  checks_since: string
  checked_at: string | null
  next_check_at: string | null
  verified_at: string | null
  cert_state: CertificateState
  cert_reason: string | null
  cert_attempts: Generated<number>
  cert_checked_at: string | null
  cert_next_at: string | null
  lease_holder: string | null
  lease_until: string | null
  created_at: string
}

export interface CertificateTable {
  domain_id: number
  /** The leaf certificate and its chain, PEM. */
  certificate_pem: string
  /** The private key, encrypted (see src/secret-box.ts). */
  private_key: string
  not_before: string
  not_after: string
  renew_at: string
  issued_at: string
}

export interface AcmeChallengeTable {
  token: string
  domain_id: number
  host: string
  key_authorization: string
  created_at: string
}

export interface AcmeAccountTable {
  directory_url: string
  private_key: string
  account_url: string | null
  created_at: string
}

export interface RoutingStateTable {
  id: number
  generation: number
}

/** Per project and UTC minute, what its `/v1` traffic came to; every instance adds its counts (see src/usage). */
export interface UsageMinuteTable {
  project_id: number
  /** The minute's start, `Date#toISOString` form. */
  minute: string
  /** `/v1` requests answered with a valid key of the project. */
  requests: number
  /** Of those, the 429s. */
  limited: number
  /** Bans of the project's keys that started. */
  bans: number
}

export type UserRole = (typeof USER_ROLES)[number]

/** A person who signs in to the dashboard (see src/accounts). */
export interface UserTable {
  id: Generated<number>
  /** Lowercase. */
  email: string
  /** scrypt, in the self-describing form of src/accounts/passwords.ts. Never the password. */
  password_hash: string
  role: UserRole
  created_at: string
  /** Set while the user is disabled: they cannot sign in and have no session. */
  disabled_at: string | null
  /** The last time they signed in. */
  last_signed_in_at: string | null
  /**
   * Set while `password_hash` is of a one-time password (from creation or a reset) its user has not
   * replaced: until this instant it only lets them choose their own at sign-in. Null otherwise.
   */
  one_time_password_expires_at: string | null
}

/** The projects an owner belongs to. */
export interface UserProjectTable {
  user_id: number
  project_id: number
}

export interface SessionTable {
  /** SHA-256 (hex) of the cookie's token; the token itself is never stored. */
  id: string
  user_id: number
  /** The value state changes made with this session must send as X-CSRF-Token. */
  csrf_token: string
  created_at: string
  expires_at: string
}

/** Sign-in throttling: attempts or failures of one subject in one time window. */
export interface SignInCounterTable {
  /** SHA-256 (hex) of the subject and its window. */
  key: string
  count: number
  expires_at: string
}

/**
 * SQLite only: a counter per scope (`auth`, `data:<project id>`) that triggers bump on every
 * write a cached answer depends on (see src/cache/generations.ts).
 */
export interface CacheGenerationTable {
  scope: string
  value: number
}

export type ActorKind = (typeof ACTOR_KINDS)[number]

/** One change: made through the admin API, the dashboard, the CLI or /v1, or by the service itself (see src/audit). */
export interface AuditEntryTable {
  id: Generated<number>
  at: string
  actor_kind: ActorKind
  /** The user who made it, for a `user` actor; kept when the user is deleted. */
  actor_user_id: number | null
  /** The user's email, `ADMIN_TOKEN`, `cli:<system user>`, `system`, `key:<key id>` or `anonymous`, as it was at the time. */
  actor_name: string
  /** The API key's public id (never its secret), for an `api_key` actor. */
  actor_key_id: string | null
  action: string
  target_type: string
  target_id: string
  /** The project the change belongs to, when it belongs to one. */
  project_id: number | null
  /** The X-Request-Id of the admin request, or the CLI invocation's id. */
  request_id: string | null
  /** JSON: what changed. Never a secret. */
  details: string
}

export type DeliveryState = (typeof DELIVERY_STATES)[number]

/** A project's receiver of events (see src/webhooks). */
export interface WebhookEndpointTable {
  /** Public identifier, `ep_<random>`. */
  id: string
  project_id: number
  url: string
  description: string | null
  /** 1 or 0. */
  enabled: number
  /** Why it was disabled, when the service disabled it (failing for days) or an operator gave one. */
  disabled_reason: string | null
  /** The signing secret (`whsec_…`), sealed (src/secret-box.ts). */
  secret: string
  /** The secret before the last rotation, sealed: it signs too until `previous_secret_until`. */
  previous_secret: string | null
  previous_secret_until: string | null
  /** Since when every attempt failed; null after a success. */
  failing_since: string | null
  created_at: string
  updated_at: string
}

export interface WebhookSubscriptionTable {
  endpoint_id: string
  /** An event type, or `*` for all. */
  event_type: string
}

/** The outbox: an event, written in the transaction of the change it reports. */
export interface WebhookEventTable {
  /** `msg_<random>`: the `webhook-id` of every attempt. */
  id: string
  project_id: number
  type: string
  /** JSON: the event's `data`. */
  data: string
  created_at: string
  /** Makes an event that no row change carries happen once (`quota.warning:<project>:<day>`). */
  dedupe_key: string | null
}

/** One event for one endpoint: its attempts, lease and outcome. */
export interface WebhookDeliveryTable {
  id: Generated<number>
  event_id: string
  endpoint_id: string
  project_id: number
  state: DeliveryState
  /** 1: a redelivery or test event asked for by a person, attempted once. */
  manual: number
  attempts: number
  /** When the next attempt is due; null once the delivery succeeded or gave up. */
  next_attempt_at: string | null
  lease_holder: string | null
  lease_until: string | null
  last_attempt_at: string | null
  /** The HTTP status of the last attempt; null when no answer came. */
  last_status: number | null
  last_error: string | null
  last_latency_ms: number | null
  /** The first KiB at most of the last answer's body. */
  response_excerpt: string | null
  created_at: string
  completed_at: string | null
}

/** One attempt of a delivery: what was sent and what came back. */
export interface WebhookAttemptTable {
  id: Generated<number>
  delivery_id: number
  attempted_at: string
  /** The HTTP status; null when no answer came. */
  status: number | null
  duration_ms: number
  /** The first KiB at most of the answer's body. */
  response_excerpt: string | null
  error: string | null
  /** JSON object of the headers sent (never a secret); null when nothing was sent. */
  request_headers: string | null
  /** The body sent; null when nothing was sent. */
  request_body: string | null
}

export type ProjectRow = Selectable<ProjectTable>
export type ApiKeyRow = Selectable<ApiKeyTable>
export type PetRow = Selectable<PetTable>
export type NewPetRow = Insertable<PetTable>
export type CategoryRow = Selectable<CategoryTable>
export type LocationRow = Selectable<LocationTable>
export type PetChangeRow = Selectable<PetChangeTable>
export type IdempotencyKeyRow = Selectable<IdempotencyKeyTable>
export type ApiKeyBanRow = Selectable<ApiKeyBanTable>
export type OrderRow = Selectable<OrderTable>
export type SiteSettingsRow = Selectable<SiteSettingsTable>
export type DomainRow = Selectable<DomainTable>
export type CertificateRow = Selectable<CertificateTable>
export type UserRow = Selectable<UserTable>
export type SessionRow = Selectable<SessionTable>
export type AuditEntryRow = Selectable<AuditEntryTable>
export type WebhookEndpointRow = Selectable<WebhookEndpointTable>
export type WebhookEventRow = Selectable<WebhookEventTable>
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>
export type WebhookAttemptRow = Selectable<WebhookAttemptTable>
