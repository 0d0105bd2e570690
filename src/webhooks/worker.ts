import { recordChange, SYSTEM_CHANGE } from '../audit/audit.js'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { BackgroundPass, leaseHolder } from '../jobs/background-pass.js'
import type { WebhookDeliveryRow, WebhookEndpointRow, WebhookEventRow } from '../db/schema.js'
import type { SecretBox } from '../secret-box.js'
import type { Outbox } from './outbox.js'
import type { Attempt, AttemptResult, WebhookSender } from './sender.js'
import { eventBody, signatureHeader } from './signing.js'
import {
  claimDueDeliveries,
  disableEndpoint,
  type AttemptedEndpoint,
  findEndpointsByIds,
  findEvents,
  finishAttempt,
  insertAttempt,
  markEndpointFailing,
  markEndpointHealthy,
  oldestDue,
  purgeBefore,
} from './webhooks.repository.js'

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/**
 * The wait after each failed attempt, before jitter: growing about fivefold, then doubling from
 * an hour, at most 12 hours; 14 attempts over about 3 days and 4 hours. Each wait is jittered by
 * ±20 % so that endpoints coming back are not hit by every retry at once.
 */
export const RETRY_SCHEDULE_MS = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 12 * HOUR, 12 * HOUR, 12 * HOUR, 12 * HOUR, 12 * HOUR] as const
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1
export const JITTER = 0.2
/** An endpoint whose every attempt failed for this long, with no success since, is disabled. */
export const DISABLE_AFTER_MS = 5 * DAY
/** Finished deliveries, and events none waits for, are kept this long by default (WEBHOOK_RETENTION_DAYS) for the delivery log, the event list, recovery and replay. */
export const RETENTION_DAYS = 30
export const RETENTION_MS = RETENTION_DAYS * DAY
const BATCH = 20
const PURGE_EVERY_MS = HOUR

/** An attempt's error when the endpoint's secret does not open here: what the operator can do about it. */
export const SEALED_ELSEWHERE =
  "The endpoint's signing secret was sealed with another WEBHOOK_ENCRYPTION_KEY than this service's: add that key to WEBHOOK_PREVIOUS_ENCRYPTION_KEYS (it then opens the secret again), or rotate the endpoint's secret with no overlap (overlapHours 0)."

/** The context an endpoint's secrets are sealed under: they only open for that endpoint. */
export function secretContext(endpointId: string): string {
  return `webhook-secret:${endpointId}`
}

/** The wait after the `attempts`-th failed attempt, jittered by `random` (0..1). */
export function retryDelayMs(attempts: number, random: number): number {
  const base = RETRY_SCHEDULE_MS[Math.min(attempts, RETRY_SCHEDULE_MS.length) - 1] ?? RETRY_SCHEDULE_MS[0]
  return Math.round(base * (1 - JITTER + 2 * JITTER * random))
}

export interface DeliveryObserver {
  /** After each attempt: `succeeded`, `retrying` (failed, another attempt is due) or `failed` (no attempt left). */
  attempted(outcome: 'succeeded' | 'retrying' | 'failed', latencyMs: number): void
  /** At start: how many endpoints have a secret the configured keys do not open. */
  unopenableSecrets?(count: number): void
}

export interface WorkerOptions {
  intervalMs: number
  timeoutMs: number
  /** Jitter's source; tests pass their own. */
  random?: () => number
  /** Run once when the worker starts, before its first pass: the check of the keys against the sealed secrets. */
  beforeStart?: () => Promise<void>
  /** How long finished deliveries and events are kept; RETENTION_MS when absent. */
  retentionMs?: number
}

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * Sends due deliveries, on every instance. Each is taken under a lease in one statement (see
 * claimDueDeliveries), so an attempt is made by exactly one instance; an instance killed in the
 * middle leaves a lease that runs out, and the delivery is due again (at least once, with the
 * same `webhook-id`). Outcomes are recorded only by the lease's holder.
 */
export class WebhookWorker {
  readonly holder = leaseHolder()
  private readonly passes: BackgroundPass
  private lastPurge = 0
  private readonly random: () => number
  /** Outcomes waiting for the transaction that writes them, and whether one is being written. */
  private readonly recordings: Recording[] = []
  private recording = false

  constructor(
    private readonly db: Db,
    private readonly dialect: 'sqlite' | 'postgres',
    private readonly clock: Clock,
    private readonly box: SecretBox | undefined,
    /** Sends for projects an operator granted the allowed private networks, and for the others. */
    private readonly sender: { granted: WebhookSender; public: WebhookSender },
    private readonly log: FastifyBaseLogger,
    private readonly failures: FailureLog,
    private readonly observer: DeliveryObserver,
    /** Where the `endpoint.disabled` event of an endpoint it disables is written, with the disabling. */
    private readonly outbox: Pick<Outbox, 'write'>,
    private readonly options: WorkerOptions,
  ) {
    this.random = options.random ?? Math.random
    this.passes = new BackgroundPass(() => this.drain(), options.intervalMs, (err) => this.failures.failed(err, 'webhooks: delivery pass failed'))
  }

