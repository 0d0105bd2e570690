import type { FastifyInstance } from 'fastify'
import { createAccounts } from './accounts/accounts.module.js'
import type { ScryptCost } from './accounts/passwords.js'
import type { UsersService } from './accounts/users.service.js'
import { registerAdminApi } from './admin/admin.scope.js'
import { createAudit } from './audit/audit.module.js'
import { createAuth } from './auth/auth.module.js'
import { createCache } from './cache/cache.module.js'
import { type Clock, systemClock } from './clock.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { createDomains, type DomainsOptions, installDomains } from './domains/domains.module.js'
import { bumpGeneration } from './domains/domains.repository.js'
import { createFastify, type EarlyAnswers, type LoggerOption } from './http/fastify.js'
import { installRequestPipeline, runParts } from './http/lifecycle.js'
import { trackMethods } from './http/method-not-allowed.js'
import { named } from './http/plugin-name.js'
import { createIdempotency } from './idempotency/idempotency.module.js'
import { createKeys } from './keys/keys.module.js'
import type { KeysService } from './keys/keys.service.js'
import { createLimits } from './limits/limits.module.js'
import { registerOpenApi } from './openapi/openapi.js'
import { earlyAnswerCounter, installMetrics } from './ops/metrics.js'
import { createOps } from './ops/ops.module.js'
import { createOrders } from './orders/orders.module.js'
import type { OrdersService } from './orders/orders.service.js'
import { createCategories } from './categories/categories.module.js'
import { createLocations } from './locations/locations.module.js'
import type { LocationsService } from './locations/locations.service.js'
import { createPets } from './pets/pets.module.js'
import { MEDIA_ROUTE } from './photos/media.routes.js'
import { createPhotos } from './photos/photos.module.js'
import type { PhotosService } from './photos/photos.service.js'
import { createSite } from './site/site.module.js'
import { createObjectStore } from './storage/backend.js'
import type { PetsService } from './pets/pets.service.js'
import { createProjects } from './projects/projects.module.js'
import type { ProjectsService } from './projects/projects.service.js'
import { createUsage } from './usage/usage.module.js'
import { registerPublicApi, SHARED_SCHEMAS } from './v1/v1.scope.js'
import { installDashboard } from './web/dashboard.scope.js'
import { indexRoutes } from './web/index.routes.js'
import { createWebhooks, type Webhooks } from './webhooks/webhooks.module.js'
import { webhooksDocument } from './webhooks/webhooks.schemas.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The services of projects and keys (the first start's project and key), of animals, orders and webhooks, and of the dashboard's users: for tests' fixtures. */
    services: { projects: ProjectsService; keys: KeysService; pets: PetsService; photos: PhotosService; locations: LocationsService; orders: OrdersService; webhooks: Webhooks; accounts: UsersService }
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
 * Builds the service: the one composition root. Each feature is built once, here, by its factory
 * (`createXxx` of its `*.module.ts`, which the CLI's commands call too), and its routes are
 * registered in their scopes. It never listens; `server.ts` does, and tests call `inject` on what
 * this returns.
 */
export async function buildApp({ config, database, clock = systemClock, logger, domains: domainsOptions, passwordCost }: AppOptions): Promise<FastifyInstance> {
  const early: EarlyAnswers = {}
  const app = createFastify(config, logger, early)
  const { db, dialect } = database
  const log = app.log

  // Shared state and its caches.
  const ops = createOps({ database, log, dataDir: config.dataDir, limiter: { status: () => limits.limiter.status() } })
  const { metrics, outage, storage } = ops
  const usage = createUsage({ db, clock, log, failures: outage })
  const limits = await createLimits({
    config,
    clock,
    log,
    // Back from a Redis outage: Redis may have missed bumps meanwhile, so nothing cached is trusted.
    failover: metrics.limiterEvents(() => forgetCaches()),
    events: {
      onBan: (level, projectId) => {
        metrics.bans.inc({ level })
        usage.recorder.ban(projectId)
      },
    },
    // The limiter decides; the keys' bans service keeps the bans it starts, the outbox sends the quota notices.
    bans: { started: (ban) => keys.bans.started(ban), running: () => keys.bans.running(), until: (keyId) => keys.bans.until(keyId) },
    quotaReached: ({ projectId, type, data, dedupeKey }) => outbox.writeAlone(projectId, type, data, dedupeKey),
    readsGenerations: () => generations.kind === 'shared',
  })
  const cache = await createCache({ config, database, limiter: limits.backend, log, counters: metrics.responseCacheCounters })
  const { generations } = cache
  const forgetCaches = () => [generations, authenticator, cache.responses].forEach((part) => part.forget())

  // The features.
  // Revocations and plan changes reach every instance's caches before the answer.
  const authChanged = () => generations.authChanged()
  // Events are written by the services that make the changes, in their transactions.
  const webhooks = createWebhooks({ config, db, dialect, clock, log, failures: outage, observer: metrics.webhookObserver })
  const { outbox } = webhooks
  metrics.watchWebhookQueue(() => webhooks.worker.queueAgeSeconds())
  const { service: idempotency } = createIdempotency({ db, clock, log })
  const accounts = createAccounts({ db, clock, config, passwordCost, outbox })
  const locations = createLocations({ db, clock, generations, cache: cache.responses })
  const categories = createCategories({ db, clock, generations, cache: cache.responses })
  // Photos are kept in the object store configuration chooses (files, or an S3-compatible bucket).
  const store = createObjectStore(config)
  const photos = createPhotos({ db, clock, store, config, generations, outbox, log, changeCounter: database.changeCounter })
  const pets = createPets({ db, dialect, clock, idempotency, generations, outbox, locations: locations.service, photos: photos.service, cache: cache.responses })
  const orders = createOrders({ db, clock, idempotency, generations, outbox, cache: cache.responses })
  // A deleted project's hosts stop being routed on every instance (the domains' change feed, built below).
  const removal = { dialect, store, log, dataChanged: (id: number) => generations.dataChanged(id), bumpRouting: bumpGeneration, routingChanged: (generation: number) => domains.changes.announce(generation) }
  const projects = createProjects({ db, clock, config, authChanged, removal, outbox, files: store })
  // The shelter's adoption site: its pages read through the features' services and are kept in the response cache; enquiries are counted in the limiter's store.
  const site = createSite({
    db,
    clock,
    generations,
    pets: pets.service,
    categories: categories.service,
    locations: locations.service,
    orders: orders.service,
    findProject: (slug) => projects.service.find(slug),
    limits: limits.backend.store,
    cache: cache.responses,
  })
  // A lifted ban ends in the running limiter's store.
  const keys = createKeys({ db, clock, config, authChanged, outbox, failures: outage, store: limits.backend.store })
  // Who is calling: the authenticator reads the keys through the keys feature's lookup.
  const { authenticator } = createAuth({ keys: keys.lookup, clock, config, generations })
  app.decorate('services', { projects: projects.service, keys: keys.service, pets: pets.service, photos: photos.service, locations: locations.service, orders: orders.service, webhooks, accounts: accounts.users })
  const audit = createAudit({ db, findProject: (slug) => projects.service.find(slug) })
  const domains = await createDomains({ config, db, clock, log, failures: outage, outbox, ...domainsOptions })
  // Started when the app is ready, closed in this order: the last usage counts and the attempts in
  // flight before the database. The domains' worker is installDomains' (started with host routing).
  runParts(app, [idempotency, outage, storage, usage.recorder, keys.service, webhooks.worker, photos.threads, photos.sweeper, generations, limits.limiter, database])

  // The routes: every request's pipeline first, then host routing, then each API.
  await installRequestPipeline(app, config, { outage, storage })
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema)
  const finishMethods = trackMethods(app)
  installMetrics(app, metrics)
  await registerOpenApi(app, config, webhooksDocument())
  await installDomains(app, domains, config)
  await registerAdminApi(app, {
    adminToken: config.adminToken,
    sessions: accounts.sessions,
    sessionRoutes: accounts.routes.sessions,
    findProject: (slug) => projects.service.find(slug),
    hostRouting: domains.router.enabled,
    routes: [
      projects.routes,
      keys.routes,
      usage.routes,
      domains.routes,
      audit.routes,
      accounts.routes.users,
      pets.routes.admin,
      photos.routes.admin,
      locations.routes.admin,
      categories.routes.admin,
      orders.routes.admin,
      site.routes.admin,
      webhooks.routes,
    ],
  })
  await app.register(named(ops.routes, 'ops'))
  await app.register(named(photos.routes.media, 'media'))
  // Photos' files already in memory are answered before routing; the route answers the rest.
  const countMedia = earlyAnswerCounter(metrics, MEDIA_ROUTE)
  early.answer = photos.routes.mediaEarly({
    servesApi: (host) => domains.router.servesApi(host),
    answered: (reqId, ms) => {
      countMedia(ms / 1000)
      log.debug({ reqId, method: 'GET', route: MEDIA_ROUTE, status: 200, ms: Math.round(ms * 10) / 10, early: true }, 'request completed')
    },
  })
  await installDashboard(app, { mediaBaseUrl: config.mediaBaseUrl })
  await app.register(named(indexRoutes), { site: site.routes.root })
  await app.register(named(site.routes.pages, 'site'))
  await registerPublicApi(app, {
    environment: config.environment,
    authenticator,
    generations,
    router: domains.router,
    limiter: limits.limiter,
    metrics,
    usage: usage.recorder,
    routes: [pets.routes.v1, photos.routes.v1, categories.routes.v1, locations.routes.v1, orders.routes.v1],
  })
  finishMethods()

  return app
}
