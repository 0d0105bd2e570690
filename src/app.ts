import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { AccountsService } from './accounts/accounts.service.js'
import { adminRoutes } from './admin/admin.module.js'
import { registerAdminApi } from './admin/admin.scope.js'
import { identifyCaller, requireApiKey } from './auth/auth.scope.js'
import { createGenerations } from './cache/generations.js'
import { ResponseCache } from './cache/response-cache.js'
import { type Clock, systemClock } from './clock.js'
import type { Config } from './config.js'
import type { DatabaseHandle } from './db/database.js'
import { DatabaseOutage } from './db/outage.js'
import { createDomains, type DomainsOptions, installDomains, restrictToSite } from './domains/domains.module.js'
import { ApiError, ErrorSchema } from './errors.js'
import { revalidatedJson, setDefaultResponseHeaders } from './http/caching.js'
import { answerClientError } from './http/client-errors.js'
import { installCompression } from './http/compression.js'
import { frameworkErrorHandler, installErrorHandling, notFound, sendError } from './http/error-handler.js'
import { answerHeadLikeGet } from './http/head.js'
import { installJsonBodyParser } from './http/json-body.js'
import { RequestLogController } from './http/logging.js'
import { trackMethods } from './http/method-not-allowed.js'
import { requestId } from './http/request-id.js'
import { checkUrlLength } from './http/request-limits.js'
import { buildValidator } from './http/validation.js'
import { Idempotency } from './idempotency/idempotency.service.js'
import { Authenticator, KeysService } from './keys/keys.service.js'
import { limitRequests } from './limits/limits.hook.js'
import { createLimiterBackend, RateLimiter } from './limits/limits.js'
import { registerOpenApi } from './openapi/openapi.js'
import { errorResponses } from './openapi/responses.js'
import { healthRoutes } from './ops/health.routes.js'
import { installMetrics, Metrics } from './ops/metrics.js'
import { ordersRoutes } from './orders/orders.routes.js'
import { NewOrderSchema, OrderSchema, OrdersSchema } from './orders/orders.schemas.js'
import { OrdersService } from './orders/orders.service.js'
import { petsRoutes } from './pets/pets.routes.js'
import { NewPetSchema, PetSchema, PetsSchema, PetStatusSchema } from './pets/pets.schemas.js'
import { PetsService } from './pets/pets.service.js'
import { ProjectsService } from './projects/projects.service.js'
import { recordUsage } from './usage/usage.hook.js'
import { UsageRecorder } from './usage/usage.recorder.js'
import { UsageService } from './usage/usage.service.js'
import { installDashboard } from './web/dashboard.module.js'
import { indexRoutes } from './web/index.routes.js'

/** Set by Node on the response to a connection's last allowed request; not in its types. */
type LastOnConnection = { maxRequestsOnConnectionReached?: boolean }

export interface AppOptions {
  config: Config
  /** An open, migrated database; the app closes it when it closes. */
  database: DatabaseHandle
  clock?: Clock
  /** Pino options or an instance; defaults to JSON logs at `config.logLevel`. */
  logger?: FastifyServerOptions['loggerInstance'] | false
  /** Custom domains' back ends (DNS, certificate authority); default: from configuration. */
  domains?: DomainsOptions
}

/**
 * Builds the service: the one composition root. It never listens; `server.ts` does, and tests
 * call `inject` on what this returns.
 */
