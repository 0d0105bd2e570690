import { sql } from 'kysely'
import type { Db } from '../db/database.js'
import { prepare } from '../db/prepared.js'
import type { DeliveryState, WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow, WebhookEventRow } from '../db/schema.js'

/** An event to write to the outbox. */
export interface OutboxEvent {
  id: string
  projectId: number
  type: string
  /** JSON text of the event's `data`. */
  data: string
  createdAt: string
  dedupeKey: string | null
}

// The outbox: every event of every project is written (the project's event list, kept for the
// retention period, from which a replay sends past events to a newer endpoint), and with it a
// delivery per enabled endpoint of the project that subscribes to its type. Every value comes
// from a row or is text, so PostgreSQL infers every parameter's type from its column.
const insertEvent = prepare((db, id: string, projectId: number, type: string, data: string, createdAt: string, dedupeKey: string | null) =>
  db
    .insertInto('webhook_events')
    .values({ id, project_id: projectId, type, created_at: createdAt, dedupe_key: dedupeKey, data })
    .onConflict((oc) => oc.doNothing())
    .returning('id'),
)

/**
 * SQLite's batched path: the event of the row the statement before it inserted, whose id
 * (`last_insert_rowid()`, the same connection and transaction) replaces `data.id`.
 */
const insertEventOfInsertedRow = prepare((db, id: string, projectId: number, type: string, data: string, createdAt: string) =>
  db
    .insertInto('webhook_events')
    .values({ id, project_id: projectId, type, created_at: createdAt, dedupe_key: null, data: sql<string>`json_set(${data}, '$.id', last_insert_rowid())` }),
)

/** The deliveries of an event just written: one per enabled endpoint subscribed to its type (often none). */
const insertDeliveries = prepare((db, eventId: string, at: string) =>
  db
    .insertInto('webhook_deliveries')
    .columns(['event_id', 'endpoint_id', 'project_id', 'state', 'manual', 'attempts', 'next_attempt_at', 'created_at'])
    .expression(
      db
        .selectFrom('webhook_events as ev')
        .innerJoin('webhook_endpoints as e', 'e.project_id', 'ev.project_id')
        .innerJoin('webhook_subscriptions as s', 's.endpoint_id', 'e.id')
        .where('ev.id', '=', eventId)
        .where('e.enabled', '=', 1)
        .where((eb) => eb.or([eb('s.event_type', '=', eb.ref('ev.type')), eb('s.event_type', '=', '*')]))
        .select(['ev.id', 'e.id as endpoint_id', 'e.project_id', sql<'pending'>`'pending'`.as('state'), sql<number>`0`.as('manual'), sql<number>`0`.as('attempts'), sql<string>`${at}`.as('next'), sql<string>`${at}`.as('created')]),
    )
    .returning('id'),
)

/** What writing an event did: whether it was written (not a duplicate of its `dedupeKey`), and with how many deliveries. */
export interface EventWritten {
  written: boolean
  deliveries: number
}

/** Writes an event and its deliveries; on a transaction, within it. */
export async function writeEvent(db: Db, event: OutboxEvent): Promise<EventWritten> {
  const [written] = await insertEvent(db, event.id, event.projectId, event.type, event.data, event.createdAt, event.dedupeKey)
  if (!written) return { written: false, deliveries: 0 }
  return { written: true, deliveries: (await insertDeliveries(db, event.id, event.createdAt)).length }
}

/**
 * The statements of `writeEvent` for the row the statement before them inserted (SQLite's batched
 * path), the deliveries' last (their rows: one per delivery); undefined without one.
 */
export function eventOfInsertedRowStatements(db: Db, event: Omit<OutboxEvent, 'dedupeKey'>) {
  const first = insertEventOfInsertedRow.statement(db, event.id, event.projectId, event.type, event.data, event.createdAt)
  const second = insertDeliveries.statement(db, event.id, event.createdAt)
  return first && second ? [first, second] : undefined
}

// Endpoints.

export type EndpointWithTypes = WebhookEndpointRow & { types: string[] }

