import type { FastifyInstance } from 'fastify'
import { SessionsService } from './accounts/sessions.service.js'
import { SignInThrottle } from './accounts/sign-in-throttle.js'
import { UsersService } from './accounts/users.service.js'
import type { ScryptCost } from './accounts/passwords.js'
import { AuditService } from './audit/audit.service.js'
import { adminRoutes } from './admin/admin.module.js'
import { registerAdminApi } from './admin/admin.scope.js'
import { Authenticator } from './auth/authenticator.js'
import { createGenerations } from './cache/generations.js'
import { ResponseCache } from './cache/response-cache.js'
import { type Clock, systemClock } from './clock.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { DatabaseOutage } from './db/outage.js'
import { createDomains, type DomainsOptions, installDomains } from './domains/domains.module.js'
import { createFastify, type LoggerOption } from './http/fastify.js'
import { installRequestPipeline, runParts } from './http/lifecycle.js'
import { trackMethods } from './http/method-not-allowed.js'
import { Idempotency } from './idempotency/idempotency.service.js'
import { BansService } from './keys/bans.service.js'
import { KeysService } from './keys/keys.service.js'
import { createLimiterBackend } from './limits/backend.js'
import { RateLimiter } from './limits/limits.service.js'
import { registerOpenApi } from './openapi/openapi.js'
import { healthRoutes } from './ops/health.routes.js'
import { installMetrics, Metrics } from './ops/metrics.js'
import { OrdersService } from './orders/orders.service.js'
import { PetsService } from './pets/pets.service.js'
import { ProjectsService } from './projects/projects.service.js'
import { UsageRecorder } from './usage/usage.recorder.js'
import { UsageService } from './usage/usage.service.js'
import { registerPublicApi, SHARED_SCHEMAS } from './v1/v1.scope.js'
import { installDashboard } from './web/dashboard.module.js'
import { createWebhooks, type Webhooks } from './webhooks/webhooks.module.js'
import { indexRoutes } from './web/index.routes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The services of projects and keys (the first start's project and key), and of animals, orders and webhooks: for tests' fixtures. */
    services: { projects: ProjectsService; keys: KeysService; pets: PetsService; orders: OrdersService; webhooks: Webhooks; accounts: UsersService }
  }
}

export interface AppOptions {
  config: Config
  /** An open, migrated database; the app closes it when it closes. */
  database: DatabaseHandle
  clock?: Clock
  /** Pino options or an instance; defaults to JSON logs at `config.logLevel`. */
  logger?: LoggerOption
  /** Custom domains' back ends (DNS, certificate authority); default: from configuration. */
  domains?: DomainsOptions
  /** What a new password hash costs; default: scrypt at OWASP's minimum (PASSWORD_COST). */
  passwordCost?: ScryptCost
}

/**
 * Builds the service: the one composition root. Each feature is built once, here, and handed to
 * its routes. It never listens; `server.ts` does, and tests call `inject` on what this returns.
 */
export async function buildApp({ config, database, clock = systemClock, logger, domains: domainsOptions, passwordCost }: AppOptions): Promise<FastifyInstance> {
  const app = createFastify(config, logger)
  const { db } = database
  const log = app.log
  const environment = config.environment

  // Shared state and its caches.
  const outage = new DatabaseOutage(() => database.ping(), log)
  const metrics = new Metrics()
  // Back from a Redis outage: Redis may have missed bumps meanwhile, so nothing cached is trusted.
  const backend = await createLimiterBackend(config, clock, log, metrics.limiterEvents(() => forgetCaches()))
  const generations = await createGenerations(database, backend, log)
  const authenticator = new Authenticator(db, clock, environment, generations)
  const cache = new ResponseCache(generations, config.responseCacheBytes, metrics.responseCacheCounters)
  const forgetCaches = () => [generations, authenticator, cache].forEach((part) => part.forget())

  // The features.
  // Revocations, plan changes and webhook endpoint changes reach every instance's caches before the answer.
  const authChanged = () => generations.authChanged()
  // Events are written by the services that make the changes, in their transactions.
  const webhooks = createWebhooks(config, database, clock, log, outage, generations, authChanged, metrics.webhookObserver)
  const { outbox } = webhooks
  metrics.watchWebhookQueue(() => webhooks.worker.queueAgeSeconds())
  const usage = new UsageRecorder(db, clock, log)
  const onBan = (level: number, projectId: number) => {
    metrics.bans.inc({ level })
    usage.ban(projectId)
  }
  // The limiter decides bans; the keys' bans service keeps them and lifts them in its store.
  const bans = new BansService({ db, clock, outbox, store: backend.store })
  const limiter = new RateLimiter({
    backend,
    events: { onBan },
    bans,
    quotaReached: ({ projectId, type, data, dedupeKey }) => outbox.writeAlone(projectId, type, data, dedupeKey),
    readsGenerations: generations.kind === 'shared',
    log,
  })
  const idempotency = new Idempotency(db, clock, log)
  const throttle = new SignInThrottle(db, clock)
  const users = new UsersService({ db, clock, throttle, passwordCost })
  const sessions = new SessionsService({ db, clock, throttle, passwordCost })
  const pets = new PetsService(db, clock, idempotency, generations, outbox)
  const orders = new OrdersService(db, clock, idempotency, generations, outbox)
  const projects = new ProjectsService(db, clock, authChanged)
  const keys = new KeysService(db, clock, environment, authChanged, outbox, outage)
  app.decorate('services', { projects, keys, pets, orders, webhooks, accounts: users })
  const usageService = new UsageService(db, clock, usage)
  const audit = new AuditService(db)
  const domains = await createDomains(config, db, clock, log, outage, outbox, domainsOptions)
  // Started when the app is ready, closed in this order: the last usage counts and the attempts in
  // flight before the database.
  runParts(app, [idempotency, outage, usage, keys, webhooks.worker, generations, limiter, database])

  // The routes: every request's pipeline first, then host routing, then each API.
  await installRequestPipeline(app, config, outage)
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema)
  const finishMethods = trackMethods(app)
  installMetrics(app, metrics)
  await registerOpenApi(app, config)
  await installDomains(app, domains, config)
  await registerAdminApi(
    app,
    { adminToken: config.adminToken, sessions, findProject: (slug) => projects.find(slug), hostRouting: domains.router.enabled },
    adminRoutes({ config, projects, keys, bans, usage: usageService, domains, audit, users, pets, orders, webhooks: webhooks.service }),
  )
  await app.register(healthRoutes, { database, outage, limiter })
  await installDashboard(app)
  await app.register(indexRoutes)
  await registerPublicApi(app, { environment, clock, authenticator, generations, router: domains.router, limiter, metrics, usage, cache, pets, orders })
  finishMethods()

  return app
}
