import type { Db } from '../db/database.js'
import type { OrderRow, OrderStatus } from '../db/schema.js'

export async function listOrders(db: Db, projectId: number, filter: { status?: OrderStatus | undefined; after?: number | undefined; limit: number }): Promise<OrderRow[]> {
  let query = db.selectFrom('orders').selectAll().where('project_id', '=', projectId)
  if (filter.status !== undefined) query = query.where('status', '=', filter.status)
  if (filter.after !== undefined) query = query.where('id', '>', filter.after)
  return query.orderBy('id').limit(filter.limit).execute()
}

export async function findOrder(db: Db, projectId: number, id: number): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}

export async function insertOrder(db: Db, order: { projectId: number; petId: number; at: string }): Promise<OrderRow> {
  return db
    .insertInto('orders')
    .values({ project_id: order.projectId, pet_id: order.petId, status: 'placed', created_at: order.at, updated_at: order.at })
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
