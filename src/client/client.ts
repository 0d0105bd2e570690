import { AdoptionStoreError, ApiKeyBannedError, RateLimitedError } from './errors.js'
import { backoffMs, type Clock, parseRetryAfter, resolveRetryOptions, type ResolvedRetryOptions, retryDelayMs, type RetryOptions } from './retry.js'
import { type components, type operations, servers } from './schema.js'

export type Pet = components['schemas']['Pet']
export type NewPet = components['schemas']['NewPet']
/** What `updatePet` changes: `name`, `categoryId` or both; a field left out stays as it is. */
export type PetChanges = components['schemas']['PetChanges']
export type PetStatus = components['schemas']['PetStatus']
export type Order = components['schemas']['Order']
export type NewOrder = components['schemas']['NewOrder']
export type OrderStatus = Order['status']
export type ErrorBody = components['schemas']['Error']
/** A change of the feed (`listPetChanges`): an animal at its latest change, or the tombstone of a removed one. */
export type PetFeedEntry = components['schemas']['PetFeedEntry']
export type Category = components['schemas']['Category']
export type Breed = components['schemas']['Breed']
export type Location = components['schemas']['Location']
/** A photo of an animal: its full size and its files (`variants.webp`, `variants.jpeg`, narrowest first) for `srcset`. */
export type Photo = components['schemas']['Photo']

type QueryOf<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>
/** `limit` has a default (20), so callers may leave it out; the document lists it as required. */
type WithOptionalLimit<Q> = Omit<Q, 'limit'> & { limit?: number }

/** `limit` (1–100, default 20), `status`, and `after`, the cursor: an id (prefer the iterators). */
export type ListPetsQuery = WithOptionalLimit<QueryOf<'listPets'>>
export type ListOrdersQuery = WithOptionalLimit<QueryOf<'listOrders'>>
/** `after`: the `cursor` of the last change applied (none: from the start); `limit` 1–1000 (default 100). */
export type ListPetChangesQuery = WithOptionalLimit<QueryOf<'listPetChanges'>>
export type ListLocationsQuery = WithOptionalLimit<QueryOf<'listLocations'>>

export type Environment = keyof typeof servers

/** One page of a list, and the absolute URL of the next page (from `Link: <…>; rel="next"`), if any. */
export interface Page<T> {
  items: T[]
  next: string | undefined
}

/** The rate-limit headers of the last response that carried them (errors included). */
export interface RateLimitState {
  /** The limit of the binding window (the one with the fewest requests left). */
  limit: number
  remaining: number
  /** When the binding window resets, in Unix seconds. */
  reset: number
}

export interface ClientOptions {
  /** The API key, sent as `Authorization: Bearer <key>`. */
  apiKey: string
  /**
   * The API's base URL, `…/v1` included (a URL without a path gets `/v1`). Default: the
   * `environment`'s server of the OpenAPI document.
   */
  baseUrl?: string | URL
  /** Picks the default `baseUrl` from the document's servers. Default `production`. */
  environment?: Environment
  /** Default: the global `fetch`. */
  fetch?: typeof fetch
  /** Retries of 429, 503 and lost responses; `false` turns them off. */
  retry?: RetryOptions | false
  /** The longest one attempt may wait for its response, in ms. Default 30 000. */
  timeoutMs?: number
}

export interface CallOptions {
  /** Aborts the call, waits included. */
  signal?: AbortSignal
}

export interface IdempotentCallOptions extends CallOptions {
  /**
   * The call's `Idempotency-Key`, sent with every attempt. Default: a new UUID per call. Pass
   * your own to make a call safe to repeat across processes (the service remembers it 24 hours).
   */
  idempotencyKey?: string
}

/**
 * How a call may be repeated: `safe` (reads) and `idempotent` (creates and changes with an
 * Idempotency-Key, removals) are retried on 429, 503 and lost responses; `unsafe` calls (order
 * moves) are never retried.
 */
type Safety = 'safe' | 'idempotent' | 'unsafe'

