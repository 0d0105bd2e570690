import swagger from '@fastify/swagger'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Db } from '../db/database.js'
import { ApiError, ERROR_CATALOG } from '../errors.js'
import { notFound, sendError } from '../http/error-handler.js'
import { trackMethods } from '../http/method-not-allowed.js'
import { API_VERSION } from '../openapi/openapi.js'
import { ADMIN_REALM, resolveProjects, tokenPrincipal } from './access.js'

export const ADMIN_PREFIX = '/admin/v1'
const ADMIN_SECURITY = 'adminToken'

declare module 'fastify' {
  interface FastifyInstance {
    /** The admin API's own OpenAPI document (the public one describes /v1 only). */
    adminSwagger(): Record<string, unknown>
  }
}

/**
 * The operator's HTTP API under `/admin/v1`: an encapsulated scope of its own, outside /v1 and
 * its rate limits, documented in its own OpenAPI document at `/admin/v1/openapi.json`. Until
 * operators sign in, every route needs `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN
 * the whole scope answers 404.
 */
export async function registerAdminApi(
  app: FastifyInstance,
  { adminToken, db }: { adminToken: string | undefined; db: Db },
  routes: (scope: FastifyInstance) => Promise<void>,
): Promise<void> {
  await app.register(
    async (admin) => {
      await admin.register(swagger, {
        decorator: 'adminSwagger',
        openapi: {
          openapi: '3.1.0',
          info: {
            title: 'Adoption Store admin API',
            version: API_VERSION,
            description: [
              "The operator's API: custom domains of projects. Every operation needs `Authorization: Bearer <ADMIN_TOKEN>`.",
              '',
              'Errors are `application/json` with `{ code, message, status }`; the codes are those of the public API:',
              '',
              '| code | status | meaning |',
              '|---|---|---|',
              ...Object.entries(ERROR_CATALOG).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`),
            ].join('\n'),
          },
          servers: [{ url: ADMIN_PREFIX, description: 'This service' }],
          tags: [{ name: 'domains', description: 'Custom domains: DNS verification, certificates, primary domain and redirects' }],
          components: { securitySchemes: { [ADMIN_SECURITY]: { type: 'http', scheme: 'bearer', description: 'The operator token, ADMIN_TOKEN' } } },
        },
        refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
        transform: ({ schema, url }) => ({ schema, url: url.startsWith(ADMIN_PREFIX) ? url.slice(ADMIN_PREFIX.length) : url }),
      })
      const finishMethods = trackMethods(admin)
      admin.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)))
      authenticate(admin, adminToken)
      resolveProjects(admin, db)
      admin.get('/openapi.json', { schema: { hide: true } }, async () => admin.adminSwagger())
      await routes(admin)
      finishMethods()
    },
    { prefix: ADMIN_PREFIX },
  )
}

function authenticate(scope: FastifyInstance, token: string | undefined): void {
  scope.addHook('onRoute', (route) => {
    if (route.schema?.hide) return
    route.schema = { ...route.schema, security: [{ [ADMIN_SECURITY]: [] }] }
  })
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    if (token === undefined) throw new ApiError('not_found', 'The admin API is disabled on this instance: set ADMIN_TOKEN to enable it.')
    const principal = tokenPrincipal(request, token)
    if (!principal) throw new ApiError('unauthorized', 'Missing admin token: send it as the header "Authorization: Bearer <ADMIN_TOKEN>".', { 'www-authenticate': ADMIN_REALM })
    request.adminPrincipal = principal
  })
}
