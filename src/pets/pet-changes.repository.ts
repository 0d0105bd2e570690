import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import type { PetStatus } from '../db/schema.js'

/**
 * The id of the oldest transaction running when this statement's snapshot was taken (its `xip`
 * list), or the snapshot's `xmax` when none was. Transactions of other databases of the server
 * are left out when `pg_stat_activity` still shows them running there (a long transaction of
 * another application does not hold the feed back); one that ended meanwhile, or that the
 * role may not see, counts as ours, which only delays changes, never skips one.
 */
const OLDEST_RUNNING_HERE = sql<number>`(
  select coalesce(min(running.x::text::bigint), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
  from pg_snapshot_xip(pg_current_snapshot()) as running(x)
  where not exists (select 1 from pg_stat_activity a where a.backend_xid = xid(running.x) and a.datname is distinct from current_database())
)`

/** A change of the feed: where it sits in the feed's order, and the animal as it is now (none when removed). */
export interface PetChangeRecord {
  txid: number
  seq: number
  petId: number
  removed: number
  changedAt: string
  name: string | null
  categoryId: number | null
  status: PetStatus | null
  profile: string | null
  createdAt: string | null
  updatedAt: string | null
  photos: string | null
}

/**
 * The changes after `(txid, seq)`, in the feed's order. Triggers on `pets` write them (migration
 * 0012) in the writing transaction, one row per animal at its latest change.
 *
 * PostgreSQL: a sequence value drawn by a transaction can become visible after a larger one drawn
 * by a transaction that committed first, so reading "everything after the last seq" would skip
 * the late one for good. Each change carries its transaction's id, and this read returns only
 * changes of transactions older than every transaction still running when its snapshot was taken
 * (see OLDEST_RUNNING_HERE): those have all ended, so no change can later appear before what was
 * read, and every change to come belongs to a transaction at or past that bound. SQLite has one
 * writer at a time: `seq` is the commit order and `txid` is 0.
 */
export async function listPetChanges(db: Db, dialect: 'sqlite' | 'postgres', projectId: number, after: { txid: number; seq: number }, limit: number): Promise<PetChangeRecord[]> {
  let query = db
    .selectFrom('pet_changes as c')
    .leftJoin('pets as p', (join) => join.onRef('p.id', '=', 'c.pet_id').on('c.removed', '=', 0))
    .select([
      'c.txid',
      'c.seq',
      'c.pet_id as petId',
      'c.removed',
      'c.changed_at as changedAt',
      'p.name',
      'p.category_id as categoryId',
      'p.status',
      'p.profile',
      'p.created_at as createdAt',
      'p.updated_at as updatedAt',
      'p.photos',
    ])
    .where('c.project_id', '=', projectId)
    .where((eb) => eb.or([eb('c.txid', '>', after.txid), eb.and([eb('c.txid', '=', after.txid), eb('c.seq', '>', after.seq)])]))
  if (dialect === 'postgres') query = query.where('c.txid', '<', OLDEST_RUNNING_HERE)
  return query.orderBy('c.txid').orderBy('c.seq').limit(limit).execute()
}