  async start(): Promise<void> {
    // A failed check (the database away) is reported, and delivering starts all the same.
    await this.options.beforeStart?.().catch((error: unknown) => this.failures.failed(error, 'webhooks: the check of the sealed secrets failed'))
    this.passes.start()
  }

  /** Runs a pass soon (an event was just written), or again after the current one. */
  kick(): void {
    this.passes.kick()
  }

  /** Stops scheduling and waits for the attempts in flight, at most their timeout; a lease cut short runs out. */
  async close(): Promise<void> {
    await this.passes.stop(this.options.timeoutMs + SECOND)
  }

  /** The oldest due delivery's wait, in seconds (0 when none is due): the queue's age. */
  async queueAgeSeconds(): Promise<number> {
    const now = this.clock.now()
    const oldest = await oldestDue(this.db, iso(now))
    return oldest ? Math.max(0, (now - Date.parse(oldest)) / SECOND) : 0
  }

  private async drain(): Promise<void> {
    while (!this.passes.isStopped && (await this.runOnce()) === BATCH);
    if (this.clock.now() - this.lastPurge >= PURGE_EVERY_MS) {
      this.lastPurge = this.clock.now()
      await purgeBefore(this.db, iso(this.clock.now() - (this.options.retentionMs ?? RETENTION_MS)))
    }
  }

  /** One pass: takes up to a batch of due deliveries and attempts each; answers how many it took. */
  async runOnce(): Promise<number> {
    const now = this.clock.now()
    // Long enough for the attempt and its record: a lease never runs out under a living holder.
    const leaseUntil = now + this.options.timeoutMs + 5 * SECOND
    const rows = await claimDueDeliveries(this.db, this.dialect, this.holder, iso(now), iso(leaseUntil), BATCH)
    if (rows.length === 0) return 0
    const events = new Map((await findEvents(this.db, [...new Set(rows.map((row) => row.event_id))])).map((event) => [event.id, event]))
    const endpoints = new Map((await findEndpointsByIds(this.db, [...new Set(rows.map((row) => row.endpoint_id))])).map((endpoint) => [endpoint.id, endpoint]))
    await Promise.all(
      rows.map(async (row) => {
        try {
          await this.attempt(row, events.get(row.event_id), endpoints.get(row.endpoint_id))
        } catch (err) {
          this.failures.failed(err, 'webhooks: an attempt could not be made or recorded', { deliveryId: row.id })
        }
      }),
    )
    return rows.length
  }