export async function insertEndpoint(db: Db, endpoint: WebhookEndpointRow, types: readonly string[]): Promise<void> {
  await db.insertInto('webhook_endpoints').values(endpoint).execute()
  await setSubscriptions(db, endpoint.id, types)
}

export async function countEndpoints(db: Db, projectId: number): Promise<number> {
  const row = await db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number | string>().as('n')).where('project_id', '=', projectId).executeTakeFirst()
  return Number(row?.n ?? 0)
}

export async function setSubscriptions(db: Db, endpointId: string, types: readonly string[]): Promise<void> {
  await db.deleteFrom('webhook_subscriptions').where('endpoint_id', '=', endpointId).execute()
  if (types.length > 0) await db.insertInto('webhook_subscriptions').values(types.map((type) => ({ endpoint_id: endpointId, event_type: type }))).execute()
}

export async function listEndpoints(db: Db, projectId: number): Promise<EndpointWithTypes[]> {
  const rows = await db.selectFrom('webhook_endpoints').selectAll().where('project_id', '=', projectId).orderBy('created_at').orderBy('id').execute()
  return withTypes(db, rows)
}

export async function findEndpoint(db: Db, projectId: number, id: string): Promise<EndpointWithTypes | undefined> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
  return row && (await withTypes(db, [row]))[0]
}

/** An endpoint as an attempt needs it: with its project's grant of the private networks. */
export type AttemptedEndpoint = WebhookEndpointRow & { private_networks: number }

export async function findEndpointsByIds(db: Db, ids: readonly string[]): Promise<AttemptedEndpoint[]> {
  if (ids.length === 0) return []
  return db
    .selectFrom('webhook_endpoints')
    .innerJoin('projects', 'projects.id', 'webhook_endpoints.project_id')
    .selectAll('webhook_endpoints')
    .select('projects.webhook_private_networks as private_networks')
    .where('webhook_endpoints.id', 'in', ids)
    .execute()
}

async function withTypes(db: Db, rows: WebhookEndpointRow[]): Promise<EndpointWithTypes[]> {
  if (rows.length === 0) return []
  const subscriptions = await db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where(
      'endpoint_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('event_type')
    .execute()
  return rows.map((row) => ({ ...row, types: subscriptions.filter((s) => s.endpoint_id === row.id).map((s) => s.event_type) }))
}

export async function updateEndpoint(db: Db, id: string, changes: Partial<Omit<WebhookEndpointRow, 'id' | 'project_id'>>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('id', '=', id).execute()
}

export async function deleteEndpoint(db: Db, id: string): Promise<void> {
  await db
    .deleteFrom('webhook_attempts')
    .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('webhook_deliveries.id').where('webhook_deliveries.endpoint_id', '=', id))
    .execute()
  await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute()
  await db.deleteFrom('webhook_subscriptions').where('endpoint_id', '=', id).execute()
  await db.deleteFrom('webhook_endpoints').where('id', '=', id).execute()
}

