import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { ApiError } from '../errors.js'
import { AcmeAuthority, type CertificateAuthority } from './acme.js'
import { CertificatesService } from './certificates.service.js'
import { NodeDnsLookup, type DnsLookup } from './dns.js'
import { normalizeHost } from './domain-name.js'
import { DomainsService } from './domains.service.js'
import { ACME_CHALLENGE_PREFIX, HostRouter, installHostRouting } from './host-routing.hook.js'
import { CertificateStore, closeHttps } from './https.listener.js'
import { createRoutingChanges, DatabaseRoutingChanges, type RoutingChanges } from './routing-changes.js'
import { SecretBox } from '../secret-box.js'
import type { Outbox } from '../webhooks/outbox.js'
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
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Custom domains: host routing, the certificate store of the HTTPS listener, the background worker. */
    domains: Domains
  }
}

export interface DomainsOptions {
  /** The DNS the checks ask; default: `node:dns` to DNS_RESOLVERS. */
  dns?: DnsLookup
  /** The certificate authority; default: ACME at ACME_DIRECTORY_URL when CERTIFICATE_ENCRYPTION_KEY is set. */
  authority?: CertificateAuthority
}

/** Builds the feature from configuration: the one place its back ends (DNS, CA, change feed) are chosen. */
export async function createDomains(
  config: Config,
  db: Db,
  clock: Clock,
  log: FastifyBaseLogger,
  failures: FailureLog,
  outbox: Outbox,
  options: DomainsOptions = {},
): Promise<Domains> {
  const dns = options.dns ?? new NodeDnsLookup(config.dnsResolvers)
  // Without PLATFORM_DOMAIN nothing is routed by host: no subscription is worth its connections.
  const changes = config.platformDomain ? await createRoutingChanges(db, config, log) : new DatabaseRoutingChanges(db)
  const box = config.certificateEncryptionKey ? new SecretBox(config.certificateEncryptionKey) : undefined
  const authority = options.authority ?? (box ? new AcmeAuthority(db, box, clock, config) : undefined)
  const announce = (generation: number) => changes.announce(generation)
  const service = new DomainsService(db, clock, config, dns, announce, outbox)
  const issuer = new CertificatesService(db, clock, dns, authority, box, config.acmeCaaDomains, announce, outbox)
  return {
    service,
    issuer,
    router: new HostRouter(db, config, changes),
    certificates: new CertificateStore(db, box, changes),
    worker: new DomainWorker(db, clock, service, issuer, failures, config.domainWorkerIntervalMs),
    changes,
  }
}

/**
 * Installs custom domains on the app, before its other routes: host routing of every request,
 * the ACME HTTP-01 challenge route, and the background worker while the app runs. Their admin
 * routes (domains.routes.ts) are registered with the rest of the admin API (admin.module.ts).
 */
export async function installDomains(app: FastifyInstance, domains: Domains, config: Config): Promise<void> {
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

