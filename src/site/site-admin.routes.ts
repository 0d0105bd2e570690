import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import { withMergePatch } from '../http/json-body.js'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { SiteSettingsChangesSchema } from './site.schemas.js'
import type { SiteService } from './site.service.js'

const SITE = { tags: ['site'] } as const

/** A project's adoption site in the admin API: the dashboard's Site page. */
export const siteAdminRoutes: FastifyPluginAsyncTypebox<{ site: SiteService }> = async (app, { site }) => {
  app.get(
    '/projects/:slug/site',
    {
      schema: {
        ...SITE,
        operationId: 'getSiteSettings',
        summary: "Get the project's adoption site settings",
        description:
          "Whether the project's adoption site is published at its addresses (`<slug>.<PLATFORM_DOMAIN>`, its verified custom domains, and `/sites/<slug>/` on the API's own host), and its branding. A project that never changed them has the defaults: published, named by its slug.",
        params: ProjectParamsSchema,
        response: { 200: { description: 'The settings', ...Type.Ref('SiteSettings') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => site.settings(request.adminProject.id),
  )

  await withMergePatch(app, (scope) =>
    scope.patch(
      '/projects/:slug/site',
      {
        schema: {
          ...SITE,
          operationId: 'updateSiteSettings',
          'x-audit-action': 'site.updated',
          summary: "Change the project's adoption site settings",
          description:
            'A JSON Merge Patch: a field left out stays, `null` removes it. `published: false` takes the site down at once (its pages answer 404; the API is served as before). The pages show the new branding from the next request.',
          consumes: ['application/merge-patch+json', 'application/json'],
          params: ProjectParamsSchema,
          body: SiteSettingsChangesSchema,
          response: { 200: { description: 'The settings as they are now', ...Type.Ref('SiteSettings') }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
        },
      },
      async (request) => site.update(request.adminProject.id, request.body, changeOf(request)),
    ),
  )
}
