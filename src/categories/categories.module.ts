import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ResponseCache } from '../cache/response-cache.js'
import { categoriesAdminRoutes, categoriesRoutes } from './categories.routes.js'
import { type CategoriesDeps, CategoriesService } from './categories.service.js'

/** A project's categories, wired: the service, its read in /v1 and its management in the admin API. */
export interface Categories {
  service: CategoriesService
  routes: { v1: FastifyPluginAsyncTypebox; admin: FastifyPluginAsyncTypebox }
}

export function createCategories({ cache, ...deps }: CategoriesDeps & { cache: ResponseCache }): Categories {
  const service = new CategoriesService(deps)
  return { service, routes: { v1: (app) => categoriesRoutes(app, { categories: service, cache }), admin: (app) => categoriesAdminRoutes(app, { categories: service }) } }
}