/** After a failed attempt: the endpoint fails since `at`, unless it already did. */
export async function markEndpointFailing(db: Db, id: string, at: string): Promise<WebhookEndpointRow | undefined> {
  await db.updateTable('webhook_endpoints').set({ failing_since: at }).where('id', '=', id).where('failing_since', 'is', null).execute()
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function markEndpointHealthy(db: Db, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute()
}

/** Disables an endpoint that is still enabled; answers whether it was. */
export async function disableEndpoint(db: Db, id: string, reason: string, at: string): Promise<boolean> {
  const result = await db.updateTable('webhook_endpoints').set({ enabled: 0, disabled_reason: reason, updated_at: at }).where('id', '=', id).where('enabled', '=', 1).executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

// Deliveries.

/** A delivery with what its attempt needs: the event. */
export type DeliveryWithEvent = WebhookDeliveryRow & { type: string; data: string; event_created_at: string }

/**
 * Takes up to `limit` due deliveries of enabled endpoints under a lease, in one statement: on
 * PostgreSQL rows another instance is taking are skipped (`FOR UPDATE SKIP LOCKED`); SQLite has
 * one writer, so the statement alone decides. A lease that ran out (its holder died) is due again.
 */
export async function claimDueDeliveries(db: Db, dialect: 'sqlite' | 'postgres', holder: string, now: string, leaseUntil: string, limit: number): Promise<WebhookDeliveryRow[]> {
  let due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .where('endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('webhook_endpoints.id').where('webhook_endpoints.enabled', '=', 1))
    .orderBy('next_attempt_at')
    .limit(limit)
  if (dialect === 'postgres') due = due.forUpdate().skipLocked()
  return db
    .updateTable('webhook_deliveries')
    .set({ lease_holder: holder, lease_until: leaseUntil })
    .where('id', 'in', due)
    .returningAll()
    .execute()
}

export async function findEvents(db: Db, ids: readonly string[]): Promise<WebhookEventRow[]> {
  if (ids.length === 0) return []
  return db.selectFrom('webhook_events').selectAll().where('id', 'in', ids).execute()
}

/** Records an attempt's outcome, if `holder` still holds the lease; answers whether it did. */
export async function finishAttempt(db: Db, id: number, holder: string, changes: Partial<Omit<WebhookDeliveryRow, 'id'>>): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, lease_holder: null, lease_until: null })
    .where('id', '=', id)
    .where('lease_holder', '=', holder)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export interface DeliveryFilter {
  endpointId: string
  /** Only deliveries with a smaller id (newest first). */
  before?: number | undefined
  state?: DeliveryState | undefined
  eventType?: string | undefined
  /** The event id, sent as `webhook-id`. */
  eventId?: string | undefined
  /** Only deliveries created at or after this time, and before `until`. */
  since?: string | undefined
  until?: string | undefined
  limit: number
}

export async function listDeliveries(db: Db, filter: DeliveryFilter): Promise<DeliveryWithEvent[]> {
  let query = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .selectAll('d')
    .select(['ev.type', 'ev.data', 'ev.created_at as event_created_at'])
    .where('d.endpoint_id', '=', filter.endpointId)
  if (filter.before !== undefined) query = query.where('d.id', '<', filter.before)
  if (filter.state !== undefined) query = query.where('d.state', '=', filter.state)
  if (filter.eventType !== undefined) query = query.where('ev.type', '=', filter.eventType)
  if (filter.eventId !== undefined) query = query.where('d.event_id', '=', filter.eventId)
  if (filter.since !== undefined) query = query.where('d.created_at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('d.created_at', '<', filter.until)
  return query.orderBy('d.id', 'desc').limit(filter.limit).execute()
}

export async function findDelivery(db: Db, endpointId: string, id: number): Promise<DeliveryWithEvent | undefined> {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as ev', 'ev.id', 'd.event_id')
    .selectAll('d')
    .select(['ev.type', 'ev.data', 'ev.created_at as event_created_at'])
    .where('d.endpoint_id', '=', endpointId)
    .where('d.id', '=', id)
    .executeTakeFirst()
}

export async function insertAttempt(db: Db, attempt: Omit<WebhookAttemptRow, 'id'>): Promise<void> {
  await db.insertInto('webhook_attempts').values(attempt).execute()
}

/** A delivery's attempts, oldest first. */
export async function listAttempts(db: Db, deliveryId: number): Promise<WebhookAttemptRow[]> {
  return db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute()
}

/** A delivery attempted once, now: a redelivery or a test event. */
export async function insertManualDelivery(db: Db, delivery: { eventId: string; endpointId: string; projectId: number; at: string }): Promise<number> {
  const row = await db
    .insertInto('webhook_deliveries')
    .values({
      event_id: delivery.eventId,
      endpoint_id: delivery.endpointId,
      project_id: delivery.projectId,
      state: 'pending',
      manual: 1,
      attempts: 0,
      next_attempt_at: delivery.at,
      created_at: delivery.at,
    })
    .returning('id')
    .executeTakeFirstOrThrow()
  return Number(row.id)
}

export async function insertPlainEvent(db: Db, event: OutboxEvent): Promise<void> {
  await db.insertInto('webhook_events').values({ id: event.id, project_id: event.projectId, type: event.type, data: event.data, created_at: event.createdAt, dedupe_key: event.dedupeKey }).execute()
}

/** When the oldest due delivery of an enabled endpoint was due; undefined when none is due. */
export async function oldestDue(db: Db, now: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('oldest'))
    .where('state', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where('endpoint_id', 'in', (eb) => eb.selectFrom('webhook_endpoints').select('webhook_endpoints.id').where('webhook_endpoints.enabled', '=', 1))
    .executeTakeFirst()
  return row?.oldest ?? undefined
}

/** Forgets finished deliveries with their attempts, and events without deliveries, older than `before`. */
export async function purgeBefore(db: Db, before: string): Promise<void> {
  await db
    .deleteFrom('webhook_attempts')
    .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('webhook_deliveries.id').where('webhook_deliveries.state', '<>', 'pending').where('webhook_deliveries.created_at', '<', before))
    .execute()
  await db.deleteFrom('webhook_deliveries').where('state', '<>', 'pending').where('created_at', '<', before).execute()
  await db
    .deleteFrom('webhook_events')
    .where('created_at', '<', before)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries').select('id').whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'))))
    .execute()
}