interface Call {
  operation: keyof operations
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  url: URL
  safety: Safety
  body?: unknown
  /** The body's media type; default `application/json`. */
  contentType?: string
  idempotencyKey?: string
  signal?: AbortSignal | undefined
}

const DEFAULT_TIMEOUT_MS = 30_000

/** A typed client of the Adoption Store API. Create one with `createClient`. */
export class AdoptionStoreClient {
  /** The base URL every path is resolved against, without a trailing slash. */
  readonly baseUrl: string
  readonly #apiKey: string
  readonly #fetch: typeof fetch
  readonly #retry: ResolvedRetryOptions
  readonly #timeoutMs: number
  #rateLimit: RateLimitState | undefined
  /** Until when the service said this key's quota is used up: later calls wait instead of being refused too. */
  #heldUntil = 0

  constructor(options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') throw new TypeError('createClient: apiKey is required')
    const environment = options.environment ?? 'production'
    if (!Object.hasOwn(servers, environment)) throw new TypeError(`createClient: environment must be one of ${Object.keys(servers).join(', ')}`)
    this.baseUrl = normalizeBaseUrl(options.baseUrl ?? servers[environment])
    this.#apiKey = options.apiKey.trim()
    this.#fetch = options.fetch ?? globalThis.fetch
    this.#retry = resolveRetryOptions(options.retry)
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  }

  /** The rate-limit state of the last response, or undefined before the first. */
  get rateLimit(): RateLimitState | undefined {
    return this.#rateLimit && { ...this.#rateLimit }
  }

  /** `GET /pets`: one page of animals, in ascending id order unless `sort` says otherwise; the search's filters in `query`. */
  async listPets(query: ListPetsQuery = {}, options: CallOptions = {}): Promise<Page<Pet>> {
    return this.#page<Pet>('listPets', this.#url('/pets', query), options)
  }

  /** Every animal matching `query`, page after page by `Link: rel="next"`, each exactly once, in the query's order. */
  iteratePets(query: ListPetsQuery = {}, options: CallOptions = {}): AsyncGenerator<Pet, void, undefined> {
    return this.#iterate<Pet>('listPets', this.#url('/pets', query), options, query.sort === undefined || query.sort === 'id')
  }

  /** `GET /pets/changes`: one page of the change feed after `query.after` (from the start without it). */
  async listPetChanges(query: ListPetChangesQuery = {}, options: CallOptions = {}): Promise<Page<PetFeedEntry>> {
    return this.#page<PetFeedEntry>('listPetChanges', this.#url('/pets/changes', query), options)
  }

  /**
   * The change feed after `query.after`, page after page, until it is up to date (a page that is
   * not full): apply each change in order and keep the `cursor` of the last one to resume from.
   */
  async *iteratePetChanges(query: ListPetChangesQuery = {}, options: CallOptions = {}): AsyncGenerator<PetFeedEntry, void, undefined> {
    let url: URL | undefined = this.#url('/pets/changes', query)
    while (url) {
      const page: Page<PetFeedEntry> = await this.#page<PetFeedEntry>('listPetChanges', url, options)
      yield* page.items
      url = page.next === undefined ? undefined : new URL(page.next)
    }
  }

  /** `GET /categories`: the project's categories (the default set as it names them, and its own). */
  async listCategories(options: CallOptions = {}): Promise<Category[]> {
    return this.#json<Category[]>({ operation: 'listCategories', method: 'GET', url: this.#url('/categories'), safety: 'safe', signal: options.signal })
  }

  /** `GET /categories/{categoryId}/breeds`: a category's breeds, in alphabetical order. */
  async listBreeds(categoryId: number, options: CallOptions = {}): Promise<Breed[]> {
    return this.#json<Breed[]>({ operation: 'listBreeds', method: 'GET', url: this.#url(`/categories/${id(categoryId)}/breeds`), safety: 'safe', signal: options.signal })
  }

  /** `GET /locations`: one page of the project's locations, in ascending id order. */
  async listLocations(query: ListLocationsQuery = {}, options: CallOptions = {}): Promise<Page<Location>> {
    return this.#page<Location>('listLocations', this.#url('/locations', query), options)
  }

