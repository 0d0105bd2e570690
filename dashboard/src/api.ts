/**
 * The admin API (`/admin/v1`) as the dashboard uses it. Its shapes are the admin document's
 * (`openapi.admin.json`), through the types generated from it into `admin-schema.ts`.
 */
import { adoptionOrderStatusValues, type components, type operations, petStatusValues, projectPlanValues, userRoleValues, webhookEndpointTypesValues } from './admin-schema'

type Schemas = components['schemas']
type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never
/** What an operation answers on success. */
type Answer<Operation extends keyof operations> = operations[Operation]['responses'] extends { 200: infer Ok } ? Json<Ok> : never
/** The JSON body an operation takes. */
export type RequestBody<Operation extends keyof operations> = Json<operations[Operation]['requestBody']>

export type Session = Answer<'getSession'>
export type Project = Schemas['Project']
export type Plan = Project['plan']
export type ApiKey = Schemas['ApiKey']
/** A new key, with its secret `key`: shown this once. */
export type NewApiKey = Schemas['NewApiKey']
export type Usage = Schemas['Usage']
export type UsagePoint = Usage['points'][number]
export type DomainSettings = Answer<'listDomains'>
export type Domain = Answer<'getDomain'>
export type AuditEntry = Schemas['AuditEntry']
/** A dashboard account, as operators manage it. */
export type User = Schemas['User']
export type UserRole = User['role']
/** A user with the one-time password just generated for them: shown this once. */
export type UserWithPassword = Schemas['UserWithPassword']
export type Pet = Schemas['Pet']
export type PetStatus = Schemas['PetStatus']
export type AdoptionOrder = Schemas['AdoptionOrder']
export type OrderStatus = AdoptionOrder['status']
export type WebhookEndpoint = Schemas['WebhookEndpoint']
/** A new endpoint (or a rotated one), with its signing secret: shown this once. */
export type NewWebhookEndpoint = Schemas['NewWebhookEndpoint']
export type WebhookDelivery = Schemas['WebhookDelivery']
/** Every event type an endpoint can receive, in the catalogue's order (without `*`). */
export const WEBHOOK_EVENT_TYPES: readonly string[] = webhookEndpointTypesValues.filter((type) => type !== '*')

/** Every plan, in the document's order (free first). */
export const PLANS: readonly Plan[] = projectPlanValues
/** Every role, in the document's order (operator first). */
export const ROLES: readonly UserRole[] = userRoleValues
/** Every status of an animal, and of an order, in the document's order. */
export const PET_STATUSES: readonly PetStatus[] = petStatusValues
export const ORDER_STATUSES: readonly OrderStatus[] = adoptionOrderStatusValues

/** A failed call: the API's error envelope, or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export const API_PREFIX = '/admin/v1'

let csrfToken: string | null = null
let unauthorized: () => void = () => undefined

/** The session's CSRF token, sent as `X-CSRF-Token` with every change. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token
}

/** Called on any 401 answer (the session ended or expired), except where a call opts out. */
export function onUnauthorized(handler: () => void): void {
  unauthorized = handler
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** A path under /admin/v1 with each interpolated value URL-encoded. */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '')
}

export async function api<T>(method: Method, url: string, body?: unknown, options: { redirectOn401?: boolean } = {}): Promise<T> {
  return (await send<T>(method, url, body, options)).data
}

/** One page of a list, and the path (under /admin/v1) of the next page, from `Link: <…>; rel="next"`. */
export interface Page<T> {
  items: T[]
  next: string | null
}

/** A page of a list operation: the next page is the one the API links to, never one built here. */
export async function page<T>(url: string): Promise<Page<T>> {
  const { data, response } = await send<T[]>('GET', url)
  const link = /<([^>]*)>\s*;\s*rel="?next"?/.exec(response.headers.get('link') ?? '')?.[1]
  const target = link === undefined ? undefined : new URL(link, window.location.origin)
  const next = target?.pathname.startsWith(`${API_PREFIX}/`) ? target.pathname.slice(API_PREFIX.length) + target.search : null
  return { items: data, next }
}

async function send<T>(method: Method, url: string, body?: unknown, { redirectOn401 = true } = {}): Promise<{ data: T; response: Response }> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken
  let response: Response
  try {
    response = await fetch(API_PREFIX + url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    })
  } catch {
    throw new ApiError(0, 'network_error', 'The service could not be reached: check your connection and try again.')
  }
  if (response.status === 204) return { data: undefined as T, response }
  const text = await response.text()
  let data: unknown
  try {
    data = text ? JSON.parse(text) : undefined
  } catch {
    data = undefined
  }
  if (!response.ok) {
    const envelope = (data ?? {}) as { code?: unknown; message?: unknown }
    const error = new ApiError(
      response.status,
      typeof envelope.code === 'string' ? envelope.code : 'http_error',
      typeof envelope.message === 'string' ? envelope.message : `The service answered ${response.status} ${response.statusText}.`,
    )
    if (response.status === 401 && redirectOn401) unauthorized()
    throw error
  }
  return { data: data as T, response }
}

/** The message to show for anything a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError || error instanceof Error) return error.message
  return String(error)
}