/** Every endpoint's sealed secrets (or one endpoint's), for a check of the keys or a re-seal. */
export async function listSealedSecrets(db: Db, id?: string): Promise<Pick<WebhookEndpointRow, 'id' | 'project_id' | 'secret' | 'previous_secret'>[]> {
  let query = db.selectFrom('webhook_endpoints').select(['id', 'project_id', 'secret', 'previous_secret'])
  if (id !== undefined) query = query.where('id', '=', id)
  return query.orderBy('id').execute()
}

/** Replaces an endpoint's sealed secrets if they are still the ones read: a rotation meanwhile wins. */
export async function replaceSealedSecrets(
  db: Db,
  id: string,
  read: { secret: string; previous_secret: string | null },
  sealed: { secret: string; previous_secret: string | null },
): Promise<boolean> {
  let query = db.updateTable('webhook_endpoints').set(sealed).where('id', '=', id).where('secret', '=', read.secret)
  query = read.previous_secret === null ? query.where('previous_secret', 'is', null) : query.where('previous_secret', '=', read.previous_secret)
  const result = await query.executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

// Recovery, replay and the event list.

/**
 * Holds the endpoint's row until the transaction ends: two recoveries or replays of one endpoint
 * run one after the other, so the second sees the deliveries the first queued (PostgreSQL; SQLite
 * has one writer anyway).
 */
export async function lockEndpoint(db: Db, id: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', id).execute()
}

/** A recovery's or replay's range, and the event type it never sends again (the test event). */
export interface ResendQuery {
  endpointId: string
  projectId: number
  since: string
  until: string | undefined
  at: string
  skippedType: string
}

const NEW_DELIVERY_COLUMNS = ['event_id', 'endpoint_id', 'project_id', 'state', 'manual', 'attempts', 'next_attempt_at', 'created_at'] as const

/**
 * Queues again, as new deliveries with a full schedule of attempts, the events whose delivery to
 * the endpoint failed between `since` (inclusive) and `until` (exclusive): one new delivery per
 * event, none for an event the endpoint has a pending or succeeded delivery of (it was sent since,
 * or is being sent), none for test events. One statement: answers the new deliveries' ids.
 */
export async function queueFailedAgain(db: Db, recovery: ResendQuery): Promise<number[]> {
  const rows = await db
    .insertInto('webhook_deliveries')
    .columns(NEW_DELIVERY_COLUMNS)
    .expression(
      db
        .selectFrom('webhook_events as ev')
        .where('ev.project_id', '=', recovery.projectId)
        .where('ev.type', '<>', recovery.skippedType)
        .where(({ exists, selectFrom }) => {
          let failed = selectFrom('webhook_deliveries as f')
            .select('f.id')
            .whereRef('f.event_id', '=', 'ev.id')
            .where('f.endpoint_id', '=', recovery.endpointId)
            .where('f.state', '=', 'failed')
            .where('f.created_at', '>=', recovery.since)
          if (recovery.until !== undefined) failed = failed.where('f.created_at', '<', recovery.until)
          return exists(failed)
        })
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('webhook_deliveries as o').select('o.id').whereRef('o.event_id', '=', 'ev.id').where('o.endpoint_id', '=', recovery.endpointId).where('o.state', 'in', ['pending', 'succeeded']))),
        )
        .select(newDeliveryValues(recovery.endpointId, recovery.at))
        .orderBy('ev.created_at'),
    )
    .returning('id')
    .execute()
  return rows.map((row) => Number(row.id))
}