  /** Every location of the project, page after page. */
  iterateLocations(query: ListLocationsQuery = {}, options: CallOptions = {}): AsyncGenerator<Location, void, undefined> {
    return this.#iterate<Location>('listLocations', this.#url('/locations', query), options)
  }

  /**
   * `POST /pets`: adds an animal. Sent with an `Idempotency-Key` that every retry repeats, so a
   * retried call never adds a second animal.
   */
  async createPet(pet: NewPet, options: IdempotentCallOptions = {}): Promise<Pet> {
    return this.#json<Pet>({ operation: 'createPet', method: 'POST', url: this.#url('/pets'), safety: 'idempotent', body: pet, ...idempotent(options) })
  }

  /**
   * `GET /pets/{petId}`.
   * @deprecated The operation is removed on 5 December 2030: use `listPets`/`iteratePets` with the `status` filter.
   */
  async getPet(petId: number, options: CallOptions = {}): Promise<Pet> {
    return this.#json<Pet>({ operation: 'getPet', method: 'GET', url: this.#url(`/pets/${id(petId)}`), safety: 'safe', signal: options.signal })
  }

  /**
   * `PATCH /pets/{petId}`: changes an animal's name, category or both (a JSON Merge Patch); its
   * status follows its orders and cannot be set. Sent with an `Idempotency-Key` that every retry
   * repeats, so a retried call changes nothing twice.
   */
  async updatePet(petId: number, changes: PetChanges, options: IdempotentCallOptions = {}): Promise<Pet> {
    return this.#json<Pet>({
      operation: 'updatePet',
      method: 'PATCH',
      url: this.#url(`/pets/${id(petId)}`),
      safety: 'idempotent',
      body: changes,
      contentType: 'application/merge-patch+json',
      ...idempotent(options),
    })
  }

  /**
   * `DELETE /pets/{petId}`: removes an animal; refused with 409 `pet_has_open_order` while an
   * order of it is placed or approved. Removing is idempotent, so it is retried as a read is; a
   * retry after a lost answer of a removal that did happen answers 404 `not_found`.
   */
  async deletePet(petId: number, options: CallOptions = {}): Promise<void> {
    await this.#send<undefined>({ operation: 'deletePet', method: 'DELETE', url: this.#url(`/pets/${id(petId)}`), safety: 'idempotent', signal: options.signal })
  }

  /**
   * `POST /pets/{petId}/photos`: adds a photo (the image file's bytes: JPEG, PNG, WebP, AVIF or
   * GIF, typed by the service from the bytes) as the animal's last. Never retried: a retry after a
   * lost answer could add it twice.
   */
  async uploadPetPhoto(petId: number, image: Uint8Array, options: CallOptions = {}): Promise<Photo> {
    return this.#json<Photo>({
      operation: 'uploadPetPhoto',
      method: 'POST',
      url: this.#url(`/pets/${id(petId)}/photos`),
      safety: 'unsafe',
      body: image,
      contentType: 'application/octet-stream',
      signal: options.signal,
    })
  }

  /** `GET /pets/{petId}/photos`: the animal's photos, the main one first. */
  async listPetPhotos(petId: number, options: CallOptions = {}): Promise<Photo[]> {
    return this.#json<Photo[]>({ operation: 'listPetPhotos', method: 'GET', url: this.#url(`/pets/${id(petId)}/photos`), safety: 'safe', signal: options.signal })
  }

  /** `PUT /pets/{petId}/photos/order`: every photo id once, the main one first. The same order twice changes nothing, so it is retried. */
  async orderPetPhotos(petId: number, ids: string[], options: CallOptions = {}): Promise<Photo[]> {
    return this.#json<Photo[]>({ operation: 'orderPetPhotos', method: 'PUT', url: this.#url(`/pets/${id(petId)}/photos/order`), safety: 'idempotent', body: { ids }, signal: options.signal })
  }

  /** `DELETE /pets/{petId}/photos/{photoId}`: its files stop being served at once. Retried as a removal is. */
  async deletePetPhoto(petId: number, photoId: string, options: CallOptions = {}): Promise<void> {
    await this.#send<undefined>({
      operation: 'deletePetPhoto',
      method: 'DELETE',
      url: this.#url(`/pets/${id(petId)}/photos/${encodeURIComponent(photoId)}`),
      safety: 'idempotent',
      signal: options.signal,
    })
  }

  /** `GET /store/orders`: one page of orders, in ascending id order. */
  async listOrders(query: ListOrdersQuery = {}, options: CallOptions = {}): Promise<Page<Order>> {
    return this.#page<Order>('listOrders', this.#url('/store/orders', query), options)
  }

  /** Every order matching `query`, page after page by `Link: rel="next"`, each exactly once. */
  iterateOrders(query: ListOrdersQuery = {}, options: CallOptions = {}): AsyncGenerator<Order, void, undefined> {
    return this.#iterate<Order>('listOrders', this.#url('/store/orders', query), options)
  }

  /** `POST /store/orders`: orders an available animal. Idempotent across retries, like `createPet`. */
  async placeOrder(order: NewOrder, options: IdempotentCallOptions = {}): Promise<Order> {
    return this.#json<Order>({ operation: 'placeOrder', method: 'POST', url: this.#url('/store/orders'), safety: 'idempotent', body: order, ...idempotent(options) })
  }

  /** `GET /store/orders/{orderId}`. */
  async getOrder(orderId: number, options: CallOptions = {}): Promise<Order> {
    return this.#json<Order>({ operation: 'getOrder', method: 'GET', url: this.#url(`/store/orders/${id(orderId)}`), safety: 'safe', signal: options.signal })
  }

  /** `POST /store/orders/{orderId}/approve`: placed → approved. Never retried. */
  async approveOrder(orderId: number, options: CallOptions = {}): Promise<Order> {
    return this.#move('approveOrder', orderId, 'approve', options)
  }

  /** `POST /store/orders/{orderId}/deliver`: approved → delivered. Never retried. */
  async deliverOrder(orderId: number, options: CallOptions = {}): Promise<Order> {
    return this.#move('deliverOrder', orderId, 'deliver', options)
  }

  /** `POST /store/orders/{orderId}/cancel`: placed or approved → cancelled. Never retried. */
  async cancelOrder(orderId: number, options: CallOptions = {}): Promise<Order> {
    return this.#move('cancelOrder', orderId, 'cancel', options)
  }

  #move(operation: 'approveOrder' | 'deliverOrder' | 'cancelOrder', orderId: number, action: string, options: CallOptions): Promise<Order> {
    return this.#json<Order>({ operation, method: 'POST', url: this.#url(`/store/orders/${id(orderId)}/${action}`), safety: 'unsafe', signal: options.signal })
  }

  #url(path: string, query: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(`${this.baseUrl}${path}`)
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value))
    return url
  }

  async #json<T>(call: Call): Promise<T> {
    return (await this.#send<T>(call)).data
  }

  async #page<T>(operation: keyof operations, url: URL, options: CallOptions): Promise<Page<T>> {
    const { data, response } = await this.#send<T[]>({ operation, method: 'GET', url, safety: 'safe', signal: options.signal })
    if (!Array.isArray(data)) throw unexpected(response, `${operation} answered ${response.status} without a JSON array`)
    const next = nextLink(response.headers.get('link'), response.url || url.href)
    if (next !== undefined && new URL(next).origin !== url.origin) {
      // The key goes with every request: never to another origin than the one configured.
      throw unexpected(response, `${operation}: the next page's link points to another origin (${new URL(next).origin})`)
    }
    return { items: data, next }
  }

  async *#iterate<T extends { id: number }>(operation: keyof operations, first: URL, options: CallOptions, byId = true): AsyncGenerator<T, void, undefined> {
    const visited = new Set<string>()
    let url: URL | undefined = first
    // In ascending id order, an id at or below the last one given out is a repeat; in another
    // order (a sort of the search), one seen before is.
    let lastId = -Infinity
    const seen = new Set<number>()
    while (url) {
      visited.add(url.href)
      const page: Page<T> = await this.#page<T>(operation, url, options)
      for (const item of page.items) {
        if (byId ? item.id <= lastId : seen.has(item.id)) continue
        lastId = item.id
        if (!byId) seen.add(item.id)
        yield item
      }
      url = page.next === undefined || visited.has(page.next) ? undefined : new URL(page.next)
    }
  }

  /** One call: its attempts, the waits between them, and the error of the last. */
  async #send<T>(call: Call): Promise<{ data: T; response: Response }> {
    const retry = this.#retry
    const clock = retry.clock
    const deadline = clock.now() + retry.maxElapsedMs
    for (let attempt = 1; ; attempt++) {
      // Another call of this client was told to wait: a request now would only be refused (and
      // refusals count towards a ban), so wait too, unless that would break this call's budget.
      const held = this.#heldUntil - clock.now()
      if (held > 0) {
        const holdMs = held + backoffMs(attempt, retry)
        if (clock.now() + holdMs <= deadline) await clock.sleep(holdMs, call.signal)
      }
      const outcome = await this.#attempt<T>(call, clock)
      if (outcome.ok) return outcome
      const error = outcome.error
      error.attempts = attempt
      const wait = retryable(error, call.safety, outcome.retryAfter)
      if (wait === false || attempt >= retry.maxAttempts) throw error
      const delayMs = retryDelayMs(attempt, wait, retry)
      if (clock.now() + delayMs > deadline) throw error
      retry.onRetry?.({ operation: call.operation, attempt, delayMs, status: error.status, code: error.code, retryAfter: error.retryAfter })
      await clock.sleep(delayMs, call.signal)
    }
  }

  async #attempt<T>(
    call: Call,
    clock: Clock,
  ): Promise<{ ok: true; data: T; response: Response } | { ok: false; error: AdoptionStoreError; retryAfter: number | undefined }> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${this.#apiKey}` }
    if (call.body !== undefined) headers['content-type'] = call.contentType ?? 'application/json'
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey
    call.signal?.throwIfAborted()
    const timeout = AbortSignal.timeout(this.#timeoutMs)
    let response: Response
    let text: string
    try {
      response = await this.#fetch(call.url, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : call.body instanceof Uint8Array ? call.body : JSON.stringify(call.body),
        signal: call.signal ? eitherSignal(call.signal, timeout) : timeout,
      })
      text = await response.text()
    } catch (cause) {
      call.signal?.throwIfAborted()
      const message = timeout.aborted
        ? `${call.operation}: no response from ${call.url.origin} within ${this.#timeoutMs} ms`
        : `${call.operation}: cannot reach ${call.url.origin}: ${describeCause(cause)}`
      return { ok: false, error: new AdoptionStoreError({ code: 'network_error', message, status: 0, cause }), retryAfter: undefined }
    }
    const receivedAt = clock.now()
    this.#recordRateLimit(response.headers)
    if (response.ok) {
      try {
        return { ok: true, data: (text === '' ? undefined : JSON.parse(text)) as T, response }
      } catch (cause) {
        return { ok: false, error: unexpected(response, `${call.operation} answered ${response.status} with a body that is not JSON`, cause), retryAfter: undefined }
      }
    }
    const error = errorFrom(response, text, receivedAt)
    const retryAfter = error.retryAfter ?? this.#secondsToReset(response, receivedAt)
    if (error.code === 'rate_limited' && retryAfter !== undefined) this.#heldUntil = Math.max(this.#heldUntil, receivedAt + retryAfter * 1000)
    return { ok: false, error, retryAfter }
  }

  #recordRateLimit(headers: Headers): void {
    const limit = integerHeader(headers, 'x-ratelimit-limit')
    const remaining = integerHeader(headers, 'x-ratelimit-remaining')
    const reset = integerHeader(headers, 'x-ratelimit-reset')
    if (limit !== undefined && remaining !== undefined && reset !== undefined) this.#rateLimit = { limit, remaining, reset }
  }

  /** For a 429 without Retry-After: the seconds until `X-RateLimit-Reset`. */
  #secondsToReset(response: Response, now: number): number | undefined {
    if (response.status !== 429) return undefined
    const reset = integerHeader(response.headers, 'x-ratelimit-reset')
    return reset === undefined ? undefined : Math.max(0, Math.ceil((reset * 1000 - now) / 1000))
  }
}

