/** The admin API (`/admin/v1`) as the dashboard uses it: shapes from docs/dashboard.md and the domain routes. */

export type Role = 'operator' | 'owner'
export type Plan = 'free' | 'pro' | 'business' | 'enterprise'
export const PLANS: readonly Plan[] = ['free', 'pro', 'business', 'enterprise']

export interface Session {
  user: { email: string; role: Role; projects: string[] }
  csrfToken: string
}

export interface Limits {
  perMinute: number
  perDay: number
}

export interface Project {
  slug: string
  plan: Plan
  limits: Limits
  address: string | null
  createdAt: string
}

export interface ApiKey {
  id: string
  name: string | null
  prefix: string
  createdAt: string
  lastUsedAt: string | null
  expiresAt: string | null
  revokedAt: string | null
  bannedUntil: string | null
}

export interface NewApiKey extends ApiKey {
  /** The secret: shown this once. */
  key: string
}

export interface UsagePoint {
  at: string
  requests: number
  limited: number
  bans: number
}

export interface Usage {
  range: 'hour' | 'week'
  bucketSeconds: number
  limits: Limits
  points: UsagePoint[]
}

export interface DnsRecord {
  type: 'CNAME' | 'ALIAS'
  name: string
  value: string
  ttl: number
  note: string
}

export interface Domain {
  name: string
  unicodeName: string
  apex: boolean
  primary: boolean
  redirect: { to: string; status: number } | null
  dnsRecord: DnsRecord
  status: {
    state: 'pending' | 'verified' | 'failed'
    reason: string | null
    checkedAt: string | null
    nextCheckAt: string | null
    verifiedAt: string | null
  }
  certificate: {
    state: 'pending' | 'issuing' | 'issued' | 'failed' | 'renewing'
    reason: string | null
    checkedAt: string | null
    nextCheckAt: string | null
    notBefore: string | null
    notAfter: string | null
    renewAt: string | null
  }
  createdAt: string
}

export interface Redirect {
  from: string
  to: string
  status: number
}

export interface DomainSettings {
  project: string
  platformHost: string | null
  /** Whether this service serves custom domains over HTTPS with certificates it obtains. */
  https: boolean
  primary: string | null
  redirects: Redirect[]
  domains: Domain[]
}

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

export async function api<T>(method: Method, url: string, body?: unknown, { redirectOn401 = true } = {}): Promise<T> {
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
  if (response.status === 204) return undefined as T
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
  return data as T
}

/** The message to show for anything a call threw. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiError || error instanceof Error) return error.message
  return String(error)
}
