import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import type { ResponseCache } from '../cache/response-cache.js'
import { ApiError, orThrow } from '../errors.js'
import { withMergePatch } from '../http/json-body.js'
import { NEXT_LINK_DOC, nextPageLink } from '../http/pagination.js'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { LocationChangesSchema, LocationParamsSchema, LocationsQuerySchema, NewLocationSchema } from './locations.schemas.js'
import { noSuchLocation, type LocationsService } from './locations.service.js'

const BETA = { 'x-stability': 'beta' } as const

/** The project's locations in /v1: read-only, for showing where animals are. */
export const locationsRoutes: FastifyPluginAsyncTypebox<{ locations: LocationsService; cache: ResponseCache }> = async (app, { locations, cache }) => {
  app.get(
    '/locations',
    {
      config: { scope: 'pets:read' },
      schema: {
        ...BETA,
        operationId: 'listLocations',
        tags: ['locations'],
        summary: 'List locations',
        description: "Your project's places (shelter sites, foster areas) in ascending id order: what an animal's `locationId` names. They are managed in the dashboard.",
        querystring: LocationsQuerySchema,
        response: { 200: { description: 'A page of locations', headers: NEXT_LINK_DOC, ...Type.Ref('Locations') }, ...errorResponses(400, 401, 500, 503) },
      },
    },
    async (request, reply) => {
      const { limit = 20, after } = request.query
      return cache.reply(request, reply, `listLocations ${limit} ${after}`, async () => {
        const page = await locations.list(request.principal.projectId, { limit, after })
        return { body: page.items, link: nextPageLink('/v1/locations', { limit }, page.nextAfter) }
      })
    },
  )
}

const LOCATIONS = { tags: ['locations'] } as const

/** A project's locations in the admin API: the dashboard's Locations page. */
export const locationsAdminRoutes: FastifyPluginAsyncTypebox<{ locations: LocationsService }> = async (app, { locations }) => {
  const base = (slug: string) => `/admin/v1/projects/${encodeURIComponent(slug)}/locations`

  app.get(
    '/projects/:slug/locations',
    {
      schema: {
        ...LOCATIONS,
        operationId: 'listProjectLocations',
        summary: "List a project's locations",
        description: 'In ascending id order; `Link: rel="next"` when more exist.',
        params: ProjectParamsSchema,
        querystring: LocationsQuerySchema,
        response: { 200: { description: 'A page of locations', headers: NEXT_LINK_DOC, ...Type.Ref('Locations') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const { limit = 20, after } = request.query
      const page = await locations.list(request.adminProject.id, { limit, after })
      const link = nextPageLink(base(request.adminProject.slug), { limit }, page.nextAfter)
      if (link) reply.header('link', link)
      return page.items
    },
  )

  app.post(
    '/projects/:slug/locations',
    {
      schema: {
        ...LOCATIONS,
        operationId: 'addLocation',
        'x-audit-action': 'location.created',
        summary: 'Add a location',
        description: 'A place where animals can be met. Give it coordinates for distance searches (`near` on `GET /v1/pets`). A project has at most 1,000 (409 `limit_reached`).',
        params: ProjectParamsSchema,
        body: NewLocationSchema,
        response: {
          201: { description: 'The location', headers: { Location: { type: 'string', description: 'Path of the location in the admin API' } }, ...Type.Ref('Location') },
          ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { slug, id } = request.adminProject
      const { location } = orThrow(await locations.create(id, request.body, changeOf(request)))
      return reply.code(201).header('location', `${base(slug)}/${location.id}`).send(location)
    },
  )

  app.get(
    '/projects/:slug/locations/:locationId',
    {
      schema: {
        ...LOCATIONS,
        operationId: 'getLocation',
        summary: 'Get a location',
        description: 'One location of the project. A location of another project is 404, as one that does not exist.',
        params: LocationParamsSchema,
        response: { 200: { description: 'The location', ...Type.Ref('Location') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const location = await locations.get(request.adminProject.id, request.params.locationId)
      if (!location) throw new ApiError('not_found', noSuchLocation(request.params.locationId))
      return location
    },
  )

  await withMergePatch(app, (scope) =>
    scope.patch(
      '/projects/:slug/locations/:locationId',
      {
        schema: {
          ...LOCATIONS,
          operationId: 'updateLocation',
          'x-audit-action': 'location.updated',
          summary: 'Change a location',
          description: 'A JSON Merge Patch: a field left out stays, `null` removes the address, a part of it, or the coordinates.',
          consumes: ['application/merge-patch+json', 'application/json'],
          params: LocationParamsSchema,
          body: LocationChangesSchema,
          response: { 200: { description: 'The location as it is now', ...Type.Ref('Location') }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
        },
      },
      async (request) => orThrow(await locations.update(request.adminProject.id, request.params.locationId, request.body, changeOf(request))).location,
    ),
  )

  app.delete(
    '/projects/:slug/locations/:locationId',
    {
      schema: {
        ...LOCATIONS,
        operationId: 'removeLocation',
        'x-audit-action': 'location.deleted',
        summary: 'Remove a location',
        description: 'Refused with 409 `location_in_use` while animals are there: move them first.',
        params: LocationParamsSchema,
        response: { 204: { description: 'Removed', type: 'null' }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      orThrow(await locations.remove(request.adminProject.id, request.params.locationId, changeOf(request)))
      return reply.code(204).send(null)
    },
  )
}