/** A typed client of the Adoption Store API. */
export function createClient(options: ClientOptions): AdoptionStoreClient {
  return new AdoptionStoreClient(options)
}

/**
 * Whether a failed attempt may be repeated, and the least wait in seconds the server asked for
 * (undefined: none); false when it must not be.
 */
function retryable(error: AdoptionStoreError, safety: Safety, retryAfter: number | undefined): number | undefined | false {
  if (error.code === 'api_key_banned' || safety === 'unsafe') return false
  if (error.status === 429 || error.status === 503) return retryAfter
  if (error.code === 'network_error') return undefined
  // The first attempt with this key may still be running (its answer was lost): ask again.
  if (safety === 'idempotent' && error.code === 'idempotency_in_flight') return undefined
  return false
}

function idempotent(options: IdempotentCallOptions): { idempotencyKey: string; signal: AbortSignal | undefined } {
  return { idempotencyKey: options.idempotencyKey ?? globalThis.crypto.randomUUID(), signal: options.signal }
}

function id(value: number): string {
  if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`an id must be a whole number of at least 1, not ${String(value)}`)
  return String(value)
}

function normalizeBaseUrl(value: string | URL): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new TypeError(`createClient: baseUrl is not a URL: ${String(value)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`createClient: baseUrl must be http or https: ${url.href}`)
  url.search = ''
  url.hash = ''
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1'
  return url.href.replace(/\/+$/, '')
}

function errorFrom(response: Response, text: string, receivedAt: number): AdoptionStoreError {
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'), receivedAt)
  const requestId = response.headers.get('x-request-id') ?? undefined
  let body: Partial<ErrorBody> | undefined
  try {
    body = JSON.parse(text) as Partial<ErrorBody>
  } catch {
    body = undefined
  }
  if (!body || typeof body.code !== 'string' || typeof body.message !== 'string') {
    return unexpected(response, `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}: ${text.slice(0, 200).replace(/\s+/g, ' ').trim() || 'no body'}`)
  }
  const details = { code: body.code, message: body.message, status: response.status, retryAfter, requestId }
  if (body.code === 'api_key_banned') {
    return new ApiKeyBannedError({ ...details, bannedUntil: banEnd(body.message, retryAfter, receivedAt) })
  }
  if (body.code === 'rate_limited') return new RateLimitedError(details)
  return new AdoptionStoreError(details)
}

/** The ban's end: the time of the response plus Retry-After; else the time the message names. */
function banEnd(message: string, retryAfter: number | undefined, receivedAt: number): Date {
  if (retryAfter !== undefined) return new Date(receivedAt + retryAfter * 1000)
  const named = /\d{4}-\d\d-\d\dT[\d:.]+Z/.exec(message)
  return new Date(named ? Date.parse(named[0]) : receivedAt)
}

function unexpected(response: Response, message: string, cause?: unknown): AdoptionStoreError {
  return new AdoptionStoreError({
    code: 'unexpected_response',
    message,
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    cause,
  })
}

function integerHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name)
  return value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined
}

/** The target of the `rel="next"` link of a `Link` header (RFC 8288), resolved against `base`. */
export function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(match[2] ?? '')
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)
    if (relations.includes('next')) return new URL(match[1] ?? '', base).href
  }
  return undefined
}

/** Aborts when either does (`AbortSignal.any`, which Node.js has from 20.3). */
function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b])
  const controller = new AbortController()
  for (const signal of [a, b]) {
    if (signal.aborted) controller.abort(signal.reason)
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true })
  }
  return controller.signal
}

function describeCause(cause: unknown): string {
  const error = cause as { message?: string; cause?: { message?: string; code?: string } }
  return error.cause?.message ?? error.cause?.code ?? error.message ?? String(cause)
}
