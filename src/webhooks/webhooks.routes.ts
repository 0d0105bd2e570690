import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { WEBHOOK_ENDPOINT_LIMITS } from '../limits/plans.js'
import { NEXT_LINK_DOC, nextPageLink, sendPage } from '../http/pagination.js'
import { errorResponses, noContent, sendNoContent } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import {
  CreateWebhookSchema,
  DeliveryParamsSchema,
  DeliveryQuerySchema,
  EventQuerySchema,
  QueuedSchema,
  RecoverSchema,
  ReplaySchema,
  RotateSecretSchema,
  UpdateWebhookSchema,
  WebhookAttemptsSchema,
  WebhookDeliveriesSchema,
  WebhookEndpointsSchema,
  WebhookEventsSchema,
  WebhookParamsSchema,
} from './webhooks.schemas.js'
import { DEFAULT_OVERLAP_HOURS, type WebhooksService } from './webhooks.service.js'
import { RETENTION_DAYS } from './worker.js'

const WEBHOOKS = { tags: ['webhooks'] } as const
const NO_STORE = { 'Cache-Control': { type: 'string', description: '`no-store`: the secret must not be kept by any cache' } } as const
const CHANGE_ERRORS = [400, 401, 403, 404, 413, 415, 500, 503] as const
const ENDPOINT_LIMITS = Object.entries(WEBHOOK_ENDPOINT_LIMITS)
  .map(([plan, limit]) => `${limit} on ${plan}`)
  .join(', ')