export async function buildApp({ config, database, clock = systemClock, logger, domains: domainsOptions }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...(logger === undefined
      ? { logger: { level: config.logLevel, redact: ['req.headers.authorization'] } }
      : logger === false
        ? { logger: false }
        : { loggerInstance: logger }),
    bodyLimit: config.bodyLimit,
    // HEAD answers every GET route (RFC 9110): the GET's hooks, status and headers, no body. The
    // OpenAPI documents leave HEAD out (@fastify/swagger's default).
    exposeHeadRoutes: true,
    requestIdHeader: false,
    genReqId: requestId,
    logController: new RequestLogController(),
    // Answered below in the API's own error envelope instead.
    return503OnClosing: false,
    // One validator compiler for every scope (see buildValidator).
    schemaController: { compilersFactory: { buildValidator } },
    // Errors raised before routing, in the same envelope.
    frameworkErrors: frameworkErrorHandler(config),
    // And what the HTTP server refuses before a request exists (too slow, headers too large).
    clientErrorHandler: answerClientError,
    // A hop count is accepted at run time, though Fastify's types omit it.
    trustProxy: config.trustProxy as boolean | string,
  }).withTypeProvider<TypeBoxTypeProvider>()

  const { db } = database
  const outage = new DatabaseOutage(() => database.ping(), app.log)
  const metrics = new Metrics()
  const limiterBackend = await createLimiterBackend(config, clock, app.log, {
    onError: () => metrics.limiterErrors.inc(),
    onFallback: (active) => {
      metrics.limiterDegraded.set(active ? 1 : 0)
      if (active) metrics.limiterFallbacks.inc()
      // Back from an outage: Redis may have missed bumps meanwhile, so nothing cached is trusted.
      else forgetCaches()
    },
  })
  const generations = await createGenerations(database, limiterBackend, app.log)
  const authenticator = new Authenticator(db, clock, config.environment, generations)
  const responses = new ResponseCache(generations, config.responseCacheBytes, metrics.responseCacheCounters)
  const forgetCaches = () => {
    generations.forget()
    authenticator.forget()
    responses.clear()
  }
  const usage = new UsageRecorder(db, clock, app.log)
  const limiter = new RateLimiter(
    limiterBackend,
    db,
    clock,
    {
      onBan: (level, projectId) => {
        metrics.bans.inc({ level })
        usage.ban(projectId)
      },
    },
    generations.kind === 'shared',
  )
  await limiter.restoreBans()
  const idempotency = new Idempotency(db, clock)
  const accounts = new AccountsService(db, clock)
  const pets = new PetsService(db, clock, idempotency, generations)
  const orders = new OrdersService(db, clock, idempotency, generations)
  const domains = await createDomains(config, db, clock, app.log, domainsOptions)
  const projects = new ProjectsService(db, clock)
  const keys = new KeysService(db, clock, config.environment)
  const usageService = new UsageService(db, clock, usage)

  // Before any route: both equip each route as it is added, compression first.
  await installCompression(app)
  answerHeadLikeGet(app)
  // Any operation may be refused for the length of its URL (414, checked below): each says so.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide || !route.schema?.response) return
    route.schema = { ...route.schema, response: { ...(route.schema.response as object), ...errorResponses(414) } }
  })
  installErrorHandling(app, config, outage)
  // Only JSON bodies: anything else is 415, not a string that fails validation.
  installJsonBodyParser(app)
  for (const schema of [ErrorSchema, PetStatusSchema, NewPetSchema, PetSchema, PetsSchema, NewOrderSchema, OrderSchema, OrdersSchema]) {
    app.addSchema(schema)
  }

  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })
  // The hooks every request runs are callback-style where they do not wait: no promise each.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    setDefaultResponseHeaders(reply)
    // The first check of all: an overlong URL is refused whatever route it matched, before any work.
    const tooLong = checkUrlLength(request.url)
    if (tooLong) return done(tooLong)
    // Requests still arriving on open connections during shutdown are turned away, politely.
    if (!closing) return done()
    done(new ApiError('service_unavailable', 'This instance is shutting down: retry the request, another instance will answer.', { 'retry-after': '1' }))
  })
  // A request in flight when shutdown began ends its keep-alive connection with its answer: an
  // idle connection left open would hold `close()` (and the process) until the keep-alive timeout.
  // So does the last request a connection may carry (maxRequestsPerSocket): Node only announces
  // `Connection: close` then, and would keep the socket open for a client that ignores it.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing || (reply.raw as LastOnConnection).maxRequestsOnConnectionReached) reply.header('connection', 'close')
    done(null, payload)
  })
  // Idempotency keys are kept 24 hours; forget older ones in the background.
  let purge: NodeJS.Timeout | undefined
  app.addHook('onReady', async () => {
    purge = setInterval(() => void idempotency.purge().catch((err: unknown) => app.log.warn({ err }, 'idempotency purge failed')), 3_600_000)
    purge.unref()
    usage.start()
  })
  app.addHook('onClose', async () => {
    clearInterval(purge)
    outage.close()
    // The last counts, written while the database is still open.
    await usage.close().catch((err: unknown) => app.log.warn({ err }, 'usage counts not written at close'))
    generations.close?.()
    await limiterBackend.store.close()
    await database.close()
  })

  const finishMethods = trackMethods(app)
  installMetrics(app, metrics)
  await registerOpenApi(app, config)
  // Host routing runs before every other route's hooks; the admin API is its own scope.
  await installDomains(app, domains, config)
  await registerAdminApi(
    app,
    { adminToken: config.adminToken, findProject: (slug) => projects.find(slug), accounts, hostRouting: domains.router.enabled },
    adminRoutes({ config, projects, keys, limiter, usage: usageService, domains }),
  )
  await app.register(healthRoutes, { database, outage, limiter: limiterBackend })
  // The web dashboard's static files at /dashboard (not in the OpenAPI documents).
  await installDashboard(app)
  await app.register(indexRoutes)

  await app.register(
    async (v1) => {
      const finishMethods = trackMethods(v1)
      // Every /v1 request is identified and rate limited, unknown routes included.
      identifyCaller(v1, authenticator)
      restrictToSite(v1, domains.router)
      limitRequests(v1, limiter, metrics, authenticator, generations)
      recordUsage(v1, usage)
      v1.setNotFoundHandler((request, reply) => sendError(reply, notFound(request)))
      v1.get('/openapi.json', { schema: { hide: true } }, revalidatedJson(() => app.swagger()))
      await v1.register(async (scope) => {
        requireApiKey(scope, config.environment)
        await scope.register(petsRoutes, { pets, clock, cache: responses })
        await scope.register(ordersRoutes, { orders, cache: responses })
      })
      finishMethods()
    },
    { prefix: '/v1' },
  )
  finishMethods()

  return app
}
