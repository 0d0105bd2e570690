import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { errorResponses, noContent, sendNoContent } from '../openapi/responses.js'
import {
  DomainParamsSchema,
  DomainSchema,
  DomainSettingsSchema,
  NewDomainSchema,
  NewRedirectSchema,
  PrimaryDomainSchema,
  ProjectParamsSchema,
  RedirectParamsSchema,
} from './domains.schemas.js'
import type { DomainsService } from './domains.service.js'

const DOMAINS = { tags: ['domains'] } as const

/** The operator's domain operations for a project (admin API, `/admin/v1`). */
export const domainsRoutes: FastifyPluginAsyncTypebox<{ domains: DomainsService; onVerified: () => void }> = async (app, { domains, onVerified }) => {
  app.get(
    '/projects/:slug/domains',
    {
      schema: {
        ...DOMAINS,
        operationId: 'listDomains',
        summary: "List a project's domains",
        description: 'The `domains` settings of a project: its platform host, `primary`, `redirects`, and every domain with its DNS and certificate states.',
        params: ProjectParamsSchema,
        response: { 200: { description: "The project's domains", ...DomainSettingsSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const result = orThrow(await domains.list(request.params.slug))
      return result.settings
    },
  )

  app.post(
    '/projects/:slug/domains',
    {
      schema: {
        ...DOMAINS,
        operationId: 'addDomain',
        'x-audit-action': 'domain.added',
        summary: 'Add a custom domain',
        description:
          'Adds a domain to a project on plan pro or above. The answer shows the DNS record to create (`dnsRecord`): a CNAME to the platform target, or ALIAS/ANAME for an apex domain. Then run verifyDomain; pending domains are also re-checked in the background.',
        params: ProjectParamsSchema,
        body: NewDomainSchema,
        response: {
          201: { description: 'The domain, pending DNS verification', headers: { Location: { type: 'string', description: 'Path of the domain' } }, ...DomainSchema },
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const result = orThrow(await domains.add(request.params.slug, request.body.name, changeOf(request)))
      return reply
        .code(201)
        .header('location', `/admin/v1/projects/${request.params.slug}/domains/${result.domain.name}`)
        .send(result.domain)
    },
  )

  app.get(
    '/projects/:slug/domains/:name',
    {
      schema: {
        ...DOMAINS,
        operationId: 'getDomain',
        summary: 'Get a domain with its states',
        description: 'One domain of the project: the DNS record to create, and its verification and certificate states, each with the reason of the last failure. 404 when the project has no such domain.',
        params: DomainParamsSchema,
        response: { 200: { description: 'The domain', ...DomainSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const result = orThrow(await domains.get(request.params.slug, request.params.name))
      return result.domain
    },
  )

  app.post(
    '/projects/:slug/domains/:name/verify',
    {
      schema: {
        ...DOMAINS,
        operationId: 'verifyDomain',
        'x-audit-action': 'domain.verification_requested',
        summary: 'Verify (or re-verify) a domain now',
        description:
          "Queries DNS now, through the service's configured resolvers. The answer is the domain with its new state: `verified`, or `failed` with the reason (a missing CNAME, a conflicting A record, other addresses). A verified domain is served from the next request and its certificate is requested. When the service's own resolvers do not answer (the lookup of the platform's DNS target fails too), nothing is saved and no event is sent: 503 `service_unavailable`, the domain keeping its state.",
        params: DomainParamsSchema,
        response: { 200: { description: 'The domain after the check', ...DomainSchema }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const result = orThrow(await domains.verify(request.params.slug, request.params.name, changeOf(request)))
      if (result.domain.status.state === 'verified') onVerified()
      return result.domain
    },
  )

  app.delete(
    '/projects/:slug/domains/:name',
    {
      schema: {
        ...DOMAINS,
        operationId: 'removeDomain',
        'x-audit-action': 'domain.removed',
        summary: 'Remove a domain',
        description: 'Stops serving the domain on every instance from the next request, and deletes its certificate and any redirect to it.',
        params: DomainParamsSchema,
        response: { ...noContent('Removed'), ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => sendNoContent(reply, domains.remove(request.params.slug, request.params.name, changeOf(request))),
  )

  app.put(
    '/projects/:slug/domains/primary',
    {
      schema: {
        ...DOMAINS,
        operationId: 'setPrimaryDomain',
        'x-audit-action': 'domain.primary_set',
        summary: 'Set the primary domain',
        description: "Sets `domains.primary` to one of the project's domains (not one that redirects), or clears it with `null`.",
        params: ProjectParamsSchema,
        body: PrimaryDomainSchema,
        response: { 200: { description: "The project's domains", ...DomainSettingsSchema }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const result = orThrow(await domains.setPrimary(request.params.slug, request.body.name, changeOf(request)))
      return result.settings
    },
  )

  app.post(
    '/projects/:slug/domains/redirects',
    {
      schema: {
        ...DOMAINS,
        operationId: 'addRedirect',
        'x-audit-action': 'domain.redirect_added',
        summary: 'Redirect a domain',
        description:
          "Adds `{from, to, status: 301}` to `domains.redirects`: every request to `from` (a domain of the project, verified to be served) answers 301 to the same path and query on `to` (another domain of the project, or its platform host). No chains.",
        params: ProjectParamsSchema,
        body: NewRedirectSchema,
        response: { 200: { description: "The project's domains", ...DomainSettingsSchema }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const result = orThrow(await domains.addRedirect(request.params.slug, request.body.from, request.body.to, changeOf(request), request.body.status))
      return result.settings
    },
  )

  app.delete(
    '/projects/:slug/domains/redirects/:from',
    {
      schema: {
        ...DOMAINS,
        operationId: 'removeRedirect',
        'x-audit-action': 'domain.redirect_removed',
        summary: 'Remove a redirect',
        description: 'The domain serves the project again instead of redirecting.',
        params: RedirectParamsSchema,
        response: { 200: { description: "The project's domains", ...DomainSettingsSchema }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      const result = orThrow(await domains.removeRedirect(request.params.slug, request.params.from, changeOf(request)))
      return result.settings
    },
  )
}
