import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { DatabaseHandle, Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { SecretBox } from '../secret-box.js'
import { AddressPolicy, hostResolver } from './address-guard.js'
import { Outbox } from './outbox.js'
import { createSealedSecrets, type SealedSecrets } from './sealed-secrets.js'
import { WebhookSender } from './sender.js'
import { webhooksRoutes } from './webhooks.routes.js'
import { WebhooksService } from './webhooks.service.js'
import { type DeliveryObserver, WebhookWorker } from './worker.js'

export interface WebhooksDeps {
  config: Pick<Config, 'webhookEncryptionKey' | 'webhookPreviousEncryptionKeys' | 'certificateEncryptionKey' | 'webhookAllowedNetworks' | 'dnsResolvers' | 'webhookTimeoutMs' | 'webhookWorkerIntervalMs' | 'webhookRetentionDays'>
  db: Db
  dialect: DatabaseHandle['dialect']
  clock: Clock
  log: FastifyBaseLogger
  /** Where the delivery passes' failures go. */
  failures: FailureLog
  /** Told of each delivery attempt's outcome (the metrics). */
  observer?: DeliveryObserver | undefined
}

/** Webhooks, wired: the outbox the changing services write to, the endpoints' service, the delivery worker, the admin routes. */
export interface Webhooks {
  outbox: Outbox
  service: WebhooksService
  worker: WebhookWorker
  /** The signing secrets at rest against the configured keys (absent without a key): checked at start, re-sealed by the CLI. */
  sealedSecrets: SealedSecrets | undefined
  /** `/projects/:slug/webhooks` of the admin API. */
  routes: FastifyPluginAsyncTypebox
}

const DAY_MS = 86_400_000

const NO_OBSERVER: DeliveryObserver = { attempted: () => undefined }

export function createWebhooks({ config, db, dialect, clock, log, failures, observer = NO_OBSERVER }: WebhooksDeps): Webhooks {
  // Signing secrets are sealed under their own key, else the certificates' one (each under its own
  // context); the keys they were sealed with before still open them.
  const key = config.webhookEncryptionKey ?? config.certificateEncryptionKey
  const box = key ? new SecretBox(key, config.webhookPreviousEncryptionKeys) : undefined
  // The allowed networks are reached only by the projects an operator grants them to: the others
  // are judged as if none were allowed, when an endpoint is added and at every attempt.
  const settings = {
    allowsPlainHttp: config.webhookAllowedNetworks.length > 0,
    policy: new AddressPolicy(config.webhookAllowedNetworks),
    publicPolicy: new AddressPolicy([]),
    resolve: hostResolver(config.dnsResolvers),
  }
  const senderOf = (policy: AddressPolicy) => new WebhookSender({ policy, dnsServers: config.dnsResolvers, timeoutMs: config.webhookTimeoutMs })
  const sender = { granted: senderOf(settings.policy), public: senderOf(settings.publicPolicy) }
  const sealedSecrets = box ? createSealedSecrets({ db, box }) : undefined
  const beforeStart = sealedSecrets && (() => warnOfUnopenableSecrets(sealedSecrets, log, observer))
  const retentionMs = config.webhookRetentionDays * DAY_MS
  // New events go out at once on the instance that wrote them; the timer finds the rest.
  const soon = () => setTimeout(() => worker.kick(), 10).unref()
  const outbox = new Outbox(db, clock, soon)
  const worker = new WebhookWorker(db, dialect, clock, box, sender, log, failures, observer, outbox, { intervalMs: config.webhookWorkerIntervalMs, timeoutMs: config.webhookTimeoutMs, beforeStart, retentionMs })
  const service = new WebhooksService(db, clock, box, settings, outbox, soon, retentionMs)
  return { outbox, service, worker, sealedSecrets, routes: (app) => webhooksRoutes(app, { webhooks: service }) }
}

/**
 * Secrets this service's keys cannot open would fail every delivery of their endpoints: said once,
 * at start, with what to do, rather than only in each delivery's error. Starting goes on.
 */
async function warnOfUnopenableSecrets(sealedSecrets: SealedSecrets, log: FastifyBaseLogger, observer: DeliveryObserver): Promise<void> {
  const { endpoints, unopenable } = await sealedSecrets.check()
  observer.unopenableSecrets?.(unopenable.length)
  if (unopenable.length === 0) return
  const listed = unopenable.map(({ projectId, endpointId }) => `${endpointId} (project ${projectId})`).join(', ')
  log.warn(
    { unopenable, endpoints },
    `webhooks: ${unopenable.length} of ${endpoints} endpoints have a signing secret sealed with a key this service does not have, so their deliveries fail: ${listed}. ` +
      'Add the key they were sealed with to WEBHOOK_PREVIOUS_ENCRYPTION_KEYS and restart (then run "adoption-store webhooks reseal"), or rotate their secrets with no overlap.',
  )
}
