import type { FastifyInstance } from 'fastify'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { StorageObserver } from '../db/storage-full.js'
import type { FailoverEvents } from '../limits/failover.store.js'

/**
 * The process's own metrics (CPU, memory, garbage collection, event loop), collected once per
 * process however many apps it builds: they describe the process, not an app, and prom-client's
 * collectors cannot be stopped (the garbage-collection observer stays connected), so a collector
 * per app kept every app built in the process alive.
 */
let processRegistry: Registry | undefined
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry, prefix: 'adoption_store_' })
  }
  return processRegistry
}

/** The service's Prometheus metrics: the app's in a registry of its own, served with the process's. */
export class Metrics {
  /** The app's own metrics. */
  private readonly own = new Registry()

  /** What /metrics serves: the process's metrics and the app's. */
  readonly registry: Registry

  readonly requests = counter(this.own, 'adoption_store_http_requests_total', 'HTTP requests answered, by route and status', ['method', 'route', 'status'])

  readonly latency = new Histogram({
    name: 'adoption_store_http_request_duration_seconds',
    help: 'Time from the request to its response, by route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.own],
  })

  readonly refused = counter(this.own, 'adoption_store_rate_limit_refusals_total', 'Requests answered 429, by reason (rate_limited, api_key_banned) and subject (project, address)', ['reason', 'subject'])

  readonly bans = counter(this.own, 'adoption_store_api_key_bans_total', 'Temporary bans of API keys started, by escalation level', ['level'])

  readonly limiterErrors = counter(this.own, 'adoption_store_limiter_store_errors_total', 'Commands to the shared limiter store (Redis) that failed or timed out')

  readonly limiterFallbacks = counter(this.own, 'adoption_store_limiter_fallbacks_total', 'Times rate limiting fell back to the in-process store because Redis was unavailable')

  readonly limiterDegraded = new Gauge({
    name: 'adoption_store_limiter_degraded',
    help: '1 while rate limits are kept per instance because Redis is unavailable',
    registers: [this.own],
  })

  readonly storageFull = new Gauge({
    name: 'adoption_store_storage_full',
    help: "1 while a storage has no room and writes to it answer 503, by storage (database: the database's disk; files: the file system of photos and other files)",
    labelNames: ['storage'] as const,
    registers: [this.own],
  })

  readonly storageRefusals = counter(this.own, 'adoption_store_storage_full_refusals_total', 'Writes refused because their storage is full (requests answered 503, and background work), by storage', ['storage'])

  /** Counts what the storage-full watch (db/storage-full.ts) sees. */
  readonly storageObserver: StorageObserver = {
    full: (storage, full) => this.storageFull.set({ storage }, full ? 1 : 0),
    refused: (storage) => this.storageRefusals.inc({ storage }),
  }

  readonly responseCache = counter(this.own, 'adoption_store_response_cache_total', 'Reads of /v1 animals and orders and pages of the adoption sites answered from the response cache (hit) or the database (miss)', ['result'])

  readonly webhookAttempts = counter(this.own, 'adoption_store_webhook_attempts_total', 'Webhook delivery attempts, by outcome: succeeded, retrying (failed, retried later) or failed (no attempt left)', ['outcome'])

  readonly webhookLatency = new Histogram({
    name: 'adoption_store_webhook_attempt_duration_seconds',
    help: 'Time a webhook attempt took, from connecting to the end of the answer (or the failure)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.own],
  })

  /** Set by `watchWebhookQueue`: how long the oldest due delivery has waited. */
  private webhookQueueAge: () => Promise<number> = async () => 0

  readonly webhookQueueAgeGauge = new Gauge({
    name: 'adoption_store_webhook_queue_age_seconds',
    help: 'How long the oldest due webhook delivery has been waiting (0 when none is due)',
    registers: [this.own],
    collect: async () => {
      const seconds = await this.webhookQueueAge().catch(() => undefined)
      if (seconds !== undefined) this.webhookQueueAgeGauge.set(seconds)
    },
  })

  readonly webhookUnopenableSecrets = new Gauge({
    name: 'adoption_store_webhook_unopenable_secrets',
    help: 'Webhook endpoints whose signing secret the configured keys (WEBHOOK_ENCRYPTION_KEY, WEBHOOK_PREVIOUS_ENCRYPTION_KEYS) do not open, found at start: their deliveries fail',
    registers: [this.own],
  })

  /** Counts each webhook attempt and its time, and the endpoints whose secrets do not open. */
  readonly webhookObserver = {
    attempted: (outcome: 'succeeded' | 'retrying' | 'failed', latencyMs: number) => {
      this.webhookAttempts.inc({ outcome })
      this.webhookLatency.observe(latencyMs / 1000)
    },
    unopenableSecrets: (count: number) => this.webhookUnopenableSecrets.set(count),
  }

  /** Where the queue's age is read at each scrape. */
  watchWebhookQueue(age: () => Promise<number>): void {
    this.webhookQueueAge = age
  }

  /** Children bound once: the cache counts on every read. */
  readonly responseCacheCounters = { hit: bound(this.responseCache.labels('hit')), miss: bound(this.responseCache.labels('miss')) }

  constructor() {
    this.registry = Registry.merge([processMetrics(), this.own])
  }

  /** Counts the shared limiter store's failures and fallbacks; `onRecovered` runs when Redis is back. */
  limiterEvents(onRecovered: () => void): FailoverEvents {
    return {
      onError: () => this.limiterErrors.inc(),
      onFallback: (active) => {
        this.limiterDegraded.set(active ? 1 : 0)
        if (active) this.limiterFallbacks.inc()
        else onRecovered()
      },
    }
  }
}

/** A counter kept in `registry`. */
function counter<T extends string>(registry: Registry, name: string, help: string, labelNames: readonly T[] = []): Counter<T> {
  return new Counter({ name, help, labelNames, registers: [registry] })
}

function bound(counter: { inc(): void }): () => void {
  return () => counter.inc()
}

/** Counts an answer given before routing (see EarlyAnswer, src/http/fastify.ts) as the hook below counts the others. */
export function earlyAnswerCounter(metrics: Metrics, route: string): (seconds: number) => void {
  const requests = metrics.requests.labels({ method: 'GET', route, status: 200 })
  const latency = metrics.latency.labels({ method: 'GET', route })
  return (seconds) => {
    requests.inc()
    latency.observe(seconds)
  }
}

/** Records every response, and serves the registry at /metrics (outside /v1: not rate limited). */
export function installMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched'
    metrics.requests.inc({ method: request.method, route, status: reply.statusCode })
    metrics.latency.observe({ method: request.method, route }, reply.elapsedTime / 1000)
    done()
  })
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType)
    return metrics.registry.metrics()
  })
}
