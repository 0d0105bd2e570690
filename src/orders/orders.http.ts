import type { OrderAction } from './orders.service.js'

/** How each move of an order is documented, in /v1 and in the admin API. */
export const ORDER_MOVES: Record<OrderAction, { summary: string; description: string }> = {
  approve: { summary: 'Approve an order', description: 'A `placed` order becomes `approved`; the animal stays pending.' },
  deliver: { summary: 'Deliver an order', description: 'An `approved` order becomes `delivered` and complete; the animal is sold.' },
  cancel: { summary: 'Cancel an order', description: 'A `placed` or `approved` order becomes `cancelled`; the animal is available again.' },
}
