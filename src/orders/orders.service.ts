import { type Change, recordChange } from '../audit/audit.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { OrderRow, PetStatus } from '../db/schema.js'
import { type Outcome, refuse } from '../errors.js'
import { type Page, pageOf, type PageQuery } from '../shapes.js'
import type { Idempotency } from '../idempotency/idempotency.service.js'
import type { Outbox } from '../webhooks/outbox.js'
import { findPet, movePet, setPetStatus } from '../pets/pets.repository.js'
import { noSuchPet } from '../pets/pets.service.js'
import { type Enquiry, findOrder, insertOrder, listOrders, listOrdersWithPets, moveOrder } from './orders.repository.js'
import type { AdoptionOrder, Order, OrderStatus } from './orders.schemas.js'

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

export type PlaceOrderResult = Outcome<{ order: Order; replayed: boolean }>

/** A move of an order: the order after it, and its animal (which the move may have moved too). */
export type TransitionResult = Outcome<{ order: AdoptionOrder }>

export interface OrdersDeps {
  db: Db
  clock: Clock
  /** A placement is made at most once per Idempotency-Key. */
  idempotency: Idempotency
  /** Told after every committed change, before the answer: cached pages of the project go stale. */
  generations: Generations
  /** Order events are written in the changes' transactions. */
  outbox: Outbox
}

export class OrdersService {
  constructor(private readonly deps: OrdersDeps) {}

  async list(projectId: number, filter: PageQuery<OrderStatus>): Promise<Page<Order>> {
    const page = pageOf(await listOrders(this.deps.db, projectId, { ...filter, limit: filter.limit + 1 }), filter.limit)
    return { ...page, items: page.items.map(toOrder) }
  }

  /** A page as `list` gives it, each order with its animal's name and status (the dashboard's view). */
  async listWithPets(projectId: number, filter: PageQuery<OrderStatus>): Promise<Page<AdoptionOrder>> {
    const page = pageOf(await listOrdersWithPets(this.deps.db, projectId, { ...filter, limit: filter.limit + 1 }), filter.limit)
    return { ...page, items: page.items.map((row) => withPet(row, { name: row.current_pet_name ?? row.pet_name ?? '', status: row.pet_status })) }
  }

  async get(projectId: number, id: number): Promise<Order | undefined> {
    const row = await findOrder(this.deps.db, projectId, id)
    return row && toOrder(row)
  }

  /**
   * Places an order and takes the animal, atomically: of concurrent orders for one animal, one wins.
   * An order from the adoption site carries its `enquiry` (who asked); the API's orders have none.
   * `change` (the API key, or the site's anonymous visitor) is recorded in the audit log with it.
   */
  async place(projectId: number, petId: number, idempotencyKey: string | undefined, enquiry?: Enquiry, change?: Change): Promise<PlaceOrderResult> {
    const idempotent = idempotencyKey === undefined ? undefined : { key: idempotencyKey, request: { operation: 'placeOrder', body: { petId } }, status: 201 }
    const outcome = await this.deps.idempotency.change(projectId, idempotent, async (trx): Promise<Order> => {
      if (!(await movePet(trx, projectId, petId, 'available', 'pending', new Date(this.deps.clock.now()).toISOString()))) {
        const pet = await findPet(trx, projectId, petId)
        if (!pet) return refuse('not_found', noSuchPet(petId))
        return refuse('pet_unavailable', `Animal ${petId} is ${pet.status}, not available: only available animals can be ordered.`)
      }
      const order = toOrder(await insertOrder(trx, { projectId, petId, at: new Date(this.deps.clock.now()).toISOString(), enquiry }))
      // order.placed is written with the order, in its transaction.
      await this.deps.outbox.write(trx, projectId, 'order.placed', order)
      // The enquirer's name and contact stay in the order: the entry says only that there was one.
      if (change) await recordChange(trx, this.deps.clock, change, { action: 'order.placed', target: { type: 'order', id: order.id }, projectId, details: { petId, enquiry: enquiry !== undefined } })
      return order
    })
    if (!outcome.ok) return outcome
    await this.deps.generations.dataChanged(projectId)
    return { ok: true, order: outcome.value, replayed: outcome.replayed }
  }

  /**
   * Applies one move of the state machine to an order and its animal, in one transaction, with
   * the audit entry of the move (`change`: an admin's, or an API key's).
   */
  async transition(projectId: number, orderId: number, action: OrderAction, change?: Change): Promise<TransitionResult> {
    const { from, to, pet: petStatus } = TRANSITIONS[action]
    const result = await this.deps.db.transaction().execute(async (trx): Promise<TransitionResult> => {
      const before = await findOrder(trx, projectId, orderId)
      if (!before) return { ok: false, error: 'not_found', message: `No order with id ${orderId} in your project.` }
      // Conditional: of concurrent moves of one order, only those its status still allows happen.
      const moved = await moveOrder(trx, projectId, orderId, from, to, new Date(this.deps.clock.now()).toISOString())
      if (!moved) {
        const status = (await findOrder(trx, projectId, orderId))?.status ?? before.status
        return { ok: false, error: 'invalid_transition', message: `Order ${orderId} is ${status}: only ${from.join(' or ')} orders can be ${to}.` }
      }
      if (petStatus) await setPetStatus(trx, projectId, moved.pet_id, petStatus, new Date(this.deps.clock.now()).toISOString())
      await this.deps.outbox.write(trx, projectId, `order.${to}`, toOrder(moved))
      if (change) {
        await recordChange(trx, this.deps.clock, change, {
          action: `order.${to}`,
          target: { type: 'order', id: orderId },
          projectId,
          details: { petId: moved.pet_id, from: before.status, to },
        })
      }
      // An open order's animal is never removed (PetsService.remove), so it is there.
      const pet = await findPet(trx, projectId, moved.pet_id)
      return { ok: true, order: withPet(moved, { name: pet?.name ?? moved.pet_name ?? '', status: pet?.status ?? null }) }
    })
    if (result.ok) await this.deps.generations.dataChanged(projectId)
    return result
  }
}

function withPet(row: OrderRow, pet: { name: string; status: PetStatus | null }): AdoptionOrder {
  return { ...toOrder(row), ...enquiryOf(row), petName: pet.name, petStatus: pet.status }
}

/** The enquiry of an order placed through the adoption site, as the admin API shows it. */
function enquiryOf(row: OrderRow): Pick<AdoptionOrder, 'enquiry'> {
  if (row.enquiry_name === null) return {}
  const optional = { email: row.enquiry_email, phone: row.enquiry_phone, message: row.enquiry_message }
  return { enquiry: { name: row.enquiry_name, ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)) } }
}
