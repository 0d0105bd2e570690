/**
 * The admin API (`/admin/v1`) as the dashboard uses it: its calls, typed by operation, and the
 * names of its shapes. Both come from the admin document (`openapi.admin.json`), through the
 * types generated from it into `admin-schema.ts`.
 */
import createClient from 'openapi-fetch'
import { adoptionOrderStatusValues, type components, type operations, type paths, petStatusValues, projectPlanValues, userRoleValues, webhookEndpointTypesValues } from './admin-schema'

type Schemas = components['schemas']
type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : undefined
/** What an operation answers on success: its 200, 201 or 202 body; nothing for a 204. */
type DataOf<O> = O extends { responses: infer R } ? JsonOf<R[Extract<keyof R, 200 | 201 | 202>]> : never
type Answer<Operation extends keyof operations> = DataOf<operations[Operation]>
/** The JSON body an operation takes. */
export type RequestBody<Operation extends keyof operations> = JsonOf<operations[Operation]['requestBody']>
/** The query parameters an operation takes. */
export type Query<Operation extends keyof operations> = NonNullable<operations[Operation]['parameters']['query']>

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
/** A photo of an animal: its files (`variants`) at several widths, narrowest first. */
export type Photo = Schemas['Photo']
/** A place of the project where animals can be met: an animal's `locationId`. */
export type ProjectLocation = Schemas['Location']
/** A category of the project (default or its own): an animal's `categoryId`. */
export type ProjectCategory = Schemas['ProjectCategory']
export type AdoptionOrder = Schemas['AdoptionOrder']
export type SiteSettings = Schemas['SiteSettings']
export type OrderStatus = AdoptionOrder['status']
export type WebhookEndpoint = Schemas['WebhookEndpoint']
/** A new endpoint (or a rotated one), with its signing secret: shown this once. */
export type NewWebhookEndpoint = Schemas['NewWebhookEndpoint']
export type WebhookDelivery = Schemas['WebhookDelivery']
export type WebhookAttempt = Schemas['WebhookAttempt']
/** An event of a project's event list, as its endpoints receive it. */
export type WebhookEvent = Answer<'listWebhookEvents'>[number]
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

const client = createClient<paths>({
  baseUrl: API_PREFIX,
  headers: { accept: 'application/json' },
  credentials: 'same-origin',
  cache: 'no-store',
  // Empty filters are left out: a form's empty field means "any".
  querySerializer: (query) => new URLSearchParams(Object.entries(query).flatMap(([name, value]) => (value === undefined || value === null || value === '' ? [] : [[name, String(value)]]))).toString(),
})

client.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && csrfToken) request.headers.set('x-csrf-token', csrfToken)
    return request
  },
})

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'
/** The paths of the admin document that take `method`. */
type PathsWith<M extends Method> = { [P in keyof paths]: paths[P] extends Record<M, object> ? P : never }[keyof paths]
type Operation<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never

type PathOf<O> = O extends { parameters: { path: infer Path extends object } } ? { path: Path } : { path?: never }
type QueryOf<O> = O extends { parameters: { query: infer Query extends object } } ? { query: Query } : O extends { parameters: { query?: infer Query extends object } } ? { query?: Query } : { query?: never }
type BodyOf<O> = O extends { requestBody: { content: infer Content } } ? { body: Content[keyof Content] } : { body?: never }

/** How a call of the operation is made: its path parameters, query and body, as the document declares them. */
export type Init<O> = PathOf<O> & QueryOf<O> & BodyOf<O> & {
  /** false: a 401 is only thrown, without ending the session in the app (sign-in, sign-out, the session's check). */
  redirectOn401?: boolean
}
type InitArgument<O> = Partial<Init<O>> extends Init<O> ? [init?: Init<O>] : [init: Init<O>]
type Call<M extends Method> = <P extends PathsWith<M>>(path: P, ...init: InitArgument<Operation<P, M>>) => Promise<DataOf<Operation<P, M>>>

/**
 * The admin API, typed by operation from `admin-schema.ts`: a path of the document (as written
 * there, `/projects/{slug}/animals/{petId}`) and its method give the path parameters, query, body
 * and answer, so a wrong URL, a missing parameter or an unknown body field is a type error. Each
 * call answers its data, or throws an ApiError with the API's envelope. openapi-fetch carries
 * the requests; its own methods infer the whole init, which lets unknown body fields through.
 */
