import { type AuditAction, type Change, recordChange } from '../audit/audit.js'
import { randomBase62 } from '../auth/api-key.js'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import { type DeliveryState, PLANS, type ProjectRow, type WebhookAttemptRow, type WebhookEventRow } from '../db/schema.js'
import { type Outcome, Refusal, refuse } from '../errors.js'
import { WEBHOOK_ENDPOINT_LIMITS } from '../limits/plans.js'
import { type Page, pageOf } from '../shapes.js'
import { findProjectBySlug } from '../projects/projects.repository.js'
import type { SecretBox } from '../secret-box.js'
import { type AddressPolicy, literalRefusal, nameRefusal, type ResolveHost } from './address-guard.js'
import { TEST_EVENT_TYPE } from './events.js'
import { newEventId, type Outbox } from './outbox.js'
import { newSigningSecret } from './signing.js'
import {
  countEndpoints,
  deleteEndpoint,
  findProjectEvent,
  listEvents,
  lockEndpoint,
  queueFailedAgain,
  queueReplay,
  type DeliveryWithEvent,
  type EndpointWithTypes,
  findDelivery,
  findEndpoint,
  insertEndpoint,
  insertManualDelivery,
  insertPlainEvent,
  listAttempts,
  listDeliveries,
  listEndpoints,
  setSubscriptions,
  updateEndpoint,
} from './webhooks.repository.js'
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEvent } from './webhooks.schemas.js'
import { endpointDisabledData, RETENTION_MS, secretContext } from './worker.js'

/** The reason an `endpoint.disabled` event gives for a person's disabling (the endpoint itself shows none). */
export const PERSON_DISABLED = 'Disabled by a person (the admin API, the CLI or the dashboard).'

export type WebhookResult<T> = Outcome<T, 'not_found' | 'invalid_request' | 'service_unavailable' | 'rotation_in_progress' | 'limit_reached' | 'endpoint_disabled'>

export interface EndpointInput {
  url: string
  types: string[]
  description?: string | undefined
  enabled?: boolean | undefined
}

export interface EndpointChanges {
  url?: string | undefined
  types?: string[] | undefined
  description?: string | null | undefined
  enabled?: boolean | undefined
}

export const DEFAULT_OVERLAP_HOURS = 24
const HOUR_MS = 3_600_000

/** Why one more endpoint is refused: the limit, the plan, and what the larger plans allow. */
function endpointLimitMessage(slug: string, plan: ProjectRow['plan'], limit: number): string {
  const larger = PLANS.slice(PLANS.indexOf(plan) + 1).map((name) => `${name} allows ${WEBHOOK_ENDPOINT_LIMITS[name]}`)
  const upgrade = larger.length > 0 ? `, or move to a larger plan (${larger.join(', ')})` : ''
  return `Project ${slug} has ${limit} webhook endpoints, the most its plan (${plan}) allows: remove one it no longer uses${upgrade}. One endpoint can receive several event types.`
}

export function toEndpoint(row: EndpointWithTypes): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    types: row.types as WebhookEndpoint['types'],
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    previousSecretExpiresAt: row.previous_secret ? row.previous_secret_until : null,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

export function toDelivery(row: DeliveryWithEvent): WebhookDelivery {
  return {
    id: Number(row.id),
    eventId: row.event_id,
    eventType: row.type,
    eventCreatedAt: row.event_created_at,
    state: row.state,
    manual: row.manual === 1,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    latencyMs: row.last_latency_ms,
    responseExcerpt: row.response_excerpt,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  }
}

/** A time as stored (ISO in UTC); undefined when none was given, null when it is not a time. */
function isoTime(value: string | undefined): string | undefined | null {
  if (value === undefined) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? null : new Date(ms).toISOString()
}

export function toEvent(row: WebhookEventRow): WebhookEvent {
  return { id: row.id, type: row.type, createdAt: row.created_at, data: JSON.parse(row.data) as WebhookEvent['data'] }
}

/** What a recovery or a replay asks for: a time range, `until` optional. */
export interface ResendRange {
  since: string
  until?: string | undefined
}

export interface EventQuery {
  limit: number
  /** The id of the last event of the previous page. */
  before?: string | undefined
  type?: string | undefined
  since?: string | undefined
  until?: string | undefined
}

