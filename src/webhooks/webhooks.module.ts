import type { FastifyBaseLogger } from 'fastify'
import type { AuthChangeListener, Generations } from '../cache/generations.js'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { DatabaseHandle } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { SecretBox } from '../secret-box.js'
import { AddressPolicy } from './address-guard.js'
import { Outbox } from './outbox.js'
import { WebhookSender } from './sender.js'
import { WebhooksService } from './webhooks.service.js'
import { type DeliveryObserver, WebhookWorker } from './worker.js'

/** Webhooks, wired: the outbox the changing services write to, the endpoints' service, the delivery worker. */
export interface Webhooks {
  outbox: Outbox
  service: WebhooksService
  worker: WebhookWorker
}

/** The key that seals signing secrets: its own, else the certificates' one (each secret is sealed under its own context). */
export function webhookSecretBox(config: Config): SecretBox | undefined {
  const key = config.webhookEncryptionKey ?? config.certificateEncryptionKey
  return key ? new SecretBox(key) : undefined
}

export function webhookSettings(config: Config) {
  return { allowsPlainHttp: config.webhookAllowedNetworks.length > 0, policy: new AddressPolicy(config.webhookAllowedNetworks) }
}

/** Builds the feature from configuration, once, in the composition root. */
export function createWebhooks(
  config: Config,
  database: DatabaseHandle,
  clock: Clock,
  log: FastifyBaseLogger,
  failures: FailureLog,
  generations: Generations,
  authChanged: AuthChangeListener,
  observer: DeliveryObserver,
): Webhooks {
  const box = webhookSecretBox(config)
  const settings = webhookSettings(config)
  const sender = new WebhookSender({ policy: settings.policy, dnsServers: config.dnsResolvers, timeoutMs: config.webhookTimeoutMs })
  const worker = new WebhookWorker(database.db, database.dialect, clock, box, sender, log, failures, observer, { intervalMs: config.webhookWorkerIntervalMs, timeoutMs: config.webhookTimeoutMs })
  // New events go out at once on the instance that wrote them; the timer finds the rest.
  const soon = () => setTimeout(() => worker.kick(), 10).unref()
  const outbox = new Outbox(database.db, clock, generations, soon)
  const service = new WebhooksService(database.db, clock, box, settings, authChanged, soon)
  return { outbox, service, worker }
}
