import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Clock } from '../clock.js'
import { ApiError } from '../errors.js'
import type { ResponseCache } from '../cache/response-cache.js'
import { listHandler, NEXT_LINK_DOC } from '../http/pagination.js'
import { IDEMPOTENT_REPLAYED_DOC, idempotencyError, IdempotencyKeyHeaders, idempotencyKeyOf } from '../idempotency/idempotency.http.js'
import { errorResponses } from '../openapi/responses.js'
import { ListPetsQuerySchema, NewPetSchema, type Pet, PetIdParamsSchema, type PetStatus } from './pets.schemas.js'
import type { PetsService } from './pets.service.js'

/** getPet is deprecated (RFC 9745) as of this instant, and removed at the sunset (RFC 8594). */
export const GET_PET_DEPRECATED_AT = Date.UTC(2026, 0, 1)
export const GET_PET_SUNSET_AT = Date.UTC(2030, 11, 5)

export const petsRoutes: FastifyPluginAsyncTypebox<{ pets: PetsService; clock: Clock; cache: ResponseCache }> = async (app, { pets, clock, cache }) => {
  app.get(
    '/pets',
    {
      schema: {
        operationId: 'listPets',
        tags: ['pets'],
        summary: 'List animals',
        description:
          'Animals of your project in ascending id order, optionally filtered by status. When more exist, the `Link` header carries the URL of the next page (`rel="next"`).',
        querystring: ListPetsQuerySchema,
        response: {
          200: { description: 'A page of animals', headers: NEXT_LINK_DOC, ...Type.Ref('Pets') },
          ...errorResponses(400, 401, 500, 503),
        },
      },
    },
    listHandler<PetStatus, Pet>(cache, 'listPets', '/v1/pets', (projectId, query) => pets.list(projectId, query)),
  )

  app.post(
    '/pets',
    {
      schema: {
        operationId: 'createPet',
        tags: ['pets'],
        summary: 'Add an animal',
        description:
          'Adds an animal to your project; `status` defaults to `available`. Send an `Idempotency-Key` to make retries safe: the same key and body within 24 hours replay the first response instead of adding a second animal.',
        headers: IdempotencyKeyHeaders,
        body: NewPetSchema,
        response: {
          201: {
            description: 'Animal added; the body carries the assigned `id`',
            headers: { Location: { type: 'string', description: 'Path of the new animal' }, ...IDEMPOTENT_REPLAYED_DOC },
            ...Type.Ref('Pet'),
          },
          ...errorResponses(400, 401, 409, 413, 415, 422, 500, 503),
        },
      },
      // Trim before validation, so the 1..100 length rule applies to the name as stored.
      preValidation: async (request) => {
        const body = request.body as { name?: unknown } | null
        if (body && typeof body === 'object' && typeof body.name === 'string') body.name = body.name.trim()
      },
    },
    async (request, reply) => {
      const result = await pets.create(request.principal.projectId, request.body, idempotencyKeyOf(request.headers['idempotency-key']))
      if (!result.ok) throw idempotencyError(result.error)
      if (result.replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).header('location', `/v1/pets/${result.pet.id}`).send(result.pet)
    },
  )

  const deprecationHeaders = {
    deprecation: `@${GET_PET_DEPRECATED_AT / 1000}`,
    sunset: new Date(GET_PET_SUNSET_AT).toUTCString(),
    link: '</v1/pets>; rel="successor-version"',
  }
  const deprecationDocs = {
    Deprecation: { type: 'string', description: 'RFC 9745: when this operation was deprecated, `@<unix seconds>`' },
    Sunset: { type: 'string', description: 'RFC 8594: when this operation stops working' },
    Link: { type: 'string', description: 'The successor: `</v1/pets>; rel="successor-version"`' },
  } as const

  app.get(
    '/pets/:petId',
    {
      schema: {
        operationId: 'getPet',
        tags: ['pets'],
        summary: 'Get an animal (deprecated)',
        description: 'Deprecated: removed on 5 December 2030. Use `GET /pets` with the `status` filter instead.',
        deprecated: true,
        'x-deprecated-sunset': '2030-12-05',
        params: PetIdParamsSchema,
        response: {
          200: { description: 'The requested animal', headers: deprecationDocs, ...Type.Ref('Pet') },
          ...withHeaders(errorResponses(400, 401, 404, 410, 500, 503), deprecationDocs),
        },
      },
      // Every answer of a deprecated operation says so, errors (a 401 included) too.
      onSend: (_request, reply, payload, done) => {
        reply.headers(deprecationHeaders)
        done(null, payload)
      },
      preHandler: (_request, _reply, done) => {
        if (clock.now() < GET_PET_SUNSET_AT) return done()
        done(new ApiError('gone', 'GET /v1/pets/{petId} was removed on 5 December 2030: use GET /v1/pets with the status filter.'))
      },
    },
    async (request, reply) =>
      cache.reply(request, reply, `getPet ${request.params.petId}`, async () => {
        const pet = await pets.get(request.principal.projectId, request.params.petId)
        if (!pet) throw new ApiError('not_found', `No animal with id ${request.params.petId} in your project.`)
        return { body: pet }
      }),
  )
}

function withHeaders(responses: Record<number, object>, headers: object): Record<number, object> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      { ...response, headers: { ...(response as { headers?: object }).headers, ...headers } },
    ]),
  )
}
