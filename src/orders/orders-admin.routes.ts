import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { changeOf } from '../audit/audit.http.js'
import { orThrow } from '../errors.js'
import { NEXT_LINK_DOC, sendPage } from '../http/pagination.js'
import { errorResponses } from '../openapi/responses.js'
import { ProjectParamsSchema } from '../projects/projects.schemas.js'
import { ORDER_MOVES } from './orders.http.js'
import { ListOrdersQuerySchema, ProjectOrderParamsSchema } from './orders.schemas.js'
import { type OrderAction, type OrdersService, TRANSITIONS } from './orders.service.js'

const ORDERS = { tags: ['orders'] } as const

/** A project's adoption orders and their moves, for the dashboard (admin API, `/admin/v1`). */
export const ordersAdminRoutes: FastifyPluginAsyncTypebox<{ orders: OrdersService }> = async (app, { orders }) => {
  app.get(
    '/projects/:slug/orders',
    {
      schema: {
        ...ORDERS,
        operationId: 'listAdoptionOrders',
        summary: "List a project's adoption orders",
        description:
          "In ascending id order, optionally filtered by status, each with its animal's name and status beside it. When more exist, the `Link` header carries the next page (`rel=\"next\"`, with the `after` cursor).",
        params: ProjectParamsSchema,
        querystring: ListOrdersQuerySchema,
        response: { 200: { description: 'A page of orders', headers: NEXT_LINK_DOC, ...Type.Ref('AdoptionOrders') }, ...errorResponses(400, 401, 404, 500, 503) },
      },
    },
    async (request, reply) => {
      const { slug, id } = request.adminProject
      const { limit = 20, status, after } = request.query
      const page = await orders.listWithPets(id, { limit, status, after })
      return sendPage(reply, page, `/admin/v1/projects/${encodeURIComponent(slug)}/orders`, { limit, status })
    },
  )

  for (const [action, doc] of Object.entries(ORDER_MOVES) as [OrderAction, (typeof ORDER_MOVES)[OrderAction]][]) {
    const { to } = TRANSITIONS[action]
    app.post(
      `/projects/:slug/orders/:orderId/${action}`,
      {
        schema: {
          ...ORDERS,
          operationId: `${action}AdoptionOrder`,
          'x-audit-action': `order.${to}`,
          summary: doc.summary,
          description: `${doc.description} Any other move is 409 \`invalid_transition\`. The answer has the animal as the move left it.`,
          params: ProjectOrderParamsSchema,
          // No body is taken, but one sent is still read: 413 and 415 as for any POST.
          response: { 200: { description: 'The order after the move', ...Type.Ref('AdoptionOrder') }, ...errorResponses(400, 401, 404, 409, 413, 415, 500, 503) },
        },
      },
      async (request) => orThrow(await orders.transition(request.adminProject.id, request.params.orderId, action, changeOf(request))).order,
    )
  }
}
