import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ResponseCache } from '../cache/response-cache.js'
import { locationsAdminRoutes, locationsRoutes } from './locations.routes.js'
import { type LocationsDeps, LocationsService } from './locations.service.js'

/** A project's places, wired: the service, its read in /v1 and its management in the admin API. */
export interface Locations {
  service: LocationsService
  routes: { v1: FastifyPluginAsyncTypebox; admin: FastifyPluginAsyncTypebox }
}

export function createLocations({ cache, ...deps }: LocationsDeps & { cache: ResponseCache }): Locations {
  const service = new LocationsService(deps)
  return { service, routes: { v1: (app) => locationsRoutes(app, { locations: service, cache }), admin: (app) => locationsAdminRoutes(app, { locations: service }) } }
}
