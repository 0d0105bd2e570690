import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { withMergePatch } from '../http/json-body.js'
import { NEXT_LINK_DOC } from '../http/pagination.js'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { nextLink, PET_CHANGES_MEDIA_TYPES, petNotFound, prepareBody, REMOVAL_RESPONSES, TOTAL_COUNT_DOC } from './pets.http.js'
import { AnimalsQuerySchema, NewPetSchema, PetChangesSchema, ProjectPetParamsSchema } from './pets.schemas.js'
import type { PetsService } from './pets.service.js'

const ANIMALS = { tags: ['animals'] } as const

/**
 * A project's animals, for the dashboard (admin API, `/admin/v1`): the same service as /v1's
 * operations, each change recorded in the audit log with it.
 */
export const petsAdminRoutes: FastifyPluginAsyncTypebox<{ pets: PetsService }> = async (app, { pets }) => {
  app.get(
    '/projects/:slug/animals',
    {
      schema: {
        ...ANIMALS,
        operationId: 'listAnimals',
        summary: "List a project's animals",
        description:
          'In ascending id order, optionally filtered by status and by a part of the name (case-insensitive), with the search, sorts, count and fields of the public `listPets`. When more exist, the `Link` header carries the next page (`rel="next"`, with the `after` or `cursor` of the order).',
        params: ProjectParamsSchema,
        querystring: AnimalsQuerySchema,
        response: { 200: { description: 'A page of animals', headers: { ...NEXT_LINK_DOC, ...TOTAL_COUNT_DOC }, ...Type.Ref('Pets') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const { slug, id } = request.adminProject
      const page = orThrow(await pets.search(id, request.query))
      const link = nextLink(`/admin/v1/projects/${encodeURIComponent(slug)}/animals`, request.query, page.next)
      if (link) reply.header('link', link)
      if (page.total !== undefined) reply.header('x-total-count', String(page.total))
      return page.items
    },
  )

  app.post(
    '/projects/:slug/animals',
    {
      schema: {
        ...ANIMALS,
        operationId: 'addAnimal',
        'x-audit-action': 'pet.created',
        summary: 'Add an animal',
        description: 'Adds an animal to the project, as `createPet` of the public API does; `status` defaults to `available`.',
        params: ProjectParamsSchema,
        body: NewPetSchema,
        response: {
          201: { description: 'The animal', headers: { Location: { type: 'string', description: 'Path of the animal in the admin API' } }, ...Type.Ref('Pet') },
          ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503),
        },
      },
      preValidation: prepareBody,
    },
    async (request, reply) => {
      const { slug, id } = request.adminProject
      const { pet } = orThrow(await pets.create(id, request.body, { change: changeOf(request) }))
      return reply.code(201).header('location', `/admin/v1/projects/${encodeURIComponent(slug)}/animals/${pet.id}`).send(pet)
    },
  )

  app.get(
    '/projects/:slug/animals/:petId',
    {
      schema: {
        ...ANIMALS,
        operationId: 'getAnimal',
        summary: 'Get an animal',
        description: 'One animal of the project. An animal of another project is 404, as one that does not exist.',
        params: ProjectPetParamsSchema,
        response: { 200: { description: 'The animal', ...Type.Ref('Pet') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const pet = await pets.get(request.adminProject.id, request.params.petId)
      if (!pet) throw petNotFound(request.params.petId)
      return pet
    },
  )

  await withMergePatch(app, (scope) =>
    scope.patch(
      '/projects/:slug/animals/:petId',
      {
        schema: {
          ...ANIMALS,
          operationId: 'updateAnimal',
          'x-audit-action': 'pet.updated',
          summary: "Change an animal's name, category or profile",
          description:
            "A field left out stays as it is, `null` removes a profile field, and nested objects merge (JSON Merge Patch, as `application/merge-patch+json` or plain `application/json`). The status follows the animal's orders and cannot be set: `status` is refused.",
          consumes: PET_CHANGES_MEDIA_TYPES,
          params: ProjectPetParamsSchema,
          body: PetChangesSchema,
          response: { 200: { description: 'The animal as it is now', ...Type.Ref('Pet') }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
        },
        preValidation: prepareBody,
      },
      async (request) => orThrow(await pets.update(request.adminProject.id, request.params.petId, request.body, { change: changeOf(request) })).pet,
    ),
  )

  app.delete(
    '/projects/:slug/animals/:petId',
    {
      schema: {
        ...ANIMALS,
        operationId: 'removeAnimal',
        'x-audit-action': 'pet.deleted',
        summary: 'Remove an animal',
        description:
          'Refused with 409 `pet_has_open_order` while an order of the animal is placed or approved: deliver or cancel it first. Its delivered and cancelled orders are kept, with its name.',
        params: ProjectPetParamsSchema,
        response: REMOVAL_RESPONSES,
      },
    },
    async (request, reply) => {
      orThrow(await pets.remove(request.adminProject.id, request.params.petId, { change: changeOf(request) }))
      return reply.code(204).send(null)
    },
  )
}
