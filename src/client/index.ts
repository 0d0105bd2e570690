/**
 * `adoption-store/client`: a typed client of the Adoption Store API, with retries that honour
 * Retry-After, automatic idempotency keys, rate-limit state and pagination. Types come from the
 * committed OpenAPI document (`npm run client:types`). It uses the global `fetch`; `verifyWebhook` checks the
 * events of webhook endpoints with the `standardwebhooks` library.
 */
export {
  AdoptionStoreClient,
  type Breed,
  type CallOptions,
  type Category,
  type ClientOptions,
  createClient,
  type Environment,
  type ErrorBody,
  type IdempotentCallOptions,
  type ListLocationsQuery,
  type ListOrdersQuery,
  type ListPetChangesQuery,
  type ListPetsQuery,
  type Location,
  type NewOrder,
  type NewPet,
  type Order,
  type OrderStatus,
  type Page,
  type Pet,
  type PetChanges,
  type PetFeedEntry,
  type PetStatus,
  type RateLimitState,
} from './client.js'
export { AdoptionStoreError, type AdoptionStoreErrorCode, ApiKeyBannedError, type ClientErrorCode, isAdoptionStoreError, RateLimitedError } from './errors.js'
export { backoffMs, type Clock, parseRetryAfter, RETRY_DEFAULTS, retryDelayMs, type RetryEvent, type RetryOptions, systemClock } from './retry.js'
export { type components, type ErrorCode, errorCodes, type operations, type paths, servers } from './schema.js'
export { verifyWebhook, type WebhookEvent, type WebhookEventType, type WebhookHeaders, WebhookVerificationError } from './webhooks.js'
