import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

/** History routing under /dashboard; the service answers index.html for every such path. */
export const BASE = import.meta.env.BASE_URL.replace(/\/$/, '')

/** A project's pages, in order: the first is where a project opens. */
export const TABS = [
  { tab: 'keys', label: 'API keys' },
  { tab: 'animals', label: 'Animals' },
  { tab: 'locations', label: 'Locations' },
  { tab: 'categories', label: 'Categories' },
  { tab: 'orders', label: 'Orders' },
  { tab: 'site', label: 'Site' },
  { tab: 'usage', label: 'Usage' },
  { tab: 'domains', label: 'Domains' },
  { tab: 'webhooks', label: 'Webhooks' },
] as const
export type Tab = (typeof TABS)[number]['tab']
/** An animal's id, or `new` for one being added. */
export type AnimalRef = number | 'new'
const DEFAULT_TAB: Tab = TABS[0].tab

export type Route =
  | { name: 'signIn'; next: string | null }
  | { name: 'projects' }
  | { name: 'audit'; search: string }
  | { name: 'users' }
  | { name: 'account' }
  /**
   * `search`: the tab's filters (Animals, Orders), kept in the address so a filtered view can be
   * shared. `animal`: on the Animals tab, the animal whose profile is edited, or `new`.
   */
  | { name: 'project'; slug: string; tab: Tab; search: string; animal?: AnimalRef }
  | { name: 'notFound'; path: string }

/** The app's path (below BASE, starting with '/') plus the query. */
export interface Location {
  path: string
  search: string
}

function current(): Location {
  const { pathname, search } = window.location
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) || '/' : pathname
  return { path, search }
}

export function parseRoute({ path, search }: Location): Route {
  const clean = path.length > 1 ? path.replace(/\/+$/, '') : path
  if (clean === '/' || clean === '/projects') return { name: 'projects' }
  if (clean === '/audit') return { name: 'audit', search }
  if (clean === '/users') return { name: 'users' }
  if (clean === '/account') return { name: 'account' }
  if (clean === '/sign-in') return { name: 'signIn', next: safeNext(new URLSearchParams(search).get('next')) }
  const project = /^\/projects\/([^/]+)(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(clean)
  const tab = project && (project[2] === undefined ? DEFAULT_TAB : TABS.find((t) => t.tab === project[2])?.tab)
  const animal = project?.[3] === undefined ? undefined : animalRefOf(project[3])
  if (project?.[1] && tab && (project[3] === undefined || (tab === 'animals' && animal !== undefined))) {
    let slug: string
    try {
      slug = decodeURIComponent(project[1])
    } catch {
      return { name: 'notFound', path }
    }
    return { name: 'project', slug, tab, search, ...(animal !== undefined && { animal }) }
  }
  return { name: 'notFound', path }
}

function animalRefOf(segment: string): AnimalRef | undefined {
  if (segment === 'new') return 'new'
  return /^[1-9][0-9]{0,15}$/.test(segment) && Number.isSafeInteger(Number(segment)) ? Number(segment) : undefined
}

/** Only a path of this app is followed after sign-in, never another site. */
function safeNext(next: string | null): string | null {
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-in') ? next : null
}

export function projectPath(slug: string, tab: Tab = DEFAULT_TAB, query: Record<string, string> = {}): string {
  return `/projects/${encodeURIComponent(slug)}/${tab}${queryString(query)}`
}

/** The editor of an animal's profile (`new`: of one to add). */
export function animalPath(slug: string, animal: AnimalRef): string {
  return `${projectPath(slug, 'animals')}/${animal}`
}

/** The canonical path of a project's page: a project's address without its tab gets it. */
export function projectRoutePath({ slug, tab, animal }: { slug: string; tab: Tab; animal?: AnimalRef }): string {
  return animal === undefined ? projectPath(slug, tab) : animalPath(slug, animal)
}

/** `?name=value&…` of the values that are not empty; nothing when none is. */
export function queryString(query: Record<string, string>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value) params.set(name, value)
  const text = params.toString()
  return text ? `?${text}` : ''
}

const listeners = new Set<() => void>()

export function navigate(to: string, { replace = false } = {}): void {
  const url = BASE + to
  if (replace) window.history.replaceState(null, '', url)
  else window.history.pushState(null, '', url)
  for (const listener of listeners) listener()
}

/** The current location, updated on navigation and on the browser's back and forward. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current)
  useEffect(() => {
    const update = () => setLocation(current())
    listeners.add(update)
    window.addEventListener('popstate', update)
    return () => {
      listeners.delete(update)
      window.removeEventListener('popstate', update)
    }
  }, [])
  return location
}

interface LinkProps {
  to: string
  children: ComponentChildren
  class?: string
  'aria-current'?: 'page' | undefined
}

/** A link within the app: a real link (new tab, copy address work), followed without a reload. */
export function Link({ to, children, class: className, 'aria-current': current }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    navigate(to)
  }
  return (
    <a href={BASE + to} class={className} aria-current={current} onClick={onClick}>
      {children}
    </a>
  )
}
