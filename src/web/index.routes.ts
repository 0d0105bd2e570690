import type { FastifyPluginAsync } from 'fastify'

/**
 * `GET /`: where everything is, for a person (or a script) who opened the bare address the
 * server printed. Not an API operation, so not in the OpenAPI documents. The dashboard is named
 * only on the API's own hosts, the only ones that serve it.
 */
export const indexRoutes: FastifyPluginAsync = async (app) => {
  app.get('/', { schema: { hide: true } }, async (request) => ({
    name: 'Adoption Store',
    api: '/v1',
    openapi: '/v1/openapi.json',
    docs: '/docs',
    ...(request.site ? {} : { dashboard: '/dashboard/' }),
    health: '/healthz',
  }))
}
