import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

export interface IndexOptions {
  /** A project's published adoption site answers `/` of its hosts; undefined: the index answers. */
  site: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>
}

/**
 * `GET /`: where everything is, for a person (or a script) who opened the bare address the
 * server printed. Not an API operation, so not in the OpenAPI documents. The dashboard is named
 * only on the API's own hosts, the only ones that serve it. On a project's host with a published
 * adoption site, `/` is the site's listing, unless the client asks for JSON only (`Accept`
 * without `text/html`), which keeps this index.
 */
export const indexRoutes: FastifyPluginAsync<IndexOptions> = async (app, { site }) => {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (request.site && wantsHtml(request.headers.accept)) {
      const page = await site(request, reply)
      if (page) return page
    }
    return index(request)
  })
}

/** A browser asks for HTML; a script with no Accept, or one accepting any type, gets what it always got. */
function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /text\/html/i.test(accept)
}

function index(request: FastifyRequest) {
  return {
    name: 'Adoption Store',
    api: '/v1',
    openapi: '/v1/openapi.json',
    docs: '/docs',
    ...(request.site ? {} : { dashboard: '/dashboard/' }),
    health: '/healthz',
  }
}