export function toAttempt(row: WebhookAttemptRow): WebhookAttempt {
  return {
    attemptedAt: row.attempted_at,
    status: row.status,
    durationMs: row.duration_ms,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    request: row.request_body === null ? null : { headers: JSON.parse(row.request_headers ?? '{}') as Record<string, string>, body: row.request_body },
  }
}

/** Which deliveries of an endpoint to list: the page, and filters that each narrow it. */
export interface DeliveryQuery {
  before?: number | undefined
  limit: number
  state?: DeliveryState | undefined
  eventType?: string | undefined
  /** The event id, the `webhook-id` header. */
  webhookId?: string | undefined
  since?: string | undefined
  until?: string | undefined
}

export interface WebhookSettings {
  /** Whether any network is allowed despite being private: plain http is accepted only then. */
  allowsPlainHttp: boolean
  /** The addresses endpoints of projects an operator granted the private networks may reach (WEBHOOK_ALLOWED_NETWORKS allowed). */
  policy: AddressPolicy
  /** The addresses every other project's endpoints may reach: as if WEBHOOK_ALLOWED_NETWORKS were empty. */
  publicPolicy: AddressPolicy
  /** How an endpoint's host name is resolved when it is added or its URL changed (as attempts resolve it). */
  resolve: ResolveHost
}

/**
 * A project's webhook endpoints: add (the signing secret is shown once), list, change, remove,
 * rotate the secret with an overlap, read the delivery log, redeliver, send a test event. Each
 * change is recorded in the audit log in its own transaction, never the secret.
 */