/**
 * Sends the endpoint the project's events of the types it subscribes to (`*`: all) that happened
 * between `since` (inclusive) and `until` (exclusive), each once: an event the endpoint has any
 * delivery of already (sent when it happened, or by an earlier replay) is left out. Test events
 * are never replayed. One statement: answers the new deliveries' ids.
 */
export async function queueReplay(db: Db, replay: ResendQuery): Promise<number[]> {
  let events = db
    .selectFrom('webhook_events as ev')
    .where('ev.project_id', '=', replay.projectId)
    .where('ev.type', '<>', replay.skippedType)
    .where('ev.created_at', '>=', replay.since)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('webhook_subscriptions as s')
          .select('s.endpoint_id')
          .where('s.endpoint_id', '=', replay.endpointId)
          .where((eb) => eb.or([eb('s.event_type', '=', eb.ref('ev.type')), eb('s.event_type', '=', '*')])),
      ),
    )
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('webhook_deliveries as o').select('o.id').whereRef('o.event_id', '=', 'ev.id').where('o.endpoint_id', '=', replay.endpointId))))
  if (replay.until !== undefined) events = events.where('ev.created_at', '<', replay.until)
  const rows = await db
    .insertInto('webhook_deliveries')
    .columns(NEW_DELIVERY_COLUMNS)
    .expression(events.select(newDeliveryValues(replay.endpointId, replay.at)).orderBy('ev.created_at'))
    .returning('id')
    .execute()
  return rows.map((row) => Number(row.id))
}

/** The values of a new automatic delivery of the event `ev` to an endpoint, due at `at`. */
function newDeliveryValues(endpointId: string, at: string) {
  return [
    'ev.id',
    sql<string>`${endpointId}`.as('endpoint_id'),
    'ev.project_id',
    sql<'pending'>`'pending'`.as('state'),
    sql<number>`0`.as('manual'),
    sql<number>`0`.as('attempts'),
    sql<string>`${at}`.as('next'),
    sql<string>`${at}`.as('created'),
  ] as const
}

export interface EventFilter {
  projectId: number
  /** Only events before this one (newest first): the `before` cursor. */
  before?: { id: string; createdAt: string } | undefined
  type?: string | undefined
  /** Only events that happened at or after this time, and before `until`. */
  since?: string | undefined
  until?: string | undefined
  limit: number
}

/** A project's events, newest first (by time, then id). */
export async function listEvents(db: Db, filter: EventFilter): Promise<WebhookEventRow[]> {
  let query = db.selectFrom('webhook_events').selectAll().where('project_id', '=', filter.projectId)
  const before = filter.before
  if (before !== undefined) {
    query = query.where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]))
  }
  if (filter.type !== undefined) query = query.where('type', '=', filter.type)
  if (filter.since !== undefined) query = query.where('created_at', '>=', filter.since)
  if (filter.until !== undefined) query = query.where('created_at', '<', filter.until)
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute()
}

export async function findProjectEvent(db: Db, projectId: number, id: string): Promise<WebhookEventRow | undefined> {
  return db.selectFrom('webhook_events').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()
}
