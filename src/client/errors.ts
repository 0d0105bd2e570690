import type { ErrorCode } from './schema.js'

/**
 * Codes the client adds to the service's catalog, for failures that have no error body:
 * - `network_error`: no response (connection refused or reset, DNS, TLS, a timeout of one attempt);
 * - `unexpected_response`: a response that is not the service's (an error that is not
 *   `{ code, message, status }` JSON, e.g. a proxy's 502 page, or a success that is not JSON).
 */
export type ClientErrorCode = 'network_error' | 'unexpected_response'

/** A code of the service's error catalog, one of the client's own, or a code newer than this client. */
export type AdoptionStoreErrorCode = ErrorCode | ClientErrorCode | (string & {})

export interface AdoptionStoreErrorDetails {
  code: AdoptionStoreErrorCode
  message: string
  /** The HTTP status; 0 when there was no response. */
  status: number
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  retryAfter?: number | undefined
  /** When a ban ends (`api_key_banned` only). */
  bannedUntil?: Date | undefined
  /** The response's `X-Request-Id`, to quote to the operator. */
  requestId?: string | undefined
  /** How many requests this call sent, retries included. */
  attempts?: number
  cause?: unknown
}

/** Every failure of a client call: the service's `{ code, message, status }`, or one of the client's own codes. */
export class AdoptionStoreError extends Error {
  override name = 'AdoptionStoreError'
  readonly code: AdoptionStoreErrorCode
  readonly status: number
  readonly retryAfter: number | undefined
  /** When the key's ban ends: set for `api_key_banned` only. */
  readonly bannedUntil: Date | undefined
  readonly requestId: string | undefined
  /** How many requests this call sent, retries included. */
  attempts: number

  constructor(details: AdoptionStoreErrorDetails) {
    super(details.message, details.cause === undefined ? undefined : { cause: details.cause })
    this.code = details.code
    this.status = details.status
    this.retryAfter = details.retryAfter
    this.bannedUntil = details.bannedUntil
    this.requestId = details.requestId
    this.attempts = details.attempts ?? 1
  }
}

/**
 * 429 `rate_limited`: the project's plan is used up for the current window. Thrown when the
 * retries allowed (attempts, total time) could not get the call through, or for calls that are
 * never retried (approve, deliver, cancel).
 */
export class RateLimitedError extends AdoptionStoreError {
  override name = 'RateLimitedError'
  declare readonly code: 'rate_limited'
}

/**
 * 429 `api_key_banned`: the key sent too many requests while rate limited and is refused until
 * `bannedUntil`. Never retried: every request before then would only be refused again.
 */
export class ApiKeyBannedError extends AdoptionStoreError {
  override name = 'ApiKeyBannedError'
  declare readonly code: 'api_key_banned'
  /** When the ban ends: the response's time plus `Retry-After`. */
  declare readonly bannedUntil: Date

  constructor(details: AdoptionStoreErrorDetails & { bannedUntil: Date }) {
    super(details)
  }
}

export function isAdoptionStoreError(error: unknown): error is AdoptionStoreError {
  return error instanceof AdoptionStoreError
}
