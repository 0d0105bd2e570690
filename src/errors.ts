import type { FastifyError } from 'fastify'
import { Type, type Static } from 'typebox'
import { isDatabaseUnavailable, isStorageFull } from './db/errors.js'

/**
 * The error catalog: every error the service answers with, its HTTP status, and what it means.
 * Codes are stable lower snake_case strings; clients branch on them, so never rename one.
 */
export const ERROR_CATALOG = {
  invalid_request: { status: 400, summary: 'The request is malformed or a value is out of range; the message names the field.' },
  unauthorized: { status: 401, summary: 'The API key is missing, malformed, unknown, revoked, expired or for the other environment.' },
  forbidden: { status: 403, summary: 'Your role does not allow this action: it is for operators.' },
  csrf_failed: { status: 403, summary: 'A signed-in change came without the session\'s X-CSRF-Token header, or with another one.' },
  insufficient_scope: { status: 403, summary: "The API key's scopes do not include this operation's; the message names the scope it needs. Create a key with that scope." },
  origin_not_allowed: { status: 403, summary: "A publishable key was sent from a web page whose origin is not one of the key's allowed origins (no CORS headers are sent)." },
  plan_required: { status: 403, summary: "The project's plan does not include this feature; the message names the plan needed." },
  own_account: { status: 403, summary: 'Operators cannot disable, delete or reset their own account: another operator can, or the CLI.' },
  password_change_required: { status: 403, summary: 'The password is a one-time password: sign in again with your own as newPassword.' },
  wrong_password: { status: 403, summary: 'The current password sent is not the account\'s password.' },
  not_found: { status: 404, summary: 'No such route, or no such resource in your project.' },
  unknown_host: { status: 404, summary: 'No project is served at the requested host (an unknown, unverified or removed domain).' },
  method_not_allowed: { status: 405, summary: 'The route exists but not for this method; see the Allow header.' },
  request_timeout: { status: 408, summary: 'The headers did not arrive within 10 s, or the whole request within 30 s; the connection is closed. Sent before any operation is known, so not listed per operation.' },
  idempotency_in_flight: { status: 409, summary: 'A request with this Idempotency-Key is still being processed; retry later.' },
  pet_unavailable: { status: 409, summary: 'The animal is not available for adoption (it is pending or sold).' },
  invalid_transition: { status: 409, summary: "The order's status does not allow this move." },
  external_id_taken: { status: 409, summary: 'Another animal of the project already has this `externalId`.' },
  location_in_use: { status: 409, summary: 'Animals are at this location: move them to another location (or none) before removing it.' },
  limit_reached: { status: 409, summary: 'The project has as many of these as it may have; the message names the limit.' },
  pet_has_open_order: { status: 409, summary: 'The animal has an open adoption order (placed or approved): deliver or cancel it before removing the animal.' },
  domain_taken: { status: 409, summary: 'The domain is already added, to this project or to another one.' },
  domain_conflict: { status: 409, summary: "The change conflicts with the project's other domain settings; the message says which." },
  slug_taken: { status: 409, summary: 'A project with this slug already exists: choose another slug.' },
  email_taken: { status: 409, summary: 'A user with this email already exists (emails compare without case).' },
  rotation_in_progress: { status: 409, summary: "The endpoint's previous secret still signs (a rotation's overlap): rotate after it ends, or with overlapHours 0; the message says when it ends." },
  endpoint_disabled: { status: 409, summary: 'The webhook endpoint is disabled, so nothing is sent to it: enable it first, then recover or replay its events.' },
  last_operator: { status: 409, summary: 'The change would leave no enabled operator: enable or create another operator first.' },
  gone: { status: 410, summary: 'The operation has passed its sunset date and was removed.' },
  payload_too_large: { status: 413, summary: 'The body exceeds the size limit.' },
  image_too_large: { status: 413, summary: "The photo has more pixels than the limit (read from its header, before it is decoded); the message names the limit." },
  uri_too_long: { status: 414, summary: 'The URL (path and query string) is longer than 8 KiB.' },
  unsupported_media_type: { status: 415, summary: 'The body must be sent as application/json.' },
  unsupported_image_type: { status: 415, summary: "The photo is not JPEG, PNG, WebP, AVIF or GIF, as its bytes say (HEIC, SVG, an archive…); the message names what it looks like." },
  range_not_satisfiable: { status: 416, summary: "A photo file's Range starts past its end; Content-Range gives its size." },
  idempotency_key_reused: { status: 422, summary: 'This Idempotency-Key was used with a different body.' },
  invalid_image: { status: 422, summary: 'The photo is of an accepted type but cannot be read: it is truncated or corrupt.' },
  rate_limited: { status: 429, summary: "The project's plan limit for the current window is used up; see Retry-After." },
  api_key_banned: { status: 429, summary: 'The key is temporarily banned for ignoring 429 answers; see Retry-After.' },
  headers_too_large: { status: 431, summary: 'The request line and headers together exceed 16 KiB; the connection is closed. Sent before any operation is known, so not listed per operation.' },
  internal_error: { status: 500, summary: 'An unexpected error; it was logged with the request id.' },
  service_unavailable: { status: 503, summary: "A dependency is unavailable, the service's storage is full (writes only), or the instance is shutting down; retry after Retry-After seconds." },
} as const satisfies Record<string, { status: number; summary: string }>

