import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { requireApiKey } from '../auth/api-key.scope.js'
import type { Authenticator } from '../auth/authenticator.js'
import { identifyCaller } from '../auth/caller.hook.js'
import { answerPreflight } from '../auth/cors.hook.js'
import type { Generations } from '../cache/generations.js'
import type { Environment } from '../config.js'
import { documentHostAnswers, type HostRouter } from '../domains/host-routing.hook.js'
import { ErrorSchema } from '../errors.js'
import { revalidatedJson } from '../http/caching.js'
import { notFound, sendError } from '../http/error-handler.js'
import { trackMethods } from '../http/method-not-allowed.js'
import { named } from '../http/plugin-name.js'
import { chargeCaller, limitRequests } from '../limits/limits.hook.js'
import type { RateLimiter } from '../limits/limits.service.js'
import type { Metrics } from '../ops/metrics.js'
import { NewOrderSchema, OrderSchema, OrdersSchema } from '../orders/orders.schemas.js'
import { BreedSchema, BreedsSchema, CategoriesSchema, CategorySchema } from '../categories/categories.schemas.js'
import { LocationSchema, LocationsSchema } from '../locations/locations.schemas.js'
import { NewPetSchema, PetChangesSchema, PetFeedEntrySchema, PetFeedSchema, PetSchema, PetsSchema, PetStatusSchema } from '../pets/pets.schemas.js'
import { PhotoSchema, PhotosSchema, PhotoVariantSchema } from '../photos/photos.schemas.js'
import { recordUsage } from '../usage/usage.hook.js'
import type { UsageRecorder } from '../usage/usage.recorder.js'

export interface PublicApi {
  environment: Environment
  authenticator: Authenticator
  generations: Generations
  router: HostRouter
  limiter: RateLimiter
  metrics: Metrics
  usage: UsageRecorder
  /** The operations, each feature's, in the order the document lists them: they need a valid key. */
  routes: readonly FastifyPluginAsyncTypebox[]
}

/**
 * The shapes the public document names in its components, shared by operations: added to the
 * app before any scope, since the admin scope's errors refer to `Error` too.
 */
export const SHARED_SCHEMAS = [
  ErrorSchema,
  PetStatusSchema,
  NewPetSchema,
  PetChangesSchema,
  PhotoVariantSchema,
  PhotoSchema,
  PhotosSchema,
  PetSchema,
  PetsSchema,
  PetFeedEntrySchema,
  PetFeedSchema,
  CategorySchema,
  CategoriesSchema,
  BreedSchema,
  BreedsSchema,
  LocationSchema,
  LocationsSchema,
  NewOrderSchema,
  OrderSchema,
  OrdersSchema,
]

/**
 * The public API under `/v1`: every request is identified by its key, kept to its project's
 * host, rate limited and counted, unknown routes included; the operations need a valid key.
 */
export async function registerPublicApi(app: FastifyInstance, api: PublicApi): Promise<void> {
  await app.register(
    named(async (v1) => {
      const finishMethods = trackMethods(v1)
      // Who is calling (key, project host, rate-limit charge) is decided in one step; the limiter's
      // hook answers its decision.
      identifyCaller(v1, { authenticator: api.authenticator, charge: chargeCaller(api.limiter, api.generations) })
      documentHostAnswers(v1, api.router)
      limitRequests(v1, api.metrics, api.generations)
      // A CORS preflight carries no key: charged like any request without one, then answered.
      answerPreflight(v1, { originAccess: (origin, projectId) => api.authenticator.originAccess(origin, projectId) })
      recordUsage(v1, api.usage)
      v1.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)))
      v1.get('/openapi.json', { schema: { hide: true } }, revalidatedJson(() => app.swagger()))
      await v1.register(
        named(async (scope) => {
          requireApiKey(scope, api.environment)
          for (const routes of api.routes) await scope.register(named(routes))
        }, 'v1 operations'),
      )
      finishMethods()
    }, 'v1'),
    { prefix: '/v1' },
  )
}
