import type { FastifyInstance } from 'fastify'
import type { Config } from '../config.js'
import { ERROR_CATALOG } from '../errors.js'
import { named } from '../http/plugin-name.js'
import { API_KEY_SECURITY } from './security.js'

/**
 * The document's version: the spec's 1.0.0, whose requests and answers never change, and a minor
 * version for each release that adds to it (optional fields, parameters and operations).
 */
export const API_VERSION = '1.1.0'

/** What each minor version added, newest first: shown in the document's description. */
const ADDITIONS = [
  '**1.1.0**: animal profiles (breeds, sex, age, birth date, size, colours, coat, description, compatibility, care attributes, adoption fee, intake date, location, tags, video links, `externalId`; all optional); the search on `GET /pets` (filters, `q`, `near`, `updatedAfter`, `sort`, `cursor`, `count`, `fields`); `GET /pets/changes`, the change feed; `GET /categories`, `GET /categories/{categoryId}/breeds`, `GET /locations`. Every request of 1.0.0 keeps its answer.',
]

/**
 * Who answers for the API, and its license (package.json's). The project publishes no support
 * address or site, so the contact is a name only.
 */
export const API_CONTACT_AND_LICENSE = {
  contact: { name: 'Adoption Store maintainers' },
  license: { name: 'MIT', identifier: 'MIT' },
} as const

/**
 * Drops the shared schemas no operation reaches, directly or through another schema: a scope
 * sees the shared schemas of its parents (the admin API sees Pet), which are not its own.
 */
export function withoutUnusedSchemas<D extends { paths?: unknown; components?: { schemas?: Record<string, unknown> } }>(document: D): D {
  const schemas = document.components?.schemas
  if (!schemas) return document
  const used = new Set<string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item)
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const name = key === '$ref' && typeof item === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(item)?.[1] : undefined
        if (name !== undefined && !used.has(name)) {
          used.add(name)
          visit(schemas[name])
        } else visit(item)
      }
    }
  }
  visit(document.paths)
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
  return document
}

/**
 * A request body that is a shared schema (one with an `$id`, such as NewPet) is documented as a
 * reference to its component rather than copied inline, as responses already are. Validation
 * still uses the schema itself; only the document changes.
 */
export function referToSharedBody<S extends { body?: unknown }>(schema: S): S {
  const body = schema.body as { $id?: unknown } | undefined
  return typeof body?.$id === 'string' ? { ...schema, body: { $ref: body.$id } } : schema
}

interface MediaType {
  schema?: { $ref?: string }
  example?: unknown
}

/**
 * A request body that refers to a component gets the component's first example as its own,
 * as an inline body gets its schema's: readers and "Try it out" see a body to send.
 */
export function withBodyExamples<D extends { paths?: object; components?: { schemas?: object } }>(document: D): D {
  const paths = (document.paths ?? {}) as Record<string, Record<string, { requestBody?: { content?: Record<string, MediaType> } } | undefined> | undefined>
  const schemas = (document.components?.schemas ?? {}) as Record<string, { examples?: unknown[] } | undefined>
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item ?? {})) {
      for (const media of Object.values(operation?.requestBody?.content ?? {})) {
        const name = /^#\/components\/schemas\/(.+)$/.exec(media.schema?.$ref ?? '')?.[1]
        const examples = name === undefined ? undefined : schemas[name]?.examples
        if (media.example === undefined && examples?.length) media.example = examples[0]
      }
    }
  }
  return document
}

/**
 * What the document says of the requests the service sends rather than answers (the webhooks'
 * events): their `webhooks` entries and the components they refer to, which no route uses.
 */
export interface CallbacksDocument {
  webhooks: Record<string, { post: { operationId: string; responses: Record<string, { $ref: string }> } }>
  schemas: Record<string, unknown>
  parameters: Record<string, unknown>
  responses: Record<string, unknown>
}

/**
 * A Swagger UI plugin (its source text, run in the page as `function (system) { … }`): an opened
 * operation or event is shown with its `$ref`s resolved, and Swagger UI asks its client to resolve
 * that one operation. For an OpenAPI 3.1 document the client parses, normalises and serialises the
 * whole document for each such request, so every first opening of an operation kept the page busy
 * for as long as the whole document takes (about a second of CPU, for each of the 44). This
 * resolves the whole section instead (`paths` or `webhooks`, once per document, for about what
 * three single operations cost) the first time one of its parts is asked for, and answers every
 * part from it. The answers are the client's own: the same resolution, of a bigger subtree.
 * Anything else (a model, the security schemes) goes to the client as before.
 */
const RESOLVE_BY_SECTION = `
  var resolveSubtree = system.fn.resolveSubtree
  var text, sections
  return { fn: { resolveSubtree: function (spec, path, options) {
    var section = path[0]
    if ((section !== 'paths' && section !== 'webhooks') || path.length < 2) return resolveSubtree(spec, path, options)
    var now = system.specSelectors.specStr()
    if (now !== text) {
      text = now
      sections = {}
    }
    var whole = sections[section] = sections[section] || resolveSubtree(spec, [section], options).catch(function (error) {
      delete sections[section]
      throw error
    })
    return whole.then(function (resolved) {
      var value = resolved.spec
      for (var i = 1; i < path.length && value; i++) value = value[path[i]]
      var errors = (resolved.errors || []).filter(function (error) {
        return !error.fullPath || path.every(function (part, i) { return error.fullPath[i] === part })
      })
      return { spec: value === undefined ? null : value, errors: errors }
    })
  } } }
`

