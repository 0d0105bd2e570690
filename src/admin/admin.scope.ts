import cookie from '@fastify/cookie'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { UserSchema, UserWithPasswordSchema } from '../accounts/accounts.schemas.js'
import { AUDIT_ACTIONS } from '../audit/audit.js'
import { AuditEntrySchema } from '../audit/audit.schemas.js'
import { ProjectCategorySchema } from '../categories/categories.schemas.js'
import { type ProjectLookup, SESSION_COOKIE, type SessionLookup } from '../auth/admin-access.js'
import { authenticateAdmin, resolveProjects } from '../auth/admin.scope.js'
import { ERROR_CATALOG } from '../errors.js'
import { revalidatedJson } from '../http/caching.js'
import { notFound, sendError } from '../http/error-handler.js'
import { trackMethods } from '../http/method-not-allowed.js'
import { named } from '../http/plugin-name.js'
import { API_CONTACT_AND_LICENSE, API_VERSION, referToSharedBody, withBodyExamples, withoutUnusedSchemas } from '../openapi/openapi.js'
import { errorResponses } from '../openapi/responses.js'
import { ADMIN_SECURITY, SESSION_SECURITY } from '../openapi/security.js'
import { ApiKeySchema, NewApiKeySchema } from '../keys/keys.schemas.js'
import { AdoptionOrderSchema, AdoptionOrdersSchema } from '../orders/orders.schemas.js'
import { ProjectSchema } from '../projects/projects.schemas.js'
import { UsageSchema } from '../usage/usage.schemas.js'
import { NewWebhookEndpointSchema, WebhookAttemptSchema, WebhookDeliverySchema, WebhookEndpointSchema } from '../webhooks/webhooks.schemas.js'
import { SiteSettingsSchema } from '../site/site.schemas.js'

export const ADMIN_PREFIX = '/admin/v1'

declare module 'fastify' {
  interface FastifyInstance {
    /** The admin API's own OpenAPI document (the public one describes /v1 only). */
    adminSwagger(): Record<string, unknown>
  }
}

/**
 * The shapes several admin operations answer: shared schemas of the admin scope, named in the
 * admin document's components and kept out of the public one (see registerOpenApi).
 */
const ADMIN_SCHEMAS = [
  ProjectSchema,
  ApiKeySchema,
  NewApiKeySchema,
  UsageSchema,
  AuditEntrySchema,
  UserSchema,
  UserWithPasswordSchema,
  AdoptionOrderSchema,
  AdoptionOrdersSchema,
  WebhookEndpointSchema,
  NewWebhookEndpointSchema,
  WebhookDeliverySchema,
  WebhookAttemptSchema,
  ProjectCategorySchema,
  SiteSettingsSchema,
]

export interface AdminApi {
  adminToken: string | undefined
  /** Opens the session a cookie stands for. */
  sessions: SessionLookup
  /** Signing in, out and one's own password (the accounts' session routes), registered with the cookie parser. */
  sessionRoutes: FastifyPluginAsyncTypebox
  /** The project of a `:slug` route. */
  findProject: ProjectLookup
  /** Host routing is on (PLATFORM_DOMAIN): a request on another host than the API's own is refused with 404 first. */
  hostRouting?: boolean
  /** Every other route of the admin API, each feature's, in the order the document lists them. */
  routes: readonly FastifyPluginAsyncTypebox[]
}

/**
 * The operator's HTTP API under `/admin/v1`: an encapsulated scope of its own, outside /v1 and
 * its rate limits, documented in its own OpenAPI document at `/admin/v1/openapi.json`. Every
 * route but sign-in needs a principal: the `Authorization: Bearer <ADMIN_TOKEN>` operator, or a
 * user signed in with the session cookie (the session routes, registered here with the cookie
 * parser, which only this scope uses).
 */
