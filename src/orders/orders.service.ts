import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { OrderRow, PetStatus } from '../db/schema.js'
import { type Page, pageOf, type PageQuery } from '../http/pagination.js'
import type { Idempotency } from '../idempotency/idempotency.service.js'
import { findPet, movePet, setPetStatus } from '../pets/pets.repository.js'
import type { Outbox } from '../webhooks/outbox.js'
import { findOrder, insertOrder, listOrders, moveOrder } from './orders.repository.js'
import type { Order, OrderStatus } from './orders.schemas.js'

/**
 * The adoption state machine. An order moves its animal: placing takes an available animal
 * (→ pending), approving keeps it pending, delivering sells it, cancelling a placed or approved
 * order makes it available again. No other move exists.
 */
export const TRANSITIONS = {
  approve: { from: ['placed'], to: 'approved', pet: undefined },
  deliver: { from: ['approved'], to: 'delivered', pet: 'sold' },
  cancel: { from: ['placed', 'approved'], to: 'cancelled', pet: 'available' },
} as const satisfies Record<string, { from: readonly OrderStatus[]; to: OrderStatus; pet: PetStatus | undefined }>

export type OrderAction = keyof typeof TRANSITIONS

export function toOrder(row: OrderRow): Order {
  return { id: row.id, petId: row.pet_id, status: row.status, createdAt: row.created_at, complete: row.status === 'delivered' }
}

export type PlaceOrderResult =
  | { ok: true; order: Order; replayed: boolean }
  | { ok: false; error: 'pet_not_found' }
  | { ok: false; error: 'pet_unavailable'; petStatus: PetStatus }
  | { ok: false; error: 'idempotency_key_reused' | 'idempotency_in_flight' }

export type TransitionResult =
  | { ok: true; order: Order }
  | { ok: false; error: 'order_not_found' }
  | { ok: false; error: 'invalid_transition'; status: OrderStatus }

/** Thrown inside a transaction to undo it; turned into a result value before leaving the service. */
class Refusal extends Error {
  constructor(readonly result: Extract<PlaceOrderResult, { ok: false }>) {
    super(result.error)
  }
}

export class OrdersService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly idempotency: Idempotency,
    private readonly generations: Generations,
    private readonly outbox: Outbox,
  ) {}

  async list(projectId: number, filter: PageQuery<OrderStatus>): Promise<Page<Order>> {
    const page = pageOf(await listOrders(this.db, projectId, { ...filter, limit: filter.limit + 1 }), filter.limit)
    return { ...page, items: page.items.map(toOrder) }
  }

  async get(projectId: number, id: number): Promise<Order | undefined> {
    const row = await findOrder(this.db, projectId, id)
    return row && toOrder(row)
  }

  /** Places an order and takes the animal, atomically: of concurrent orders for one animal, one wins. */
  async place(projectId: number, petId: number, idempotencyKey: string | undefined): Promise<PlaceOrderResult> {
    const result = await this.placeOnce(projectId, petId, idempotencyKey)
    if (result.ok) await this.generations.dataChanged(projectId)
    return result
  }

  private async placeOnce(projectId: number, petId: number, idempotencyKey: string | undefined): Promise<PlaceOrderResult> {
    const reported = await this.outbox.wants(projectId, 'order.placed')
    const place = async (trx: Db): Promise<Order> => {
      if (!(await movePet(trx, projectId, petId, 'available', 'pending'))) {
        const pet = await findPet(trx, projectId, petId)
        throw new Refusal(pet ? { ok: false, error: 'pet_unavailable', petStatus: pet.status } : { ok: false, error: 'pet_not_found' })
      }
      const order = toOrder(await insertOrder(trx, { projectId, petId, at: new Date(this.clock.now()).toISOString() }))
      if (reported) await this.outbox.write(trx, projectId, 'order.placed', order)
      return order
    }
    try {
      if (idempotencyKey === undefined) {
        return { ok: true, order: await this.db.transaction().execute(place), replayed: false }
      }
      const outcome = await this.idempotency.run(projectId, idempotencyKey, { operation: 'placeOrder', body: { petId } }, async (trx) => ({
        status: 201,
        body: await place(trx),
      }))
      if (outcome.kind === 'reused') return { ok: false, error: 'idempotency_key_reused' }
      if (outcome.kind === 'in_flight') return { ok: false, error: 'idempotency_in_flight' }
      return { ok: true, order: outcome.response.body, replayed: outcome.replayed }
    } catch (error) {
      if (error instanceof Refusal) return error.result
      throw error
    }
  }

  /** Applies one move of the state machine to an order and its animal, in one transaction. */
  async transition(projectId: number, orderId: number, action: OrderAction): Promise<TransitionResult> {
    const { from, to, pet } = TRANSITIONS[action]
    const type = `order.${to}` as const
    const reported = await this.outbox.wants(projectId, type)
    const result = await this.db.transaction().execute(async (trx): Promise<TransitionResult> => {
      const moved = await moveOrder(trx, projectId, orderId, from, to, new Date(this.clock.now()).toISOString())
      if (!moved) {
        const existing = await findOrder(trx, projectId, orderId)
        return existing ? { ok: false, error: 'invalid_transition', status: existing.status } : { ok: false, error: 'order_not_found' }
      }
      if (pet) await setPetStatus(trx, projectId, moved.pet_id, pet)
      const order = toOrder(moved)
      if (reported) await this.outbox.write(trx, projectId, type, order)
      return { ok: true, order }
    })
    if (result.ok) await this.generations.dataChanged(projectId)
    return result
  }
}
