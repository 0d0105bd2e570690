import type { Db } from '../db/database.js'
import type { IdempotencyKeyRow } from '../db/schema.js'

export async function insertClaim(db: Db, claim: { projectId: number; key: string; requestHash: string; at: string }): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values({
      project_id: claim.projectId,
      key: claim.key,
      request_hash: claim.requestHash,
      state: 'in_flight',
      response_status: null,
      response_body: null,
      created_at: claim.at,
    })
    .onConflict((oc) => oc.columns(['project_id', 'key']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1
}

export async function findClaim(db: Db, projectId: number, key: string): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('project_id', '=', projectId).where('key', '=', key).executeTakeFirst()
}

/** Takes over an expired or abandoned claim, unless another request took it first. */
export async function retakeClaim(db: Db, previous: IdempotencyKeyRow, claim: { requestHash: string; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ request_hash: claim.requestHash, state: 'in_flight', response_status: null, response_body: null, created_at: claim.at })
    .where('project_id', '=', previous.project_id)
    .where('key', '=', previous.key)
    .where('created_at', '=', previous.created_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function completeClaim(db: Db, projectId: number, key: string, response: { status: number; body: string }): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: response.status, response_body: response.body })
    .where('project_id', '=', projectId)
    .where('key', '=', key)
    .execute()
}

export async function releaseClaim(db: Db, projectId: number, key: string, at: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('project_id', '=', projectId)
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('created_at', '=', at)
    .execute()
}

export async function deleteClaimsBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', before).executeTakeFirst()
  return Number(result.numDeletedRows)
}