export async function registerAdminApi(app: FastifyInstance, { adminToken, sessions, sessionRoutes, findProject, hostRouting = false, routes }: AdminApi): Promise<void> {
  // Loaded when an app is built, not at import: the commands import this module's callers too.
  const { default: swagger } = await import('@fastify/swagger')
  await app.register(
    named(async (admin) => {
      await admin.register(named(swagger, '@fastify/swagger'), {
        decorator: 'adminSwagger',
        openapi: {
          openapi: '3.1.0',
          info: {
            title: 'Adoption Store admin API',
            version: API_VERSION,
            ...API_CONTACT_AND_LICENSE,
            description: [
              "The operator's API behind the dashboard: projects and their plans, API keys, usage, custom domains, the shelter's animals and adoption orders, the audit log and the dashboard's users.",
              '',
              'Every operation but signIn needs one of two credentials: `Authorization: Bearer <ADMIN_TOKEN>` (an operator), or the session cookie `adoption_session` that signIn sets (a user: an operator, or an owner who sees only their projects). getSession, signOut and changeOwnPassword are about a session and its user, so they take the cookie only: the bearer is not a session and gets 401. A change (POST, PUT, PATCH, DELETE) made with the cookie must also send the header `X-CSRF-Token` with the session\'s `csrfToken`, or it is refused with 403 `csrf_failed`; the bearer needs none.',
              '',
              'The admin API is outside the rate limits of `/v1`: only signIn and changeOwnPassword answer 429, when too many sign-ins (or current passwords) failed for an email, or sign-ins came from one address.',
              '',
              'Query parameters an operation does not list are ignored; JSON bodies are strict: an unknown field is a 400 naming it.',
              '',
              'Errors are `application/json` with `{ code, message, status }`; the codes are those of the public API:',
              '',
              '| code | status | meaning |',
              '|---|---|---|',
              ...Object.entries(ERROR_CATALOG).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`),
            ].join('\n'),
          },
          servers: [{ url: ADMIN_PREFIX, description: 'This service' }],
          tags: [
            { name: 'session', description: 'Signing in to the dashboard: the session cookie and its CSRF token' },
            { name: 'projects', description: 'Projects, their plans and the limits in force' },
            { name: 'keys', description: "A project's API keys: create (the secret is shown once), revoke, lift a ban" },
            { name: 'usage', description: "A project's traffic: requests, 429s and bans, per minute and per day" },
            { name: 'domains', description: 'Custom domains: DNS verification, certificates, primary domain and redirects' },
            { name: 'audit', description: 'Who changed what, when: every change made through the admin API, the dashboard or the CLI' },
            { name: 'users', description: 'The accounts that sign in to the dashboard: create, disable and enable, delete, reset a password (operators only)' },
            { name: 'account', description: 'Your own account: your password' },
            { name: 'animals', description: "A project's animals: list and search, add, change, remove" },
            { name: 'locations', description: "A project's places (shelter sites, foster areas), with their addresses and coordinates" },
            { name: 'categories', description: "A project's categories: rename a default one, add breeds, add its own" },
            { name: 'orders', description: "A project's adoption orders, with their animals: list, approve, deliver, cancel" },
            { name: 'site', description: "A project's adoption site: published or not, and its branding (name, logo, colour, about, contact)" },
            { name: 'webhooks', description: "A project's webhook endpoints: add, change, rotate the signing secret, the delivery log, redelivery and test events" },
          ],
          components: {
            securitySchemes: {
              [ADMIN_SECURITY]: { type: 'http', scheme: 'bearer', description: 'The operator token, ADMIN_TOKEN' },
              [SESSION_SECURITY]: {
                type: 'apiKey',
                in: 'cookie',
                name: SESSION_COOKIE,
                description: 'The session cookie set by signIn (12 hours). Changes made with it need the header `X-CSRF-Token`.',
              },
            },
          },
        },
        refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
        transform: ({ schema, url }) => ({ schema: referToSharedBody(schema), url: url.startsWith(ADMIN_PREFIX) ? url.slice(ADMIN_PREFIX.length) : url }),
        // The public API's shapes (Pet, Order…) are visible in this scope but are not the admin API's.
        transformObject: (document) => ('openapiObject' in document ? withBodyExamples(withoutUnusedSchemas(document.openapiObject)) : document.swaggerObject),
      })
      const finishMethods = trackMethods(admin)
      // Host routing answers before this scope: 404 on an unknown host or a project's (where the
      // admin API is not served). Every operation says so, as every /v1 one does.
      if (hostRouting) {
        admin.addHook('onRoute', (route) => {
          if (route.schema?.hide) return
          route.schema = { ...route.schema, response: { ...errorResponses(404), ...(route.schema?.response as object | undefined) } }
        })
      }
      // Every change is recorded in the audit log, and its operation names the action it records.
      admin.addHook('onRoute', (route) => {
        if (route.schema?.hide) return
        const changes = [route.method].flat().some((method) => !['GET', 'HEAD', 'OPTIONS'].includes(method))
        const action = (route.schema as { 'x-audit-action'?: unknown } | undefined)?.['x-audit-action']
        if (changes && !(typeof action === 'string' && action in AUDIT_ACTIONS)) {
          throw new Error(`${String(route.method)} ${route.url} changes state: its schema must name the audit action it records (x-audit-action, one of AUDIT_ACTIONS).`)
        }
      })
      admin.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)))
      await admin.register(cookie)
      authenticateAdmin(admin, adminToken, sessions)
      resolveProjects(admin, findProject)
      admin.get('/openapi.json', { schema: { hide: true } }, revalidatedJson(() => admin.adminSwagger()))
      await admin.register(named(sessionRoutes))
      for (const schema of ADMIN_SCHEMAS) admin.addSchema(schema)
      for (const featureRoutes of routes) await admin.register(named(featureRoutes))
      finishMethods()
    }, 'admin'),
    { prefix: ADMIN_PREFIX },
  )
}
