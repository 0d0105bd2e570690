import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { Clock } from '../clock.js'
import type { Db } from '../db/database.js'
import type { FailureLog } from '../db/outage.js'
import { UsageRecorder } from './usage.recorder.js'
import { usageRoutes } from './usage.routes.js'
import { UsageService } from './usage.service.js'

export interface UsageDeps {
  db: Db
  clock: Clock
  log: FastifyBaseLogger
  /** Where a failed flush goes: a database outage or a full storage is logged once. */
  failures: FailureLog
}

/** Usage, wired: the recorder that counts /v1 traffic, the service that reads it back, its admin route. */
export interface UsageFeature {
  recorder: UsageRecorder
  service: UsageService
  /** `/projects/:slug/usage` of the admin API. */
  routes: FastifyPluginAsyncTypebox
}

export function createUsage({ db, clock, log, failures }: UsageDeps): UsageFeature {
  const recorder = new UsageRecorder(db, clock, log, failures)
  const service = new UsageService(db, clock, recorder)
  return { recorder, service, routes: (app) => usageRoutes(app, { usage: service }) }
}
