import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { ApiError } from '../errors.js'
import type { RedisSettings } from '../redis/redis.js'
import { SecretBox } from '../secret-box.js'
import type { Outbox } from '../webhooks/outbox.js'
import { AcmeAuthority, type AcmeSettings, type CertificateAuthority } from './acme.js'
import { CertificatesService } from './certificates.service.js'
import { NodeDnsLookup, type DnsLookup } from './dns.js'
import { normalizeHost } from './domain-name.js'
import { domainsRoutes } from './domains.routes.js'
import { type DomainSettingsConfig, DomainsService } from './domains.service.js'
import { ACME_CHALLENGE_PREFIX, HostRouter, type HostRoutingSettings, installHostRouting } from './host-routing.hook.js'
import { CertificateStore, closeHttps } from './https.listener.js'
import { createRoutingChanges, DatabaseRoutingChanges, type RoutingChanges } from './routing-changes.js'
import { DomainWorker } from './worker.js'

/** Custom domains, wired: what the app, the HTTPS listener and tests reach. */
export interface Domains {
  service: DomainsService
  /** Obtains and renews certificates, and answers their HTTP-01 challenges. */
  issuer: CertificatesService
  router: HostRouter
  certificates: CertificateStore
  worker: DomainWorker
  changes: RoutingChanges
  /** `/projects/:slug/domains` of the admin API. */
  routes: FastifyPluginAsyncTypebox
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Custom domains: host routing, the certificate store of the HTTPS listener, the background worker. */
    domains: Domains
  }
}

/** The back ends of custom domains, chosen from configuration unless given (tests give their own). */
export interface DomainsOptions {
  /** The DNS the checks ask; default: `node:dns` to DNS_RESOLVERS. */
  dns?: DnsLookup
  /** The certificate authority; default: ACME at ACME_DIRECTORY_URL when CERTIFICATE_ENCRYPTION_KEY is set. */
  authority?: CertificateAuthority
  /**
   * How routing changes travel; default: a Redis subscription when PLATFORM_DOMAIN and REDIS_URL
   * are set, else the database. A process that serves no requests (a command) gives its own.
   */
  changes?: RoutingChanges
}

export interface DomainsDeps extends DomainsOptions {
  config: DomainSettingsConfig &
    HostRoutingSettings &
    AcmeSettings &
    RedisSettings &
    Pick<Config, 'dnsResolvers' | 'certificateEncryptionKey' | 'acmeCaaDomains' | 'domainWorkerIntervalMs'>
  db: Db
  clock: Clock
  log: FastifyBaseLogger
  /** Where the background passes' failures go. */
  failures: FailureLog
  /** Domain events are written in the changes' transactions. */
  outbox: Outbox
}

/** Builds the feature from configuration: the one place its back ends (DNS, CA, change feed) are chosen. */
export async function createDomains({ config, db, clock, log, failures, outbox, ...options }: DomainsDeps): Promise<Domains> {
  const dns = options.dns ?? new NodeDnsLookup(config.dnsResolvers)
  // Without PLATFORM_DOMAIN nothing is routed by host: no subscription is worth its connections.
  const changes = options.changes ?? (config.platformDomain ? await createRoutingChanges(db, config, log) : new DatabaseRoutingChanges(db))
  const box = config.certificateEncryptionKey ? new SecretBox(config.certificateEncryptionKey) : undefined
  const authority = options.authority ?? (box ? new AcmeAuthority(db, box, clock, config) : undefined)
  const announce = (generation: number) => changes.announce(generation)
  const service = new DomainsService(db, clock, config, dns, announce, outbox)
  const issuer = new CertificatesService(db, clock, dns, authority, box, config.acmeCaaDomains, announce, outbox)
  const worker = new DomainWorker(db, clock, service, issuer, failures, config.domainWorkerIntervalMs)
  return {
    service,
    issuer,
    router: new HostRouter(db, config, changes),
    certificates: new CertificateStore(db, box, changes),
    worker,
    changes,
    routes: (app) => domainsRoutes(app, { domains: service, onVerified: () => worker.kick() }),
  }
}

/**
 * Installs custom domains on the app, before its other routes: host routing of every request,
 * the ACME HTTP-01 challenge route, and the background worker while the app runs (started when
 * the app is ready, with PLATFORM_DOMAIN only; stopped before it closes, with the HTTPS listener).
 * Their admin routes (`routes`) are registered with the rest of the admin API (admin.scope.ts).
 */
export async function installDomains(app: FastifyInstance, domains: Domains, config: Pick<Config, 'platformDomain'>): Promise<void> {
  app.decorate('domains', domains)
  installHostRouting(app, domains.router)

  app.get(
    `${ACME_CHALLENGE_PREFIX}:token`,
    { schema: { hide: true, params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 255 }) }) } },
    async (request, reply) => {
      const { token } = request.params as { token: string }
      // Only the answer for this very host: a token never answers on another project's domain.
      const answer = await domains.issuer.challengeAnswer(token, normalizeHost(request.host))
      if (answer === undefined) throw new ApiError('not_found', 'No ACME challenge with this token for this host.')
      return reply.type('text/plain; charset=utf-8').send(answer)
    },
  )

  if (config.platformDomain) app.addHook('onReady', async () => domains.worker.start())
  app.addHook('preClose', async () => {
    await Promise.all([domains.worker.stop(), closeHttps(app)])
  })
  app.addHook('onClose', async () => {
    await domains.changes.close()
  })
}

