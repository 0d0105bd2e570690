import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import type { ResponseCache } from '../cache/response-cache.js'
import { ApiError, orThrow } from '../errors.js'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { CategoryInputSchema, CategoryParamsSchema, ProjectCategoriesSchema, ProjectCategoryParamsSchema } from './categories.schemas.js'
import type { CategoriesService } from './categories.service.js'

const BETA = { 'x-stability': 'beta' } as const

/** Categories and breeds in /v1: what a category id means, and the breeds to pick from. */
export const categoriesRoutes: FastifyPluginAsyncTypebox<{ categories: CategoriesService; cache: ResponseCache }> = async (app, { categories, cache }) => {
  app.get(
    '/categories',
    {
      config: { scope: 'pets:read' },
      schema: {
        ...BETA,
        operationId: 'listCategories',
        tags: ['categories'],
        summary: 'List categories',
        description:
          "The kinds of animal of your project: the default set (1 Dog, 2 Cat, 3 Rabbit, 4 Small & Furry, 5 Horse, 6 Bird, 7 Scales, Fins & Other, 8 Barnyard), as your project names them, and its own. An animal's `categoryId` may also name none of them.",
        response: { 200: { description: 'Every category, in ascending id order', ...Type.Ref('Categories') }, ...errorResponses(401, 500, 503) },
      },
    },
    async (request, reply) => cache.reply(request, reply, 'listCategories', async () => ({ body: await categories.list(request.principal.projectId) })),
  )

  app.get(
    '/categories/:categoryId/breeds',
    {
      config: { scope: 'pets:read' },
      schema: {
        ...BETA,
        operationId: 'listBreeds',
        tags: ['categories'],
        summary: 'List the breeds of a category',
        description: 'The breeds shipped for the category and those your project added, in alphabetical order: the names to use in `breeds.primary` and `breeds.secondary` (others are accepted too).',
        params: CategoryParamsSchema,
        response: { 200: { description: 'The breeds', ...Type.Ref('Breeds') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) =>
      cache.reply(request, reply, `listBreeds ${request.params.categoryId}`, async () => {
        const breeds = await categories.breeds(request.principal.projectId, request.params.categoryId)
        if (!breeds) throw new ApiError('not_found', `No category with id ${request.params.categoryId} in your project: see GET /v1/categories.`)
        return { body: breeds }
      }),
  )
}

const CATEGORIES = { tags: ['categories'] } as const

/** A project's categories in the admin API: the dashboard's Categories page. */
export const categoriesAdminRoutes: FastifyPluginAsyncTypebox<{ categories: CategoriesService }> = async (app, { categories }) => {
  app.get(
    '/projects/:slug/categories',
    {
      schema: {
        ...CATEGORIES,
        operationId: 'listProjectCategories',
        summary: "List a project's categories",
        description: 'The default set and the project\'s own, each with what the project set over the default.',
        params: ProjectParamsSchema,
        response: { 200: { description: 'Every category, in ascending id order', ...ProjectCategoriesSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => categories.listForProject(request.adminProject.id),
  )

  app.get(
    '/projects/:slug/categories/:categoryId/breeds',
    {
      schema: {
        ...CATEGORIES,
        operationId: 'listProjectBreeds',
        summary: "List the breeds of a project's category",
        description: "The breeds shipped for the category and those the project added, in alphabetical order: what the dashboard's breed pickers offer (other names are accepted too). 404 when the id names no category of the project.",
        params: ProjectCategoryParamsSchema,
        response: { 200: { description: 'The breeds', ...Type.Ref('Breeds') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const breeds = await categories.breeds(request.adminProject.id, request.params.categoryId)
      if (!breeds) throw new ApiError('not_found', `No category with id ${request.params.categoryId} in the project: see its categories.`)
      return breeds
    },
  )

  app.put(
    '/projects/:slug/categories/:categoryId',
    {
      schema: {
        ...CATEGORIES,
        operationId: 'setCategory',
        'x-audit-action': 'category.set',
        summary: 'Name a category, or add one',
        description:
          "Sets the project's name for a category id, and the breeds it adds to the category's list: renames a default category (the default comes back when this is removed), or adds a category of the project's own (at most 200). Animals keep their `categoryId`.",
        params: ProjectCategoryParamsSchema,
        body: CategoryInputSchema,
        response: { 200: { description: 'The category as it is now', ...Type.Ref('ProjectCategory') }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
      },
    },
    async (request) => orThrow(await categories.set(request.adminProject.id, request.params.categoryId, request.body, changeOf(request))).category,
  )

  app.delete(
    '/projects/:slug/categories/:categoryId',
    {
      schema: {
        ...CATEGORIES,
        operationId: 'removeCategory',
        'x-audit-action': 'category.removed',
        summary: "Remove the project's name for a category",
        description: "A default category gets its default name and breeds back; a category of the project's own is gone (its animals keep their `categoryId`). 404 when the project set nothing for this id.",
        params: ProjectCategoryParamsSchema,
        response: { 204: { description: 'Removed', type: 'null' }, ...errorResponses(400, 401, 404, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      orThrow(await categories.remove(request.adminProject.id, request.params.categoryId, changeOf(request)))
      return reply.code(204).send(null)
    },
  )
}
