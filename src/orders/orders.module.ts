import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ResponseCache } from '../cache/response-cache.js'
import { ordersAdminRoutes } from './orders-admin.routes.js'
import { ordersRoutes } from './orders.routes.js'
import { type OrdersDeps, OrdersService } from './orders.service.js'

/** Adoption orders, wired: the state machine, and its routes in /v1 and in the admin API. */
export interface Orders {
  service: OrdersService
  routes: {
    /** `/v1/store/orders`. */
    v1: FastifyPluginAsyncTypebox
    /** `/admin/v1/projects/:slug/orders`. */
    admin: FastifyPluginAsyncTypebox
  }
}

export function createOrders({ cache, ...deps }: OrdersDeps & { cache: ResponseCache }): Orders {
  const service = new OrdersService(deps)
  return { service, routes: { v1: (app) => ordersRoutes(app, { orders: service, cache }), admin: (app) => ordersAdminRoutes(app, { orders: service }) } }
}
