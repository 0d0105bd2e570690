import type { FastifyInstance } from 'fastify'
import type { Clock } from '../clock.js'
import type { Config } from '../config.js'
import type { Db } from '../db/database.js'
import type { Domains } from '../domains/domains.module.js'
import { domainsRoutes } from '../domains/domains.routes.js'
import { ApiKeySchema, NewApiKeySchema } from '../keys/keys.schemas.js'
import { keysRoutes } from '../keys/keys.routes.js'
import type { RateLimiter } from '../limits/limits.service.js'
import { projectsRoutes } from '../projects/projects.routes.js'
import { ProjectSchema } from '../projects/projects.schemas.js'
import type { UsageRecorder } from '../usage/usage.recorder.js'
import { usageRoutes } from '../usage/usage.routes.js'
import { UsageSchema } from '../usage/usage.schemas.js'

export interface AdminDependencies {
  config: Config
  db: Db
  clock: Clock
  limiter: RateLimiter
  usage: UsageRecorder
  domains: Domains
}

/**
 * Every route of the admin API, in one place: what `registerAdminApi` puts in its scope. The
 * shapes several operations answer are shared schemas of that scope: named in the admin
 * document's components, and kept out of the public one (see registerOpenApi).
 */
export function adminRoutes({ config, db, clock, limiter, usage, domains }: AdminDependencies): (admin: FastifyInstance) => Promise<void> {
  return async (admin) => {
    for (const schema of [ProjectSchema, ApiKeySchema, NewApiKeySchema, UsageSchema]) admin.addSchema(schema)
    await admin.register(projectsRoutes, { db, clock, platformDomain: config.platformDomain })
    await admin.register(keysRoutes, { db, clock, environment: config.environment, limiter })
    await admin.register(usageRoutes, { db, clock, usage })
    await admin.register(domainsRoutes, { domains: domains.service, onVerified: () => domains.worker.kick() })
  }
}
