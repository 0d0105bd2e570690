import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { UsageQuerySchema } from './usage.schemas.js'
import type { UsageService } from './usage.service.js'

/** A project's traffic (admin API, `/admin/v1`). */
export const usageRoutes: FastifyPluginAsyncTypebox<{ usage: UsageService }> = async (app, { usage }) => {
  app.get(
    '/projects/:slug/usage',
    {
      schema: {
        tags: ['usage'],
        operationId: 'getUsage',
        summary: "Get a project's usage",
        description:
          "Requests, 429s and bans per minute over the last hour (`range=hour`) or per UTC day over the last 7 days (`range=week`), with the plan's limits to compare against. Counts from other instances arrive within about 10 seconds.",
        params: ProjectParamsSchema,
        querystring: UsageQuerySchema,
        response: { 200: { description: "The project's usage", ...Type.Ref('Usage') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => usage.get(request.adminProject, request.query.range),
  )
}