/** A project's webhook endpoints and their delivery logs (admin API, `/admin/v1`). */
export const webhooksRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.get(
    '/projects/:slug/webhooks',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'listWebhookEndpoints',
        summary: "List a project's webhook endpoints",
        description: 'Every endpoint of the project, oldest first, disabled ones included with the reason. Secrets are never listed.',
        params: ProjectParamsSchema,
        response: { 200: { description: "The project's endpoints", ...WebhookEndpointsSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => orThrow(await webhooks.list(request.adminProject.slug)).endpoints,
  )

  app.post(
    '/projects/:slug/webhooks',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'createWebhookEndpoint',
        'x-audit-action': 'webhook.created',
        summary: 'Add a webhook endpoint',
        description:
          'Events of the given types are POSTed to the URL, signed per Standard Webhooks. The answer carries the signing secret (`secret`, `whsec_…`) this once, with `Cache-Control: no-store`; it is stored sealed and never shown again (rotate it to get a new one). The URL must be https, and must not point at a loopback, private, link-local or metadata address unless the operator allows that network (`WEBHOOK_ALLOWED_NETWORKS`; plain http only there); a host name that resolves now only to such addresses is refused (400), one that does not resolve yet is accepted and judged at each attempt. A project has at most ' +
          `${ENDPOINT_LIMITS} endpoints (409 \`limit_reached\`).`,
        params: ProjectParamsSchema,
        body: CreateWebhookSchema,
        response: { 201: { description: 'The endpoint, with its secret', headers: NO_STORE, ...Type.Ref('NewWebhookEndpoint') }, ...errorResponses(...CHANGE_ERRORS, 409) },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = orThrow(await webhooks.create(request.adminProject.slug, request.body, changeOf(request)))
      return reply.code(201).header('cache-control', 'no-store').send({ ...endpoint, secret })
    },
  )

  app.get(
    '/projects/:slug/webhooks/:endpointId',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'getWebhookEndpoint',
        summary: 'Get a webhook endpoint',
        description: 'The endpoint, its event types and state. Its secret is never shown.',
        params: WebhookParamsSchema,
        response: { 200: { description: 'The endpoint', ...Type.Ref('WebhookEndpoint') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => orThrow(await webhooks.get(request.adminProject.slug, request.params.endpointId)).endpoint,
  )

  app.patch(
    '/projects/:slug/webhooks/:endpointId',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'updateWebhookEndpoint',
        'x-audit-action': 'webhook.updated',
        summary: 'Change a webhook endpoint',
        description:
          'Changes the URL, the event types (the whole list), the description, or enables or disables it. Enabling an endpoint the service disabled clears its reason, and its deliveries still due are sent. Events written while it is disabled are not sent to it.',
        params: WebhookParamsSchema,
        body: UpdateWebhookSchema,
        response: { 200: { description: 'The endpoint, changed', ...Type.Ref('WebhookEndpoint') }, ...errorResponses(...CHANGE_ERRORS) },
      },
    },
    async (request) => orThrow(await webhooks.update(request.adminProject.slug, request.params.endpointId, request.body, changeOf(request))).endpoint,
  )

  app.delete(
    '/projects/:slug/webhooks/:endpointId',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'deleteWebhookEndpoint',
        'x-audit-action': 'webhook.deleted',
        summary: 'Remove a webhook endpoint',
        description: 'No event is sent to it any more; its delivery log goes with it.',
        params: WebhookParamsSchema,
        response: { ...noContent('Removed'), ...errorResponses(...CHANGE_ERRORS) },
      },
    },
    async (request, reply) => sendNoContent(reply, webhooks.remove(request.adminProject.slug, request.params.endpointId, changeOf(request))),
  )

  app.post(
    '/projects/:slug/webhooks/:endpointId/rotate-secret',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'rotateWebhookSecret',
        'x-audit-action': 'webhook.secret_rotated',
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'A new secret, shown this once. During the overlap (default 24 hours) every attempt carries two signatures in `webhook-signature`, one per secret, so the receiver can switch secrets without losing an event. One rotation at a time: while a previous secret still signs, a rotation with an overlap is refused (409 `rotation_in_progress`, naming when the overlap ends); `overlapHours: 0` is accepted then and leaves the new secret signing alone (after a leak).',
        params: WebhookParamsSchema,
        body: Type.Optional(RotateSecretSchema),
        response: { 200: { description: 'The endpoint, with its new secret', headers: NO_STORE, ...Type.Ref('NewWebhookEndpoint') }, ...errorResponses(...CHANGE_ERRORS, 409) },
      },
    },
    async (request, reply) => {
      const overlap = request.body?.overlapHours ?? DEFAULT_OVERLAP_HOURS
      const { endpoint, secret } = orThrow(await webhooks.rotateSecret(request.adminProject.slug, request.params.endpointId, overlap, changeOf(request)))
      return reply.header('cache-control', 'no-store').send({ ...endpoint, secret })
    },
  )

  app.get(
    '/projects/:slug/webhooks/:endpointId/deliveries',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'listWebhookDeliveries',
        summary: "List a webhook endpoint's deliveries",
        description:
          'The delivery log, newest first: each event sent to the endpoint, its attempts, state, last status, latency and excerpt of the answer, and when the next attempt is due. Kept for 30 days. Filters narrow it: `state`, `eventType`, `webhookId` (the `webhook-id` a receiver got: that event\'s deliveries, redeliveries included), and the time of the delivery (`since` inclusive, `until` exclusive); a filter that is not valid is refused (400). In a project an operator granted the private networks (`webhookPrivateNetworks`), `responseExcerpt` is null for everyone but operators: the answers of internal services are not shown to owners. When more exist, the `Link` header carries the next page (`rel="next"`, with the `before` cursor and the same filters).',
        params: WebhookParamsSchema,
        querystring: DeliveryQuerySchema,
        response: { 200: { description: 'A page of deliveries, newest first', headers: NEXT_LINK_DOC, ...WebhookDeliveriesSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const { slug, endpointId: id } = request.params
      const { limit = 20, before, ...filters } = request.query
      const { page } = orThrow(await webhooks.deliveries(request.adminProject.slug, id, { limit, before, ...filters }, request.adminPrincipal.role === 'operator'))
      return sendPage(reply, page, `/admin/v1/projects/${encodeURIComponent(slug)}/webhooks/${encodeURIComponent(id)}/deliveries`, { limit, ...filters }, 'before')
    },
  )

  app.get(
    '/projects/:slug/webhooks/:endpointId/deliveries/:deliveryId/attempts',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'listWebhookDeliveryAttempts',
        summary: "List a delivery's attempts",
        description:
          'Every attempt of the delivery, oldest first: when it was made, the request sent (its headers, signatures included but never a secret, and its body, byte for byte what was signed), the HTTP status (null when no answer came), how long it took, the first KiB of the answer and why it failed. Kept as long as the delivery (30 days after it finished).',
        params: DeliveryParamsSchema,
        response: { 200: { description: 'The attempts, oldest first', ...WebhookAttemptsSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request) => {
      const { endpointId: id, deliveryId } = request.params
      return orThrow(await webhooks.attempts(request.adminProject.slug, id, deliveryId, request.adminPrincipal.role === 'operator')).attempts
    },
  )

  app.post(
    '/projects/:slug/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'redeliverWebhook',
        'x-audit-action': 'webhook.redelivered',
        summary: 'Send a delivery again',
        description: "Sends the delivery's event to the endpoint again, once, now: a new delivery with the same `webhook-id`, so a receiver that deduplicates by it sees it once.",
        params: DeliveryParamsSchema,
        response: { 202: { description: 'The new delivery, due now', ...Type.Ref('WebhookDelivery') }, ...errorResponses(...CHANGE_ERRORS) },
      },
    },
    async (request, reply) => {
      const { endpointId: id, deliveryId } = request.params
      return reply.code(202).send(orThrow(await webhooks.redeliver(request.adminProject.slug, id, deliveryId, changeOf(request))).delivery)
    },
  )

  app.post(
    '/projects/:slug/webhooks/:endpointId/test',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'sendWebhookTestEvent',
        'x-audit-action': 'webhook.test_sent',
        summary: 'Send a test event',
        description: 'Sends a `webhook.test` event to this endpoint only, once, now, whatever types it subscribes to (a disabled endpoint included). Watch its delivery in the log.',
        params: WebhookParamsSchema,
        response: { 202: { description: 'The delivery of the test event, due now', ...Type.Ref('WebhookDelivery') }, ...errorResponses(...CHANGE_ERRORS) },
      },
    },
    async (request, reply) => reply.code(202).send(orThrow(await webhooks.sendTest(request.adminProject.slug, request.params.endpointId, changeOf(request))).delivery),
  )

  app.post(
    '/projects/:slug/webhooks/:endpointId/recover',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'recoverWebhookDeliveries',
        'x-audit-action': 'webhook.recovered',
        summary: "Send an endpoint's failed deliveries again",
        description: `Queues again every event whose delivery to this endpoint failed (no attempt left) and was created from \`since\` (inclusive) to \`until\` (exclusive, default now): one new delivery per event, due now, with a full schedule of attempts and the event's \`webhook-id\`, so a receiver that deduplicates by it sees each event once. Events the endpoint has a pending or succeeded delivery of (being sent, or sent since) are left out: a second recovery of the same range queues nothing new. Test events are not recovered. \`since\` must be within the retention period (${RETENTION_DAYS} days by default, \`WEBHOOK_RETENTION_DAYS\`), else 400. A disabled endpoint is refused (409 \`endpoint_disabled\`): enable it first. Answers how many deliveries were queued; watch them in the delivery log.`,
        params: WebhookParamsSchema,
        body: RecoverSchema,
        response: { 202: { description: 'How many deliveries were queued', ...QueuedSchema }, ...errorResponses(...CHANGE_ERRORS, 409) },
      },
    },
    async (request, reply) => {
      const { since, until } = request.body
      const result = orThrow(await webhooks.recover(request.adminProject.slug, request.params.endpointId, { since, until }, changeOf(request)))
      return reply.code(202).send({ queued: result.queued })
    },
  )

  app.post(
    '/projects/:slug/webhooks/:endpointId/replay',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'replayWebhookEvents',
        'x-audit-action': 'webhook.replayed',
        summary: "Send an endpoint the project's past events",
        description: `Queues for this endpoint the project's events, from \`since\` (inclusive) to \`until\` (exclusive, default now), of the types it subscribes to now: one delivery per event, due now, oldest first, with a full schedule of attempts and the event's \`webhook-id\`. Useful for an endpoint just added. Each event is sent to an endpoint at most once this way: events it has any delivery of (sent when they happened, or by an earlier replay) are left out, so replaying the same range twice queues nothing new. The events are those of the event list (\`GET /projects/{slug}/events\`), which keeps every event of the project for the retention period, even one no endpoint subscribed to when it happened. Test events are not replayed. \`since\` must be within the retention period (${RETENTION_DAYS} days by default, \`WEBHOOK_RETENTION_DAYS\`), else 400. A disabled endpoint is refused (409 \`endpoint_disabled\`). Answers how many deliveries were queued.`,
        params: WebhookParamsSchema,
        body: ReplaySchema,
        response: { 202: { description: 'How many deliveries were queued', ...QueuedSchema }, ...errorResponses(...CHANGE_ERRORS, 409) },
      },
    },
    async (request, reply) => {
      const { since, until } = request.body
      const result = orThrow(await webhooks.replay(request.adminProject.slug, request.params.endpointId, { since, until }, changeOf(request)))
      return reply.code(202).send({ queued: result.queued })
    },
  )

  app.get(
    '/projects/:slug/events',
    {
      schema: {
        ...WEBHOOKS,
        operationId: 'listWebhookEvents',
        summary: "List a project's webhook events",
        description: `The project's events, newest first, as its endpoints receive them (\`id\` is the \`webhook-id\`), test events included. Every event of the project is kept, whether or not an endpoint subscribes to its type, for the retention period (${RETENTION_DAYS} days by default, \`WEBHOOK_RETENTION_DAYS\`; longer while a delivery of it is pending); older ones are removed by the delivery worker. Filters: \`type\`, and the time of the event (\`since\` inclusive, \`until\` exclusive); a filter that is not valid is refused (400). When more exist, the \`Link\` header carries the next page (\`rel="next"\`, with the \`before\` cursor and the same filters).`,
        params: ProjectParamsSchema,
        querystring: EventQuerySchema,
        response: { 200: { description: 'A page of events, newest first', headers: NEXT_LINK_DOC, ...WebhookEventsSchema }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const { limit = 20, before, ...filters } = request.query
      const { events, next } = orThrow(await webhooks.events(request.adminProject.slug, { limit, before, ...filters }))
      const link = nextPageLink(`/admin/v1/projects/${encodeURIComponent(request.params.slug)}/events`, { limit, ...filters }, next, 'before')
      if (link) reply.header('link', link)
      return events
    },
  )
}