export type ErrorCode = keyof typeof ERROR_CATALOG

export const ErrorSchema = Type.Object(
  {
    code: Type.String({ description: 'Machine-readable error code, one of the error catalog', examples: ['invalid_request'] }),
    message: Type.String({ description: 'What was wrong and how to fix it' }),
    status: Type.Integer({ description: 'The HTTP status code, repeated' }),
  },
  { $id: 'Error', additionalProperties: false, description: 'The error envelope of every non-2xx response' },
)

export type ErrorBody = Static<typeof ErrorSchema>

/** An error the client can act on: thrown by routes and hooks, rendered by the one error handler. */
export class ApiError extends Error {
  readonly status: number
  readonly code: ErrorCode
  readonly headers: Readonly<Record<string, string>>

  constructor(code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    // The client's mistake, not the code's: a stack trace would tell nothing, and capturing one
    // costs more than the rest of a 401 or 429 answer.
    const stackTraceLimit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = stackTraceLimit
    this.code = code
    this.headers = headers
    this.status = ERROR_CATALOG[code].status
  }

  /** The envelope; a message quoting what the client sent never repeats an API key past its prefix. */
  toBody(): ErrorBody {
    // Built once: the same error (a shared 401) may be sent many times.
    return (this.body ??= { code: this.code, message: redactApiKeys(this.message), status: this.status })
  }

  private body: ErrorBody | undefined
}

/**
 * An expected failure of a service operation, as a value: what went wrong, and a message for
 * whoever asked (an API client or an operator at the CLI). The failures the HTTP API answers are
 * named by their catalog code, so no route keeps a map of its own.
 */
export interface Failure<C extends string = ErrorCode> {
  ok: false
  error: C
  message: string
}

/** What a service operation answers: its result, or one of its expected failures. */
export type Outcome<T, C extends ErrorCode = ErrorCode> = ({ ok: true } & T) | Failure<C>

/**
 * A failure found inside a transaction: thrown to undo it, and answered as its `failure` by the
 * service that started the transaction (never past it).
 */
export class Refusal extends Error {
  constructor(readonly failure: Failure) {
    super(failure.message)
  }
}

/** Ends a transaction's work with an expected failure (see Refusal). */
export function refuse(error: ErrorCode, message: string): never {
  throw new Refusal({ ok: false, error, message })
}

/** The result of a service operation; a failure is thrown as the catalog error it names. */
export function orThrow<R extends { ok: true } | Failure>(result: R): Exclude<R, Failure> {
  if (!result.ok) {
    const { error, message } = result as Failure
    throw new ApiError(error, message)
  }
  return result as Exclude<R, Failure>
}

/** Maps whatever was thrown (ours, Fastify's, a bug) to a catalog error. */
export function toApiError(error: unknown, limits: { bodyLimit: number }): ApiError | undefined {
  if (error instanceof ApiError) return error
  if (isDatabaseUnavailable(error)) {
    return new ApiError('service_unavailable', 'The database is unavailable right now: retry in a moment.', { 'retry-after': '1' })
  }
  if (isStorageFull(error)) return storageFull()
  const fastifyError = error as Partial<FastifyError>
  if (fastifyError.validation) {
    return new ApiError('invalid_request', describeValidation(fastifyError.validation, fastifyError.validationContext))
  }
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', `The body is larger than the limit of ${limits.bodyLimit} bytes.`)
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as JSON with the header Content-Type: application/json.')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('invalid_request', 'The Content-Length header does not match the body.')
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Fastify's status for it is 414, but it is a path parameter out of range: the client's 400.
      return new ApiError('invalid_request', 'A path parameter is too long: path parameters are at most 100 characters.')
  }
  // Other client errors Fastify raises itself (e.g. a malformed URL encoding).
  if (fastifyError.statusCode === 400) return new ApiError('invalid_request', `The request is malformed: ${fastifyError.message ?? 'unknown reason'}.`)
  return undefined
}

/**
 * The Retry-After of a write refused for a full storage. Room is made by a person (files removed,
 * a volume grown), in minutes rather than the second a database takes to come back: retrying
 * every second would only add refused writes. Long enough for that, short enough that a client
 * with the usual two-minute budget (the published client's) still tries again.
 */
