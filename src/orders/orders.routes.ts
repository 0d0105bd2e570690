import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { keyChangeOf } from '../audit/audit.http.js'
import { ApiError, orThrow } from '../errors.js'
import type { ResponseCache } from '../cache/response-cache.js'
import { listHandler, NEXT_LINK_DOC } from '../http/pagination.js'
import { IDEMPOTENT_REPLAYED_DOC, IdempotencyKeyHeaders, idempotencyKeyOf } from '../idempotency/idempotency.http.js'
import { errorResponses } from '../openapi/responses.js'
import { ORDER_MOVES } from './orders.http.js'
import { ListOrdersQuerySchema, NewOrderSchema, type Order, OrderIdParamsSchema, type OrderStatus } from './orders.schemas.js'
import type { OrderAction, OrdersService } from './orders.service.js'

/** The store group is experimental: its shape may still change. */
const STORE = { tags: ['store'], 'x-stability': 'experimental' } as const

export const ordersRoutes: FastifyPluginAsyncTypebox<{ orders: OrdersService; cache: ResponseCache }> = async (app, { orders, cache }) => {
  app.get(
    '/store/orders',
    {
      config: { scope: 'orders:read' },
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
      config: { scope: 'orders:write' },
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
      const { order, replayed } = orThrow(await orders.place(request.principal.projectId, request.body.petId, idempotencyKeyOf(request.headers['idempotency-key']), undefined, keyChangeOf(request)))
      if (replayed) reply.header('idempotent-replayed', 'true')
      return reply.code(201).header('location', `/v1/store/orders/${order.id}`).send(order)
    },
  )

  app.get(
    '/store/orders/:orderId',
    {
      config: { scope: 'orders:read' },
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
        if (!order) throw new ApiError('not_found', `No order with id ${request.params.orderId} in your project.`)
        return { body: order }
      }),
  )

  for (const [action, doc] of Object.entries(ORDER_MOVES) as [OrderAction, (typeof ORDER_MOVES)[OrderAction]][]) {
    app.post(
      `/store/orders/:orderId/${action}`,
      {
        config: { scope: 'orders:write' },
        schema: {
          ...STORE,
          operationId: `${action}Order`,
          summary: doc.summary,
          description: `${doc.description} Any other move is 409 \`invalid_transition\`.`,
          params: OrderIdParamsSchema,
          // No body is taken, but one sent is still read: 413 and 415 as for any POST.
          response: { 200: { description: 'The order after the move', ...Type.Ref('Order') }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
        },
      },
      async (request) => orThrow(await orders.transition(request.principal.projectId, request.params.orderId, action, keyChangeOf(request))).order,
    )
  }
}
