import type { Db } from '../db/database.js'
import type { OrderRow, OrderStatus, PetStatus } from '../db/schema.js'

/** Who asked to adopt, through the adoption site's enquiry form: a name and an email, a phone or both. */
export interface Enquiry {
  name: string
  email?: string | undefined
  phone?: string | undefined
  message?: string | undefined
}

export interface OrderFilter {
  status?: OrderStatus | undefined
  /** Only ids greater than this. */
  after?: number | undefined
  limit: number
}

export async function listOrders(db: Db, projectId: number, filter: OrderFilter): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll().where('project_id', '=', projectId)
  if (filter.status !== undefined) query = query.where('status', '=', filter.status)
  if (filter.after !== undefined) query = query.where('id', '>', filter.after)
  return query.orderBy('id').limit(filter.limit).execute()
}

export async function findOrder(db: Db, projectId: number, id: number): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

export async function insertOrder(db: Db, order: { projectId: number; petId: number; at: string; enquiry?: Enquiry | undefined }): Promise<OrderRow> {
  const { enquiry } = order
  return db
    .insertInto('orders')
    .values({
      project_id: order.projectId,
      pet_id: order.petId,
      status: 'placed',
      created_at: order.at,
      updated_at: order.at,
      ...(enquiry && { enquiry_name: enquiry.name, enquiry_email: enquiry.email ?? null, enquiry_phone: enquiry.phone ?? null, enquiry_message: enquiry.message ?? null }),
    })
    .returningAll()
    .executeTakeFirstOrThrow()
}

/** Moves an order from one of `from` to `to`; answers the row when it moved, nothing otherwise. */
export async function moveOrder(db: Db, projectId: number, id: number, from: readonly OrderStatus[], to: OrderStatus, at: string): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ status: to, updated_at: at })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst()
}

/** An order of the animal that is still open (placed or approved), if any. */
export async function findOpenOrder(db: Db, projectId: number, petId: number): Promise<OrderRow | undefined> {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('pet_id', '=', petId)
    .where('status', 'in', ['placed', 'approved'])
    .orderBy('id')
    .executeTakeFirst()
}

/** Keeps the name of a removed animal on its orders, which outlive it. */
export async function keepPetName(db: Db, projectId: number, petId: number, name: string): Promise<void> {
  await db.updateTable('orders').set({ pet_name: name }).where('project_id', '=', projectId).where('pet_id', '=', petId).execute()
}

/** An order with its animal's name and status; the status is null once the animal was removed. */
export type OrderWithPetRow = OrderRow & { current_pet_name: string | null; pet_status: PetStatus | null }

/** Orders as `listOrders` pages them, each with its animal's name and status. */
export async function listOrdersWithPets(db: Db, projectId: number, filter: OrderFilter): Promise<OrderWithPetRow[]> {
  let query = db
    .selectFrom('orders')
    .leftJoin('pets', (join) => join.onRef('pets.id', '=', 'orders.pet_id').onRef('pets.project_id', '=', 'orders.project_id'))
    .selectAll('orders')
    .select(['pets.name as current_pet_name', 'pets.status as pet_status'])
    .where('orders.project_id', '=', projectId)
  if (filter.status !== undefined) query = query.where('orders.status', '=', filter.status)
  if (filter.after !== undefined) query = query.where('orders.id', '>', filter.after)
  return query.orderBy('orders.id').limit(filter.limit).execute()
}