export const STORAGE_FULL_RETRY_AFTER_S = 30

/**
 * A write refused because the storage is full: an outage of the storage, 503 as for a database
 * that cannot be reached, not 507 (WebDAV's Insufficient Storage, which no general HTTP client or
 * balancer acts on, and which says the request itself needs more than there is: here any write,
 * however small, would be refused until room is made, and retrying later is the fix). Names no
 * path or device: what is full is the operator's to know, from the log and the metrics.
 */
function storageFull(): ApiError {
  return new ApiError('service_unavailable', `The service's storage is full, so it cannot take changes right now; reads still work. Retry in ${STORAGE_FULL_RETRY_AFTER_S} seconds.`, {
    'retry-after': String(STORAGE_FULL_RETRY_AFTER_S),
  })
}

interface ValidationIssue {
  keyword: string
  instancePath: string
  message?: string
  params: Record<string, unknown>
  parentSchema?: { minimum?: number; maximum?: number; properties?: Record<string, unknown>; 'x-expected'?: string }
}

const PARTS: Record<string, string> = { body: 'body', querystring: 'query parameter', params: 'path parameter', headers: 'header' }

/** Turns the first schema violation into a sentence that names the field and the fix. */
export function describeValidation(issues: readonly ValidationIssue[], context = 'body'): string {
  const issue = issues[0]
  if (!issue) return 'The request is invalid.'
  const part = PARTS[context] ?? context
  const field = issue.instancePath.split('/').filter(Boolean).join('.')
  const subject = field ? (part === 'body' ? `body field "${field}"` : `${part} "${field}"`) : part
  const { keyword, params } = issue
  switch (keyword) {
    case 'required':
      return `${subject === 'body' ? 'The body' : subject} is missing the required ${part === 'body' ? 'field' : part} "${String(params.missingProperty)}".`
    case 'additionalProperties':
      return `Unknown ${part === 'body' ? 'field' : part} "${String(params.additionalProperty)}"${field ? ` in ${subject}` : ''}: remove it.`
    case 'type': {
      const range = issue.parentSchema
      const bounds = range?.minimum !== undefined && range.maximum !== undefined ? ` from ${range.minimum} to ${range.maximum}` : ''
      return `${capitalize(subject)} must be ${article(String(params.type))}${bounds}.`
    }
    case 'enum':
      return `${capitalize(subject)} must be one of: ${(params.allowedValues as unknown[]).join(', ')}.`
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${capitalize(subject)} must be ${String(params.comparison)} ${String(params.limit)}.`
    case 'minLength':
      return `${capitalize(subject)} must be at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'} long.`
    case 'maxLength':
      return `${capitalize(subject)} must be at most ${String(params.limit)} characters long.`
    case 'pattern': {
      const expected = issue.parentSchema?.['x-expected']
      return expected ? `${capitalize(subject)} must be ${expected}.` : `${capitalize(subject)} has an invalid format.`
    }
    case 'format':
      return `${capitalize(subject)} must be ${FORMATS[String(params.format)] ?? `in the format ${String(params.format)}`}.`
    case 'minProperties': {
      const names = Object.keys(issue.parentSchema?.properties ?? {}).map((name) => `"${name}"`)
      // A long list (an animal's profile) is named by its first fields.
      const some = names.length > 4 ? `${names.slice(0, 2).join(', ')} or another of its ${names.length} fields` : names.join(', ')
      return `${capitalize(subject)} changes nothing: send at least one of ${some}.`
    }
    default:
      return `${capitalize(subject)} ${issue.message ?? 'is invalid'}.`
  }
}

/** What a value of each string format the schemas use looks like. */
const FORMATS: Record<string, string> = {
  date: 'a calendar date, YYYY-MM-DD (e.g. 2024-03-01)',
  'date-time': 'an RFC 3339 instant with its offset (e.g. 2026-11-01T00:00:00Z)',
  uri: 'an absolute URL (e.g. https://example.com/)',
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

function article(type: string): string {
  const name = type === 'integer' ? 'an integer' : type === 'object' ? 'a JSON object' : type === 'array' ? 'an array' : `a ${type}`
  return name
}

/**
 * Anything that looks like an API key (the format is in src/auth/api-key.ts; test/errors.test.ts
 * checks that no answer repeats one), whole or cut short, past its display prefix.
 */
const KEY_LIKE = /(as_(?:live|test)_[0-9A-Za-z]{4})[0-9A-Za-z]{4,}(?:_[0-9A-Za-z]*)?/g

/**
 * Text with every key in it cut to its display prefix (`as_live_Ab3x…`): for messages that quote
 * what a client sent (a path, a JSON parser's excerpt), so that no answer ever repeats a secret.
 */
function redactApiKeys(text: string): string {
  return text.includes('as_') ? text.replace(KEY_LIKE, '$1…') : text
}