/**
 * The OpenAPI 3.1 document is generated from the route schemas. Paths are relative to the
 * servers, which carry the `/v1` segment. `events`: the webhooks feature's document of its events
 * (`webhooksDocument`), given by the composition.
 */
export async function registerOpenApi(app: FastifyInstance, config: Config, events: CallbacksDocument): Promise<void> {
  // Loaded when an app is built, not at import: the commands import this module's callers too.
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([import('@fastify/swagger'), import('@fastify/swagger-ui')])
  await app.register(named(swagger, '@fastify/swagger'), {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Animal Adoption Store API',
        version: API_VERSION,
        ...API_CONTACT_AND_LICENSE,
        description: [
          'Browse and manage animals available for adoption. Every operation needs an API key sent as `Authorization: Bearer <key>`.',
          '',
          'Query parameters an operation does not list are ignored (a cache buster such as `?_=1732450000` is harmless); JSON bodies are strict: an unknown field is a 400 naming it.',
          '',
          'Versions: the interface is 1.0.0 as first specified; each minor version adds optional fields, parameters and operations, and changes no answer to a request that was valid before.',
          '',
          ...ADDITIONS.map((addition) => `- ${addition}`),
          '',
          'Errors are `application/json` with `{ code, message, status }`. The codes:',
          '',
          '| code | status | meaning |',
          '|---|---|---|',
          ...Object.entries(ERROR_CATALOG).map(([code, { status, summary }]) => `| \`${code}\` | ${status} | ${summary} |`),
        ].join('\n'),
      },
      // First the service the document was read from, relative so that it is whatever host the
      // reader used (the /docs "Try it out" calls it, and the page may only call its own origin);
      // then the two environments by their absolute URLs, which the typed client picks from.
      servers: [
        { url: '/v1', description: 'This service (the host this document was read from)' },
        { url: config.publicBaseUrl, description: 'Production' },
        { url: config.stagingBaseUrl, description: 'Staging' },
      ],
      tags: [
        { name: 'pets', description: 'Animals available for adoption' },
        { name: 'categories', description: 'The kinds of animal (Dog, Cat, …) and their breeds (beta)' },
        { name: 'locations', description: "Your project's places: shelter sites and foster areas (beta)" },
        { name: 'store', description: 'Adoption orders (experimental). The live testing panel of the reference is disabled for this group.' },
        {
          name: 'webhooks',
          description:
            'Events your webhook endpoints receive (endpoints are managed in the dashboard, the admin API or the CLI): POSTed as JSON, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), retried with backoff for about 3 days. See docs/webhooks.md.',
        },
      ],
      webhooks: events.webhooks,
      components: {
        securitySchemes: {
          [API_KEY_SECURITY]: {
            type: 'http',
            scheme: 'bearer',
            description:
              "An API key: `as_live_…` in production, `as_test_…` in staging. A key made with scopes calls only the operations of its scopes (each operation's `x-scopes`): `pets:read` (animals, their photos and changes, categories, breeds, locations), `pets:write` (adding, changing and removing animals and photos), `orders:read`, `orders:write`; beyond them it gets 403 `insufficient_scope`. A key made without scopes calls everything. A publishable key (read-only, `pets:read`) may be used from web pages of its allowed origins, which get CORS headers; from another origin it gets 403 `origin_not_allowed`.",
          },
        },
      },
    },
    refResolver: {
      // Shared schemas keep their names in components.schemas.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    // The admin API (/admin/v1) has its own document; this one describes /v1.
    transform: ({ schema, url }) => ({ schema: url.startsWith('/admin/') ? { ...schema, hide: true } : referToSharedBody(schema), url: url.replace(/^\/v1(?=\/)/, '') }),
    // Swagger gathers the shared schemas of every scope; those added inside another scope (the
    // admin API's) belong to that scope's own document, not to this one.
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject
      const schemas: Record<string, unknown> = document.openapiObject.components?.schemas ?? {}
      const own = app.getSchemas() as Record<string, unknown>
      for (const id of Object.keys(schemas)) if (!(id in own)) delete schemas[id]
      // The webhooks' own components: no route uses them, so they are added here.
      const components = (document.openapiObject.components ??= {})
      components.schemas = { ...schemas, ...events.schemas } as typeof components.schemas
      components.parameters = { ...components.parameters, ...events.parameters } as typeof components.parameters
      components.responses = { ...components.responses, ...events.responses } as typeof components.responses
      return withBodyExamples(document.openapiObject)
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
        new Function('system', RESOLVE_BY_SECTION),
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
    // deployments (behind a TLS proxy, or local) must keep working. "Try it out" calls the
    // document's first server, `/v1` on this same origin, which `default-src 'self'` allows; the
    // API answers no cross-origin (CORS) request, so other servers could not be called anyway.
    transformStaticCSP: () =>
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
  })
}
