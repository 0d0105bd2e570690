import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { SECURITY_SCHEME } from '../auth/auth.scope.js'
import type { Config } from '../config.js'
import { ERROR_CATALOG } from '../errors.js'

export const API_VERSION = '1.0.0'

/**
 * The OpenAPI 3.1 document is generated from the route schemas. Paths are relative to the
 * servers, which carry the `/v1` segment.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Animal Adoption Store API',
        version: API_VERSION,
        description: [
          'Browse and manage animals available for adoption. Every operation needs an API key sent as `Authorization: Bearer <key>`.',
          '',
          'Query parameters an operation does not list are ignored (a cache buster such as `?_=1732450000` is harmless); JSON bodies are strict: an unknown field is a 400 naming it.',
          '',
          'Errors are `application/json` with `{ code, message, status }`. The codes:',
          '',
          '| code | status | meaning |',
          '|---|---|---|',
          ...Object.entries(ERROR_CATALOG).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`),
        ].join('\n'),
      },
      servers: [
        { url: config.publicBaseUrl, description: 'Production' },
        { url: config.stagingBaseUrl, description: 'Staging' },
      ],
      tags: [
        { name: 'pets', description: 'Animals available for adoption' },
        { name: 'store', description: 'Adoption orders (experimental). The live testing panel of the reference is disabled for this group.' },
      ],
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', description: 'An API key: `as_live_…` in production, `as_test_…` in staging' },
        },
      },
    },
    refResolver: {
      // Shared schemas keep their names in components.schemas.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    // The admin API (/admin/v1) has its own document; this one describes /v1.
    transform: ({ schema, url }) => ({ schema: url.startsWith('/admin/') ? { ...schema, hide: true } : schema, url: url.replace(/^\/v1(?=\/)/, '') }),
    // Swagger gathers the shared schemas of every scope; those added inside another scope (the
    // admin API's) belong to that scope's own document, not to this one.
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject
      const schemas: Record<string, unknown> = document.openapiObject.components?.schemas ?? {}
      const own = app.getSchemas() as Record<string, unknown>
      for (const id of Object.keys(schemas)) if (!(id in own)) delete schemas[id]
      return document.openapiObject
    },
  })

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      deepLinking: true,
      // No calls to the public validator service.
      validatorUrl: null,
      // Swagger UI runs these in the browser from their source text; they are written as text so
      // no build step (a bundler's helpers) can slip into them.
      plugins: [
        // The default plugin list is replaced by this one, so keep the spec loader.
        new Function('system', 'return SwaggerUIBundle.plugins.DownloadUrl(system)'),
        // The store group's live testing panel is disabled: its operations show no "Try it out".
        new Function(
          `return { statePlugins: { spec: { selectors: {
            allowTryItOutFor: function (state, path) { return String(path).indexOf('/store') !== 0 }
          } } } }`,
        ),
      ] as never[],
    },
    staticCSP: true,
    // Everything comes from this service: no outside host, no inline script. Swagger UI sets a
    // few inline styles, which are harmless. No upgrade-insecure-requests: plain-HTTP
    // deployments (behind a TLS proxy, or local) must keep working.
    transformStaticCSP: () =>
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  })
}
