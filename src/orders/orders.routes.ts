import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../errors.js'
import type { ResponseCache } from '../cache/response-cache.js'
import { listHandler, NEXT_LINK_DOC } from '../http/pagination.js'
import { IDEMPOTENT_REPLAYED_DOC, idempotencyError, IdempotencyKeyHeaders, idempotencyKeyOf } from '../idempotency/idempotency.http.js'
import { errorResponses } from '../openapi/responses.js'
import { ListOrdersQuerySchema, NewOrderSchema, type Order, OrderIdParamsSchema, type OrderStatus } from './orders.schemas.js'
import { type OrderAction, type OrdersService, type TransitionResult, TRANSITIONS } from './orders.service.js'

/** The store group is experimental: its shape may still change. */
const STORE = { tags: ['store'], 'x-stability': 'experimental' } as const

export const ordersRoutes: FastifyPluginAsyncTypebox<{ orders: OrdersService; cache: ResponseCache }> = async (app, { orders, cache }) => {
  app.get(
    '/store/orders',
    {
      schema: {
        ...STORE,
        operationId: 'listOrders',
        summary: 'List adoption orders',
        description: 'Orders of your project in ascending id order, optionally filtered by status; `Link: rel="next"` when more exist.',
        querystring: ListOrdersQuerySchema,
        response: { 200: { description: 'A page of orders', headers: NEXT_LINK_DOC, ...Type.Ref('Orders') }, ...errorResponses(400, 401, 500, 503) },
      },
    },
    listHandler<OrderStatus, Order>(cache, 'listOrders', '/v1/store/orders', (projectId, query) => orders.list(projectId, query)),
  )

  app.post(
    '/store/orders',
    {
      schema: {
        ...STORE,
        operationId: 'placeOrder',
        summary: 'Place an adoption order',
        description:
          'Orders an `available` animal of your project, which becomes `pending`. Of concurrent orders for one animal exactly one succeeds; the others get 409 `pet_unavailable`.',
        headers: IdempotencyKeyHeaders,
        body: NewOrderSchema,
        response: {
          201: {
            description: 'Order placed; the animal is now pending',
            headers: { Location: { type: 'string', description: 'Path of the new order' }, ...IDEMPOTENT_REPLAYED_DOC },
            ...Type.Ref('Order'),
          },
          ...errorResponses(400, 401, 404, 409, 413, 415, 422, 500, 503),
        },
      },
    },
    async (request, reply) => {
      const { petId } = request.body
      const result = await orders.place(request.principal.projectId, petId, idempotencyKeyOf(request.headers['idempotency-key']))
      if (!result.ok) {
        switch (result.error) {
          case 'pet_not_found':
            throw new ApiError('not_found', `No animal with id ${petId} in your project.`)
          case 'pet_unavailable':
            throw new ApiError('pet_unavailable', `Animal ${petId} is ${result.petStatus}, not available: only available animals can be ordered.`)
          default:
            throw idempotencyError(result.error)
        }
      }
      if (result.replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).header('location', `/v1/store/orders/${result.order.id}`).send(result.order)
    },
  )

  app.get(
    '/store/orders/:orderId',
    {
      schema: {
        ...STORE,
        operationId: 'getOrder',
        summary: 'Get an adoption order',
        description: 'One order of your project, by id. An order of another project is 404, exactly as one that does not exist.',
        params: OrderIdParamsSchema,
        response: { 200: { description: 'The order', ...Type.Ref('Order') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) =>
      cache.reply(request, reply, `getOrder ${request.params.orderId}`, async () => {
        const order = await orders.get(request.principal.projectId, request.params.orderId)
        if (!order) throw orderNotFound(request.params.orderId)
        return { body: order }
      }),
  )

  const moves: Record<OrderAction, { operationId: string; summary: string; description: string }> = {
    approve: { operationId: 'approveOrder', summary: 'Approve an order', description: 'A `placed` order becomes `approved`; the animal stays pending.' },
    deliver: { operationId: 'deliverOrder', summary: 'Deliver an order', description: 'An `approved` order becomes `delivered` and complete; the animal is sold.' },
    cancel: {
      operationId: 'cancelOrder',
      summary: 'Cancel an order',
      description: 'A `placed` or `approved` order becomes `cancelled`; the animal is available again.',
    },
  }
  for (const [action, doc] of Object.entries(moves) as [OrderAction, (typeof moves)[OrderAction]][]) {
    app.post(
      `/store/orders/:orderId/${action}`,
      {
        schema: {
          ...STORE,
          ...doc,
          description: `${doc.description} Any other move is 409 \`invalid_transition\`.`,
          params: OrderIdParamsSchema,
          // No body is taken, but one sent is still read: 413 and 415 as for any POST.
          response: { 200: { description: 'The order after the move', ...Type.Ref('Order') }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
        },
      },
      async (request) => {
        const result = await orders.transition(request.principal.projectId, request.params.orderId, action)
        return orderOrThrow(result, request.params.orderId, action)
      },
    )
  }
}

function orderNotFound(id: number): ApiError {
  return new ApiError('not_found', `No order with id ${id} in your project.`)
}

function orderOrThrow(result: TransitionResult, id: number, action: OrderAction) {
  if (result.ok) return result.order
  if (result.error === 'order_not_found') throw orderNotFound(id)
  const { from, to } = TRANSITIONS[action]
  throw new ApiError('invalid_transition', `Order ${id} is ${result.status}: only ${from.join(' or ')} orders can be ${to}.`)
}
