import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ResponseCache } from '../cache/response-cache.js'
import { petsAdminRoutes } from './pets-admin.routes.js'
import { petsRoutes } from './pets.routes.js'
import { type PetsDeps, PetsService } from './pets.service.js'

/** Animals, wired: the service /v1, the admin API and the CLI all use, and its routes. */
export interface Pets {
  service: PetsService
  routes: {
    /** `/v1/pets…`: the spec's operations, the search, the change feed. */
    v1: FastifyPluginAsyncTypebox
    /** `/admin/v1/projects/:slug/animals`. */
    admin: FastifyPluginAsyncTypebox
  }
}

export function createPets({ cache, ...deps }: PetsDeps & { cache: ResponseCache }): Pets {
  const service = new PetsService(deps)
  return {
    service,
    routes: { v1: (app) => petsRoutes(app, { pets: service, clock: deps.clock, cache }), admin: (app) => petsAdminRoutes(app, { pets: service }) },
  }
}