export const api = {
  get: caller('get'),
  post: caller('post'),
  put: caller('put'),
  patch: caller('patch'),
  delete: caller('delete'),
}

function caller<M extends Method>(method: M): Call<M> {
  return async (path, ...[init]) => (await send(method, path, init)).data as never
}

interface Sent {
  data?: unknown
  error?: unknown
  response: Response
}

async function send(method: Method, path: string, init: { path?: object; query?: object; body?: unknown; redirectOn401?: boolean } = {}): Promise<Sent> {
  let answer: Sent
  try {
    // The types were checked by the caller's signature; openapi-fetch's own would infer them again.
    answer = await client.request(method, path as never, { params: { path: init.path, query: init.query }, body: init.body } as never)
  } catch {
    throw new ApiError(0, 'network_error', 'The service could not be reached: check your connection and try again.')
  }
  const { response, error } = answer
  if (response.ok) return answer
  if (response.status === 401 && init.redirectOn401 !== false) unauthorized()
  throw refusal(response.status, response.statusText, error)
}

/** A failed answer as an ApiError: the API's envelope (`{ code, message }`), or the status alone when the body is not one. */
function refusal(status: number, statusText: string, body: unknown): ApiError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as { code?: unknown; message?: unknown }
  return new ApiError(
    status,
    typeof envelope.code === 'string' ? envelope.code : 'http_error',
    typeof envelope.message === 'string' ? envelope.message : `The service answered ${status} ${statusText}.`,
  )
}

/** What an upload has sent so far, of its whole body, in bytes. */
export type UploadProgress = (sent: number, total: number) => void

/**
 * Sends a file as the whole body of a POST (an animal's photo: `addAnimalPhoto`), as the other
 * calls are sent (the session's cookie, `X-CSRF-Token`), and answers what the API created, or
 * throws an ApiError with its envelope. Through XMLHttpRequest, whose upload events tell the
 * progress: fetch has none. The file's own type is sent as its Content-Type; the API reads the
 * bytes to know what it is.
 */
export function upload<P extends PathsWith<'post'>>(path: P, init: PathOf<Operation<P, 'post'>>, file: Blob, onProgress: UploadProgress): Promise<DataOf<Operation<P, 'post'>>> {
  const params = (init.path ?? {}) as Record<string, string | number>
  const url = API_PREFIX + path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(params[name])))
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open('POST', url)
    request.responseType = 'json'
    request.setRequestHeader('accept', 'application/json')
    request.setRequestHeader('content-type', file.type || 'application/octet-stream')
    if (csrfToken) request.setRequestHeader('x-csrf-token', csrfToken)
    request.upload.onprogress = (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size)
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) return resolve(request.response as never)
      if (request.status === 401) unauthorized()
      reject(refusal(request.status, request.statusText, request.response))
    }
    // The service refuses a body over its limit before reading it all, and closes the connection: the browser may see only that.
    request.onerror = () =>
      reject(new ApiError(0, 'network_error', 'The upload was cut off: the service could not be reached, or closed the connection (as it does for a file over its size limit). Check your connection and the file, then try again.'))
    request.send(file)
  })
}

/** The query of the next page, exactly as the API's `Link: <…>; rel="next"` gives it. */
export type NextPage = Record<string, string>

/** One page of a list, and the query of the next page when there is one. */
export interface Page<T> {
  items: T[]
  next: NextPage | null
}

type Item<O> = DataOf<O> extends readonly (infer T)[] ? T : never

/**
 * A page of a list operation: the first (the query of `init`), or the one `next` names. The next
 * page is the one the API links to, never one built here: its query (cursor, filters and all) is
 * sent as the link gives it, to the same operation.
 */
export async function page<P extends PathsWith<'get'>>(path: P, init: Init<Operation<P, 'get'>>, next: NextPage | null = null): Promise<Page<Item<Operation<P, 'get'>>>> {
  const { data, response } = await send('get', path, next ? { ...init, query: next } : init)
  const link = /<([^>]*)>\s*;\s*rel="?next"?/.exec(response.headers.get('link') ?? '')?.[1]
  const target = link === undefined ? undefined : new URL(link, window.location.origin)
  return { items: (data ?? []) as Item<Operation<P, 'get'>>[], next: target?.pathname.startsWith(`${API_PREFIX}/`) ? Object.fromEntries(target.searchParams) : null }
}

/** The message to show for anything a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError || error instanceof Error) return error.message
  return String(error)
}