export class WebhooksService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly box: SecretBox | undefined,
    private readonly settings: WebhookSettings,
    /** Where a person's disabling of an endpoint writes its `endpoint.disabled` event, with the change. */
    private readonly outbox: Pick<Outbox, 'write'>,
    /** Told once a delivery is due now (a redelivery, a test event). */
    private readonly onDue: () => void = () => undefined,
    /** How long events and finished deliveries are kept (WEBHOOK_RETENTION_DAYS): recovery and replay reach no further back. */
    private readonly retentionMs: number = RETENTION_MS,
  ) {}

  async list(slug: string): Promise<WebhookResult<{ endpoints: WebhookEndpoint[] }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    return { ok: true, endpoints: (await listEndpoints(this.db, project.project.id)).map(toEndpoint) }
  }

  async get(slug: string, id: string): Promise<WebhookResult<{ endpoint: WebhookEndpoint }>> {
    const found = await this.endpoint(slug, id)
    return found.ok ? { ok: true, endpoint: toEndpoint(found.endpoint) } : found
  }

  async create(slug: string, input: EndpointInput, change: Change): Promise<WebhookResult<{ endpoint: WebhookEndpoint; secret: string }>> {
    const project = await this.project(slug)
    if (!project.ok) return project
    // What was sent is judged first: a bad request is a 400 even where webhooks are not configured.
    const granted = project.project.webhook_private_networks === 1
    const checked = await this.checkResolved(this.checkInput(input, granted), granted)
    if (!checked.ok) return checked
    const box = this.sealer()
    if (!box.ok) return box
    const at = new Date(this.clock.now()).toISOString()
    const id = `ep_${randomBase62(16)}`
    const secret = newSigningSecret()
    const enabled = input.enabled ?? true
    const row = {
      id,
      project_id: project.project.id,
      url: checked.url,
      description: checked.description,
      enabled: enabled ? 1 : 0,
      disabled_reason: null,
      secret: box.box.seal(secret, secretContext(id)),
      previous_secret: null,
      previous_secret_until: null,
      failing_since: null,
      created_at: at,
      updated_at: at,
    }
    const types = [...new Set(input.types)].sort()
    const { plan } = project.project
    const limit = WEBHOOK_ENDPOINT_LIMITS[plan]
    try {
      await this.changed(change, 'webhook.created', { id, project_id: project.project.id }, { url: checked.url, types, enabled }, async (trx) => {
        // Counted in the transaction of the insert, as the other per-project limits are.
        if ((await countEndpoints(trx, project.project.id)) >= limit) refuse('limit_reached', endpointLimitMessage(slug, plan, limit))
        await insertEndpoint(trx, row, types)
      })
    } catch (error) {
      if (error instanceof Refusal) return error.failure as WebhookResult<never>
      throw error
    }
    return { ok: true, endpoint: toEndpoint({ ...row, types }), secret }
  }

  async update(slug: string, id: string, changes: EndpointChanges, change: Change): Promise<WebhookResult<{ endpoint: WebhookEndpoint }>> {
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    const before = found.endpoint
    const granted = found.project.webhook_private_networks === 1
    const input = this.checkInput({ url: changes.url ?? before.url, types: changes.types ?? before.types, description: changes.description ?? undefined }, granted)
    // The host is judged again only when the URL changes: an endpoint kept as it is stays as it was.
    const checked = changes.url === undefined ? input : await this.checkResolved(input, granted)
    if (!checked.ok) return checked
    const at = new Date(this.clock.now()).toISOString()
    const row = {
      url: checked.url,
      description: changes.description === undefined ? before.description : checked.description,
      updated_at: at,
      ...(changes.enabled !== undefined && {
        enabled: changes.enabled ? 1 : 0,
        // Enabling starts afresh; a person's disabling has no reason to show.
        disabled_reason: null,
        ...(changes.enabled && { failing_since: null }),
      }),
    }
    const types = changes.types ? [...new Set(changes.types)].sort() : before.types
    const unchanged =
      row.url === before.url && row.description === before.description && types.join() === before.types.join() && (changes.enabled === undefined || (changes.enabled ? 1 : 0) === before.enabled)
    // The values it has: the endpoint as it is, with no write, audit entry or new subscriptions to read.
    if (unchanged) return { ok: true, endpoint: toEndpoint(before) }
    const details = Object.fromEntries(
      Object.entries({ url: changes.url && checked.url, types: changes.types && types, description: changes.description, enabled: changes.enabled }).filter(([, value]) => value !== undefined),
    )
    await this.changed(change, 'webhook.updated', before, details, async (trx) => {
      await updateEndpoint(trx, id, row)
      if (changes.types) await setSubscriptions(trx, id, types)
      // Written after the disabling: the project's other endpoints that subscribe receive it, never this one.
      if (changes.enabled === false && before.enabled === 1) {
        await this.outbox.write(trx, before.project_id, 'endpoint.disabled', endpointDisabledData({ ...before, ...row }, 'person', PERSON_DISABLED, at))
      }
    })
    const after = await findEndpoint(this.db, before.project_id, id)
    return after ? { ok: true, endpoint: toEndpoint(after) } : { ok: false, error: 'not_found', message: `No webhook endpoint "${id}" in project ${slug}.` }
  }

  async remove(slug: string, id: string, change: Change): Promise<WebhookResult<{ id: string }>> {
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    await this.changed(change, 'webhook.deleted', found.endpoint, { url: found.endpoint.url }, (trx) => deleteEndpoint(trx, id))
    return { ok: true, id }
  }

  /**
   * A new secret, shown this once; the previous one keeps signing too for `overlapHours`. One
   * previous secret at most: during an overlap, a rotation with an overlap is refused (it would
   * stop the previous secret signing before the end it was given), and one without (0 hours,
   * after a leak) leaves the new secret signing alone.
   */
  async rotateSecret(slug: string, id: string, overlapHours: number, change: Change): Promise<WebhookResult<{ endpoint: WebhookEndpoint; secret: string }>> {
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    const box = this.sealer()
    if (!box.ok) return box
    const now = this.clock.now()
    const overlapEnds = found.endpoint.previous_secret ? found.endpoint.previous_secret_until : null
    if (overlapHours > 0 && overlapEnds !== null && Date.parse(overlapEnds) > now) {
      return {
        ok: false,
        error: 'rotation_in_progress',
        message: `The previous secret of webhook endpoint ${id} signs until ${overlapEnds}, the end of the last rotation's overlap: rotate again after that, or now with "overlapHours": 0 to sign with the new secret alone at once (both older secrets stop signing).`,
      }
    }
    const secret = newSigningSecret()
    const until = overlapHours > 0 ? new Date(now + overlapHours * HOUR_MS).toISOString() : null
    const changes = {
      secret: box.box.seal(secret, secretContext(id)),
      previous_secret: until ? found.endpoint.secret : null,
      previous_secret_until: until,
      updated_at: new Date(now).toISOString(),
    }
    await this.changed(change, 'webhook.secret_rotated', found.endpoint, { previousSecretExpiresAt: until }, (trx) => updateEndpoint(trx, id, changes))
    return { ok: true, endpoint: toEndpoint({ ...found.endpoint, ...changes }), secret }
  }

  /**
   * The delivery log of an endpoint, newest first; `nextAfter` is the `before` cursor of the next
   * page. In a project granted the private networks, only an operator (`showsAnswers`) sees the
   * answers' excerpts: an owner must not read an internal service's answers through the log.
   */
  async deliveries(slug: string, id: string, query: DeliveryQuery, showsAnswers = true): Promise<WebhookResult<{ page: Page<WebhookDelivery> }>> {
    // Times are compared as stored (ISO text in UTC): a time given with an offset is converted first.
    const since = isoTime(query.since)
    const until = isoTime(query.until)
    if (since === null || until === null) return { ok: false, error: 'invalid_request', message: `${since === null ? 'since' : 'until'} must be a date and time (ISO 8601, e.g. 2026-11-01T00:00:00Z).` }
    if (since && until && since >= until) return { ok: false, error: 'invalid_request', message: 'since must be before until.' }
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    const { before, state, eventType, webhookId: eventId } = query
    const rows = await listDeliveries(this.db, { endpointId: id, before, state, eventType, eventId, since, until, limit: query.limit + 1 })
    const hidden = !showsAnswers && found.project.webhook_private_networks === 1
    return { ok: true, page: pageOf(rows.map((row) => (hidden ? { ...toDelivery(row), responseExcerpt: null } : toDelivery(row))), query.limit) }
  }

  /** A delivery's attempts, oldest first: what was sent each time and what came back. */
  async attempts(slug: string, id: string, deliveryId: number, showsAnswers = true): Promise<WebhookResult<{ attempts: WebhookAttempt[] }>> {
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    if (!(await findDelivery(this.db, id, deliveryId))) return { ok: false, error: 'not_found', message: `Webhook endpoint ${id} has no delivery ${deliveryId}.` }
    // As in the delivery log: the answers of a granted project's endpoints are an operator's to read.
    const hidden = !showsAnswers && found.project.webhook_private_networks === 1
    return { ok: true, attempts: (await listAttempts(this.db, deliveryId)).map((row) => (hidden ? { ...toAttempt(row), responseExcerpt: null } : toAttempt(row))) }
  }

  /** Sends a delivery's event again, once, now: a new delivery with the same event id. */
  async redeliver(slug: string, id: string, deliveryId: number, change: Change): Promise<WebhookResult<{ delivery: WebhookDelivery }>> {
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    const original = await findDelivery(this.db, id, deliveryId)
    if (!original) return { ok: false, error: 'not_found', message: `Webhook endpoint ${id} has no delivery ${deliveryId}.` }
    const at = new Date(this.clock.now()).toISOString()
    const newId = await this.changed(
      change,
      'webhook.redelivered',
      found.endpoint,
      (inserted: number) => ({ eventId: original.event_id, eventType: original.type, deliveryId: inserted, of: deliveryId }),
      (trx) => insertManualDelivery(trx, { eventId: original.event_id, endpointId: id, projectId: found.endpoint.project_id, at }),
    )
    return this.due(id, newId)
  }

  /** Sends a `webhook.test` event to this endpoint only, once, now, whatever it subscribes to. */
  async sendTest(slug: string, id: string, change: Change): Promise<WebhookResult<{ delivery: WebhookDelivery }>> {
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    const now = this.clock.now()
    const at = new Date(now).toISOString()
    const eventId = newEventId(now)
    const data = { endpointId: id, message: 'A test event sent from Adoption Store: your endpoint receives and verifies events.' }
    const newId = await this.changed(
      change,
      'webhook.test_sent',
      found.endpoint,
      (inserted: number) => ({ eventId, deliveryId: inserted }),
      async (trx) => {
        await insertPlainEvent(trx, { id: eventId, projectId: found.endpoint.project_id, type: TEST_EVENT_TYPE, data: JSON.stringify(data), createdAt: at, dedupeKey: null })
        return insertManualDelivery(trx, { eventId, endpointId: id, projectId: found.endpoint.project_id, at })
      },
    )
    return this.due(id, newId)
  }

  /**
   * Recovery: every event whose delivery to this endpoint failed between `since` and `until` (the
   * time of the delivery) is queued again, as a new delivery with a full schedule of attempts and
   * the same `webhook-id`. Events the endpoint has a pending or succeeded delivery of are left out,
   * so a second recovery queues nothing new. A disabled endpoint is refused: enable it first.
   */
  async recover(slug: string, id: string, range: ResendRange, change: Change): Promise<WebhookResult<{ queued: number }>> {
    return this.resend(slug, id, range, change, 'webhook.recovered', queueFailedAgain)
  }

  /**
   * Replay: the project's events of the types this endpoint subscribes to, from `since` (to
   * `until`), are sent to it, each at most once: an event it has any delivery of already (sent when
   * it happened, or by an earlier replay) is left out. A disabled endpoint is refused.
   */
  async replay(slug: string, id: string, range: ResendRange, change: Change): Promise<WebhookResult<{ queued: number }>> {
    return this.resend(slug, id, range, change, 'webhook.replayed', queueReplay)
  }

  private async resend(
    slug: string,
    id: string,
    range: ResendRange,
    change: Change,
    action: 'webhook.recovered' | 'webhook.replayed',
    queue: typeof queueReplay,
  ): Promise<WebhookResult<{ queued: number }>> {
    const checked = this.range(range)
    if (!checked.ok) return checked
    const found = await this.endpoint(slug, id)
    if (!found.ok) return found
    if (found.endpoint.enabled !== 1) {
      const verb = action === 'webhook.recovered' ? 'recovered' : 'replayed'
      return { ok: false, error: 'endpoint_disabled', message: `Webhook endpoint ${id} is disabled: nothing is sent to it, so no event is ${verb}. Enable it first (PATCH with {"enabled": true}), then ask again.` }
    }
    const { since, until } = checked
    const at = new Date(this.clock.now()).toISOString()
    const ids = await this.changed(change, action, found.endpoint, (made: number[]) => ({ since, until: until ?? null, queued: made.length }), async (trx) => {
      await lockEndpoint(trx, id)
      return queue(trx, { endpointId: id, projectId: found.endpoint.project_id, since, until, at, skippedType: TEST_EVENT_TYPE })
    })
    if (ids.length > 0) this.onDue()
    return { ok: true, queued: ids.length }
  }

  /** A recovery's or replay's range: times, in order, `since` within the retention period. */
  private range(range: ResendRange): { ok: true; since: string; until: string | undefined } | { ok: false; error: 'invalid_request'; message: string } {
    const since = isoTime(range.since)
    const until = isoTime(range.until)
    if (!since || until === null) return { ok: false, error: 'invalid_request', message: `${!since ? 'since' : 'until'} must be a date and time (ISO 8601, e.g. 2026-11-01T00:00:00Z).` }
    if (until && since >= until) return { ok: false, error: 'invalid_request', message: 'since must be before until.' }
    const oldest = new Date(this.clock.now() - this.retentionMs).toISOString()
    if (since < oldest) {
      return { ok: false, error: 'invalid_request', message: `since must be within the last ${Math.round(this.retentionMs / 86_400_000)} days (after ${oldest}): events and deliveries are kept no longer (WEBHOOK_RETENTION_DAYS).` }
    }
    return { ok: true, since, until }
  }

  /** The project's events, newest first, kept for the retention period; `next` names the last one (the `before` cursor of the next page). */
  async events(slug: string, query: EventQuery): Promise<WebhookResult<{ events: WebhookEvent[]; next: string | undefined }>> {
    const since = isoTime(query.since)
    const until = isoTime(query.until)
    if (since === null || until === null) return { ok: false, error: 'invalid_request', message: `${since === null ? 'since' : 'until'} must be a date and time (ISO 8601, e.g. 2026-11-01T00:00:00Z).` }
    if (since && until && since >= until) return { ok: false, error: 'invalid_request', message: 'since must be before until.' }
    const project = await this.project(slug)
    if (!project.ok) return project
    const projectId = project.project.id
    let before: { id: string; createdAt: string } | undefined
    if (query.before !== undefined) {
      const event = await findProjectEvent(this.db, projectId, query.before)
      if (!event) return { ok: false, error: 'invalid_request', message: `before must be the id of an event of project ${slug} (follow the Link header): ${query.before} is not, or is no longer kept.` }
      before = { id: event.id, createdAt: event.created_at }
    }
    const rows = await listEvents(this.db, { projectId, before, type: query.type, since, until, limit: query.limit + 1 })
    const events = rows.slice(0, query.limit).map(toEvent)
    return { ok: true, events, next: rows.length > query.limit ? events[events.length - 1]?.id : undefined }
  }

  /** Runs a change of an endpoint and its audit entry in one transaction; `details` may depend on what the change made. */
  private async changed<T>(
    change: Change,
    action: AuditAction,
    endpoint: Pick<EndpointWithTypes, 'id' | 'project_id'>,
    details: Record<string, unknown> | ((made: T) => Record<string, unknown>),
    work: (trx: Db) => Promise<T>,
  ): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      const made = await work(trx)
      await recordChange(trx, this.clock, change, {
        action,
        target: { type: 'webhook', id: endpoint.id },
        projectId: endpoint.project_id,
        details: typeof details === 'function' ? details(made) : details,
      })
      return made
    })
  }

  private async due(endpointId: string, deliveryId: number): Promise<WebhookResult<{ delivery: WebhookDelivery }>> {
    this.onDue()
    const row = await findDelivery(this.db, endpointId, deliveryId)
    if (!row) return { ok: false, error: 'not_found', message: `Delivery ${deliveryId} is gone (its endpoint was removed).` }
    return { ok: true, delivery: toDelivery(row) }
  }

  private checkInput(input: EndpointInput, granted: boolean): { ok: true; url: string; description: string | null } | { ok: false; error: 'invalid_request'; message: string } {
    const refuse = (message: string) => ({ ok: false as const, error: 'invalid_request' as const, message })
    let url: URL
    try {
      url = new URL(input.url.trim())
    } catch {
      return refuse(`"url" is not a URL: use https://host/path.`)
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return refuse(`"url" must be an https URL, not ${url.protocol}.`)
    if (url.protocol === 'http:' && !(granted && this.settings.allowsPlainHttp)) {
      return refuse('"url" must be an https URL: plain http is accepted only on the private networks the operator allows (WEBHOOK_ALLOWED_NETWORKS) and grants this project.')
    }
    if (url.username || url.password) return refuse('"url" must not carry a user or password: authenticate events by their signature.')
    if (url.hash) return refuse('"url" must not have a #fragment.')
    const refused = literalRefusal(this.policyOf(granted), url.hostname, url.protocol === 'http:')
    if (refused) return refuse(`"url" is refused: ${refused}${this.grantHint(granted)}.`)
    const description = input.description?.trim() || null
    if (description !== null && /\p{Cc}/u.test(description)) return refuse('"description" must not contain control characters.')
    return { ok: true, url: url.toString(), description }
  }

  /** A checked URL whose host name resolves now only to refused addresses is refused too. */
  private async checkResolved<T extends { ok: true; url: string } | { ok: false }>(checked: T, granted: boolean): Promise<T | { ok: false; error: 'invalid_request'; message: string }> {
    if (!checked.ok) return checked
    const url = new URL(checked.url)
    const refused = await nameRefusal(this.policyOf(granted), this.settings.resolve, url.hostname, url.protocol === 'http:')
    return refused ? { ok: false, error: 'invalid_request', message: `"url" is refused: ${refused}${this.grantHint(granted)}.` } : checked
  }

  private policyOf(granted: boolean): AddressPolicy {
    return granted ? this.settings.policy : this.settings.publicPolicy
  }

  /** Where the operator allows private networks, a refused project learns who may let it reach them. */
  private grantHint(granted: boolean): string {
    return !granted && this.settings.allowsPlainHttp ? ' (private networks are reached only by projects an operator grants them to)' : ''
  }

  private sealer(): { ok: true; box: SecretBox } | { ok: false; error: 'service_unavailable'; message: string } {
    if (this.box) return { ok: true, box: this.box }
    return { ok: false, error: 'service_unavailable', message: 'Webhooks are not configured on this service: set WEBHOOK_ENCRYPTION_KEY (32 bytes, e.g. openssl rand -hex 32), which seals signing secrets at rest.' }
  }

  private async project(slug: string): Promise<{ ok: true; project: ProjectRow } | { ok: false; error: 'not_found'; message: string }> {
    const project = await findProjectBySlug(this.db, slug)
    return project ? { ok: true, project } : { ok: false, error: 'not_found', message: `No project with slug "${slug}".` }
  }

  private async endpoint(slug: string, id: string): Promise<{ ok: true; endpoint: EndpointWithTypes; project: ProjectRow } | { ok: false; error: 'not_found'; message: string }> {
    const project = await this.project(slug)
    if (!project.ok) return project
    // Another project's endpoint is answered exactly like one that does not exist.
    const endpoint = await findEndpoint(this.db, project.project.id, id)
    return endpoint ? { ok: true, endpoint, project: project.project } : { ok: false, error: 'not_found', message: `No webhook endpoint "${id}" in project ${slug}.` }
  }
}
