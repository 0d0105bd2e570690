import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { errorResponses, noContent } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import type { BansService } from './bans.service.js'
import { ApiKeysSchema, KeyParamsSchema, KeyRequestSchema } from './keys.schemas.js'
import type { KeysService } from './keys.service.js'

const KEYS = { tags: ['keys'] } as const
const DAY_MS = 86_400_000

/** A project's API keys and their bans (admin API, `/admin/v1`). */
export const keysRoutes: FastifyPluginAsyncTypebox<{ keys: KeysService; bans: BansService }> = async (app, { keys, bans }) => {
  app.get(
    '/projects/:slug/keys',
    {
      schema: {
        ...KEYS,
        operationId: 'listApiKeys',
        summary: "List a project's API keys",
        description: 'Every key of the project, oldest first, revoked ones included, each with the end of its running ban. Secrets are never listed.',
        params: ProjectParamsSchema,
        response: { 200: { description: "The project's keys", ...ApiKeysSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      return orThrow(await keys.list(request.adminProject.slug)).keys
    },
  )

  app.post(
    '/projects/:slug/keys',
    {
      schema: {
        ...KEYS,
        operationId: 'createApiKey',
        'x-audit-action': 'key.created',
        summary: 'Create an API key',
        description:
          'The answer carries the secret (`key`) this once, with `Cache-Control: no-store`: only its SHA-256 is stored, so it cannot be shown again. The key works from the next request. `scopes` limits what it may call (without them: everything); a `publishable` key is read-only, for web pages of its `allowedOrigins`. An unknown scope, a scope beyond pets:read for a publishable key, or an origin that is not `https://host[:port]` (or `http://localhost`) is a 400 naming the field.',
        params: ProjectParamsSchema,
        body: KeyRequestSchema,
        response: {
          201: {
            description: 'The key, with its secret',
            headers: { 'Cache-Control': { type: 'string', description: '`no-store`: the secret must not be kept by any cache' } },
            ...Type.Ref('NewApiKey'),
          },
          ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { name, expiresInDays, scopes, publishable, allowedOrigins } = request.body
      const expiresInMs = expiresInDays === undefined ? undefined : expiresInDays * DAY_MS
      const { key, secret } = orThrow(await keys.create({ project: request.adminProject.slug, name, expiresInMs, scopes, publishable, allowedOrigins }, changeOf(request)))
      return reply.code(201).header('cache-control', 'no-store').send({ ...key, key: secret })
    },
  )

  app.delete(
    '/projects/:slug/keys/:id',
    {
      schema: {
        ...KEYS,
        operationId: 'revokeApiKey',
        'x-audit-action': 'key.revoked',
        summary: 'Revoke an API key',
        description: 'The key is refused (401) on every instance from the next request. Revoking a revoked key changes nothing and answers it as it stands.',
        params: KeyParamsSchema,
        response: { 200: { description: 'The key, revoked', ...Type.Ref('ApiKey') }, ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request) => {
      return orThrow(await keys.revoke(request.params.id, changeOf(request), request.adminProject.id)).key
    },
  )

  app.delete(
    '/projects/:slug/keys/:id/ban',
    {
      schema: {
        ...KEYS,
        operationId: 'liftApiKeyBan',
        'x-audit-action': 'key.ban_lifted',
        summary: "Lift an API key's ban",
        description:
          'Ends the ban of a key that kept calling while rate limited, and forgets its escalation (the next ban lasts 10 minutes again). The plan limits still apply. Lifting no ban changes nothing.',
        params: KeyParamsSchema,
        response: { ...noContent('No ban any more'), ...errorResponses(400, 401, 403, 404, 413, 415, 500, 503) },
      },
    },
    async (request, reply) => {
      const { row } = orThrow(await keys.find(request.params.id, request.adminProject.id))
      // In the running limiter's store: its own in-process ban goes at once, the shared store's
      // (Redis) for every instance, and the record for instances that re-read it.
      await bans.lift(row, changeOf(request))
      return reply.code(204).send(null)
    },
  )
}
