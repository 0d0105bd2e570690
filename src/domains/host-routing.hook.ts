import net from 'node:net'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Site } from '../auth/caller.hook.js'
import type { Db } from '../db/database.js'
import { ApiError } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import { normalizeHost } from './domain-name.js'
import { findDomainRoute } from './domains.repository.js'
import type { RoutingChanges } from './routing-changes.js'

/** Where a request's Host sends it. */
export type HostRoute =
  | { kind: 'api' }
  | { kind: 'project'; projectId: number; slug: string }
  | { kind: 'redirect'; to: string; status: number }
  | { kind: 'unknown'; message: string }

export const ACME_CHALLENGE_PREFIX = '/.well-known/acme-challenge/'

/** Most hosts cached per instance; the cache starts over when full. */
const MAX_CACHED_HOSTS = 10_000

export interface HostRoutingSettings {
  platformDomain: string | undefined
  publicBaseUrl: string
  stagingBaseUrl: string
}

/**
 * Decides, from the Host header, which project a request is for. The API's own hosts (those of
 * PUBLIC_BASE_URL and STAGING_BASE_URL, localhost and any IP address) are not routed: the key
 * decides there, as without custom domains. `<slug>.<PLATFORM_DOMAIN>` selects a project, and so
 * does a verified custom domain; a redirecting domain answers 301; anything else is unknown.
 *
 * Answers are cached per instance, tagged with the routing generation, and dropped as soon as
 * the generation changes (see RoutingChanges), so a removed domain is refused from the next request.
 */
export class HostRouter {
  private readonly apiHosts: Set<string>
  private readonly cache = new Map<string, HostRoute>()
  private cachedGeneration: number | undefined

  constructor(
    private readonly db: Db,
    private readonly settings: HostRoutingSettings,
    private readonly changes: RoutingChanges,
  ) {
    this.apiHosts = new Set(['localhost', ...[settings.publicBaseUrl, settings.stagingBaseUrl].map((url) => normalizeHost(new URL(url).host))])
  }

  get enabled(): boolean {
    return this.settings.platformDomain !== undefined
  }

  isApiHost(host: string): boolean {
    return host === '' || this.apiHosts.has(host) || net.isIP(host) !== 0
  }

  /** Whether a Host header is routed to the API itself, known without waiting. */
  servesApi(rawHost: string | undefined): boolean {
    return !this.enabled || this.isApiHost(normalizeHost(rawHost ?? ''))
  }

  async route(rawHost: string | undefined): Promise<HostRoute> {
    if (this.servesApi(rawHost)) return { kind: 'api' }
    const host = normalizeHost(rawHost ?? '')
    const generation = await this.changes.generation()
    if (generation !== this.cachedGeneration || this.cache.size >= MAX_CACHED_HOSTS) {
      this.cache.clear()
      this.cachedGeneration = generation
    }
    const cached = this.cache.get(host)
    if (cached) return cached
    const route = await this.lookup(host)
    // A project created later must be found at once, so an unknown platform subdomain is not cached.
    if (route.kind !== 'unknown' || !this.isPlatformSubdomain(host)) this.cache.set(host, route)
    return route
  }

  private isPlatformSubdomain(host: string): boolean {
    const suffix = `.${this.settings.platformDomain}`
    return host.endsWith(suffix) && !host.slice(0, -suffix.length).includes('.')
  }

  private async lookup(host: string): Promise<HostRoute> {
    const unknown: HostRoute = { kind: 'unknown', message: `No project is served at ${host}. Check the address, or call the API at ${this.settings.publicBaseUrl}.` }
    if (this.isPlatformSubdomain(host)) {
      const project = await findProjectBySlug(this.db, host.slice(0, -`.${this.settings.platformDomain}`.length))
      return project ? { kind: 'project', projectId: project.id, slug: project.slug } : unknown
    }
    const domain = await findDomainRoute(this.db, host)
    if (!domain) return unknown
    if (domain.state !== 'verified') {
      return { kind: 'unknown', message: `${host} is not served yet: the domain has not passed DNS verification.` }
    }
    if (domain.redirectTo) return { kind: 'redirect', to: domain.redirectTo, status: domain.redirectStatus ?? 301 }
    return { kind: 'project', projectId: domain.projectId, slug: domain.slug }
  }
}

/** Paths a project's host does not serve: the operator's surfaces stay on the API's own hosts. */
const OPERATOR_PATHS = /^\/(admin|metrics)(\/|\?|$)/

/**
 * Routes every request by its Host before anything else runs: sets `request.site`, answers
 * redirects, and refuses unknown hosts with 404 `unknown_host`. ACME HTTP-01 challenges are
 * answered on any host (see the challenge route), so they pass through untouched.
 */
export function installHostRouting(app: FastifyInstance, router: HostRouter): void {
  app.decorateRequest('site', null)
  if (!router.enabled) return
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith(ACME_CHALLENGE_PREFIX)) return
    const route = await router.route(request.host)
    switch (route.kind) {
      case 'api':
        return
      case 'unknown':
        throw new ApiError('unknown_host', route.message)
      case 'redirect': {
        // The scheme may come from X-Forwarded-Proto (TRUST_PROXY) and the target from the request
        // line: only ever http or https, and only a path, so no request can redirect elsewhere.
        const scheme = request.protocol === 'https' ? 'https' : 'http'
        const path = request.url.startsWith('/') ? request.url : '/'
        return reply.code(route.status).header('location', `${scheme}://${route.to}${path}`).send()
      }
      case 'project':
        if (OPERATOR_PATHS.test(request.url)) throw new ApiError('not_found', `No route ${request.method} ${request.url.split('?', 1)[0]} on a project's host.`)
        request.site = { host: normalizeHost(request.host), projectId: route.projectId, slug: route.slug } satisfies Site
    }
  })
}

const REDIRECTED = Object.freeze({
  description: 'The host is a redirecting domain of the project: the same path and query on its target',
  type: 'null',
  headers: { Location: { type: 'string', description: 'Where to send the request instead' } },
})

/**
 * With host routing on, every operation of a scope (all of /v1) documents the 301 of a
 * redirecting domain and the 404 of an unknown host. (On a project's host only that project's
 * keys are accepted: the caller step checks it, auth/caller.hook.ts.)
 */
export function documentHostAnswers(scope: FastifyInstance, router: HostRouter): void {
  if (!router.enabled) return
  scope.addHook('onRoute', (route) => {
    if (route.schema?.hide) return
    const responses = { ...(route.schema?.response as object) } as Record<string, unknown>
    responses['301'] = REDIRECTED
    responses['404'] ??= errorResponses(404)[404]
    route.schema = { ...route.schema, response: responses }
  })
}
