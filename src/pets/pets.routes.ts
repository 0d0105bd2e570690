import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { keyChangeOf } from '../audit/audit.http.js'
import type { Clock } from '../clock.js'
import { ApiError, orThrow } from '../errors.js'
import type { ResponseCache } from '../cache/response-cache.js'
import { withMergePatch } from '../http/json-body.js'
import { NEXT_LINK_DOC } from '../http/pagination.js'
import { IDEMPOTENT_REPLAYED_DOC, IdempotencyKeyHeaders, idempotencyKeyOf } from '../idempotency/idempotency.http.js'
import { errorResponses } from '../openapi/responses.js'
import { fieldsOf, nextLink, PET_CHANGES_MEDIA_TYPES, petNotFound, prepareBody, queryKey, REMOVAL_RESPONSES, TOTAL_COUNT_DOC } from './pets.http.js'
import { ListPetsQuerySchema, NewPetSchema, PetChangesSchema, PetFeedQuerySchema, PetFieldsQuerySchema, PetIdParamsSchema } from './pets.schemas.js'
import type { PetsService } from './pets.service.js'

/** Operations added in this version: their shape may still change, with notice. */
const BETA = { 'x-stability': 'beta' } as const

/** getPet is deprecated (RFC 9745) as of this instant, and removed at the sunset (RFC 8594). */
export const GET_PET_DEPRECATED_AT = Date.UTC(2026, 0, 1)
export const GET_PET_SUNSET_AT = Date.UTC(2030, 11, 5)