  private async attempt(row: WebhookDeliveryRow, event: WebhookEventRow | undefined, endpoint: AttemptedEndpoint | undefined): Promise<void> {
    const at = this.clock.now()
    let result: AttemptResult
    let secrets: string[] | undefined
    let sent: Omit<Attempt, 'url'> | undefined
    if (!event || !endpoint) {
      result = { ok: false, status: null, latencyMs: 0, excerpt: null, error: 'The event or the endpoint no longer exists.' }
    } else if (!this.box) {
      result = { ok: false, status: null, latencyMs: 0, excerpt: null, error: 'Webhooks are not configured on this instance: set WEBHOOK_ENCRYPTION_KEY.' }
    } else if (!(secrets = this.secretsOf(endpoint, at))) {
      result = { ok: false, status: null, latencyMs: 0, excerpt: null, error: SEALED_ELSEWHERE }
    } else {
      const body = eventBody(event.type, event.created_at, event.data)
      const timestamp = Math.floor(at / SECOND)
      sent = {
        body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'AdoptionStore-Webhooks/1.0',
          'webhook-id': event.id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, event.id, timestamp, body),
        },
      }
      result = await (endpoint.private_networks === 1 ? this.sender.granted : this.sender.public).send({ url: endpoint.url, ...sent })
    }
    await this.record({ row, endpoint, at, result, sent })
  }

  /**
   * The secrets that sign now: the current one, and the previous one during a rotation's overlap;
   * undefined when this instance's keys do not open them (they were sealed with another key).
   */
  private secretsOf(endpoint: WebhookEndpointRow, at: number): string[] | undefined {
    const box = this.box!
    try {
      const secrets = [box.open(endpoint.secret, secretContext(endpoint.id))]
      if (endpoint.previous_secret && endpoint.previous_secret_until && Date.parse(endpoint.previous_secret_until) > at) {
        secrets.push(box.open(endpoint.previous_secret, secretContext(endpoint.id)))
      }
      return secrets
    } catch {
      return undefined
    }
  }

  /**
   * Records an attempt's outcome. Outcomes that finish while others are being written wait and
   * are written together, in one transaction: one commit for many deliveries, as the creates of
   * animals are (see src/db/prepared.ts); each attempt's own outcome is durable when this resolves.
   */
  private record(outcome: Omit<Recording, 'resolve' | 'reject'>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.recordings.push({ ...outcome, resolve, reject })
      if (this.recording) return
      this.recording = true
      void this.flushRecordings()
    })
  }

  private async flushRecordings(): Promise<void> {
    while (this.recordings.length > 0) {
      const batch = this.recordings.splice(0)
      try {
        const outcomes = await this.db.transaction().execute(async (trx) => {
          const done: Parameters<DeliveryObserver['attempted']>[] = []
          for (const item of batch) done.push(await this.recordOne(trx, item))
          return done
        })
        for (const [outcome, latencyMs] of outcomes) this.observer.attempted(outcome, latencyMs)
        for (const item of batch) item.resolve()
      } catch (error) {
        for (const item of batch) item.reject(error)
      }
    }
    this.recording = false
  }

  private async recordOne(trx: Db, { row, endpoint, at, result, sent }: Recording): Promise<Parameters<DeliveryObserver['attempted']>> {
    const attempts = row.attempts + 1
    const retry = !result.ok && row.manual === 0 && attempts < MAX_ATTEMPTS && endpoint !== undefined
    const outcome = result.ok ? 'succeeded' : retry ? 'retrying' : 'failed'
    const common = {
      attempts,
      last_attempt_at: iso(at),
      last_status: result.status,
      last_error: result.error,
      last_latency_ms: result.latencyMs,
      response_excerpt: result.excerpt,
    }
    const now = this.clock.now()
    const changes = result.ok
      ? { ...common, state: 'succeeded' as const, next_attempt_at: null, completed_at: iso(now) }
      : retry
        ? { ...common, state: 'pending' as const, next_attempt_at: iso(now + retryDelayMs(attempts, this.random())) }
        : { ...common, state: 'failed' as const, next_attempt_at: null, completed_at: iso(now) }
    if (!(await finishAttempt(trx, row.id, this.holder, changes))) return [outcome, result.latencyMs]
    // Kept only with the outcome it belongs to: a lease lost to another instance records nothing.
    // The signature headers are kept as sent: they are signatures, the secret cannot be read from them.
    await insertAttempt(trx, {
      delivery_id: row.id,
      attempted_at: iso(at),
      status: result.status,
      duration_ms: result.latencyMs,
      response_excerpt: result.excerpt,
      error: result.error,
      request_headers: sent ? JSON.stringify(sent.headers) : null,
      request_body: sent?.body ?? null,
    })
    if (!endpoint) return [outcome, result.latencyMs]
    if (result.ok) {
      await markEndpointHealthy(trx, endpoint.id)
      return [outcome, result.latencyMs]
    }
    const failing = await markEndpointFailing(trx, endpoint.id, iso(at))
    const since = failing?.failing_since ? Date.parse(failing.failing_since) : at
    if (failing?.enabled === 1 && at - since >= DISABLE_AFTER_MS) {
      const reason = `Disabled on ${iso(now)}: every delivery attempt failed since ${iso(since)} (5 days); the last one: ${result.error ?? 'no answer'}`
      if (await disableEndpoint(trx, endpoint.id, reason, iso(now))) {
        await recordChange(trx, this.clock, SYSTEM_CHANGE, { action: 'webhook.disabled', target: { type: 'webhook', id: endpoint.id }, projectId: endpoint.project_id, details: { failingSince: iso(since) } })
        this.log.warn({ endpointId: endpoint.id }, 'webhooks: endpoint disabled after failing for 5 days')
        // Written after the disabling: the project's other endpoints that subscribe receive it, never this one.
        await this.outbox.write(trx, endpoint.project_id, 'endpoint.disabled', endpointDisabledData(endpoint, 'service', reason, iso(now)))
      }
    }
    return [outcome, result.latencyMs]
  }
}

/** The `data` of an `endpoint.disabled` event: the endpoint, who disabled it and why (never its secret). */
export function endpointDisabledData(endpoint: Pick<WebhookEndpointRow, 'id' | 'url' | 'description'>, disabledBy: 'service' | 'person', reason: string, disabledAt: string) {
  return { id: endpoint.id, url: endpoint.url, description: endpoint.description, disabledBy, reason, disabledAt }
}

/** An attempt's outcome waiting to be written. */
interface Recording {
  row: WebhookDeliveryRow
  endpoint: WebhookEndpointRow | undefined
  at: number
  result: AttemptResult
  /** The headers and body sent; undefined when nothing could be sent. */
  sent: Omit<Attempt, 'url'> | undefined
  resolve(): void
  reject(error: unknown): void
}
