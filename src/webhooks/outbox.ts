import { randomBase62 } from '../auth/api-key.js'
import type { Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { ALL_EVENTS, type WebhookEventType } from './events.js'
import { listSubscribedTypes, type OutboxEvent, writeEvent } from './webhooks.repository.js'

/** Projects whose subscriptions are kept in memory; past this the cache starts over. */
const MAX_CACHED_PROJECTS = 10_000

/** An event's id: the `webhook-id` of each of its attempts, on every endpoint. */
export function newEventId(): string {
  return `msg_${randomBase62(24)}`
}

/**
 * The outbox of webhook events. The services that make a change write its event with
 * `write(trx, …)` in the change's own transaction, so an event is never lost and never reports a
 * change that did not commit; the delivery worker sends it afterwards. An event is written only
 * when an enabled endpoint of the project subscribes to its type (with a delivery per endpoint).
 *
 * Hot paths ask `wants` first: which types a project's endpoints subscribe to is kept in memory
 * per project, valid for the `auth` generation it was read at (endpoint changes bump it, like key
 * and plan changes; see src/cache/generations.ts), so projects without webhooks pay a map lookup.
 */
export class Outbox {
  private readonly cache = new Map<number, { token: string; types: ReadonlySet<string> }>()

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Absent (the CLI), or no token (PostgreSQL without Redis): every question reads the database. */
    private readonly generations?: Pick<Generations, 'auth'>,
    /** Told after an event was written: the worker looks for due deliveries soon. */
    private readonly onWritten: () => void = () => undefined,
  ) {}

  /** Whether an enabled endpoint of the project subscribes to `type`. */
  async wants(projectId: number, type: WebhookEventType): Promise<boolean> {
    const token = await this.generations?.auth()
    let types = token === undefined ? undefined : this.cache.get(projectId)
    if (!types || types.token !== token) {
      types = { token: token ?? '', types: new Set(await listSubscribedTypes(this.db, projectId)) }
      if (token !== undefined) {
        if (this.cache.size >= MAX_CACHED_PROJECTS) this.cache.clear()
        this.cache.set(projectId, types)
      }
    }
    return types.types.has(type) || types.types.has(ALL_EVENTS)
  }

  /** The event as the outbox stores it, with a new id and the time of now. */
  event(projectId: number, type: WebhookEventType, data: unknown, dedupeKey: string | null = null): OutboxEvent {
    return { id: newEventId(), projectId, type, data: JSON.stringify(data), createdAt: new Date(this.clock.now()).toISOString(), dedupeKey }
  }

  /**
   * Writes an event in `trx` (the change's transaction) when an endpoint wants it. With a
   * `dedupeKey`, an event with the same key written before (by any instance) wins: for events
   * that report no row change (quotas, expiring keys). Answers whether it was written.
   */
  async write(trx: Db, projectId: number, type: WebhookEventType, data: unknown, dedupeKey: string | null = null): Promise<boolean> {
    const written = await writeEvent(trx, this.event(projectId, type, data, dedupeKey))
    if (written) this.written()
    return written
  }

  /** An event that reports no change of its own (a quota reached), in a transaction of its own. */
  async writeAlone(projectId: number, type: WebhookEventType, data: unknown, dedupeKey: string | null = null): Promise<boolean> {
    return this.db.transaction().execute((trx) => this.write(trx, projectId, type, data, dedupeKey))
  }

  /** After an event was written some other way (the batched path): the worker looks soon. */
  written(): void {
    this.onWritten()
  }
}
