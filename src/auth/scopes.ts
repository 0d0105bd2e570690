import { API_SCOPES, type ApiScope } from '../db/schema.js'

export { API_SCOPES, type ApiScope }

/** The one scope a publishable key may have: it sits in a web page, where anyone can read it. */
export const PUBLISHABLE_SCOPES: readonly ApiScope[] = ['pets:read']

/** What each scope allows, for documents and messages. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<ApiScope, string>> = {
  'pets:read': 'read animals, their photos and changes, categories, breeds and locations',
  'pets:write': "add, change and remove animals and their photos",
  'orders:read': 'read adoption orders',
  'orders:write': 'place, approve, deliver and cancel adoption orders',
}

export function isScope(value: string): value is ApiScope {
  return (API_SCOPES as readonly string[]).includes(value)
}

/** A stored `scopes` column: null is full access. */
export function parseScopes(stored: string | null): readonly ApiScope[] | null {
  if (stored === null) return null
  return stored.split(' ').filter(isScope)
}

/** Whether a key's scopes (null: full access) include `scope`. */
export function allows(scopes: readonly ApiScope[] | null, scope: ApiScope): boolean {
  return scopes === null || scopes.includes(scope)
}

/** Development origins a publishable key may list over plain HTTP. */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
const HOST = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * An origin as browsers send it in `Origin`, normalised, or undefined when it is not one a
 * publishable key may list: exactly `https://host[:port]` (no path, query, user or trailing
 * slash; lower case), or `http://` on localhost for development.
 */
export function parseOrigin(value: string): string | undefined {
  const match = /^(https?):\/\/([^/:?#@\s]+|\[::1\])(?::(\d{1,5}))?$/.exec(value)
  if (!match) return undefined
  const [, scheme, rawHost = '', port] = match
  const host = rawHost.toLowerCase()
  if (host !== rawHost) return undefined
  if (scheme === 'http' && !LOCAL_HOSTS.has(host)) return undefined
  if (!LOCAL_HOSTS.has(host) && !HOST.test(host)) return undefined
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535 || String(Number(port)) !== port)) return undefined
  // The default port is not written in an Origin header.
  if ((scheme === 'https' && port === '443') || (scheme === 'http' && port === '80')) return undefined
  return value
}
