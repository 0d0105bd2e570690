import type Https from 'node:https'
import type Tls from 'node:tls'
import type { FastifyInstance } from 'fastify'
import type { Db } from '../db/database.js'
import { answerClientError } from '../http/client-errors.js'
import { applyConnectionLimits, connectionLimitsOf } from '../http/connection-limits.js'
import { certificateContext } from './certificates.service.js'
import { normalizeHost } from './domain-name.js'
import { findServedCertificate } from './domains.repository.js'
import type { RoutingChanges } from './routing-changes.js'
import type { SecretBox } from '../secret-box.js'
import { lazy } from '../lazy.js'

// Loaded when a certificate is served: the commands build the domains feature but serve nothing.
const https = lazy<typeof Https>('node:https')
const tls = lazy<typeof Tls>('node:tls')

/** Most TLS contexts cached per instance; the cache starts over when full. */
const MAX_CACHED_CONTEXTS = 5_000

/**
 * The certificates this instance presents, by SNI name: only an issued certificate of a verified
 * domain, for exactly that name, so no project's certificate is ever shown for another's host.
 * Cached per instance and dropped when the routing generation changes (issuance, renewal, removal).
 */
export class CertificateStore {
  private readonly cache = new Map<string, Tls.SecureContext | null>()
  private cachedGeneration: number | undefined

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox | undefined,
    private readonly changes: RoutingChanges,
  ) {}

  async contextFor(servername: string): Promise<Tls.SecureContext | undefined> {
    if (!this.box) return undefined
    const name = normalizeHost(servername)
    const generation = await this.changes.generation()
    if (generation !== this.cachedGeneration || this.cache.size >= MAX_CACHED_CONTEXTS) {
      this.cache.clear()
      this.cachedGeneration = generation
    }
    const cached = this.cache.get(name)
    if (cached !== undefined) return cached ?? undefined
    const row = await findServedCertificate(this.db, name)
    const context = row
      ? tls().createSecureContext({ cert: row.certificate_pem, key: this.box.open(row.private_key, certificateContext(row.domain_id, row.name)) })
      : null
    this.cache.set(name, context)
    return context ?? undefined
  }
}

export interface HttpsListenOptions {
  port: number
  host: string
}

/** HTTPS servers listening for an app; closed when the app closes (see installDomains). */
export const httpsServers = new WeakMap<FastifyInstance, Set<Https.Server>>()

/**
 * Serves the app over HTTPS too, for custom domains: the certificate is picked by SNI; a name
 * without a certificate (or no SNI at all) fails the handshake. Requests go through the very same
 * routes and hooks as on the HTTP port. The listener closes with the app.
 */
export async function listenHttps(app: FastifyInstance, options: HttpsListenOptions): Promise<Https.Server> {
  const store = app.domains.certificates
  const server = https().createServer({
    SNICallback: (servername, callback) => {
      store.contextFor(servername).then(
        (context) => (context ? callback(null, context) : callback(new Error(`no certificate for ${servername}`))),
        (error: unknown) => {
          app.log.warn({ err: error, servername }, 'https: could not load a certificate')
          callback(error as Error)
        },
      )
    },
  })
  applyConnectionLimits(server, connectionLimitsOf(app.server))
  server.on('request', (request, response) => app.routing(request, response))
  // Too slow, too large or not HTTP: answered in the error envelope, as on the HTTP port.
  server.on('clientError', answerClientError)
  // A failed handshake (no certificate for the name) is the client's business, not a log line.
  server.on('tlsClientError', () => undefined)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const servers = httpsServers.get(app) ?? new Set()
  servers.add(server)
  httpsServers.set(app, servers)
  return server
}

/** Stops accepting HTTPS connections and ends idle ones; requests in flight finish. */
export async function closeHttps(app: FastifyInstance): Promise<void> {
  const servers = [...(httpsServers.get(app) ?? [])]
  httpsServers.delete(app)
  await Promise.all(
    servers.map(
      (server) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve())
          server.closeIdleConnections()
        }),
    ),
  )
}