export const petsRoutes: FastifyPluginAsyncTypebox<{ pets: PetsService; clock: Clock; cache: ResponseCache }> = async (app, { pets, clock, cache }) => {
  app.get(
    '/pets',
    {
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'listPets',
        tags: ['pets'],
        summary: 'List animals',
        description: [
          'Animals of your project in ascending id order, optionally filtered by status. When more exist, the `Link` header carries the URL of the next page (`rel="next"`).',
          '',
          'The search (all optional, combined with AND; a list parameter takes comma-separated values, any of which matches): `q` (full text over name, breeds, description and tags), `categoryId`, `breed`, `sex`, `age`, `size`, `coat`, `goodWithChildren`/`goodWithDogs`/`goodWithCats`, the care attributes (`spayedNeutered`, `houseTrained`, `vaccinated`, `microchipped`, `specialNeeds`), `locationId`, `tag`, `externalId`, `updatedAfter`, and `near` with `radius` and `unit` (each answer then carries its `distance`).',
          '',
          '`sort` orders by `id` (the default), `-createdAt`, `createdAt`, `name`, `distance` or `random` (with `seed`); every order pages with the `Link` header (its opaque `cursor`). `count=true` adds `X-Total-Count`, how many animals match. `fields` limits each animal to the fields named, and can ask for `createdAt` and `updatedAt`. A parameter out of range, unknown value or contradiction (`sort=distance` without `near`) is a 400 naming it.',
        ].join('\n'),
        querystring: ListPetsQuerySchema,
        response: {
          200: { description: 'A page of animals', headers: { ...NEXT_LINK_DOC, ...TOTAL_COUNT_DOC }, ...Type.Ref('Pets') },
          ...errorResponses(400, 401, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const query = request.query
      return cache.reply(request, reply, `listPets ${queryKey(query)}`, async () => {
        const page = orThrow(await pets.search(request.principal.projectId, query))
        return { body: page.items, link: nextLink('/v1/pets', query, page.next), total: page.total }
      })
    },
  )

  app.get(
    '/pets/changes',
    {
      config: { scope: 'pets:read' },
      schema: {
        ...BETA,
        operationId: 'listPetChanges',
        tags: ['pets'],
        summary: 'Follow changes to animals',
        description: [
          'The change feed, for keeping a copy of your animals in sync: every animal once, at its latest change (added, changed, moved by an order), and a tombstone (`type: "removed"`) for each removed one, in the order the changes committed. Start without `after` (every animal, then what changes), apply each change, keep the `cursor` of the last one, and ask again with `after=<cursor>`: a copy that applies every page ends equal to the project, on any instance, while writes go on.',
          '',
          'A page shorter than `limit` means you are up to date for now; a full page carries `Link: rel="next"`. A change is listed once every change that committed before it is listed, so a change that takes long to commit holds back those that follow it for that long. Tombstones are kept.',
        ].join('\n'),
        querystring: PetFeedQuerySchema,
        response: {
          200: { description: 'Changes after the cursor, oldest first', headers: NEXT_LINK_DOC, ...Type.Ref('PetFeed') },
          ...errorResponses(400, 401, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { after, limit = 100 } = request.query
      const page = orThrow(await pets.changes(request.principal.projectId, after, limit))
      if (page.next !== undefined) reply.header('link', `</v1/pets/changes?${new URLSearchParams({ limit: String(limit), after: page.next }).toString()}>; rel="next"`)
      return page.items
    },
  )

  app.post(
    '/pets',
    {
      config: { scope: 'pets:write' },
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
      preValidation: prepareBody,
    },
    async (request, reply) => {
      const { pet, replayed } = orThrow(await pets.create(request.principal.projectId, request.body, { idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']), change: keyChangeOf(request) }))
      if (replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).header('location', `/v1/pets/${pet.id}`).send(pet)
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
      config: { scope: 'pets:read' },
      schema: {
        operationId: 'getPet',
        tags: ['pets'],
        summary: 'Get an animal (deprecated)',
        description: 'Deprecated: removed on 5 December 2030. Use `GET /pets` with the `status` filter instead.',
        deprecated: true,
        'x-deprecated-sunset': '2030-12-05',
        params: PetIdParamsSchema,
        querystring: PetFieldsQuerySchema,
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
      cache.reply(request, reply, `getPet ${request.params.petId} ${request.query.fields}`, async () => {
        const pet = await pets.get(request.principal.projectId, request.params.petId, fieldsOf(request.query.fields))
        if (!pet) throw petNotFound(request.params.petId)
        return { body: pet }
      }),
  )

  await withMergePatch(app, (scope) =>
    scope.patch(
      '/pets/:petId',
      {
        config: { scope: 'pets:write' },
        schema: {
          ...BETA,
          operationId: 'updatePet',
          tags: ['pets'],
          summary: 'Change an animal',
          description: [
            'Changes the name, the category or both of an animal of your project; a field left out stays as it is. The body is a JSON Merge Patch (RFC 7396), sent as `application/merge-patch+json` or as plain `application/json`: both mean the same. Neither field can be removed (`null` is refused).',
            '',
            "The status is not changed here: it follows the animal's adoption orders (placing, approving, delivering, cancelling), so `status` is refused like any unknown field, as is `id`. An animal of another project is 404, exactly as one that does not exist.",
            '',
            'Send an `Idempotency-Key` to make retries safe (PATCH is not idempotent by itself): the same key and body within 24 hours replay the first response.',
          ].join('\n'),
          consumes: PET_CHANGES_MEDIA_TYPES,
          headers: IdempotencyKeyHeaders,
          params: PetIdParamsSchema,
          body: PetChangesSchema,
          response: {
            200: { description: 'The animal as it is now', headers: IDEMPOTENT_REPLAYED_DOC, ...Type.Ref('Pet') },
            ...errorResponses(400, 401, 404, 409, 413, 415, 422, 500, 503),
          },
        },
        preValidation: prepareBody,
      },
      async (request, reply) => {
        const { petId } = request.params
        const { pet, replayed } = orThrow(await pets.update(request.principal.projectId, petId, request.body, { idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']), change: keyChangeOf(request) }))
        if (replayed) reply.header('idempotent-replayed', 'true')
        return pet
      },
    ),
  )

  app.delete(
    '/pets/:petId',
    {
      config: { scope: 'pets:write' },
      schema: {
        ...BETA,
        operationId: 'deletePet',
        tags: ['pets'],
        summary: 'Remove an animal',
        description: [
          'Removes an animal of your project from the listings. Refused with 409 `pet_has_open_order` while an order of it is placed or approved: deliver or cancel the order first. Its delivered and cancelled orders are kept (adoption records outlive the listing) and still name it by `petId`.',
          '',
          'An animal of another project is 404, exactly as one that does not exist; so is a second removal. Concurrent orders cannot slip past the check: an order placed at the same moment either counts (409) or finds no animal (404).',
        ].join('\n'),
        params: PetIdParamsSchema,
        response: REMOVAL_RESPONSES,
      },
    },
    async (request, reply) => {
      orThrow(await pets.remove(request.principal.projectId, request.params.petId, { change: keyChangeOf(request) }))
      return reply.code(204).send(null)
    },
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
